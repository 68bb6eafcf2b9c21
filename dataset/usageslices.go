package dataset

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/wlprof/wlprof/dataset/internal/pq"
)

// usageSliceRows is the most rows of a ScanUsageSlices batch after the
// first: 3 MB of ids, times and values, which the consumer reads from the
// cache the decoder left them in, where a row group decoded whole is
// 24 MB that goes out to memory and back. On a month of 1,000 tenants the
// first classify took 5% less CPU with slices of 2^17 rows than with
// whole groups (2^16: 3%, 2^15: 2%). Row groups of 2^17 rows gave 8%, but
// store the ids of 10,000 tenants half as compactly.
var usageSliceRows = 1 << 17 // a variable for the tests' small slices

// ScanUsageSlices is ScanUsageBatches with every row group but the
// table's first handed to fn in batches of at most usageSliceRows rows,
// in order. The first batch is still the first row group whole: a
// consumer that measures the data on it (BatchStep) sees what it sees
// through ScanUsageBatches. A row group that is not one data page per
// column, as wlprof writes them, is decoded whole and handed on whole.
func ScanUsageSlices(ctx context.Context, d *Dataset, fn func(*UsageBatch) error) error {
	var free usageFree
	defer free.close()
	read := func(ctx context.Context, g *groupReader, rg, task int, emit func(*UsageBatch) error) error {
		if task > 0 {
			sl := free.slicer(nil)
			done, err := sl.scan(ctx, g, rg, &free, emit)
			free.slicer(sl)
			if done || err != nil {
				return err
			}
		}
		bs, err := readUsageGroup(ctx, g, rg, &free)
		if err != nil {
			return err
		}
		for _, b := range bs {
			if err := emit(b); err != nil {
				return err
			}
		}
		return nil
	}
	return scanRowGroupParts(ctx, d, UsageTable.Name, usageScanCols, usageScanDicts, read, func(b *UsageBatch) error {
		if err := fn(b); err != nil {
			return err
		}
		free.put(b)
		return nil
	})
}

// usageSlicer decodes a row group's four usage columns a slice at a time:
// each column's one data page is read and decompressed whole into
// buffers of its own, and its ids, deltas or values unpacked a slice at a
// time (pq.IDCursor, DeltaCursor). One per worker.
type usageSlicer struct {
	pr                     [4]pq.PageReader
	chunk                  [4][]byte
	tenants, servers       []string
	tenant, server, cpuIDs pq.IDCursor
	time                   pq.DeltaCursor
	timePlain, cpuPlain    []byte // the page's values where PLAIN, else nil
	dict                   []float64
	ids                    []int32
	rows, at               int
}

func (s *usageSlicer) close() {
	for i := range s.pr {
		s.pr[i].Close()
	}
}

// scan hands row group rg of g to emit a slice at a time. handled is
// false, with nothing emitted, where the group is not one data page per
// column of the encodings wlprof writes. A page found damaged after some
// slices were emitted is decoded with arrow, which reports the damage or
// gives the rows, of which those not yet emitted are.
func (s *usageSlicer) scan(ctx context.Context, g *groupReader, rg int, free *usageFree, emit func(*UsageBatch) error) (handled bool, err error) {
	if !s.prepare(g, rg) {
		return false, nil
	}
	for s.at < s.rows {
		b := free.batch()
		if !s.next(b) {
			free.put(b)
			if s.at == 0 {
				return false, nil
			}
			return true, s.rest(ctx, g, rg, free, emit)
		}
		if err := emit(b); err != nil {
			return true, err
		}
	}
	return true, nil
}

// rest emits the rows of row group rg from s.at on, decoded with arrow.
func (s *usageSlicer) rest(ctx context.Context, g *groupReader, rg int, free *usageFree, emit func(*UsageBatch) error) error {
	bs, err := readGroup(ctx, g, rg, func(recs []arrow.Record) ([]*UsageBatch, error) { return decodeUsageBatches(recs, free.batch) })
	if err != nil {
		return err
	}
	skip := s.at
	for _, b := range bs {
		k := min(skip, b.Len)
		skip -= k
		if k == b.Len {
			free.put(b)
			continue
		}
		b.Len -= k
		b.TenantIdx, b.ServerIdx, b.TimeMs, b.CPU = b.TenantIdx[k:], b.ServerIdx[k:], b.TimeMs[k:], b.CPU[k:]
		if err := emit(b); err != nil {
			return err
		}
	}
	if skip > 0 {
		return fmt.Errorf("dataset: %s: usage row group %d: arrow reads fewer rows than its pages hold", g.path, rg)
	}
	return nil
}

