package classify

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/datasettest"
)

// usageWorld is a dataset with four days of two tenants every two
// minutes: a daily wave and a flat line.
func usageWorld(t *testing.T) *dataset.Dataset {
	t.Helper()
	ds, tx := datasettest.Begin(t, filepath.Join(t.TempDir(), "ds"))
	var rows []dataset.Usage
	for k := int64(0); k < 4*720; k++ {
		rows = append(rows,
			dataset.Usage{Tenant: "wave", Server: "s1", TimeMs: k * 120_000, CPU: 0.5 + 0.3*math.Sin(2*math.Pi*float64(k)/720), Memory: math.NaN()},
			dataset.Usage{Tenant: "flat", Server: "s1", TimeMs: k * 120_000, CPU: 0.4, Memory: math.NaN()})
	}
	datasettest.Append(t, tx.Usage(), rows)
	datasettest.Commit(t, tx)
	return ds
}

func reopen(t *testing.T, ds *dataset.Dataset) *dataset.Dataset {
	t.Helper()
	ds, err := dataset.Open(ds.Dir)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// Series owns the series table: it builds and stores the series when the
// table is missing, returns the stored table when it is fresh, and builds
// and stores them again for another step; the series it returns are the
// same either way.
func TestSeriesOwnsTheTable(t *testing.T) {
	ctx := context.Background()
	ds := usageWorld(t)
	built, err := Series(ctx, ds, SeriesOptions{})
	if err != nil || !built.Built || len(built.Warnings) > 0 {
		t.Fatalf("no table: built %v, warnings %q, %v", built != nil && built.Built, built.Warnings, err)
	}
	if err := built.Stored(); err != nil {
		t.Fatal(err)
	}
	ds = reopen(t, ds)
	if n := ds.Rows(dataset.SeriesTable.Name); n != 2 {
		t.Fatalf("series table has %d rows after Series, want 2", n)
	}
	stored, err := Series(ctx, ds, SeriesOptions{Step: DefaultStep})
	if err != nil || stored.Built {
		t.Fatalf("fresh table on its step: built %v, %v", stored.Built, err)
	}
	a, errA := built.All(ctx)
	b, errB := stored.All(ctx)
	if errA != nil || errB != nil || len(a) != 2 || !reflect.DeepEqual(a, b) {
		t.Fatalf("built and stored series differ (%v, %v)", errA, errB)
	}
	other, err := Series(ctx, ds, SeriesOptions{Step: 10 * time.Minute})
	if err != nil || !other.Built {
		t.Fatalf("another step: built %v, %v", other.Built, err)
	}
	if err := other.Stored(); err != nil {
		t.Fatal(err)
	}
	ten, _ := Series(ctx, reopen(t, ds), SeriesOptions{Step: 10 * time.Minute})
	if s, _ := ten.All(ctx); ten.Built || len(s) != 2 || s[0].StepS != 600 {
		t.Fatalf("the 10m table was not stored: built %v", ten.Built)
	}
}

// Run only computes: the manifest, the dataset's commit point, is the same
// before and after it, whether Load built the series or found them stored.
// (The series Load built are stored while Run classifies them; the test
// waits for that write first, so what it compares is Run's own doing.)
func TestRunWritesNothing(t *testing.T) {
	ctx := context.Background()
	ds := usageWorld(t)
	manifest := func() string {
		b, err := os.ReadFile(filepath.Join(ds.Dir, "manifest.json"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, want := range []bool{true, false} {
		in, err := Load(ctx, ds, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if err := in.set.Stored(); err != nil {
			t.Fatal(err)
		}
		before := manifest()
		res, err := Run(ctx, in, DefaultOptions())
		if err != nil || res.Built != want {
			t.Fatalf("built %v, want %v (%v)", res != nil && res.Built, want, err)
		}
		if manifest() != before {
			t.Errorf("built %v: Run changed the dataset", want)
		}
		ds = reopen(t, ds)
	}
}
