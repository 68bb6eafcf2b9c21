package dataset

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// writeIngests commits rows in two transactions (two files) with small
// row groups, so the parallel readers see several files and groups.
func writeIngests[T any](t *testing.T, tbl *Table[T], rows []T, group int) *Dataset {
	t.Helper()
	ds := newDataset(t)
	for _, part := range [][]T{rows[:len(rows)/3], rows[len(rows)/3:]} {
		tx, err := ds.Begin()
		if err != nil {
			t.Fatal(err)
		}
		w := WriterFor(tx, tbl)
		w.batch = group
		for i := range part {
			if err := w.Append(&part[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	return ds
}

// ReadSeries (parallel, by row group) returns what the generic ReadAll
// returns, in the same order, NaN slots included.
func TestReadSeriesEqualsReadAll(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	rows := make([]Series, 150)
	for i := range rows {
		vals := make([]float64, r.IntN(40))
		for j := range vals {
			vals[j] = maybeNaN(r)
		}
		rows[i] = Series{Tenant: rngStr(r, alpha), StartMs: maybeTime(r), StepS: 120, Values: vals, Servers: int32(r.IntN(9))}
	}
	readSeriesAsWritten(t, writeIngests(t, SeriesTable, rows, 7), rows)
}

// readSeriesAsWritten checks that ReadSeries and ReadAll both give back
// rows, in order, NaN slots included.
func readSeriesAsWritten(t *testing.T, ds *Dataset, rows []Series) {
	t.Helper()
	want, err := ReadAll(context.Background(), ds, SeriesTable)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadSeries(context.Background(), ds)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(rows) || len(want) != len(rows) {
		t.Fatalf("ReadSeries %d rows, ReadAll %d, wrote %d", len(got), len(want), len(rows))
	}
	for i := range rows {
		if !equalNaN(got[i], rows[i]) || !equalNaN(want[i], rows[i]) {
			t.Fatalf("row %d (%d values) differs", i, len(rows[i].Values))
		}
	}
}

// ScanUsageBatches (parallel row groups, dictionary ids) yields every row
// in table order, and stops with the callback's error.
func TestScanUsageBatchesOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	rows := make([]Usage, 5000)
	for i := range rows {
		rows[i] = Usage{Tenant: rngStr(r, "abc"), Server: rngStr(r, alpha), TimeMs: int64(i) * 1000, CPU: r.Float64()}
	}
	rows[17].TimeMs = NoTime
	ds := writeIngests(t, UsageTable, rows, 333)
	var i, batches int
	err := ScanUsageBatches(context.Background(), ds, func(b *UsageBatch) error {
		batches++
		for k := 0; k < b.Len; k++ {
			w := rows[i]
			if b.Tenants[b.TenantIdx[k]] != w.Tenant || b.Servers[b.ServerIdx[k]] != w.Server || b.TimeMs[k] != w.TimeMs || b.CPU[k] != w.CPU {
				t.Fatalf("row %d: got %q %q %d %g, want %+v", i, b.Tenants[b.TenantIdx[k]], b.Servers[b.ServerIdx[k]], b.TimeMs[k], b.CPU[k], w)
			}
			i++
		}
		return nil
	})
	if err != nil || i != len(rows) || batches < 10 {
		t.Fatalf("err %v, %d rows in %d batches, want %d rows in ≥ 10", err, i, batches, len(rows))
	}
	stop := errors.New("stop")
	batches = 0
	err = ScanUsageBatches(context.Background(), ds, func(*UsageBatch) error {
		batches++
		if batches == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || batches != 3 {
		t.Fatalf("early stop: err %v after %d batches", err, batches)
	}
}

// ReadSeries decodes values in level batches of 64 Ki: long series with
// NaN runs (nulls) and empty series, in row groups whose values span
// several batches, read back as ReadAll reads them.
func TestReadSeriesLongGroups(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	rows := make([]Series, 11)
	for i := range rows {
		n := 20000 + r.IntN(30000)
		if i == 4 {
			n = 0
		}
		vals := make([]float64, n)
		for j := range vals {
			vals[j] = r.Float64()
			if i%3 == 0 && r.IntN(50) == 0 || i == 7 && j < 40000 {
				vals[j] = math.NaN()
			}
		}
		rows[i] = Series{Tenant: rngStr(r, alpha), StartMs: int64(i) * 1000, StepS: 120, Values: vals, Servers: int32(i)}
	}
	readSeriesAsWritten(t, writeIngests(t, SeriesTable, rows, 3), rows)
}
