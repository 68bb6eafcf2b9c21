package dataset

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow/go/v16/arrow"
	"github.com/apache/arrow/go/v16/arrow/array"
)

// SeriesGroupRows is the series table's rows (tenants) per row group: a
// month at 2 minutes is 170 KB of values per tenant, so a group is ~5.5 MB
// and 10,000 tenants make ~310 groups to read in parallel. A reader
// decodes a group into a buffer it reuses, and the classify stage then
// reads the group again: at 32 rows that buffer is still in the cache. A
// read of the 10,000-tenant table took 0.37 CPU s at 32 rows against 0.69
// at 64 and 0.6 at 8 (where the per-group work shows), and classify as a
// whole 10% less.
const SeriesGroupRows = 32

// ReadSeries returns every row of the series table, like ReadAll, but
// decodes row groups in parallel and decodes each group's values straight
// into one allocation (each Series.Values is a capacity-limited window of
// it; seriesdirect.go). The classify stage reads 216 M values this way.
func ReadSeries(ctx context.Context, d *Dataset) ([]Series, error) {
	return readSeriesDirect(ctx, d)
}

func decodeSeries(recs []arrow.Record) ([]Series, error) {
	var out []Series
	for _, rec := range recs {
		n := int(rec.NumRows())
		if n == 0 {
			continue
		}
		rows := make([]Series, n)
		col := func(name string) arrow.Array {
			if idx := rec.Schema().FieldIndices(name); len(idx) > 0 {
				return rec.Column(idx[0])
			}
			return nil // column added after this file was written: zero value
		}
		for _, c := range SeriesTable.cols {
			if c.field.Name == "values" {
				continue
			}
			if a := col(c.field.Name); a != nil {
				rd := c.reader(a)
				for i := range rows {
					rd(i, &rows[i])
				}
			}
		}
		for i := range rows {
			// The column readers alias Arrow's memory, which the pooled
			// allocator reuses for the next row group.
			rows[i].Tenant = strings.Clone(rows[i].Tenant)
		}
		if a := col("values"); a != nil {
			la, ok := a.(*array.List)
			if !ok {
				return nil, fmt.Errorf("dataset: series values column of type %s", a.DataType())
			}
			va := la.ListValues().(*array.Float64)
			lo, _ := la.ValueOffsets(0)
			_, hi := la.ValueOffsets(n - 1)
			all := make([]float64, hi-lo)
			copy(all, va.Float64Values()[lo:hi])
			if va.NullN() > 0 {
				for j := lo; j < hi; j++ {
					if va.IsNull(int(j)) {
						all[j-lo] = math.NaN()
					}
				}
			}
			for i := range rows {
				s, e := la.ValueOffsets(i)
				rows[i].Values = all[s-lo : e-lo : e-lo]
			}
		}
		out = append(out, rows...)
	}
	return out, nil
}
