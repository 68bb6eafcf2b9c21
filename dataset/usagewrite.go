package dataset

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/bits"
	"sync/atomic"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/wlprof/wlprof/dataset/internal/pq"
)

// The usage table's row groups are encoded here, not by pqarrow: ingest
// writes hundreds of millions of rows, and pqarrow's encoder took 13 of the
// 39 CPU seconds of ingesting the 10,000-tenant × 30-day CSV (216 M rows):
// an RLE encoder called once per dictionary id, a delta encoder and a
// level encoder value by value, and the Arrow arrays copied on the way.
// This encoder writes the same file (the schema pqarrow derives, the same
// encodings: dictionary pages and RLE_DICTIONARY ids for tenant, server,
// cpu and memory, plain doubles after a float dictionary overflows, delta
// encoded times with their statistics, zstd pages) with bit packing a
// word at a time. The rows still arrive as Arrow records from the
// Writer's columns; usagepages.go reads the pages back.

// recordSink writes a table's records as the row groups of one Parquet
// file, for tables with an encoder of their own (Table.pages).
type recordSink interface {
	write(rec arrow.Record) error
	close() error // the footer
}

// ownPages: tests turn it off to write with pqarrow for comparison.
var ownPages = true

// usagePageRows is the rows per data page: a whole row group (BatchRows)
// per page, at most 4 MB of ids before compression. zstd compresses each
// page on its own, and the ids of time-ordered rows repeat with the cycle
// of tenants, so larger pages compress better: the usage table of the
// 10,000-tenant world is 432 MB at 2^20 rows per page, 490 MB at 2^19,
// 800 MB at 2^17 (pqarrow, which cuts pages at 1 MB: 504 MB).
const usagePageRows = 1 << 20

// The leaves of the value columns, whose dictionary ids are stored
// uncompressed where zstd does not shrink them.
const usageCPULeaf, usageMemoryLeaf = 3, 4

// usageLeaves are the usage table's Parquet leaves, the layout this
// encoder writes (checked against pqarrow's schema).
var usageLeaves = []pq.Leaf{
	{Path: "tenant", Type: parquet.Types.ByteArray, Def: 0, Rep: 0},
	{Path: "server", Type: parquet.Types.ByteArray, Def: 0, Rep: 0},
	{Path: "time", Type: parquet.Types.Int64, Def: 1, Rep: 0},
	{Path: "cpu", Type: parquet.Types.Double, Def: 0, Rep: 0},
	{Path: "memory", Type: parquet.Types.Double, Def: 1, Rep: 0},
}

type usageSink struct {
	pf     *pq.File
	fdicts []*floatDict
	bufs   []pq.ChunkBuffer   // per column: its chunk's pages until written
	scr    [2]usageEncScratch // per encoding goroutine
}

// usageEncScratch is one encoding goroutine's scratch.
type usageEncScratch struct {
	defs, ids []int32
	vals      []int64
	dbl       []float64
	lv, body  []byte
}

// usageColumnOrder is the order in which the two goroutines of write take
// the columns: the costliest first (cpu, time, then the names), so that
// neither is left with a large one while the other has none.
var usageColumnOrder = []int{3, 2, 0, 1, 4}

// newUsageSink starts a usage file on w. fdicts are the Writer's float
// dictionaries (floatdict.go), per column.
func newUsageSink(w io.Writer, as *arrow.Schema, props *parquet.WriterProperties, fdicts []*floatDict) (recordSink, error) {
	pf, err := pq.NewFile(w, as, props)
	if err != nil {
		return nil, err
	}
	if err := pf.CheckLeaves("usage", usageLeaves); err != nil {
		return nil, err
	}
	// The dictionary ids of cpu values shrink by 2% under zstd when the
	// values wander (a synthetic month of 1,000 tenants: 39.4 MB to 38.5;
	// of 10,000: 393 MB to 384), for a tenth of ingest's CPU. The names'
	// ids repeat with the cycle of tenants and the times are deltas: they
	// shrink 10-80 times and stay compressed.
	pf.KeepCodecIfWorth(usageCPULeaf, usageMemoryLeaf)
	if len(fdicts) != len(usageLeaves) {
		return nil, fmt.Errorf("dataset: %d float dictionaries for the usage table's %d columns", len(fdicts), len(usageLeaves))
	}
	return &usageSink{pf: pf, fdicts: fdicts, bufs: make([]pq.ChunkBuffer, len(usageLeaves))}, nil
}

