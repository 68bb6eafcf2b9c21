package dataset

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/bits"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
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

// usageLeaves are the usage table's Parquet leaves, the layout this
// encoder writes (checked against pqarrow's schema).
var usageLeaves = []pqLeaf{
	{"tenant", parquet.Types.ByteArray, 0, 0},
	{"server", parquet.Types.ByteArray, 0, 0},
	{"time", parquet.Types.Int64, 1, 0},
	{"cpu", parquet.Types.Double, 0, 0},
	{"memory", parquet.Types.Double, 1, 0},
}

type usageSink struct {
	pf     *pqFile
	fdicts []*floatDict
	// scratch
	defs, ids []int32
	vals      []int64
	dbl       []float64
	lv, body  []byte
}

// newUsageSink starts a usage file on w. fdicts are the Writer's float
// dictionaries (floatdict.go), per column.
func newUsageSink(w io.Writer, as *arrow.Schema, props *parquet.WriterProperties, fdicts []*floatDict) (recordSink, error) {
	pf, err := newPQFile(w, as, props)
	if err != nil {
		return nil, err
	}
	if err := pf.checkLeaves("usage", usageLeaves); err != nil {
		return nil, err
	}
	if len(fdicts) != len(usageLeaves) {
		return nil, fmt.Errorf("dataset: %d float dictionaries for the usage table's %d columns", len(fdicts), len(usageLeaves))
	}
	return &usageSink{pf: pf, fdicts: fdicts}, nil
}

func (u *usageSink) close() error { return u.pf.footer() }

func (u *usageSink) write(rec arrow.Record) error {
	n := int(rec.NumRows())
	u.pf.startGroup(n)
	for i, col := range rec.Columns() {
		c, err := u.pf.chunk()
		if err != nil {
			return err
		}
		optional := u.pf.sch.Column(i).MaxDefinitionLevel() == 1
		switch a := col.(type) {
		case *array.Dictionary: // tenant, server
			dict, ok := a.Dictionary().(*array.String)
			ids, ok2 := a.Indices().(*array.Int32)
			if !ok || !ok2 {
				return fmt.Errorf("dataset: usage column %d: dictionary of %T by %T", i, a.Dictionary(), a.Indices())
			}
			u.body = u.body[:0]
			for k := 0; k < dict.Len(); k++ {
				s := dict.Value(k)
				u.body = binary.LittleEndian.AppendUint32(u.body, uint32(len(s)))
				u.body = append(u.body, s...)
			}
			c.dictPage(dict.Len(), u.body)
			u.dictPages(c, ids.Int32Values(), dict.Len(), a, optional)
		case *array.Timestamp:
			u.timePages(c, a, optional)
		case *array.Float64:
			var enc arrow.Array
			if d := u.fdicts[i]; d != nil {
				enc = d.encode(a)
			}
			if enc != nil {
				d := enc.(*array.Dictionary)
				vals := d.Dictionary().(*array.Float64).Float64Values()
				c.dictPage(len(vals), float64Bytes(vals))
				u.dictPages(c, d.Indices().(*array.Int32).Int32Values(), len(vals), a, optional)
				enc.Release()
			} else {
				u.plainPages(c, a, optional)
			}
		default:
			return fmt.Errorf("dataset: usage column %d of Arrow type %s", i, col.DataType())
		}
		if err := c.end(); err != nil {
			return err
		}
	}
	return u.pf.endGroup()
}

// pages calls page for each page's rows [lo, hi) with the page's
// definition level block (empty for a required column).
func (u *usageSink) pages(n int, a arrow.Array, optional bool, page func(lo, hi int, lv []byte)) {
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
			u.lv = levelBlock(u.lv, func(b []byte) []byte { return appendRun(b, def, hi-lo, 1) })
		default:
			u.defs = u.defs[:0]
			for i := lo; i < hi; i++ {
				d := int32(1)
				if a.IsNull(i) {
					d = 0
				}
				u.defs = append(u.defs, d)
			}
			u.lv = levelBlock(u.lv, func(b []byte) []byte { return appendHybrid(b, u.defs, 1) })
		}
		page(lo, hi, u.lv)
		if n == 0 {
			return
		}
	}
}

// dictPages writes the data pages of a dictionary-encoded chunk: ids of
// the rows that are not null, bit-packed at the width of the dictionary.
func (u *usageSink) dictPages(c *pqChunk, ids []int32, size int, a arrow.Array, optional bool) {
	width := bits.Len32(uint32(max(size-1, 0)))
	u.pages(len(ids), a, optional, func(lo, hi int, lv []byte) {
		page := nonNull(ids, lo, hi, a, &u.ids)
		u.body = appendHybrid(append(u.body[:0], byte(width)), page, width)
		c.dataPage(hi-lo, parquet.Encodings.RLEDict, lv, u.body)
	})
}

