package dataset

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// UsageBatch is a column-wise slice of the usage table, for consumers that
// read hundreds of millions of rows (the classify stage): no per-row
// closure, and strings as indexes into small per-batch dictionaries.
// Everything in it is valid only during the callback.
type UsageBatch struct {
	Len       int
	TenantIdx []int32  // index into Tenants, per row
	Tenants   []string // the batch's tenant dictionary
	ServerIdx []int32  // index into Servers, per row
	Servers   []string // the batch's server dictionary
	TimeMs    []int64  // NoTime when null
	CPU       []float64
}

// ScanUsageBatches calls fn with the usage table batch by batch (one row
// group each: 2^17 to 2^20 rows as wlprof writes them), file by file in
// manifest order.
// Row groups are decoded in parallel (the tenant and server columns as
// dictionary ids, the memory column not at all; from the pages where
// usagepages.go applies, else with arrow); fn sees them in order, one at
// a time.
func ScanUsageBatches(ctx context.Context, d *Dataset, fn func(*UsageBatch) error) error {
	var free usageFree
	defer free.close()
	read := func(ctx context.Context, g *groupReader, rg int) ([]*UsageBatch, error) {
		b := free.batch()
		s := free.scratch(nil)
		ok := fastUsageGroup(g, rg, b, s)
		free.scratch(s)
		if ok {
			return []*UsageBatch{b}, nil
		}
		free.put(b)
		return readGroup(ctx, g, rg, func(recs []arrow.Record) ([]*UsageBatch, error) { return decodeUsageBatches(recs, free.batch) })
	}
	return scanRowGroups(ctx, d, UsageTable.Name, []string{"tenant", "server", "time", "cpu"}, []string{"tenant", "server"},
		read, func(bs []*UsageBatch) error {
			for _, b := range bs {
				if err := fn(b); err != nil {
					return err
				}
				free.put(b)
			}
			return nil
		})
}

// usageFree keeps a scan's batches once fn has seen them (a 216 M-row
// table would otherwise leave 5 GB of garbage behind), and its page
// decoders between row groups. The batches in flight are a few (one per
// worker, one queued per worker, the one fn has), so a list does, where a
// sync.Pool would be emptied by every collection while the series builder
// grows its heap.
type usageFree struct {
	mu           sync.Mutex
	batches      []*UsageBatch
	spare, every []*usageScratch
}

func (f *usageFree) batch() *UsageBatch {
	f.mu.Lock()
	defer f.mu.Unlock()
	if k := len(f.batches); k > 0 {
		b := f.batches[k-1]
		f.batches = f.batches[:k-1]
		return b
	}
	return &UsageBatch{}
}

func (f *usageFree) put(b *UsageBatch) {
	f.mu.Lock()
	f.batches = append(f.batches, b)
	f.mu.Unlock()
}

// scratch returns a page decoder when s is nil and takes s back when not.
func (f *usageFree) scratch(s *usageScratch) *usageScratch {
	f.mu.Lock()
	defer f.mu.Unlock()
	if s != nil {
		f.spare = append(f.spare, s)
		return nil
	}
	if k := len(f.spare); k > 0 {
		s = f.spare[k-1]
		f.spare = f.spare[:k-1]
		return s
	}
	s = &usageScratch{}
	f.every = append(f.every, s)
	return s
}

func (f *usageFree) close() {
	for _, s := range f.every {
		s.close()
	}
}

func decodeUsageBatches(recs []arrow.Record, batch func() *UsageBatch) ([]*UsageBatch, error) {
	out := make([]*UsageBatch, 0, len(recs))
	for _, rec := range recs {
		col := func(name string) (arrow.Array, error) {
			idx := rec.Schema().FieldIndices(name)
			if len(idx) == 0 {
				return nil, fmt.Errorf("dataset: usage file without column %q", name)
			}
			return rec.Column(idx[0]), nil
		}
		tc, err := col("tenant")
		if err != nil {
			return nil, err
		}
		sc, err := col("server")
		if err != nil {
			return nil, err
		}
		tm, err := col("time")
		if err != nil {
			return nil, err
		}
		cpu, err := col("cpu")
		if err != nil {
			return nil, err
		}
		n := int(rec.NumRows())
		b := batch()
		b.Len = n
		b.TenantIdx, b.Tenants = dictColumn(tc, b.TenantIdx[:0], b.Tenants[:0])
		b.ServerIdx, b.Servers = dictColumn(sc, b.ServerIdx[:0], b.Servers[:0])
		ta := tm.(*array.Timestamp)
		tv := ta.TimestampValues()[:n]
		b.TimeMs = slices.Grow(b.TimeMs[:0], n)[:n]
		for i, t := range tv {
			b.TimeMs[i] = int64(t)
		}
		if ta.NullN() > 0 {
			for i := 0; i < n; i++ {
				if ta.IsNull(i) {
					b.TimeMs[i] = NoTime
				}
			}
		}
		b.CPU = append(b.CPU[:0], cpu.(*array.Float64).Float64Values()[:n]...)
		out = append(out, b)
	}
	return out, nil
}

// dictColumn returns per-row indexes and the dictionary of a string column,
// whether it was read as an Arrow dictionary or as plain strings (then the
// dictionary is built here).
func dictColumn(a arrow.Array, idx []int32, dict []string) ([]int32, []string) {
	n := a.Len()
	if d, ok := a.(*array.Dictionary); ok {
		switch vals := d.Dictionary().(type) {
		case *array.String:
			for i := 0; i < vals.Len(); i++ {
				dict = append(dict, strings.Clone(vals.Value(i)))
			}
		case *array.Binary:
			for i := 0; i < vals.Len(); i++ {
				dict = append(dict, string(vals.Value(i)))
			}
		}
		if ids, ok := d.Indices().(*array.Int32); ok {
			return append(idx, ids.Int32Values()[:n]...), dict
		}
		for i := 0; i < n; i++ {
			idx = append(idx, int32(d.GetValueIndex(i)))
		}
		return idx, dict
	}
	sa := a.(*array.String)
	seen := map[string]int32{}
	for i := 0; i < n; i++ {
		s := sa.Value(i)
		id, ok := seen[s]
		if !ok {
			id = int32(len(dict))
			s = strings.Clone(s)
			dict = append(dict, s)
			seen[s] = id
		}
		idx = append(idx, id)
	}
	return idx, dict
}
