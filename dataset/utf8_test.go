package dataset

import (
	"context"
	"errors"
	"testing"
)

// TestAppendRefusesInvalidUTF8: a record with a string that is not UTF-8
// is refused whole (an *InvalidUTF8Error naming the column), by Append,
// AppendBatch and AppendUsageColumns alike; the writer stays usable and
// the rows around it are written.
func TestAppendRefusesInvalidUTF8(t *testing.T) {
	ds := newDataset(t)
	tx, err := ds.Begin()
	if err != nil {
		t.Fatal(err)
	}
	w := tx.Usage()
	var bad *InvalidUTF8Error
	if err := w.Append(&Usage{Tenant: "a", Server: "s1", TimeMs: 1}); err != nil {
		t.Fatal(err)
	}
	if err := w.Append(&Usage{Tenant: "a", Server: "s\xff", TimeMs: 2}); !errors.As(err, &bad) || bad.Column != "server" || bad.Error() != `server is not valid UTF-8: s\xff` {
		t.Fatalf("Append: %v", err)
	}
	if err := w.AppendBatch([]Usage{{Tenant: "b", Server: "s", TimeMs: 3}, {Tenant: "\xc3(", Server: "s", TimeMs: 4}}); !errors.As(err, &bad) || bad.Column != "tenant" {
		t.Fatalf("AppendBatch: %v", err)
	}
	cols := UsageColumns{Tenants: []string{"c", "d\x80"}, Servers: []string{"s"}, Tenant: []int32{0}, Server: []int32{0}, TimeMs: []int64{5}, CPU: []float64{0.5}, Memory: []float64{0.5}}
	if err := AppendUsageColumns(w, &cols); !errors.As(err, &bad) || bad.Column != "tenant" {
		t.Fatalf("AppendUsageColumns: %v", err)
	}
	if err := w.Append(&Usage{Tenant: "e", Server: "s", TimeMs: 6}); err != nil {
		t.Fatalf("the writer after a refusal: %v", err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	rows, err := ReadAll(context.Background(), ds, UsageTable)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Tenant != "a" || rows[1].Tenant != "e" {
		t.Fatalf("rows %+v, want a and e", rows)
	}
}
