package dataset

import (
	"context"
	"path/filepath"
	"testing"
)

// TestReadAcrossBatches reads a usage table of more rows than one read
// batch. With 64k-row batches inside a 1M-row row group, arrow/go v16's
// DELTA_BINARY_PACKED decoder panicked (slice bounds out of range) on the
// time column; batches as large as the row groups avoid it.
func TestReadAcrossBatches(t *testing.T) {
	ds, tx := newTx(t)
	const n = 200_000
	for i := 0; i < n; i++ {
		r := Usage{Tenant: "t", Server: "s", TimeMs: 1_700_000_000_000 + int64(i)*120_000 + int64(i%7), CPU: 0.5}
		if err := tx.Usage().Append(&r); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	rows, err := ReadAll(context.Background(), ds, UsageTable)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != n || rows[n-1].TimeMs != 1_700_000_000_000+int64(n-1)*120_000+int64((n-1)%7) {
		t.Fatalf("read %d rows, last %+v", len(rows), rows[len(rows)-1])
	}
	var batches int
	err = ScanUsageBatches(context.Background(), ds, func(b *UsageBatch) error {
		batches++
		if b.Tenants[b.TenantIdx[0]] != "t" || b.Servers[b.ServerIdx[0]] != "s" {
			t.Fatalf("batch %d: tenant/server dictionary wrong", batches)
		}
		return nil
	})
	if err != nil || batches == 0 {
		t.Fatal(err, batches)
	}
}

// TestReplaceTable: a transaction that replaces a table leaves only its own
// rows in it, and the old part file is gone.
func TestReplaceTable(t *testing.T) {
	ds := newDataset(t)
	for gen := 1; gen <= 2; gen++ {
		tx, err := ds.Begin()
		if err != nil {
			t.Fatal(err)
		}
		tx.Replace(SeriesTable.Name)
		s := Series{Tenant: "t", StartMs: 0, StepS: 120, Values: make([]float64, gen), Servers: int32(gen)}
		if err := tx.WriteSeries([]Series{s}); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := ReadAll(context.Background(), ds, SeriesTable)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Servers != 2 || len(ds.Manifest().Tables[SeriesTable.Name].Files) != 1 {
		t.Fatalf("after replace: %+v, files %+v", rows, ds.Manifest().Tables[SeriesTable.Name].Files)
	}
	if m, _ := filepath.Glob(filepath.Join(ds.Dir, "series", "part-*")); len(m) != 1 {
		t.Fatalf("series files on disk: %v", m)
	}
}
