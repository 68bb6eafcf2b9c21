package estimate

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/datasettest"
)

// Ω comes from the classify stage's series and patterns: the first Load
// builds the series and stores them as the series table (the classify
// stage's cache, which wlprof classify then reuses), the next reads that
// table, and both fold the same availability from the same periodic
// tenant. With no job, Load says so (ErrNoJobs) and still returns the
// availability.
func TestAvailabilityFromClassifySeries(t *testing.T) {
	ds, tx := datasettest.Begin(t, filepath.Join(t.TempDir(), "ds"))
	// Eight days every two minutes: a daily wave with seeded noise and a
	// flat line.
	rng := rand.New(rand.NewPCG(1, 2))
	var rows []dataset.Usage
	for k := int64(0); k < 8*720; k++ {
		rows = append(rows,
			dataset.Usage{Tenant: "wave", Server: "s1", TimeMs: k * 120_000, CPU: 0.5 + 0.3*math.Sin(2*math.Pi*float64(k)/720) + 0.05*rng.NormFloat64(), Memory: math.NaN()},
			dataset.Usage{Tenant: "flat", Server: "s2", TimeMs: k * 120_000, CPU: 0.4, Memory: math.NaN()})
	}
	datasettest.Append(t, tx.Usage(), rows)
	datasettest.Commit(t, tx)
	opts := DefaultOptions()
	opts.AtMs, opts.AtSet = 8*86400_000, true
	built, err := Load(context.Background(), ds, opts)
	if !errors.Is(err, ErrNoJobs) {
		t.Fatalf("no jobs: %v, want ErrNoJobs", err)
	}
	if built.Availability == nil || !reflect.DeepEqual(built.Tenants, []string{"wave"}) {
		t.Fatalf("availability %v from tenants %v, want the wave alone (%q)", built.Availability, built.Tenants, built.Warnings)
	}
	if ds, err = dataset.Open(ds.Dir); err != nil {
		t.Fatal(err)
	}
	if n := ds.Rows(dataset.SeriesTable.Name); n != 2 {
		t.Fatalf("series table: %d rows, want the 2 tenants stored", n)
	}
	stored, _ := Load(context.Background(), ds, opts)
	if !reflect.DeepEqual(stored.Availability, built.Availability) || !reflect.DeepEqual(stored.Tenants, built.Tenants) {
		t.Errorf("from the stored table: %+v, built: %+v", stored.Availability, built.Availability)
	}
}
