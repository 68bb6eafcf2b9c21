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
	"github.com/apache/arrow-go/v18/parquet/schema"
	"github.com/klauspost/compress/zstd"
)

// The four usage columns the classify stage reads (tenant, server, time,
// cpu) are decoded here straight from the pages of a row group, the way
// seriespages.go reads the series values: the chunk is read into a
// buffer the worker keeps (pread), each page decompressed once into
// another, and the dictionary ids, definition levels and time deltas
// unpacked with a few shifts per value into the batch. arrow's record
// reader took 10 of the 27 CPU seconds of a first `wlprof classify` at
// 10,000 tenants × 30 days (216 M rows) on these columns: a bit reader
// that fetches one value per call, buffers grown by doubling, and the
// dictionary strings cloned per row group.
//
// What this package writes is what it reads: version 1 data pages,
// zstd or no compression, dictionary-encoded strings and doubles (plain
// pages after a dictionary overflow, for the doubles), delta-encoded or
// plain times in milliseconds. Anything else, or a chunk that does not
// add up, makes fastUsageGroup report false and the caller decodes the
// row group with arrow, which also reports any damage.

// usageFastPath: tests turn it off to compare with arrow's reader.
var usageFastPath = true

// usageScratch is one worker's reusable state.
type usageScratch struct {
	zstd  *zstd.Decoder
	chunk []byte    // the current column chunk, as in the file
	page  []byte    // the current page, decompressed
	defs  []int32   // its definition levels
	ids   []int32   // dictionary ids of a double column
	tmp   []int64   // non-null times before spreading
	dict  []float64 // a double column's dictionary
}

func (s *usageScratch) close() {
	if s.zstd != nil {
		s.zstd.Close()
	}
}

// fastUsageGroup decodes row group rg of g (whose cols are tenant,
// server, time, cpu) into b. It reports false, with b in an unspecified
// state, where the fast path does not apply.
func fastUsageGroup(g *groupReader, rg int, b *UsageBatch, s *usageScratch) bool {
	if !usageFastPath || !littleEndian || len(g.cols) != 4 {
		return false
	}
	md := g.pf.MetaData()
	sch := md.Schema
	want := [4]parquet.Type{parquet.Types.ByteArray, parquet.Types.ByteArray, parquet.Types.Int64, parquet.Types.Double}
	for i, ci := range g.cols {
		col := sch.Column(ci)
		if col.PhysicalType() != want[i] || col.MaxRepetitionLevel() != 0 || col.MaxDefinitionLevel() > 1 ||
			(i != 2 && col.MaxDefinitionLevel() != 0) {
			return false
		}
	}
	// arrow-go v18's logical types are values (v16's were pointers).
	if ts, ok := sch.Column(g.cols[2]).LogicalType().(schema.TimestampLogicalType); !ok || ts.TimeUnit() != schema.TimeUnitMillis {
		return false
	}
	rgm := md.RowGroup(rg)
	n := int(rgm.NumRows())
	// Every chunk holds the group's rows (one level each) before anything
	// is allocated for them.
	var chunks [4]*metadata.ColumnChunkMetaData
	for i, ci := range g.cols {
		cc, err := rgm.ColumnChunk(ci)
		if n < 0 || err != nil || cc.NumValues() != int64(n) {
			return false
		}
		chunks[i] = cc
	}
	if s.zstd == nil {
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(1<<30))
		if err != nil {
			return false
		}
		s.zstd = d
	}
	b.Len = n
	b.TenantIdx = slices.Grow(b.TenantIdx[:0], n)[:n]
	b.ServerIdx = slices.Grow(b.ServerIdx[:0], n)[:n]
	b.TimeMs = slices.Grow(b.TimeMs[:0], n)[:n]
	b.CPU = slices.Grow(b.CPU[:0], n)[:n]
	var ok bool
	if b.Tenants, ok = s.stringDict(g.f, chunks[0], n, b.TenantIdx, b.Tenants[:0]); !ok {
		return false
	}
	if b.Servers, ok = s.stringDict(g.f, chunks[1], n, b.ServerIdx, b.Servers[:0]); !ok {
		return false
	}
	if !s.times(g.f, chunks[2], sch.Column(g.cols[2]).MaxDefinitionLevel(), n, b.TimeMs) {
		return false
	}
	return s.doubles(g.f, chunks[3], n, b.CPU)
}

