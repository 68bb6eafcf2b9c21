package ingest

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Input is one opened input file: its decompressed bytes, plus the size and
// SHA-256 of the raw file as it lies on disk, for the manifest.
type Input struct {
	Path        string
	Size        int64
	Compression string // "", "gzip" or "zstd"
	r           *bufio.Reader
	f           *os.File
	raw         *countingHash
	closers     []func()
}

type countingHash struct {
	r io.Reader
	h hash.Hash
	n int64
}

func (c *countingHash) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.h.Write(p[:n])
	c.n += int64(n)
	return n, err
}

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// ReadBufferSize is the buffer of an input's decompressed stream.
const ReadBufferSize = 1 << 20

// Open opens path and sees through gzip and zstd compression, told by the
// magic bytes rather than the file name.
func Open(path string) (*Input, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s: is a directory", path)
	}
	raw := &countingHash{r: f, h: sha256.New()}
	in := &Input{Path: path, Size: st.Size(), f: f, raw: raw}
	br := bufio.NewReaderSize(raw, ReadBufferSize)
	head, _ := br.Peek(4)
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		zr, err := gzip.NewReader(br)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: gzip: %w", path, err)
		}
		zr.Multistream(true)
		in.Compression = "gzip"
		in.closers = append(in.closers, func() { zr.Close() })
		br = bufio.NewReaderSize(zr, ReadBufferSize)
	case bytes.HasPrefix(head, zstdMagic):
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1))
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: zstd: %w", path, err)
		}
		in.Compression = "zstd"
		in.closers = append(in.closers, zr.Close)
		br = bufio.NewReaderSize(zr, ReadBufferSize)
	}
	in.r = br
	return in, nil
}

// Reader is the decompressed content.
func (in *Input) Reader() *bufio.Reader { return in.r }

// Head returns up to n bytes of decompressed content without consuming them.
func (in *Input) Head(n int) []byte {
	b, _ := in.r.Peek(n)
	return b
}

// SHA256 finishes reading the raw file (a parser may stop before the end of
// a compressed stream) and returns its hex digest.
func (in *Input) SHA256() (string, error) {
	if _, err := io.Copy(io.Discard, in.raw); err != nil {
		return "", err
	}
	return hex.EncodeToString(in.raw.h.Sum(nil)), nil
}

// Close releases the file and any decompressor.
func (in *Input) Close() error {
	for _, c := range in.closers {
		c()
	}
	return in.f.Close()
}