// timePages writes the time column: delta-encoded milliseconds of the rows
// that are not null, and the chunk's statistics.
func (u *usageSink) timePages(c *pqChunk, a *array.Timestamp, optional bool) {
	ts := a.TimestampValues()
	all := unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(ts))), len(ts))
	var mn, mx int64 = math.MaxInt64, math.MinInt64
	u.pages(len(all), a, optional, func(lo, hi int, lv []byte) {
		vals := nonNull(all, lo, hi, a, &u.vals)
		for _, v := range vals {
			mn, mx = min(mn, v), max(mx, v)
		}
		u.body = appendDelta(u.body[:0], vals)
		c.dataPage(hi-lo, parquet.Encodings.DeltaBinaryPacked, lv, u.body)
	})
	le := binary.LittleEndian
	c.stats.Signed = true
	c.stats.SetNullCount(int64(a.NullN()))
	if mn <= mx {
		c.stats.SetMin(le.AppendUint64(nil, uint64(mn)))
		c.stats.SetMax(le.AppendUint64(nil, uint64(mx)))
	}
}

// plainPages writes a double column whose float dictionary overflowed.
func (u *usageSink) plainPages(c *pqChunk, a *array.Float64, optional bool) {
	vals := a.Float64Values()
	u.pages(len(vals), a, optional, func(lo, hi int, lv []byte) {
		c.dataPage(hi-lo, parquet.Encodings.Plain, lv, float64Bytes(nonNull(vals, lo, hi, a, &u.dbl)))
	})
}

// nonNull returns the values of rows [lo, hi) that a does not mark null:
// vals[lo:hi] itself when a has no nulls, else a copy in *buf (reused).
func nonNull[V any](vals []V, lo, hi int, a arrow.Array, buf *[]V) []V {
	if a.NullN() == 0 {
		return vals[lo:hi]
	}
	out := (*buf)[:0]
	for i := lo; i < hi; i++ {
		if a.IsValid(i) {
			out = append(out, vals[i])
		}
	}
	*buf = out
	return out
}

// Delta encoding: blocks of 128 values in 4 miniblocks of 32, as arrow
// and parquet-mr write it.
const (
	deltaBlock      = 128
	deltaMiniblocks = 4
)

// appendDelta appends vals in Parquet's DELTA_BINARY_PACKED encoding.
func appendDelta(b []byte, vals []int64) []byte {
	b = binary.AppendUvarint(b, deltaBlock)
	b = binary.AppendUvarint(b, deltaMiniblocks)
	b = binary.AppendUvarint(b, uint64(len(vals)))
	if len(vals) == 0 {
		return binary.AppendVarint(b, 0)
	}
	b = binary.AppendVarint(b, vals[0])
	const per = deltaBlock / deltaMiniblocks
	var d [deltaBlock]uint64
	prev := vals[0]
	for i := 1; i < len(vals); i += deltaBlock {
		n := min(deltaBlock, len(vals)-i)
		minD := int64(math.MaxInt64)
		for j := 0; j < n; j++ {
			v := vals[i+j]
			dj := v - prev // wraps, as the reader's sum does
			prev = v
			d[j] = uint64(dj)
			minD = min(minD, dj)
		}
		b = binary.AppendVarint(b, minD)
		var widths [deltaMiniblocks]int
		for m := 0; m < deltaMiniblocks; m++ {
			var or uint64
			for j := m * per; j < min((m+1)*per, n); j++ {
				d[j] -= uint64(minD)
				or |= d[j]
			}
			widths[m] = bits.Len64(or)
			b = append(b, byte(widths[m]))
		}
		for j := n; j < deltaBlock; j++ {
			d[j] = 0 // padding of the last miniblock
		}
		for m := 0; m*per < n; m++ {
			var bw bitWriter
			bw.b = b
			for _, v := range d[m*per : (m+1)*per] {
				bw.put(v, widths[m])
			}
			b = bw.flush()
		}
	}
	return b
}

// bitWriter packs values little-endian, least significant bit first.
type bitWriter struct {
	b   []byte
	acc uint64
	nb  int // bits in acc, < 32 between calls
}

func (w *bitWriter) put(v uint64, width int) {
	if width > 32 {
		w.putWide(v, width)
		return
	}
	w.acc |= (v & (1<<width - 1)) << w.nb
	w.nb += width
	if w.nb >= 32 {
		w.b = binary.LittleEndian.AppendUint32(w.b, uint32(w.acc))
		w.acc >>= 32
		w.nb -= 32
	}
}

func (w *bitWriter) putWide(v uint64, width int) {
	w.put(v&0xffffffff, 32)
	w.put(v>>32, width-32)
}

// flush writes the bytes of the bits left (a last byte padded with
// zeros) and returns the bytes.
func (w *bitWriter) flush() []byte {
	for ; w.nb > 0; w.nb -= 8 {
		w.b = append(w.b, byte(w.acc))
		w.acc >>= 8
	}
	w.acc, w.nb = 0, 0
	return w.b
}