func (u *usageSink) close() error { return u.pf.Footer() }

// write encodes the row group's columns on two goroutines, each chunk
// into its own buffer, and then writes the chunks in order: once the
// input is parsed, the last row groups are all that is left to do, and
// one goroutine encoding them column after column left the second core
// idle. Meanwhile the parse keeps both cores busy either way.
func (u *usageSink) write(rec arrow.Record) error {
	n := int(rec.NumRows())
	u.pf.StartGroup(n)
	cols := rec.Columns()
	if len(cols) != len(usageLeaves) {
		return fmt.Errorf("dataset: a usage record of %d columns", len(cols))
	}
	chunks := make([]*pq.Chunk, len(cols))
	for i := range cols {
		c, err := u.pf.BufferedChunk(i, &u.bufs[i])
		if err != nil {
			return err
		}
		chunks[i] = c
	}
	errs := make([]error, len(cols))
	var next atomic.Int32
	encode := func(s *usageEncScratch) {
		for k := int(next.Add(1)) - 1; k < len(usageColumnOrder); k = int(next.Add(1)) - 1 {
			i := usageColumnOrder[k]
			errs[i] = u.column(s, chunks[i], i, cols[i])
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		encode(&u.scr[1])
	}()
	encode(&u.scr[0])
	<-done
	for i, c := range chunks {
		if errs[i] != nil {
			return errs[i]
		}
		if err := u.pf.WriteChunk(c); err != nil {
			return err
		}
	}
	return u.pf.EndGroup()
}

// column encodes column i of a row group into its chunk c.
func (u *usageSink) column(s *usageEncScratch, c *pq.Chunk, i int, col arrow.Array) error {
	optional := u.pf.Schema().Column(i).MaxDefinitionLevel() == 1
	switch a := col.(type) {
	case *array.Dictionary: // tenant, server
		dict, ok := a.Dictionary().(*array.String)
		ids, ok2 := a.Indices().(*array.Int32)
		if !ok || !ok2 {
			return fmt.Errorf("dataset: usage column %d: dictionary of %T by %T", i, a.Dictionary(), a.Indices())
		}
		s.body = s.body[:0]
		for k := 0; k < dict.Len(); k++ {
			s.body = pq.AppendString(s.body, dict.Value(k))
		}
		c.DictPage(dict.Len(), s.body)
		s.dictPages(c, ids.Int32Values(), dict.Len(), a, optional)
	case *array.Timestamp:
		s.timePages(c, a, optional)
	case *array.Float64:
		var ids []int32
		var dict []float64
		ok := false
		switch d := u.fdicts[i]; {
		case d == nil || a.Data().Offset() != 0:
		case a.NullN() == a.Len():
			// No values (an input without a memory column): the empty
			// dictionary, and no ids to write, as Encode would find
			// after reading every row's validity bit.
			ok = true
		default:
			ids, dict, ok = d.Encode(a.Float64Values(), validity(a))
		}
		if ok {
			c.DictPage(len(dict), pq.Float64Bytes(dict))
			s.dictPages(c, ids, len(dict), a, optional)
		} else {
			s.plainPages(c, a, optional)
		}
	default:
		return fmt.Errorf("dataset: usage column %d of Arrow type %s", i, col.DataType())
	}
	return nil
}

// pages calls page for each page's rows [lo, hi) with the page's
// definition level block (empty for a required column).
func (u *usageEncScratch) pages(n int, a arrow.Array, optional bool, page func(lo, hi int, lv []byte)) {
	nulls := a.NullN()
	for lo := 0; lo < n || lo == 0 && n == 0; lo += usagePageRows {
		hi := min(lo+usagePageRows, n)
		u.lv = u.lv[:0]
		switch {
		case !optional:
		case nulls == 0 || nulls == n:
			def := uint32(1)
			if nulls > 0 {
				def = 0
			}
			u.lv = pq.LevelBlock(u.lv, func(b []byte) []byte { return pq.AppendRun(b, def, hi-lo, 1) })
		default:
			u.defs = u.defs[:0]
			for i := lo; i < hi; i++ {
				d := int32(1)
				if a.IsNull(i) {
					d = 0
				}
				u.defs = append(u.defs, d)
			}
			u.lv = pq.LevelBlock(u.lv, func(b []byte) []byte { return pq.AppendHybrid(b, u.defs, 1) })
		}
		page(lo, hi, u.lv)
		if n == 0 {
			return
		}
	}
}

// dictPages writes the data pages of a dictionary-encoded chunk: ids of
// the rows that are not null, bit-packed at the width of the dictionary.
// ids is nil when every row is null.
func (u *usageEncScratch) dictPages(c *pq.Chunk, ids []int32, size int, a arrow.Array, optional bool) {
	width := bits.Len32(uint32(max(size-1, 0)))
	u.pages(a.Len(), a, optional, func(lo, hi int, lv []byte) {
		page := nonNull(ids, lo, hi, a, &u.ids)
		u.body = pq.AppendHybrid(append(u.body[:0], byte(width)), page, width)
		c.DataPage(hi-lo, parquet.Encodings.RLEDict, lv, u.body)
	})
}

// timePages writes the time column: delta-encoded milliseconds of the rows
// that are not null, and the chunk's statistics.
func (u *usageEncScratch) timePages(c *pq.Chunk, a *array.Timestamp, optional bool) {
	ts := a.TimestampValues()
	all := unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(ts))), len(ts))
	var mn, mx int64 = math.MaxInt64, math.MinInt64
	u.pages(len(all), a, optional, func(lo, hi int, lv []byte) {
		var vmin, vmax int64
		// The values follow the level block in one buffer: the page's
		// one part, which the codec compresses as it is (pq.File.joined).
		u.body, vmin, vmax = pq.AppendDeltaRange(append(u.body[:0], lv...), nonNull(all, lo, hi, a, &u.vals))
		mn, mx = min(mn, vmin), max(mx, vmax)
		c.DataPage(hi-lo, parquet.Encodings.DeltaBinaryPacked, u.body)
	})
	le := binary.LittleEndian
	c.Stats.Signed = true
	c.Stats.SetNullCount(int64(a.NullN()))
	if mn <= mx {
		c.Stats.SetMin(le.AppendUint64(nil, uint64(mn)))
		c.Stats.SetMax(le.AppendUint64(nil, uint64(mx)))
	}
}

// plainPages writes a double column whose float dictionary overflowed.
func (u *usageEncScratch) plainPages(c *pq.Chunk, a *array.Float64, optional bool) {
	vals := a.Float64Values()
	u.pages(len(vals), a, optional, func(lo, hi int, lv []byte) {
		c.DataPage(hi-lo, parquet.Encodings.Plain, lv, pq.Float64Bytes(nonNull(vals, lo, hi, a, &u.dbl)))
	})
}

// nonNull returns the values of rows [lo, hi) that a does not mark null:
// vals[lo:hi] itself when a has no nulls, else a copy in *buf (reused).
func nonNull[V any](vals []V, lo, hi int, a arrow.Array, buf *[]V) []V {
	if a.NullN() == 0 {
		return vals[lo:hi]
	}
	out := (*buf)[:0]
	if a.NullN() == a.Len() {
		return out
	}
	for i := lo; i < hi; i++ {
		if a.IsValid(i) {
			out = append(out, vals[i])
		}
	}
	*buf = out
	return out
}