// pages walks the pages of a column chunk of rows levels: dict gets a
// dictionary page's value count and body, data each data page's encoding,
// level count, definition levels (nil for a required column) and the
// bytes after them. Bodies are only valid during the call.
func (s *usageScratch) pages(f *os.File, cc *metadata.ColumnChunkMetaData, maxDef int16, rows int,
	dict func(n int, body []byte) bool, data func(enc int32, levels int, defs []int32, vals []byte) bool) bool {
	if cc == nil || cc.NumValues() != int64(rows) {
		return false
	}
	codec := cc.Compression()
	if codec != compress.Codecs.Zstd && codec != compress.Codecs.Uncompressed {
		return false
	}
	off, size := cc.DataPageOffset(), cc.TotalCompressedSize()
	if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 {
		off = min(off, cc.DictionaryPageOffset())
	}
	b, ok := chunkBytes(nil, f, off, size, &s.chunk)
	if !ok {
		return false
	}
	seen, datas := 0, 0
	for p := 0; p < len(b); {
		h, hn, ok := parsePageHeader(b[p:])
		if !ok || h.compressed < 0 || h.uncompressed < 0 || int64(h.compressed) > int64(len(b)-p-hn) {
			return false
		}
		body := b[p+hn : p+hn+int(h.compressed)]
		p += hn + int(h.compressed)
		if h.typ == 1 { // index page
			continue
		}
		if codec == compress.Codecs.Zstd {
			if h.uncompressed > 1<<30 {
				return false
			}
			out, err := s.zstd.DecodeAll(body, s.page[:0])
			if err != nil || len(out) != int(h.uncompressed) {
				return false
			}
			s.page, body = out, out
		} else if h.compressed != h.uncompressed {
			return false
		}
		switch h.typ {
		case 2: // dictionary: first, once, PLAIN
			if datas > 0 || dict == nil || (h.dictEncoding != 0 && h.dictEncoding != 2) || h.dictValues < 0 || !dict(int(h.dictValues), body) {
				return false
			}
			dict = nil
		case 0:
			nv := int(h.numValues)
			if nv < 0 || nv > rows-seen {
				return false
			}
			var defs []int32
			if maxDef == 1 {
				lv, rest, ok := levelBytes(body)
				if !ok || h.defEnc != 3 {
					return false
				}
				s.defs = slices.Grow(s.defs[:0], nv)[:nv]
				if !unpackHybrid(lv, 1, s.defs) {
					return false
				}
				defs, body = s.defs, rest
			}
			if !data(h.encoding, nv, defs, body) {
				return false
			}
			seen += nv
			datas++
		default: // version 2 data pages, unknown page types
			return false
		}
	}
	return seen == rows
}

// stringDict decodes a dictionary-encoded string chunk: ids into ids, the
// dictionary appended to dict (substrings of one string per chunk).
func (s *usageScratch) stringDict(f *os.File, cc *metadata.ColumnChunkMetaData, rows int, ids []int32, dict []string) ([]string, bool) {
	pos := 0
	ok := s.pages(f, cc, 0, rows, func(n int, body []byte) bool {
		all := string(body)
		for i := 0; i < n; i++ {
			if len(all) < 4 {
				return false
			}
			l := binary.LittleEndian.Uint32([]byte(all[:4]))
			if uint64(l) > uint64(len(all)-4) {
				return false
			}
			dict = append(dict, all[4:4+l])
			all = all[4+l:]
		}
		return len(all) == 0
	}, func(enc int32, levels int, _ []int32, vals []byte) bool {
		if enc != 2 && enc != 8 || !dictIDs(vals, ids[pos:pos+levels], len(dict)) {
			return false
		}
		pos += levels
		return true
	})
	return dict, ok && pos == rows
}

