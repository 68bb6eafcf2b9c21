package pq

import (
	"encoding/binary"
	"math"
	"slices"
	"unsafe"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/klauspost/compress/zstd"
)

// PageReader walks the pages of column chunks, with a zstd decoder and
// buffers it keeps from chunk to chunk. One per goroutine.
type PageReader struct {
	zstd *zstd.Decoder
	page []byte  // the current page, decompressed
	defs []int32 // its definition levels
}

// Close releases the zstd decoder.
func (s *PageReader) Close() {
	if s.zstd != nil {
		s.zstd.Close()
		s.zstd = nil
	}
}

// Walk walks the pages of the column chunk b (its bytes as in the file,
// compressed with codec: zstd or none) of a flat column (maximum
// definition level maxDef, 0 or 1; no repetition) with rows levels: dict
// gets a dictionary page's value count and body, data each version 1 data
// page's encoding, level count, definition levels (nil for a required
// column) and the bytes after them. Bodies are only valid during the
// call. It reports false when a callback does, or when the chunk is not
// such pages adding up to rows levels.
func (s *PageReader) Walk(b []byte, codec compress.Compression, maxDef int16, rows int,
	dict func(n int, body []byte) bool, data func(enc int32, levels int, defs []int32, vals []byte) bool) bool {
	return s.WalkLevels(b, codec, maxDef, rows, dict, func(enc int32, levels int, def, vals []byte) bool {
		var defs []int32
		if maxDef == 1 {
			s.defs = slices.Grow(s.defs[:0], levels)[:levels]
			if !UnpackHybrid(def, 1, s.defs) {
				return false
			}
			defs = s.defs
		}
		return data(enc, levels, defs, vals)
	})
}

// ListScratch is DoubleLists' reusable state. One per goroutine.
type ListScratch struct {
	starts []int      // list starts (level indexes) within the current page
	dict   []float64  // the chunk's dictionary
	ids    DictStream // the current page's ids
}

// DataLevels returns the levels of the data pages of the uncompressed
// column chunk b, from the page headers alone; false when a header does
// not parse or fit in b, or a page has more than maxPage levels. A reader
// checks a chunk's level count with it before sizing a buffer by it.
func DataLevels(b []byte, maxPage int32) (int64, bool) {
	var levels int64
	for p := 0; p < len(b); {
		h, n, ok := ParsePageHeader(b[p:])
		if !ok || h.Compressed < 0 || int64(h.Compressed) > int64(len(b)-p-n) {
			return 0, false
		}
		p += n + int(h.Compressed)
		if h.Type == DataPage {
			if h.NumValues < 0 || h.NumValues > maxPage {
				return 0, false
			}
			levels += int64(h.NumValues)
		}
	}
	return levels, true
}

// DoubleLists decodes the uncompressed column chunk b of a list of
// optional doubles (maximum definition level 2, repetition level 1;
// version 1 data pages with RLE levels and PLAIN values or, after a PLAIN
// dictionary page, dictionary ids) of rows lists and levels levels into
// all, which must hold levels values (every element has a level; an
// empty list has one and no element). Nulls become NaN; a dictionary
// value is copied bit for bit. It returns the elements decoded and each
// list's start in all (rows+1 entries, the last the element count,
// appended to starts[:0]); false when the chunk is anything else or does
// not add up, or the machine is not little-endian.
func DoubleLists(b []byte, levels int64, rows int, all []float64, starts []int, ls *ListScratch) (int, []int, bool) {
	starts = starts[:0]
	if !LittleEndian || levels < 0 || int64(len(all)) < levels || rows < 0 {
		return 0, starts, false
	}
	pos := 0       // elements written to all
	var seen int64 // levels consumed
	var dict []float64
	hasDict, datas := false, 0
	for p := 0; p < len(b); {
		h, n, hok := ParsePageHeader(b[p:])
		if !hok || h.Compressed < 0 || h.Compressed != h.Uncompressed || int64(h.Compressed) > int64(len(b)-p-n) {
			return 0, starts, false
		}
		body := b[p+n : p+n+int(h.Compressed)]
		p += n + int(h.Compressed)
		switch h.Type {
		case IndexPage: // nothing for the values
			continue
		case DictionaryPage: // first, once, PLAIN
			nd := int(h.DictValues)
			if hasDict || datas > 0 || h.DictEncoding != Plain && h.DictEncoding != PlainDict || nd < 0 || len(body) != 8*nd {
				return 0, starts, false
			}
			ls.dict = slices.Grow(ls.dict[:0], nd)[:nd]
			Float64s(body, ls.dict)
			dict, hasDict = ls.dict, true
			continue
		case DataPage:
		default: // version 2 data page, unknown types
			return 0, starts, false
		}
		if h.DefEnc != RLE || h.RepEnc != RLE || h.NumValues < 0 || int64(h.NumValues) > levels-seen {
			return 0, starts, false
		}
		var pdict []float64
		switch {
		case h.Encoding == Plain:
		case (h.Encoding == RLEDictionary || h.Encoding == PlainDict) && hasDict:
			pdict = dict
			if pdict == nil {
				pdict = []float64{} // a dictionary of no values: no id is valid
			}
		default:
			return 0, starts, false
		}
		var pok bool
		if pos, starts, pok = decodeListPage(body, int(h.NumValues), pdict, all, pos, starts, ls); !pok {
			return 0, starts, false
		}
		seen += int64(h.NumValues)
		datas++
	}
	if seen != levels || len(starts) != rows {
		return 0, starts, false
	}
	return pos, append(starts, pos), true
}

