package dataset

import (
	"os"
	"slices"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"
	"github.com/wlprof/wlprof/dataset/internal/pq"
)

// The four usage columns the classify stage reads (tenant, server, time,
// cpu) are decoded here straight from the pages of a row group, the way
// seriespages.go reads the series values: the chunk is read into a
// buffer the worker keeps (pread), each page decompressed once into
// another, and the dictionary ids, definition levels and time deltas
// unpacked with a few shifts per value into the batch: the ids 8 at a time
// by code written for their width, checked against their dictionary once
// per run, the cpu ids looked up as they are unpacked, the levels of a
// column without nulls counted rather than expanded (pq.DecodeIDs,
// DecodeDictDoubles, CountDefs). arrow's record
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
	pr    pq.PageReader
	chunk []byte    // the current column chunk, as in the file
	defs  []int32   // a page's definition levels, where it has nulls
	tmp   []int64   // non-null times before spreading
	dict  []float64 // a double column's dictionary
}

func (s *usageScratch) close() { s.pr.Close() }

// fastUsageGroup decodes row group rg of g (whose cols are tenant,
// server, time, cpu) into b. It reports false, with b in an unspecified
// state, where the fast path does not apply.
func fastUsageGroup(g *groupReader, rg int, b *UsageBatch, s *usageScratch) bool {
	if !usageFastPath || !pq.LittleEndian || len(g.cols) != 4 {
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

// pages reads a column chunk of rows levels and walks its pages
// (pq.PageReader.WalkLevels: the definition levels as in the page).
func (s *usageScratch) pages(f *os.File, cc *metadata.ColumnChunkMetaData, maxDef int16, rows int,
	dict func(n int, body []byte) bool, data func(enc int32, levels int, def []byte, vals []byte) bool) bool {
	if cc == nil || cc.NumValues() != int64(rows) {
		return false
	}
	off, size := cc.DataPageOffset(), cc.TotalCompressedSize()
	if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 {
		off = min(off, cc.DictionaryPageOffset())
	}
	b, ok := chunkBytes(nil, f, off, size, &s.chunk)
	return ok && s.pr.WalkLevels(b, cc.Compression(), maxDef, rows, dict, data)
}

// stringDict decodes a dictionary-encoded string chunk: ids into ids, the
// dictionary appended to dict (substrings of one string per chunk).
func (s *usageScratch) stringDict(f *os.File, cc *metadata.ColumnChunkMetaData, rows int, ids []int32, dict []string) ([]string, bool) {
	pos := 0
	ok := s.pages(f, cc, 0, rows, func(n int, body []byte) bool {
		var ok bool
		dict, ok = pq.Strings(body, n, dict)
		return ok
	}, func(enc int32, levels int, _, vals []byte) bool {
		if enc != pq.PlainDict && enc != pq.RLEDictionary || !pq.DecodeIDs(vals, ids[pos:pos+levels], len(dict)) {
			return false
		}
		pos += levels
		return true
	})
	return dict, ok && pos == rows
}

// times decodes an INT64 chunk of delta-encoded or plain milliseconds,
// NoTime for nulls.
func (s *usageScratch) times(f *os.File, cc *metadata.ColumnChunkMetaData, maxDef int16, rows int, dst []int64) bool {
	pos := 0
	ok := s.pages(f, cc, maxDef, rows, nil, func(enc int32, levels int, def []byte, vals []byte) bool {
		out := dst[pos : pos+levels]
		nonNull := levels
		if maxDef == 1 {
			var ok bool
			if nonNull, ok = pq.CountDefs(def, levels); !ok {
				return false
			}
		}
		into := out
		if nonNull < levels {
			s.tmp = slices.Grow(s.tmp[:0], nonNull)[:nonNull]
			into = s.tmp
		}
		switch enc {
		case pq.DeltaBinary:
			if !pq.DecodeDeltaFast(vals, into) {
				return false
			}
		case pq.Plain:
			if !pq.Int64s(vals, into) {
				return false
			}
		default:
			return false
		}
		if nonNull < levels {
			// Nulls: the levels spread the values.
			s.defs = slices.Grow(s.defs[:0], levels)[:levels]
			if !pq.UnpackHybrid(def, 1, s.defs) {
				return false
			}
			j := 0
			for i, d := range s.defs {
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
		if n < 0 || len(body) != 8*n {
			return false
		}
		s.dict = slices.Grow(s.dict[:0], n)[:n]
		return pq.Float64s(body, s.dict)
	}, func(enc int32, levels int, _, vals []byte) bool {
		out := dst[pos : pos+levels]
		switch enc {
		case pq.PlainDict, pq.RLEDictionary:
			if !pq.DecodeDictDoubles(vals, s.dict, out) {
				return false
			}
		case pq.Plain:
			if !pq.Float64s(vals, out) {
				return false
			}
		default:
			return false
		}
		pos += levels
		return true
	})
	return ok && pos == rows
}