// dictIDs decodes a data page's dictionary ids (a bit width byte, then
// hybrid runs) into dst, each below size.
func dictIDs(vals []byte, dst []int32, size int) bool {
	if len(dst) == 0 {
		return true
	}
	if len(vals) < 1 || !unpackHybrid(vals[1:], int(vals[0]), dst) {
		return false
	}
	var hi int32
	for _, id := range dst {
		hi = max(hi, id)
	}
	return hi < int32(size) && hi >= 0
}

// times decodes an INT64 chunk of delta-encoded or plain milliseconds,
// NoTime for nulls.
func (s *usageScratch) times(f *os.File, cc *metadata.ColumnChunkMetaData, maxDef int16, rows int, dst []int64) bool {
	pos := 0
	ok := s.pages(f, cc, maxDef, rows, nil, func(enc int32, levels int, defs []int32, vals []byte) bool {
		out := dst[pos : pos+levels]
		nonNull := levels
		if defs != nil {
			nonNull = 0
			for _, d := range defs {
				if d > 1 {
					return false
				}
				nonNull += int(d)
			}
		}
		into := out
		if nonNull < levels {
			s.tmp = slices.Grow(s.tmp[:0], nonNull)[:nonNull]
			into = s.tmp
		}
		switch enc {
		case 5:
			if !deltaInt64(vals, into) {
				return false
			}
		case 0:
			if len(vals) != 8*len(into) {
				return false
			}
			if len(into) > 0 {
				copy(unsafe.Slice((*byte)(unsafe.Pointer(&into[0])), 8*len(into)), vals)
			}
		default:
			return false
		}
		if nonNull < levels {
			j := 0
			for i, d := range defs {
				if d == 1 {
					out[i] = into[j]
					j++
				} else {
					out[i] = NoTime
				}
			}
		}
		pos += levels
		return true
	})
	return ok && pos == rows
}

// doubles decodes a required DOUBLE chunk, dictionary-encoded or plain.
func (s *usageScratch) doubles(f *os.File, cc *metadata.ColumnChunkMetaData, rows int, dst []float64) bool {
	pos := 0
	s.dict = s.dict[:0]
	ok := s.pages(f, cc, 0, rows, func(n int, body []byte) bool {
		if len(body) != 8*n {
			return false
		}
		s.dict = slices.Grow(s.dict[:0], n)[:n]
		if n > 0 {
			copy(unsafe.Slice((*byte)(unsafe.Pointer(&s.dict[0])), 8*n), body)
		}
		return true
	}, func(enc int32, levels int, _ []int32, vals []byte) bool {
		out := dst[pos : pos+levels]
		switch enc {
		case 2, 8:
			s.ids = slices.Grow(s.ids[:0], levels)[:levels]
			if !dictIDs(vals, s.ids, len(s.dict)) {
				return false
			}
			d := s.dict
			for i, id := range s.ids {
				out[i] = d[id]
			}
		case 0:
			if len(vals) != 8*levels {
				return false
			}
			if levels > 0 {
				copy(unsafe.Slice((*byte)(unsafe.Pointer(&out[0])), 8*levels), vals)
			}
		default:
			return false
		}
		pos += levels
		return true
	})
	return ok && pos == rows
}

