package dataset

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"math"
	"math/bits"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/wlprof/wlprof/dataset/internal/pq"
)

// The series table is written by its own encoder, not by pqarrow: its
// values are 99.9% of its bytes (1.7 GB at 10,000 tenants × 30 days), and
// pqarrow copied them into an Arrow list, into its page buffers and into
// the file buffer on the way, and encoded two levels per value one at a
// time. Here each tenant's values go to the file as they lie in memory
// (one data page per tenant, its levels a couple of runs), so writing the
// table costs little more than the kernel's copy of the bytes: a first
// `wlprof classify` at 10,000 tenants spent 9 s of its 20 waiting for the
// pqarrow writer, and about 4.5 s less with this one.
//
// The file is ordinary Parquet with the table's schema (the one pqarrow
// derives from SeriesTable's Arrow schema, so readers see no difference):
// version 1 data pages, RLE levels, no compression, one row group per
// SeriesGroupRows tenants; the footer is built with arrow's metadata
// builders. The small columns are PLAIN, with min/max statistics. The
// values, without statistics, are dictionary-encoded per row group where
// that is smaller: a PLAIN dictionary page of the group's distinct values
// (at most pq.MaxFloatDict), then RLE_DICTIONARY data pages whose values
// are a bit width byte and the ids in RLE/bit-packed hybrid runs; else
// (the dictionary overflowed, or the ids would not pay for it) PLAIN
// doubles as before. Either way each tenant starts a data page of its own.
// The values are means rounded to 1e-6 of samples that often have few
// distinct values: the 10,000-tenant × 30-day world of 4-decimal samples
// stores 402 MB where PLAIN took 1,728 MB (ids of 14 bits, not 64): a
// first classify's fsync of them waits 0.2 s instead of 0.75 here, and
// a slower disk saves more. seriespages.go
// reads the values of such files straight from the pages, and arrow,
// DuckDB and pandas read them as any Parquet.

// seriesPageLevels caps the levels (elements) of one values page, so a
// tenant with years of samples makes several pages of at most 8 MB.
const seriesPageLevels = 1 << 20

// seriesLeaves are the series table's Parquet leaves in file order, with
// their physical types and maximum definition and repetition levels: the
// layout this writer produces (checked against pqarrow's schema).
var seriesLeaves = []pq.Leaf{
	{Path: "tenant", Type: parquet.Types.ByteArray, Def: 0, Rep: 0},
	{Path: "start", Type: parquet.Types.Int64, Def: 1, Rep: 0},
	{Path: "step_s", Type: parquet.Types.Double, Def: 0, Rep: 0},
	{Path: seriesValuesPath, Type: parquet.Types.Double, Def: 2, Rep: 1},
	{Path: "servers", Type: parquet.Types.Int32, Def: 0, Rep: 0},
	{Path: "thin_tail", Type: parquet.Types.Int32, Def: 0, Rep: 0},
}

// seriesWriter writes one file of the series table in a transaction.
type seriesWriter struct {
	rel, path string
	ingest    int
	f         *os.File
	w         *bufio.Writer
	pf        *pq.File
	rows      int64
	err       error
	// scratch, reused from page to page
	page, levels []byte
	packed       []float64
	// the values chunk's dictionary encoding (dictEncode)
	fd          pq.FloatDict
	ids         []int32
	pageIDs     []int // the ids up to the end of each page
	idEnds      []int // the ends of the pages' bodies in idBody
	idBody, hdr []byte
	pageAt      int // data pages of the chunk written
}

// WriteSeries appends rows to the transaction's series file, in the order
// given (the table is read back in that order; classify wants tenant
// order). The values are only read during the call. It may be called
// several times; every call but the last should pass a multiple of
// SeriesGroupRows rows, or the file gets short row groups.
func (tx *Tx) WriteSeries(rows []Series) error {
	sw, err := tx.seriesWriter()
	if err != nil {
		return err
	}
	return sw.write(rows)
}