// decodeListPage decodes one version 1 data page of n levels into all[pos:],
// appending the element index of every list start to starts. Its values
// are PLAIN doubles, or with dict not nil ids into dict.
func decodeListPage(body []byte, n int, dict []float64, all []float64, pos int, starts []int, ls *ListScratch) (int, []int, bool) {
	rep, body, ok := LevelBytes(body)
	if !ok {
		return pos, starts, false
	}
	def, vals, ok := LevelBytes(body)
	if !ok {
		return pos, starts, false
	}
	// With a dictionary, each run of values is read from the ids as the
	// walk below meets it, into its place; else copied from vals.
	ds := &ls.ids
	if dict != nil {
		if !ds.Reset(vals, dict) {
			return pos, starts, false
		}
		vals = nil
	} else if len(vals)%8 != 0 {
		return pos, starts, false
	}
	// List starts (repetition level 0), as level indexes of this page.
	lsts := ls.starts[:0]
	r := NewRuns(rep, 1)
	for l := 0; l < n; {
		v, c, packed, ok := r.Next(n - l)
		if !ok {
			return pos, starts, false
		}
		switch {
		case packed != nil:
			for i := 0; i < c; i++ {
				if packed[i/8]>>(i%8)&1 == 0 {
					lsts = append(lsts, l+i)
				}
			}
		case v == 0:
			for i := 0; i < c; i++ {
				lsts = append(lsts, l+i)
			}
		case v != 1:
			return pos, starts, false
		}
		l += c
	}
	ls.starts = lsts
	// Elements: definition level 2 is a value, 1 a null (NaN), 0 an
	// empty list (no element).
	nv := len(vals) / 8
	if dict != nil {
		nv = n // at most; the ids run short otherwise
	}
	vi, si := 0, 0
	d := NewRuns(def, 2)
	for l := 0; l < n; {
		v, c, packed, ok := d.Next(n - l)
		if !ok {
			return pos, starts, false
		}
		if packed != nil {
			for i := 0; i < c; i, l = i+1, l+1 {
				if si < len(lsts) && lsts[si] == l {
					starts = append(starts, pos)
					si++
				}
				switch (packed[(2*i)/8] >> ((2 * i) % 8)) & 3 {
				case 2:
					if vi >= nv || pos >= len(all) {
						return pos, starts, false
					}
					if dict == nil {
						all[pos] = math.Float64frombits(binary.LittleEndian.Uint64(vals[8*vi:]))
					} else if !ds.Read(all[pos : pos+1]) {
						return pos, starts, false
					}
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
		for si < len(lsts) && lsts[si] < l+c {
			if v >= 1 {
				starts = append(starts, pos+lsts[si]-l)
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
			if dict == nil {
				dst := unsafe.Slice((*byte)(unsafe.Pointer(&all[pos])), 8*c)
				copy(dst, vals[8*vi:8*(vi+c)])
			} else if !ds.Read(all[pos : pos+c]) {
				return pos, starts, false
			}
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
	return pos, starts, (vi == nv || dict != nil) && si == len(lsts)
}
