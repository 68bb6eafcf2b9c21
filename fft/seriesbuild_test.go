package fft

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

// AddBatch folds a batch's rows on several workers (each owning a part of
// the servers); the series must be exactly those of one worker, whatever
// the number of parts, on shuffled rows with duplicates and gaps.
func TestAddBatchPartsAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	ds, err := dataset.OpenOrCreate(filepath.Join(t.TempDir(), "ds"))
	if err != nil {
		t.Fatal(err)
	}
	tx, err := ds.Begin()
	if err != nil {
		t.Fatal(err)
	}
	var rows []dataset.Usage
	for tn := 0; tn < 150; tn++ {
		for sv := 0; sv < 1+tn%3; sv++ {
			for slot := 0; slot < 200; slot++ {
				if r.IntN(10) == 0 {
					continue // gap
				}
				for d := 0; d < 1+r.IntN(2); d++ { // duplicates in a slot
					rows = append(rows, dataset.Usage{Tenant: "t" + strconv.Itoa(tn), Server: "s" + strconv.Itoa(sv),
						TimeMs: 1_700_000_000_000 + int64(slot)*120_000 + int64(d)*1000, CPU: r.Float64()})
				}
			}
		}
	}
	r.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	for i := range rows {
		if err := tx.Usage().Append(&rows[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	build := func(parts int) []dataset.Series {
		b := NewSeriesBuilder(2 * time.Minute)
		b.parts = parts
		err := dataset.ScanUsageBatches(context.Background(), ds, func(ub *dataset.UsageBatch) error {
			if ub.Len < 1<<14 {
				t.Fatalf("batch of %d rows would not take the parallel path", ub.Len)
			}
			b.AddBatch(ub)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return b.Series()
	}
	one, many := build(1), build(7)
	if len(one) != 150 || len(many) != len(one) {
		t.Fatalf("%d and %d series, want 150", len(one), len(many))
	}
	for i := range one {
		a, b := one[i], many[i]
		if a.Tenant != b.Tenant || a.StartMs != b.StartMs || a.Servers != b.Servers || len(a.Values) != len(b.Values) {
			t.Fatalf("series %d: %+v vs %+v", i, a, b)
		}
		for j := range a.Values {
			if a.Values[j] != b.Values[j] && !(math.IsNaN(a.Values[j]) && math.IsNaN(b.Values[j])) {
				t.Fatalf("%s slot %d: %g with one part, %g with seven", a.Tenant, j, a.Values[j], b.Values[j])
			}
		}
	}
}
