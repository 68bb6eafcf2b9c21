package dataset

import (
	"context"
	"math"
	"testing"
)

// A writer keeps at most two value slices per column, the one being filled
// and the one the encoder holds: a flush waits for the encoder to give one
// back rather than making a third. The rows still come back as written.
func TestWriterKeepsTwoSlicesPerColumn(t *testing.T) {
	rows := usageWorld(31, 60_000)
	ds := newDataset(t)
	tx, err := ds.Begin()
	if err != nil {
		t.Fatal(err)
	}
	w := WriterFor(tx, UsageTable)
	w.batch = 1_000 // 60 batches, far faster appended than encoded
	for i := range rows {
		if err := w.Append(&rows[i]); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range w.cols {
		made := 0
		switch c := c.(type) {
		case *sliceCol[Usage, int64]:
			made = c.spare.made
		case *sliceCol[Usage, float64]:
			made = c.spare.made
		case *dictCol[Usage]:
			made = c.spare.made
		default:
			t.Fatalf("column %d: %T", i, c)
		}
		if made > 1 {
			t.Errorf("column %d made %d slices besides its first, want at most 1", i, made)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadAll(context.Background(), ds, UsageTable)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(rows) {
		t.Fatalf("%d rows read back, want %d", len(got), len(rows))
	}
	for i := range rows {
		a, b := got[i], rows[i]
		if a.Tenant != b.Tenant || a.Server != b.Server || a.TimeMs != b.TimeMs || a.CPU != b.CPU ||
			a.Memory != b.Memory && !(math.IsNaN(a.Memory) && math.IsNaN(b.Memory)) {
			t.Fatalf("row %d: %+v, want %+v", i, a, b)
		}
	}
}
