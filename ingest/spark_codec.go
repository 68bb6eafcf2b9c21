package ingest

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/s2"
	"github.com/pierrec/lz4/v4"
)

// Spark compresses event logs with its own codecs (spark.io.compression.codec
// or spark.eventLog.compression.codec). zstd is standard frames and Input
// reads it; lz4 and snappy are the framings of lz4-java's
// LZ4BlockOutputStream and snappy-java's SnappyOutputStream, read here;
// lzf is refused by name.
var (
	lz4BlockMagic = []byte("LZ4Block")
	snappyMagic   = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}
	lzfMagic      = []byte("ZV")
)

// sparkCodec names the Spark codec of a stream head, "" for plain.
func sparkCodec(head []byte) string {
	switch {
	case bytes.HasPrefix(head, lz4BlockMagic):
		return "lz4"
	case bytes.HasPrefix(head, snappyMagic):
		return "snappy"
	case bytes.HasPrefix(head, lzfMagic) && len(head) > 2 && head[2] <= 1:
		return "lzf"
	}
	return ""
}

// maxSparkBlock bounds one compressed block (lz4-java allows 32 MiB,
// Spark writes 32 KiB by default): a corrupt length fails instead of
// allocating gigabytes.
const maxSparkBlock = 32 << 20

var errCorrupt = errors.New("corrupt compressed stream")

// lz4BlockReader decodes lz4-java's block stream: blocks of
// "LZ4Block", a token (method 0x10 raw or 0x20 LZ4, level), compressed and
// decompressed lengths and an xxhash32 checksum (little endian), then the
// data; an empty block ends the stream. The framing is lz4-java's own, not
// the LZ4 frame format, so it is read here; the blocks inside are raw LZ4
// blocks, decoded by pierrec/lz4. Checksums are not verified: a corrupt
// block fails to decode or yields lines the parser rejects.
type lz4BlockReader struct {
	r        *bufio.Reader
	buf, out []byte
	pos      int
	done     bool
}

func (z *lz4BlockReader) Read(p []byte) (int, error) {
	for z.pos == len(z.out) {
		if z.done {
			return 0, io.EOF
		}
		if err := z.next(); err != nil {
			return 0, err
		}
	}
	n := copy(p, z.out[z.pos:])
	z.pos += n
	return n, nil
}

func (z *lz4BlockReader) next() error {
	var h [21]byte
	if _, err := io.ReadFull(z.r, h[:]); err != nil {
		if err == io.EOF {
			z.done = true // a stream cut after a whole block
			return nil
		}
		return fmt.Errorf("lz4: truncated block header: %w", errCorrupt)
	}
	if !bytes.Equal(h[:8], lz4BlockMagic) {
		return fmt.Errorf("lz4: block without LZ4Block magic: %w", errCorrupt)
	}
	method := h[8] & 0xf0
	clen := int(binary.LittleEndian.Uint32(h[9:]))
	dlen := int(binary.LittleEndian.Uint32(h[13:]))
	if clen < 0 || dlen < 0 || clen > maxSparkBlock || dlen > maxSparkBlock || (method == 0x10 && clen != dlen) || (method != 0x10 && method != 0x20) {
		return fmt.Errorf("lz4: bad block header (method %#x, %d → %d bytes): %w", method, clen, dlen, errCorrupt)
	}
	if dlen == 0 {
		z.done = true
		z.out, z.pos = z.out[:0], 0
		return nil
	}
	z.buf = grow(z.buf, clen)
	if _, err := io.ReadFull(z.r, z.buf); err != nil {
		return fmt.Errorf("lz4: truncated block: %w", errCorrupt)
	}
	if method == 0x10 {
		z.out = append(z.out[:0], z.buf...)
	} else {
		z.out = grow(z.out, dlen)
		n, err := lz4.UncompressBlock(z.buf, z.out)
		if err != nil {
			return fmt.Errorf("lz4: %v: %w", err, errCorrupt)
		}
		if n != dlen {
			return fmt.Errorf("lz4: block decodes to %d bytes, header says %d: %w", n, dlen, errCorrupt)
		}
	}
	z.pos = 0
	return nil
}

func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}

// snappyStreamReader decodes snappy-java's stream: a 16-byte header (magic,
// version, compatible version), then chunks of a big-endian length and a
// raw snappy block.
type snappyStreamReader struct {
	r        *bufio.Reader
	buf, out []byte
	pos      int
	started  bool
}

func (z *snappyStreamReader) Read(p []byte) (int, error) {
	for z.pos == len(z.out) {
		if err := z.next(); err != nil {
			return 0, err
		}
	}
	n := copy(p, z.out[z.pos:])
	z.pos += n
	return n, nil
}

func (z *snappyStreamReader) next() error {
	if !z.started {
		var h [16]byte
		if _, err := io.ReadFull(z.r, h[:]); err != nil || !bytes.Equal(h[:8], snappyMagic) {
			return fmt.Errorf("snappy: bad stream header: %w", errCorrupt)
		}
		z.started = true
	}
	var l [4]byte
	if _, err := io.ReadFull(z.r, l[:]); err != nil {
		if err == io.EOF {
			return io.EOF
		}
		return fmt.Errorf("snappy: truncated chunk length: %w", errCorrupt)
	}
	clen := int(binary.BigEndian.Uint32(l[:]))
	if clen < 0 || clen > maxSparkBlock {
		return fmt.Errorf("snappy: chunk of %d bytes: %w", clen, errCorrupt)
	}
	z.buf = grow(z.buf, clen)
	if _, err := io.ReadFull(z.r, z.buf); err != nil {
		return fmt.Errorf("snappy: truncated chunk: %w", errCorrupt)
	}
	dlen, err := s2.DecodedLen(z.buf)
	if err != nil || dlen > maxSparkBlock {
		return fmt.Errorf("snappy: bad chunk: %w", errCorrupt)
	}
	if z.out, err = s2.Decode(grow(z.out, dlen), z.buf); err != nil {
		return fmt.Errorf("snappy: %v: %w", err, errCorrupt)
	}
	z.pos = 0
	return nil
}
