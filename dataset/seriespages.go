package dataset

import (
	"encoding/binary"
	"math"
	"os"
	"slices"
	"unsafe"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"golang.org/x/sys/unix"
)

// The series values as this package writes them (uncompressed, no
// dictionary, version 1 data pages of PLAIN doubles with RLE/bit-packed
// levels) are read here straight from the file: one read of the column
// chunk into a buffer the worker keeps, the levels walked run by run (a
// month of a tenant is one run of repetition level 1 and, without gaps,
// one run of definition level 2), and the doubles copied once into their
// final place. Arrow's column reader copies the bytes three times on the
// way (into its chunk buffer, its page buffer, the decoded batch) and
// decodes every level into an array first: at 10,000 tenants that was
// 3.2 CPU seconds of classify's read, this path 1.
//
// Anything else (another writer's file, a compressed or dictionary
// encoded chunk, version 2 pages, a page that does not add up) makes
// fastValues return ok=false, and the caller reads the chunk with arrow's
// column reader, which also gives the errors for a damaged file.

// prefault maps in a large new slice's pages with one system call
// (madvise MADV_POPULATE_WRITE, Linux 5.14). The values are then written
// once, in order, into memory the process has never touched: with a fault
// every 4 KiB page, the faults cost more than the copy itself (about 1 of
// the read's 2 CPU seconds at 10,000 tenants on this machine's VM). Where
// the kernel does not know the advice, the pages fault in as before.
func prefault(v []float64) {
	if len(v)*8 < 1<<20 {
		return
	}
	unix.Madvise(unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*8), unix.MADV_POPULATE_WRITE)
}

