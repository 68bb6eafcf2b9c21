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
	"runtime/debug"
	"sync/atomic"
	"syscall"

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
	damaged     *damageReader // the decompressed stream, for its damage
	// read is how many bytes of the raw file the parser has gone
	// through, for progress (Progress); atomic, read from another
	// goroutine.
	read atomic.Int64

	// An uncompressed regular file is mapped instead of read: parsers work
	// on the page cache directly, with no copy, and hash it block by block.
	data     []byte
	hashed   int     // data[:hashed] has been hashed
	released int     // data[:released] has been given back to the kernel
	inMemory bool    // data is ordinary memory (openMemory), not a mapping: never released
	bg       *hasher // hashing data on its own goroutine, while a reader hands it out (hashTo)
}

type countingHash struct {
	r    io.Reader
	h    hash.Hash
	n    int64
	read *atomic.Int64
}

func (c *countingHash) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.h.Write(p[:n])
	c.n += int64(n)
	c.read.Add(int64(n))
	return n, err
}

// Progress is how many bytes of the raw file (compressed, as it lies on
// disk) the parser has gone through so far, out of Size. Safe to call
// from another goroutine while the input is read.
func (in *Input) Progress() int64 { return in.read.Load() }

// progressReader counts what is read of a mapped input through Reader.
type progressReader struct {
	r    io.Reader
	read *atomic.Int64
}

func (p progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.read.Add(int64(n))
	return n, err
}

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// ReadBufferSize is the buffer of an input's decompressed stream.
const ReadBufferSize = 1 << 20

// streamBuffer sizes a stream's buffer for n bytes expected through it:
// ReadBufferSize for large inputs, less for small ones (a 1 MiB buffer per
// kilobyte-sized file was most of the cost of opening it), never below
// least (headBytes for a decompressed stream, which Head peeks into).
func streamBuffer(n int64, least int) int {
	return int(min(max(n, int64(least)), ReadBufferSize))
}

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
	in := &Input{Path: path, Size: st.Size(), f: f}
	raw := &countingHash{r: f, h: sha256.New(), read: &in.read}
	in.raw = raw
	if in.mapFile(st) {
		return in, nil
	}
	if err := in.openStream(st.Size()); err != nil {
		f.Close()
		return nil, err
	}
	return in, nil
}

// openStream reads in.raw, size bytes, through a buffer and sees through
// gzip and zstd compression.
func (in *Input) openStream(size int64) error {
	br := bufio.NewReaderSize(in.raw, streamBuffer(size, 4<<10))
	head, _ := br.Peek(4)
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		zr, err := gzip.NewReader(br)
		if err != nil {
			return fmt.Errorf("%s: gzip: %w", in.Path, err)
		}
		zr.Multistream(true)
		in.Compression = "gzip"
		in.closers = append(in.closers, func() { zr.Close() })
		in.damaged = newDamageReader(zr, in.Compression)
		br = bufio.NewReaderSize(in.damaged, streamBuffer(64*size, headBytes))
	case bytes.HasPrefix(head, zstdMagic):
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return fmt.Errorf("%s: zstd: %w", in.Path, err)
		}
		in.Compression = "zstd"
		in.closers = append(in.closers, zr.Close)
		in.damaged = newDamageReader(zr, in.Compression)
		br = bufio.NewReaderSize(in.damaged, streamBuffer(64*size, headBytes))
	}
	in.r = br
	return nil
}

// mapBlock is the granularity of hashing and releasing a mapped input.
const mapBlock = 8 << 20