// unpackHybrid decodes len(dst) values of Parquet's RLE/bit-packed hybrid
// encoding of width-bit values (width ≤ 32) from b. False when b is short
// or malformed.
func unpackHybrid(b []byte, width int, dst []int32) bool {
	if width < 0 || width > 32 {
		return false
	}
	vb := (width + 7) / 8
	for i := 0; i < len(dst); {
		h, k := binary.Uvarint(b)
		if k <= 0 {
			return false
		}
		b = b[k:]
		if h&1 == 0 { // a run of one value
			c := h >> 1
			if c == 0 || len(b) < vb {
				return false
			}
			var v uint64
			for j := 0; j < vb; j++ {
				v |= uint64(b[j]) << (8 * j)
			}
			b = b[vb:]
			if v >= 1<<width && width < 32 || v > math.MaxInt32 {
				return false
			}
			m := int(min(c, uint64(len(dst)-i)))
			fill := dst[i : i+m]
			for j := range fill {
				fill[j] = int32(v)
			}
			i += m
			continue
		}
		groups := h >> 1 // of 8 values, width bytes each (none at width 0)
		if groups == 0 || groups > 1<<31 {
			return false
		}
		nb := int(groups) * width
		if nb > len(b) {
			return false
		}
		m := int(min(groups*8, uint64(len(dst)-i)))
		out := dst[i : i+m]
		unpackBits(b[:nb], width, out)
		if width == 32 {
			for _, v := range out {
				if v < 0 {
					return false
				}
			}
		}
		b = b[nb:]
		i += m
	}
	return true
}

// unpackBits sets dst to the first len(dst) width-bit values (width ≤ 64,
// and ≤ 32 for int32) bit-packed little-endian in src, which holds at
// least len(dst)×width bits.
func unpackBits[T int32 | uint64](src []byte, width int, dst []T) {
	if width == 0 {
		clear(dst)
		return
	}
	mask := ^uint64(0) >> (64 - width)
	le := binary.LittleEndian
	j, bit := 0, 0
	if width <= 56 {
		// Whole 8-byte windows while they fit in src.
		for ; j < len(dst) && bit>>3+8 <= len(src); j, bit = j+1, bit+width {
			dst[j] = T(le.Uint64(src[bit>>3:]) >> (bit & 7) & mask)
		}
	}
	for ; j < len(dst); j, bit = j+1, bit+width {
		var w [16]byte
		copy(w[:], src[bit>>3:])
		v := le.Uint64(w[:]) >> (bit & 7)
		if sh := bit & 7; sh != 0 {
			v |= le.Uint64(w[8:]) << (64 - sh)
		}
		dst[j] = T(v & mask)
	}
}

// deltaInt64 decodes a DELTA_BINARY_PACKED stream of exactly len(dst)
// int64 values. False when it is malformed, short, or holds another count.
func deltaInt64(b []byte, dst []int64) bool {
	blockSize, k1 := binary.Uvarint(b)
	if k1 <= 0 {
		return false
	}
	b = b[k1:]
	miniblocks, k2 := binary.Uvarint(b)
	if k2 <= 0 {
		return false
	}
	b = b[k2:]
	total, k3 := binary.Uvarint(b)
	if k3 <= 0 {
		return false
	}
	b = b[k3:]
	first, k4 := binary.Varint(b) // zigzag
	if k4 <= 0 {
		return false
	}
	b = b[k4:]
	if blockSize == 0 || blockSize%128 != 0 || blockSize > 1<<20 || miniblocks == 0 || blockSize%miniblocks != 0 ||
		(blockSize/miniblocks)%32 != 0 || total != uint64(len(dst)) {
		return false
	}
	if len(dst) == 0 {
		return true
	}
	dst[0] = first
	cur := uint64(first)
	per := int(blockSize / miniblocks)
	mbs := int(miniblocks)
	for i := 1; i < len(dst); {
		minDelta, k := binary.Varint(b)
		if k <= 0 || len(b)-k < mbs {
			return false
		}
		widths := b[k : k+mbs]
		b = b[k+mbs:]
		for m := 0; m < mbs && i < len(dst); m++ {
			w := int(widths[m])
			if w > 64 {
				return false
			}
			cnt := min(per, len(dst)-i)
			nb := per * w / 8
			if need := (cnt*w + 7) / 8; need > len(b) {
				return false
			}
			// The deltas go into out first, then become the values.
			out := unsafe.Slice((*uint64)(unsafe.Pointer(&dst[i])), cnt)
			unpackBits(b[:min(nb, len(b))], w, out)
			md := uint64(minDelta)
			for j, d := range out {
				cur += md + d
				out[j] = cur
			}
			b = b[min(nb, len(b)):]
			i += cnt
		}
	}
	return true
}
