package dataset

import (
	"context"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
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
	return collectSeries(ctx, d, nil)
}

// decodeSeries decodes the series table's small columns (every column
// but values, which readSeriesGroup decodes from the pages) of recs.
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
		out = append(out, rows...)
	}
	return out, nil
}