func (tx *Tx) seriesWriter() (*seriesWriter, error) {
	if w, ok := tx.writers[SeriesTable.Name]; ok {
		sw, ok := w.(*seriesWriter)
		if !ok {
			return nil, errors.New("dataset: series table written two ways in one transaction")
		}
		return sw, nil
	}
	sw := &seriesWriter{ingest: tx.ingest, rel: fmt.Sprintf("%s/part-%06d.parquet", SeriesTable.Name, tx.ingest)}
	sw.path = filepath.Join(tx.staging, sw.rel)
	tx.writers[SeriesTable.Name] = sw
	tx.order = append(tx.order, SeriesTable.Name)
	if err := sw.start(); err != nil {
		sw.err = err
		return nil, err
	}
	return sw, nil
}

func (sw *seriesWriter) start() error {
	props := parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Uncompressed),
		parquet.WithDictionaryDefault(false),
		parquet.WithCreatedBy(createdBy()),
	)
	if err := os.MkdirAll(filepath.Dir(sw.path), 0o755); err != nil {
		return err
	}
	var err error
	if sw.f, err = os.Create(sw.path); err != nil {
		return err
	}
	// A small buffer: page headers and levels gather in it, and a
	// tenant's values (170 KB for a month) mostly go past it to the file.
	sw.w = bufio.NewWriterSize(&writeback{f: sw.f}, 64<<10)
	if sw.pf, err = pq.NewFile(sw.w, SeriesTable.schema, props); err != nil {
		return err
	}
	return sw.pf.CheckLeaves(SeriesTable.Name, seriesLeaves)
}

func (sw *seriesWriter) write(rows []Series) error {
	group := SeriesTable.groupRows
	for len(rows) > 0 && sw.err == nil {
		n := min(group, len(rows))
		sw.err = sw.writeGroup(rows[:n])
		rows = rows[n:]
	}
	return sw.err
}

func (sw *seriesWriter) writeGroup(rows []Series) error {
	sw.pf.StartGroup(len(rows))
	for leaf := range seriesLeaves {
		c, err := sw.pf.Chunk()
		if err != nil {
			return err
		}
		sw.writeChunk(c, leaf, rows)
		if err := c.End(); err != nil {
			return err
		}
	}
	if err := sw.pf.EndGroup(); err != nil {
		return err
	}
	sw.rows += int64(len(rows))
	return nil
}

// writeChunk writes the column chunk of one leaf for rows: one page for
// the small columns, one or more per row for the values.
func (sw *seriesWriter) writeChunk(c *pq.Chunk, leaf int, rows []Series) {
	if leaf == 3 {
		sw.writeValuesChunk(c, rows)
		return
	}
	b := sw.page[:0]
	var lo, hi []byte
	le := binary.LittleEndian
	switch seriesLeaves[leaf].Path {
	case "tenant":
		for i := range rows {
			t := rows[i].Tenant
			b = pq.AppendString(b, t)
			if i == 0 || t < string(lo) {
				lo = []byte(t)
			}
			if i == 0 || t > string(hi) {
				hi = []byte(t)
			}
		}
	case "start":
		// Definition levels (1: a start, 0: none), then the starts.
		var nulls int64
		b = pq.LevelBlock(b, func(b []byte) []byte {
			for i := range rows {
				def := uint32(1)
				if rows[i].StartMs == NoTime {
					def = 0
					nulls++
				}
				b = pq.AppendRun(b, def, 1, 1)
			}
			return b
		})
		var mn, mx int64 = math.MaxInt64, math.MinInt64
		for i := range rows {
			if s := rows[i].StartMs; s != NoTime {
				b = le.AppendUint64(b, uint64(s))
				mn, mx = min(mn, s), max(mx, s)
			}
		}
		if mn <= mx {
			lo, hi = le.AppendUint64(nil, uint64(mn)), le.AppendUint64(nil, uint64(mx))
		}
		c.Stats.SetNullCount(nulls)
		c.Stats.Signed = true
	case "step_s":
		mn, mx := math.Inf(1), math.Inf(-1)
		nan := false
		for i := range rows {
			v := rows[i].StepS
			b = le.AppendUint64(b, math.Float64bits(v))
			nan = nan || math.IsNaN(v)
			mn, mx = min(mn, v), max(mx, v)
		}
		if !nan && len(rows) > 0 {
			// Parquet orders −0 before +0 and wants both bounds widened
			// when one is a zero; steps are positive, this is for form.
			if mn == 0 {
				mn = math.Copysign(0, -1)
			}
			if mx == 0 {
				mx = 0
			}
			lo, hi = le.AppendUint64(nil, math.Float64bits(mn)), le.AppendUint64(nil, math.Float64bits(mx))
		}
		c.Stats.Signed = true
	case "servers", "thin_tail":
		field := func(r *Series) int32 { return r.Servers }
		if seriesLeaves[leaf].Path == "thin_tail" {
			field = func(r *Series) int32 { return r.ThinTail }
		}
		var mn, mx int32 = math.MaxInt32, math.MinInt32
		for i := range rows {
			v := field(&rows[i])
			b = le.AppendUint32(b, uint32(v))
			mn, mx = min(mn, v), max(mx, v)
		}
		if len(rows) > 0 {
			lo, hi = le.AppendUint32(nil, uint32(mn)), le.AppendUint32(nil, uint32(mx))
		}
		c.Stats.Signed = true
	}
	if lo != nil {
		c.Stats.SetMin(lo)
		c.Stats.SetMax(hi)
	}
	if seriesLeaves[leaf].Def == 0 {
		c.Stats.SetNullCount(0)
	}
	sw.page = b
	c.DataPage(len(rows), parquet.Encodings.Plain, b)
}