// mapFile maps an uncompressed regular file. It reports false (and leaves
// the stream path to do the work) for compressed, empty or unmappable files.
func (in *Input) mapFile(st os.FileInfo) bool {
	if !st.Mode().IsRegular() || st.Size() < 4 || st.Size() != int64(int(st.Size())) {
		return false
	}
	var head [4]byte
	if _, err := in.f.ReadAt(head[:], 0); err != nil || bytes.HasPrefix(head[:], gzipMagic) || bytes.HasPrefix(head[:], zstdMagic) {
		return false
	}
	data, err := syscall.Mmap(int(in.f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return false
	}
	_ = syscall.Madvise(data, syscall.MADV_SEQUENTIAL)
	in.data = data
	in.closers = append(in.closers, func() { syscall.Munmap(data) })
	return true
}

// Mapped returns the whole content of a mapped input, or nil when the
// input is a stream (compressed, or not a regular file).
func (in *Input) Mapped() []byte { return in.data }

// consumed tells a mapped input that a parser is done with data[:pos]: the
// blocks before it are hashed (those not hashed yet, see hashTo), and
// blocks well behind are handed back so resident memory stays bounded on
// inputs larger than RAM.
func (in *Input) consumed(pos int) {
	if int64(pos) > in.read.Load() {
		in.read.Store(int64(pos))
	}
	hashed := in.hashed
	if in.bg != nil {
		hashed = int(in.bg.at.Load())
	} else {
		for in.hashed+mapBlock <= pos {
			in.raw.h.Write(in.data[in.hashed : in.hashed+mapBlock])
			in.hashed += mapBlock
		}
		hashed = in.hashed
	}
	for !in.inMemory && in.released+2*mapBlock <= min(hashed, pos) {
		_ = syscall.Madvise(in.data[in.released:in.released+mapBlock], syscall.MADV_DONTNEED)
		in.released += mapBlock
	}
}

// hasher hashes a mapped input on a goroutine of its own, piece after
// piece in input order, as a reader hands the pieces to its parsers
// (hashTo): the parallel CSV's single consumer, which hashed them itself,
// was the stage its parse workers waited for.
type hasher struct {
	ends chan int // hash up to each end, in order
	done chan struct{}
	at   atomic.Int64 // hashed up to here
	// fault is a recovered panic (the file shrank while mapped); the
	// ends after it are drained without hashing.
	fault   any
	site    string
	touched byte // what hashAhead read ahead, kept so that its reads are
}

// hashPiece is how much of a mapped input the hasher hands SHA-256 at a
// time: it first reads one byte of each cache line of the next piece.
const hashPiece = 64 << 10

// hashAhead writes data[pos:end] to w a piece at a time, first reading the
// next piece's cache lines (and faulting in its pages): those reads do not
// wait for one another, so memory serves them at once, where SHA-256 alone
// waits for each line of a file that is not in the cache in turn.
func hashAhead(w io.Writer, data []byte, pos, end int) byte {
	var t byte
	for pos < end {
		next := min(pos+hashPiece, end)
		for j := next; j < min(next+hashPiece, len(data)); j += 64 {
			t += data[j]
		}
		w.Write(data[pos:next])
		pos = next
	}
	return t
}

// hashQueue bounds the pieces handed out and not yet hashed; the pages of
// those are not released (consumed), so it also bounds resident memory.
const hashQueue = 16

// hashTo has the input hashed up to end on the hasher goroutine (started
// at the first call), from the bytes parsers then read. It is called from
// the goroutine that calls consumed; SHA256 and Close wait for the hash.
func (in *Input) hashTo(end int) {
	if in.bg == nil {
		h := &hasher{ends: make(chan int, hashQueue), done: make(chan struct{})}
		h.at.Store(int64(in.hashed))
		in.bg = h
		go h.run(in.data, in.hashed, in.raw.h)
	}
	in.bg.ends <- end
}

func (h *hasher) run(data []byte, pos int, w io.Writer) {
	defer close(h.done)
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	for end := range h.ends {
		if h.fault != nil || end <= pos {
			continue
		}
		func() {
			defer func() {
				if e := recover(); e != nil {
					h.fault, h.site = e, panicSite()
				}
			}()
			h.touched += hashAhead(w, data, pos, end)
		}()
		pos = end
		h.at.Store(int64(end))
	}
}

// stopHash waits for the hasher (when there is one) to hash what it was
// handed, and takes the hash back: an error when the file changed under it.
func (in *Input) stopHash() error {
	h := in.bg
	if h == nil {
		return nil
	}
	close(h.ends)
	<-h.done
	in.bg = nil
	in.hashed = int(h.at.Load())
	if h.fault != nil {
		return recovered(in.Path, "hash", h.fault, h.site)
	}
	return nil
}

// Reader is the decompressed content.
func (in *Input) Reader() *bufio.Reader {
	if in.r == nil {
		in.r = bufio.NewReaderSize(progressReader{bytes.NewReader(in.data), &in.read}, streamBuffer(int64(len(in.data)), 4<<10))
	}
	return in.r
}

// Head returns up to n bytes of decompressed content without consuming them.
func (in *Input) Head(n int) []byte {
	if in.data != nil {
		return in.data[:min(n, len(in.data))]
	}
	b, _ := in.r.Peek(n)
	return b
}

// SHA256 finishes reading the raw file (a parser may stop before the end of
// a compressed stream) and returns its hex digest.
func (in *Input) SHA256() (string, error) {
	if err := in.stopHash(); err != nil {
		return "", err
	}
	if in.data != nil {
		in.raw.h.Write(in.data[in.hashed:])
		in.hashed = len(in.data)
		in.read.Store(int64(len(in.data)))
	} else if _, err := io.Copy(io.Discard, in.raw); err != nil {
		return "", err
	}
	return hex.EncodeToString(in.raw.h.Sum(nil)), nil
}

// Damage is why a compressed input ended before its end, once it has
// been read to where it did (see damageReader), or nil.
func (in *Input) Damage() error { return in.damaged.err() }

// Close releases the file, the mapping and any decompressor.
func (in *Input) Close() error {
	_ = in.stopHash() // before the mapping goes
	for _, c := range in.closers {
		c()
	}
	in.closers = nil
	if in.f == nil {
		return nil
	}
	return in.f.Close()
}

// openMemory is an Input over data as if it were a file at path: mapped
// when uncompressed, a stream through the same decompression as Open's when
// compressed. The parsers see what Open would give them, without a file
// (the fuzz targets run a parser thousands of times a second). It reports
// false for data Open would refuse (a bad gzip header: open the file to get
// Open's error). Tiny data (under 4 bytes) is a stream, as Open reads it.
func openMemory(path string, data []byte) (*Input, bool) {
	if len(data) < 4 || bytes.HasPrefix(data, gzipMagic) || bytes.HasPrefix(data, zstdMagic) {
		in := &Input{Path: path, Size: int64(len(data))}
		in.raw = &countingHash{r: bytes.NewReader(data), h: sha256.New(), read: &in.read}
		if err := in.openStream(in.Size); err != nil {
			in.Close()
			return nil, false
		}
		return in, true
	}
	in := &Input{Path: path, Size: int64(len(data)), data: data, inMemory: true}
	in.raw = &countingHash{r: bytes.NewReader(nil), h: sha256.New(), read: &in.read}
	return in, true
}