// mapped returns g's file mapped read-only (mapped once, unmapped by
// close), or nil where it cannot be: the fast path then reads each chunk
// with pread. Reading the chunks from the mapping saves a copy of every
// byte (0.35 CPU s at 10,000 tenants). Dataset files are never changed
// once committed (a transaction writes new files), so the mapping cannot
// shrink under the reader.
func (g *groupReader) mapped() []byte {
	if g.mm != nil || g.mmFailed {
		return g.mm
	}
	g.mmFailed = true
	fi, err := g.f.Stat()
	if err != nil || fi.Size() <= 0 || fi.Size() > 1<<40 {
		return nil
	}
	mm, err := unix.Mmap(int(g.f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil
	}
	g.mm, g.mmFailed = mm, false
	return mm
}

// chunkBytes returns the size bytes at off of a file: from mm, the file
// mapped, or when mm is nil read with pread into *buf (grown when too
// small, and kept by the caller for the next chunk). False when they are
// not all there.
func chunkBytes(mm []byte, f *os.File, off, size int64, buf *[]byte) ([]byte, bool) {
	if off < 0 || size <= 0 || size > 1<<31 {
		return nil, false
	}
	if mm != nil {
		if off > int64(len(mm)) || size > int64(len(mm))-off {
			return nil, false
		}
		return mm[off : off+size], true
	}
	*buf = slices.Grow((*buf)[:0], int(size))[:size]
	if n, err := f.ReadAt(*buf, off); err != nil || int64(n) != size {
		return nil, false
	}
	return *buf, true
}

// pageScratch is one worker's reusable buffers of the fast path.
type pageScratch struct {
	chunk  []byte
	starts []int // list starts (level indexes) within the current page
}

// littleEndian: PLAIN doubles are little-endian, copied as they are.
var littleEndian = func() bool { x := uint16(1); return *(*byte)(unsafe.Pointer(&x)) == 1 }()

// fastValues reads the values chunk cc (leaf with maximum definition
// level 2 and repetition level 1: optional doubles in a list) of a row
// group of rows rows. It returns the elements (nulls as NaN) and each
// row's start in them (rows+1 entries). The elements go into dst when it
// is large enough (a buffer the caller reuses from group to group), else
// into a new slice. The chunk is read from mm (the file mapped) or, when
// mm is nil, from f.
func fastValues(dst []float64, mm []byte, f *os.File, cc *metadata.ColumnChunkMetaData, maxDef, maxRep int16, rows int, ps *pageScratch) (all []float64, starts []int, ok bool) {
	if !littleEndian || maxDef != 2 || maxRep != 1 || cc.Type() != parquet.Types.Double ||
		cc.Compression() != compress.Codecs.Uncompressed || cc.HasDictionaryPage() {
		return nil, nil, false
	}
	off, size, levels := cc.DataPageOffset(), cc.TotalCompressedSize(), cc.NumValues()
	if off < 0 || size <= 0 || size > 1<<31 || levels < 0 || levels > size {
		return nil, nil, false
	}
	b, bok := chunkBytes(mm, f, off, size, &ps.chunk)
	if !bok {
		return nil, nil, false
	}
	if int64(cap(dst)) >= levels {
		all = dst[:levels]
	} else {
		all = make([]float64, levels)
		prefault(all)
	}
	starts = make([]int, 0, rows+1)
	pos := 0       // elements written to all
	var seen int64 // levels consumed
	for p := 0; p < len(b); {
		h, n, hok := parsePageHeader(b[p:])
		if !hok || h.compressed < 0 || h.compressed != h.uncompressed || p+n+int(h.compressed) > len(b) {
			return nil, nil, false
		}
		body := b[p+n : p+n+int(h.compressed)]
		p += n + int(h.compressed)
		switch h.typ {
		case 1: // index page: nothing for the values
			continue
		case 0:
		default: // dictionary or version 2 data page
			return nil, nil, false
		}
		if h.encoding != 0 || h.defEnc != 3 || h.repEnc != 3 || h.numValues < 0 || int64(h.numValues) > levels-seen {
			return nil, nil, false
		}
		var pok bool
		if pos, starts, pok = decodePage(body, int(h.numValues), all, pos, starts, ps); !pok {
			return nil, nil, false
		}
		seen += int64(h.numValues)
	}
	if mm != nil {
		// Drop the chunk's pages from this mapping (the page cache keeps
		// them): otherwise the whole file counts in the process's RSS.
		pg := int64(os.Getpagesize())
		lo, hi := off/pg*pg, min((off+size+pg-1)/pg*pg, int64(len(mm)))
		unix.Madvise(mm[lo:hi], unix.MADV_DONTNEED)
	}
	if seen != levels || len(starts) != rows {
		return nil, nil, false
	}
	return all[:pos], append(starts, pos), true // capacity kept: ScanSeries reuses the buffer
}

// decodePage decodes one version 1 data page of n levels into all[pos:],
// appending the element index of every list start to starts.
func decodePage(body []byte, n int, all []float64, pos int, starts []int, ps *pageScratch) (int, []int, bool) {
	rep, body, ok := levelBytes(body)
	if !ok {
		return pos, starts, false
	}
	def, vals, ok := levelBytes(body)
	if !ok || len(vals)%8 != 0 {
		return pos, starts, false
	}
	// List starts (repetition level 0), as level indexes of this page.
	ls := ps.starts[:0]
	r := hybrid{b: rep, width: 1}
	for l := 0; l < n; {
		v, c, packed, ok := r.next(n - l)
		if !ok {
			return pos, starts, false
		}
		switch {
		case packed != nil:
			for i := 0; i < c; i++ {
				if packed[i/8]>>(i%8)&1 == 0 {
					ls = append(ls, l+i)
				}
			}
		case v == 0:
			for i := 0; i < c; i++ {
				ls = append(ls, l+i)
			}
		case v != 1:
			return pos, starts, false
		}
		l += c
	}
	ps.starts = ls
	// Elements: definition level 2 is a value, 1 a null (NaN), 0 an
	// empty list (no element).
	nv := len(vals) / 8
	vi, si := 0, 0
	d := hybrid{b: def, width: 2}
	for l := 0; l < n; {
		v, c, packed, ok := d.next(n - l)
		if !ok {
			return pos, starts, false
		}
		if packed != nil {
			for i := 0; i < c; i, l = i+1, l+1 {
				if si < len(ls) && ls[si] == l {
					starts = append(starts, pos)
					si++
				}
				switch (packed[(2*i)/8] >> ((2 * i) % 8)) & 3 {
				case 2:
					if vi >= nv || pos >= len(all) {
						return pos, starts, false
					}
					all[pos] = math.Float64frombits(binary.LittleEndian.Uint64(vals[8*vi:]))
					vi++
					pos++
				case 1:
					if pos >= len(all) {
						return pos, starts, false
					}
					all[pos] = math.NaN()
					pos++
				case 0:
				default:
					return pos, starts, false
				}
			}
			continue
		}
		for si < len(ls) && ls[si] < l+c {
			if v >= 1 {
				starts = append(starts, pos+ls[si]-l)
			} else {
				starts = append(starts, pos)
			}
			si++
		}
		switch v {
		case 2:
			if vi+c > nv || pos+c > len(all) {
				return pos, starts, false
			}
			dst := unsafe.Slice((*byte)(unsafe.Pointer(&all[pos])), 8*c)
			copy(dst, vals[8*vi:8*(vi+c)])
			vi += c
			pos += c
		case 1:
			if pos+c > len(all) {
				return pos, starts, false
			}
			nan := math.NaN()
			for i := range all[pos : pos+c] {
				all[pos+i] = nan
			}
			pos += c
		case 0:
		default:
			return pos, starts, false
		}
		l += c
	}
	return pos, starts, vi == nv && si == len(ls)
}

// levelBytes splits a version 1 page's RLE level block (a 4-byte
// little-endian length, then the runs) from what follows it.
func levelBytes(b []byte) (levels, rest []byte, ok bool) {
	if len(b) < 4 {
		return nil, nil, false
	}
	n := binary.LittleEndian.Uint32(b)
	if uint64(n) > uint64(len(b)-4) {
		return nil, nil, false
	}
	return b[4 : 4+n], b[4+n:], true
}

// hybrid walks Parquet's RLE/bit-packed hybrid runs of width-bit values
// (width ≤ 8).
type hybrid struct {
	b     []byte
	width int
}

// next returns the next run, at most max values long: a repeated value
// v × c, or c bit-packed values in packed (packed is nil for a repeated
// run). Bit-packed runs come in groups of 8 values whose padding is cut
// off by max.
func (h *hybrid) next(max int) (v, c int, packed []byte, ok bool) {
	hdr, n := binary.Uvarint(h.b)
	if n <= 0 || max <= 0 {
		return 0, 0, nil, false
	}
	h.b = h.b[n:]
	if hdr&1 == 0 { // repeated
		c := hdr >> 1
		if c == 0 || len(h.b) < 1 || c > uint64(1<<31) {
			return 0, 0, nil, false
		}
		v := int(h.b[0])
		h.b = h.b[1:] // ⌈width/8⌉ = 1 byte
		if v >= 1<<h.width {
			return 0, 0, nil, false
		}
		return v, int(min(c, uint64(max))), nil, true
	}
	groups := hdr >> 1
	if groups == 0 || groups > uint64(len(h.b)) {
		return 0, 0, nil, false
	}
	nb := int(groups) * h.width // 8 values of width bits = width bytes
	if nb > len(h.b) {
		return 0, 0, nil, false
	}
	packed = h.b[:nb]
	h.b = h.b[nb:]
	return 0, int(min(groups*8, uint64(max))), packed, true
}

// pageHeader is the part of Parquet's thrift PageHeader the fast paths
// (series values here, usage columns in usagepages.go) need.
type pageHeader struct {
	typ, uncompressed, compressed       int32
	numValues, encoding, defEnc, repEnc int32 // of a data page (typ 0)
	dictValues, dictEncoding            int32 // of a dictionary page (typ 2)
}

// parsePageHeader decodes a thrift compact-protocol PageHeader and returns
// it with its length in bytes.
func parsePageHeader(b []byte) (pageHeader, int, bool) {
	r := &compactReader{b: b}
	var h pageHeader
	var id int16
	for {
		fid, typ := r.field(&id)
		if r.bad {
			return h, 0, false
		}
		if typ == 0 {
			break
		}
		switch {
		case fid == 1 && typ == 5:
			h.typ = int32(r.zigzag())
		case fid == 2 && typ == 5:
			h.uncompressed = int32(r.zigzag())
		case fid == 3 && typ == 5:
			h.compressed = int32(r.zigzag())
		case fid == 5 && typ == 12: // DataPageHeader
			r.i32Fields(func(id int16, v int32) {
				switch id {
				case 1:
					h.numValues = v
				case 2:
					h.encoding = v
				case 3:
					h.defEnc = v
				case 4:
					h.repEnc = v
				}
			})
		case fid == 7 && typ == 12: // DictionaryPageHeader
			r.i32Fields(func(id int16, v int32) {
				switch id {
				case 1:
					h.dictValues = v
				case 2:
					h.dictEncoding = v
				}
			})
		default:
			r.skip(typ, 0)
		}
	}
	return h, r.p, !r.bad
}

// i32Fields reads a struct, calling set with the id and value of each i32
// field and skipping the others.
func (r *compactReader) i32Fields(set func(id int16, v int32)) {
	var id int16
	for !r.bad {
		f, t := r.field(&id)
		switch {
		case t == 0 || r.bad:
			return
		case t == 5:
			set(f, int32(r.zigzag()))
		default:
			r.skip(t, 0)
		}
	}
}

// compactReader reads the thrift compact protocol; bad is set on the first
// malformed or truncated input and every read after it returns zero.
type compactReader struct {
	b   []byte
	p   int
	bad bool
}

func (r *compactReader) byte() byte {
	if r.bad || r.p >= len(r.b) {
		r.bad = true
		return 0
	}
	c := r.b[r.p]
	r.p++
	return c
}

func (r *compactReader) uvarint() uint64 {
	if r.bad {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.p:])
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.p += n
	return v
}