// valuePages yields the pages of one row's values: segments of at most
// seriesPageLevels values, the first with first set; an empty row is one
// empty segment (a page of one level and no element).
func valuePages(vals []float64) iter.Seq2[bool, []float64] {
	return func(yield func(bool, []float64) bool) {
		if len(vals) == 0 {
			yield(true, vals)
			return
		}
		for first := true; len(vals) > 0; first = false {
			seg := vals[:min(len(vals), seriesPageLevels)]
			vals = vals[len(seg):]
			if !yield(first, seg) {
				return
			}
		}
	}
}

// seriesDict: tests turn it off to write the PLAIN file for comparison.
var seriesDict = true

// writeValuesChunk writes the values chunk of rows: a dictionary page and
// dictionary-encoded data pages where the chunk's distinct values fit a
// pq.FloatDict and that is smaller than PLAIN doubles, else PLAIN pages.
// Either way each row starts a page of its own.
func (sw *seriesWriter) writeValuesChunk(c *pq.Chunk, rows []Series) {
	if sw.dictEncode(rows) {
		dict := sw.fd.Dict()
		c.DictPage(len(dict), pq.Float64Bytes(dict))
		sw.pageAt = 0
		for i := range rows {
			sw.writeValues(c, rows[i].Values, true)
		}
		return
	}
	for i := range rows {
		sw.writeValues(c, rows[i].Values, false)
	}
}

// dictEncode interns the chunk's non-null values page by page and
// encodes each page's ids (the bit width byte, then RLE/bit-packed
// hybrid runs) into sw.idBody, page p's at sw.idEnds[p]:sw.idEnds[p+1].
// It reports whether the dictionary page and those bodies are smaller
// than the values as PLAIN doubles. The series values are means rounded
// to 1e-6 (classify's partial.go) of samples that often have few distinct
// values (integer percentages, 2–4 decimals): then the ids take 10–16
// bits where a double takes 64.
func (sw *seriesWriter) dictEncode(rows []Series) bool {
	if !seriesDict {
		return false
	}
	sw.fd.Reset()
	ids, ends := sw.ids[:0], sw.pageIDs[:0]
	ok := true
	for i := range rows {
		for _, seg := range valuePages(rows[i].Values) {
			if ids, ok = sw.fd.AppendNonNaN(ids, seg); !ok {
				sw.ids, sw.pageIDs = ids, ends
				return false
			}
			ends = append(ends, len(ids))
		}
	}
	sw.ids, sw.pageIDs = ids, ends
	dict := sw.fd.Dict()
	// arrow-cpp's dictionary encoder's width: at least 1 bit, as readers
	// expect of RLE_DICTIONARY pages.
	width := max(1, bits.Len32(uint32(max(len(dict)-1, 0))))
	if 8*len(dict)+len(ids)*width/8 >= 8*len(ids) {
		return false // the ids alone, bit-packed, would take the saving
	}
	body := sw.idBody[:0]
	sw.idEnds = append(sw.idEnds[:0], 0)
	lo := 0
	for _, hi := range ends {
		body = pq.AppendHybrid(append(body, byte(width)), ids[lo:hi], width)
		sw.idEnds = append(sw.idEnds, len(body))
		lo = hi
	}
	sw.idBody = body
	sw.hdr = pq.AppendPageHeader(sw.hdr[:0], pq.DictionaryPage, int32(8*len(dict)), int32(8*len(dict)), int32(len(dict)), 0)
	return len(sw.hdr)+8*len(dict)+len(body) < 8*len(ids)
}

