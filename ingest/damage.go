package ingest

import (
	"bytes"
	"fmt"
	"io"
)

// A compressed input that is damaged part way (a gzip file cut short, a
// bad checksum, a corrupt zstd frame) reads, for every format, as what
// came before the damage: the records up to the last whole line are
// ingested, and the rest of the file is one reject that says why (issue
// 22 #12). damageReader does that between the decompressor and the
// parser: it hands out bytes up to the last newline it has seen, and on a
// decompression error it drops the incomplete line (so a cut number never
// reads as a smaller one), remembers the error and ends the stream.
type damageReader struct {
	r           io.Reader
	compression string
	buf         []byte
	start       int // buf[start:ready] is handed out next
	ready       int // buf[ready:end] waits for its newline
	end         int
	done        bool
	given       int64 // bytes handed out
	lines       int64 // newlines handed out
	damage      error
	dropped     int // bytes of the incomplete line dropped at the damage
}

// damageHold bounds the bytes held back waiting for a newline: a binary
// format (or one very long line) is handed out without one.
const damageHold = 1 << 20

// damageStart is the buffer a damageReader starts with; it doubles up to
// 2 × damageHold only when a stretch without newline needs it, so a small
// compressed file does not cost 2 MiB (the fuzz targets open thousands a
// second).
const damageStart = 64 << 10

func newDamageReader(r io.Reader, compression string) *damageReader {
	return &damageReader{r: r, compression: compression, buf: make([]byte, damageStart)}
}

func (d *damageReader) Read(p []byte) (int, error) {
	for d.start == d.ready {
		if d.done {
			return 0, io.EOF
		}
		if d.start > 0 { // move what is held to the front
			d.end = copy(d.buf, d.buf[d.start:d.end])
			d.start, d.ready = 0, 0
		}
		if d.end >= damageHold {
			d.ready = d.end // no newline in a long stretch: hand it out as it is
			break
		}
		if d.end == len(d.buf) { // below damageHold, so at most half the cap: double it
			b := make([]byte, 2*len(d.buf))
			copy(b, d.buf[:d.end])
			d.buf = b
		}
		n, err := d.r.Read(d.buf[d.end:])
		d.end += n
		if i := bytes.LastIndexByte(d.buf[d.ready:d.end], '\n'); i >= 0 {
			d.ready += i + 1
		}
		switch {
		case err == io.EOF:
			d.ready, d.done = d.end, true
		case err != nil:
			d.damage, d.dropped, d.done = err, d.end-d.ready, true
			d.end = d.ready
		}
	}
	n := copy(p, d.buf[d.start:d.ready])
	d.lines += int64(bytes.Count(p[:n], []byte{'\n'}))
	d.given += int64(n)
	d.start += n
	return n, nil
}

// err is the damage as a reject's reason, or nil.
func (d *damageReader) err() error {
	if d == nil || d.damage == nil {
		return nil
	}
	return fmt.Errorf("the %s stream is damaged after %d decompressed bytes (%d lines): %v; what came before was read, the rest of the file (including %d bytes of an incomplete line) was not",
		d.compression, d.given, d.lines, d.damage, d.dropped)
}
