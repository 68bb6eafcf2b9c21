package dataset

import (
	"context"
	"fmt"

	"github.com/apache/arrow/go/v16/arrow"
	"github.com/apache/arrow/go/v16/arrow/array"
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

// ScanUsageBatches calls fn with the usage table batch by batch (about
// ReadBatchRows rows each), file by file in manifest order.
func ScanUsageBatches(ctx context.Context, d *Dataset, fn func(*UsageBatch) error) error {
	var b UsageBatch
	return d.ScanRecords(ctx, UsageTable.Name, func(rec arrow.Record) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		col := func(name string) (arrow.Array, error) {
			idx := rec.Schema().FieldIndices(name)
			if len(idx) == 0 {
				return nil, fmt.Errorf("dataset: usage file without column %q", name)
			}
			return rec.Column(idx[0]), nil
		}
		tc, err := col("tenant")
		if err != nil {
			return err
		}
		sc, err := col("server")
		if err != nil {
			return err
		}
		tm, err := col("time")
		if err != nil {
			return err
		}
		cpu, err := col("cpu")
		if err != nil {
			return err
		}
		n := int(rec.NumRows())
		b.Len = n
		b.TenantIdx, b.Tenants = dictColumn(tc, b.TenantIdx[:0], b.Tenants[:0])
		b.ServerIdx, b.Servers = dictColumn(sc, b.ServerIdx[:0], b.Servers[:0])
		ta := tm.(*array.Timestamp)
		tv := ta.TimestampValues()
		b.TimeMs = b.TimeMs[:0]
		for i := 0; i < n; i++ {
			if ta.IsNull(i) {
				b.TimeMs = append(b.TimeMs, NoTime)
			} else {
				b.TimeMs = append(b.TimeMs, int64(tv[i]))
			}
		}
		b.CPU = cpu.(*array.Float64).Float64Values()[:n]
		return fn(&b)
	})
}

// dictColumn returns per-row indexes and the dictionary of a string column,
// whether it was read as an Arrow dictionary or as plain strings (then the
// dictionary is built here).
func dictColumn(a arrow.Array, idx []int32, dict []string) ([]int32, []string) {
	n := a.Len()
	if d, ok := a.(*array.Dictionary); ok {
		vals := d.Dictionary().(*array.String)
		for i := 0; i < vals.Len(); i++ {
			dict = append(dict, vals.Value(i))
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
			dict = append(dict, s)
			seen[s] = id
		}
		idx = append(idx, id)
	}
	return idx, dict
}