// writeValues writes one row's values as data pages: repetition levels (0
// for the row's first element, 1 after), definition levels (2 a value, 1 a
// null for NaN; an empty list is one level 0 and no element), then the
// non-null values: with dict their ids from dictEncode (the page's next
// body in sw.idBody), else PLAIN doubles, from vals itself where none is
// NaN.
func (sw *seriesWriter) writeValues(c *pq.Chunk, vals []float64, dict bool) {
	for first, seg := range valuePages(vals) {
		lv := pq.LevelBlock(sw.levels[:0], func(b []byte) []byte {
			switch {
			case len(seg) == 0:
				return pq.AppendRun(b, 0, 1, 1)
			case !first:
				return pq.AppendRun(b, 1, len(seg), 1)
			}
			b = pq.AppendRun(b, 0, 1, 1)
			if len(seg) > 1 {
				b = pq.AppendRun(b, 1, len(seg)-1, 1)
			}
			return b
		})
		nulls := 0
		lv = pq.LevelBlock(lv, func(b []byte) []byte {
			if len(seg) == 0 {
				return pq.AppendRun(b, 0, 1, 2) // an empty list
			}
			for i := 0; i < len(seg); {
				// A loop per kind of run, one comparison a value: the
				// values of a month mostly make one long run.
				j := i + 1
				if seg[i] != seg[i] { // NaN: a null
					for j < len(seg) && seg[j] != seg[j] {
						j++
					}
					b = pq.AppendRun(b, 1, j-i, 2)
					nulls += j - i
				} else {
					for j < len(seg) && seg[j] == seg[j] {
						j++
					}
					b = pq.AppendRun(b, 2, j-i, 2)
				}
				i = j
			}
			return b
		})
		sw.levels = lv
		levels := max(len(seg), 1)
		if dict {
			sw.pageAt++
			c.DataPage(levels, parquet.Encodings.RLEDict, lv, sw.idBody[sw.idEnds[sw.pageAt-1]:sw.idEnds[sw.pageAt]])
			continue
		}
		data := seg
		if nulls > 0 {
			sw.packed = sw.packed[:0]
			for _, v := range seg {
				if v == v {
					sw.packed = append(sw.packed, v)
				}
			}
			data = sw.packed
		}
		c.DataPage(levels, parquet.Encodings.Plain, lv, pq.Float64Bytes(data))
	}
}

func (sw *seriesWriter) finish() (FileInfo, bool, error) {
	if sw.f == nil {
		return FileInfo{}, false, sw.err
	}
	err := sw.err
	if err == nil {
		err = sw.pf.Footer()
	}
	if err == nil {
		err = sw.w.Flush()
	}
	if err == nil {
		err = sw.f.Sync()
	}
	if cerr := sw.f.Close(); cerr != nil && err == nil {
		err = cerr
	}
	var size int64
	if sw.pf != nil {
		size = sw.pf.Size()
	}
	sw.f = nil
	if err != nil {
		return FileInfo{}, false, err
	}
	return FileInfo{Path: sw.rel, Rows: sw.rows, Bytes: size, Ingest: sw.ingest}, sw.rows > 0, nil
}

func (sw *seriesWriter) abort() {
	if sw.f != nil {
		sw.f.Close()
		sw.f = nil
	}
}