// prepare reads row group rg's pages and starts the cursors.
func (s *usageSlicer) prepare(g *groupReader, rg int) bool {
	chunks, maxDefTime, n, ok := usageChunks(g, rg)
	if !ok || n == 0 {
		return false
	}
	s.rows, s.at = n, 0
	// page reads column i's chunk; false unless it is one data page
	// (after a dictionary page) without nulls.
	page := func(i int, maxDef int16, dict func(n int, body []byte) bool) (enc int32, vals []byte, ok bool) {
		cc := chunks[i]
		off, size := cc.DataPageOffset(), cc.TotalCompressedSize()
		if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 {
			off = min(off, cc.DictionaryPageOffset())
		}
		b, ok := chunkBytes(nil, g.f, off, size, &s.chunk[i])
		if !ok {
			return 0, nil, false
		}
		datas := 0
		// The values stay valid after the walk: they are in the page
		// reader's buffer or the chunk's, and each column has its own.
		ok = s.pr[i].WalkLevels(b, cc.Compression(), maxDef, n, dict, func(e int32, levels int, def, v []byte) bool {
			datas++
			if maxDef == 1 {
				if k, ok := pq.CountDefs(def, levels); !ok || k != levels {
					return false
				}
			}
			enc, vals = e, v
			return datas == 1
		})
		return enc, vals, ok && datas == 1
	}
	strs := func(dst *[]string) func(n int, body []byte) bool {
		return func(n int, body []byte) bool {
			var ok bool
			*dst, ok = pq.Strings(body, n, (*dst)[:0])
			return ok
		}
	}
	dictEnc := func(enc int32) bool { return enc == pq.PlainDict || enc == pq.RLEDictionary }
	s.tenants, s.servers, s.dict = s.tenants[:0], s.servers[:0], s.dict[:0]
	enc, vals, ok := page(0, 0, strs(&s.tenants))
	if !ok || !dictEnc(enc) || !s.tenant.Reset(vals) {
		return false
	}
	if enc, vals, ok = page(1, 0, strs(&s.servers)); !ok || !dictEnc(enc) || !s.server.Reset(vals) {
		return false
	}
	s.timePlain = nil
	switch enc, vals, ok = page(2, maxDefTime, nil); {
	case !ok:
		return false
	case enc == pq.DeltaBinary:
		if !s.time.Reset(vals, n) {
			return false
		}
	case enc == pq.Plain && len(vals) == 8*n:
		s.timePlain = vals
	default:
		return false
	}
	s.cpuPlain = nil
	enc, vals, ok = page(3, 0, func(n int, body []byte) bool {
		if n < 0 || len(body) != 8*n {
			return false
		}
		s.dict = slices.Grow(s.dict[:0], n)[:n]
		return pq.Float64s(body, s.dict)
	})
	switch {
	case !ok:
		return false
	case dictEnc(enc):
		return s.cpuIDs.Reset(vals)
	case enc == pq.Plain && len(vals) == 8*n:
		s.cpuPlain = vals
		return true
	}
	return false
}

// next decodes the group's next slice into b; false where a page is
// found damaged.
func (s *usageSlicer) next(b *UsageBatch) bool {
	k, at := min(usageSliceRows, s.rows-s.at), s.at
	b.Len = k
	b.TenantIdx = slices.Grow(b.TenantIdx[:0], k)[:k]
	b.ServerIdx = slices.Grow(b.ServerIdx[:0], k)[:k]
	b.TimeMs = slices.Grow(b.TimeMs[:0], k)[:k]
	b.CPU = slices.Grow(b.CPU[:0], k)[:k]
	// The batch's own copies of the dictionaries' headers (the strings
	// are the page's copies, never written): fn may still read this
	// batch once another worker takes the slicer for its next group.
	b.Tenants, b.Servers = append(b.Tenants[:0], s.tenants...), append(b.Servers[:0], s.servers...)
	if hi, ok := s.tenant.Next(b.TenantIdx); !ok || int64(hi) >= int64(len(s.tenants)) {
		return false
	}
	if hi, ok := s.server.Next(b.ServerIdx); !ok || int64(hi) >= int64(len(s.servers)) {
		return false
	}
	if s.timePlain != nil {
		if !pq.Int64s(s.timePlain[8*at:8*(at+k)], b.TimeMs) {
			return false
		}
	} else if !s.time.Next(b.TimeMs) {
		return false
	}
	if s.cpuPlain != nil {
		if !pq.Float64s(s.cpuPlain[8*at:8*(at+k)], b.CPU) {
			return false
		}
	} else {
		s.ids = slices.Grow(s.ids[:0], k)[:k]
		if hi, ok := s.cpuIDs.Next(s.ids); !ok || int64(hi) >= int64(len(s.dict)) {
			return false
		}
		for j, id := range s.ids {
			b.CPU[j] = s.dict[id]
		}
	}
	s.at += k
	return true
}