func (r *compactReader) zigzag() int64 {
	v := r.uvarint()
	return int64(v>>1) ^ -int64(v&1)
}

// field reads a field header: its id (from the delta or in full) and
// type; type 0 is the end of the struct.
func (r *compactReader) field(last *int16) (int16, byte) {
	c := r.byte()
	typ := c & 0x0f
	if typ == 0 {
		return 0, 0
	}
	if d := c >> 4; d != 0 {
		*last += int16(d)
	} else {
		*last = int16(r.zigzag())
	}
	return *last, typ
}

// skip passes over a value of compact type typ.
func (r *compactReader) skip(typ byte, depth int) {
	if depth > 32 {
		r.bad = true
		return
	}
	switch typ {
	case 1, 2: // booleans in a field header carry their value
	case 3:
		r.byte()
	case 4, 5, 6:
		r.uvarint()
	case 7:
		if r.p+8 > len(r.b) {
			r.bad = true
			return
		}
		r.p += 8
	case 8:
		n := r.uvarint()
		if r.bad || n > uint64(len(r.b)-r.p) {
			r.bad = true
			return
		}
		r.p += int(n)
	case 9, 10:
		c := r.byte()
		n, et := uint64(c>>4), c&0x0f
		if n == 15 {
			n = r.uvarint()
		}
		if n > uint64(len(r.b)) {
			r.bad = true
			return
		}
		for i := uint64(0); i < n && !r.bad; i++ {
			if et == 1 || et == 2 { // a boolean element is a byte
				r.byte()
			} else {
				r.skip(et, depth+1)
			}
		}
	case 11:
		n := r.uvarint()
		if n == 0 || r.bad {
			return
		}
		if n > uint64(len(r.b)) {
			r.bad = true
			return
		}
		kv := r.byte()
		for i := uint64(0); i < n && !r.bad; i++ {
			for _, t := range []byte{kv >> 4, kv & 0x0f} {
				if t == 1 || t == 2 {
					r.byte()
				} else {
					r.skip(t, depth+1)
				}
			}
		}
	case 12:
		var id int16
		for !r.bad {
			_, t := r.field(&id)
			if t == 0 {
				return
			}
			r.skip(t, depth+1)
		}
	default:
		r.bad = true
	}
}
