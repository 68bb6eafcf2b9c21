package classify

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/datasettest"
	"github.com/wlprof/wlprof/internal/synth"
)

// storedWorld writes a synthetic world's series as a dataset's series table
// (three row groups and more, missing samples, short tenants) and returns
// the dataset and the series.
func storedWorld(t *testing.T, seed uint64, order func([]dataset.Series)) (*dataset.Dataset, []dataset.Series) {
	t.Helper()
	o := synth.Default()
	o.Tenants, o.Days, o.Seed, o.Missing, o.Shifts = 150, 8, seed, 0.05, 0.3
	series, _ := synthSeries(t, o)
	// Some tenants with too little history, so every pattern occurs.
	for i := 0; i < len(series); i += 17 {
		series[i].Values = series[i].Values[:len(series[i].Values)/4]
	}
	stored := slices.Clone(series)
	if order != nil {
		order(stored)
	}
	ds, tx := datasettest.Begin(t, filepath.Join(t.TempDir(), "ds"))
	tx.Replace(dataset.SeriesTable.Name)
	if err := tx.WriteSeries(stored); err != nil {
		t.Fatal(err)
	}
	datasettest.Commit(t, tx)
	return reopen(t, ds), series
}

// Classifying the series table as it is read (two passes, a few groups in
// memory) gives exactly what Classify gives on the series in memory: the
// same tenants, classes and headroom, bit for bit, with and without --at
// and --k.
func TestClassifyStoredEqualsClassify(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		ds, series := storedWorld(t, seed, nil)
		for _, opts := range []Options{{}, {K: 2}, {AtMs: series[0].StartMs + 3*86400_000}} {
			want, err := Run(context.Background(), Input{Series: series}, opts)
			if err != nil {
				t.Fatal(err)
			}
			got, built, err := classifyDataset(context.Background(), ds, opts)
			if err != nil {
				t.Fatal(err)
			}
			if built {
				t.Fatalf("seed %d: the fresh series table was rebuilt", seed)
			}
			if _, err := classifyStored(context.Background(), ds, SeriesOptions{}, opts); err != nil {
				t.Fatalf("seed %d: the stored path was not taken: %v", seed, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d opts %+v: stored path differs from Classify:\n got classes %+v\nwant classes %+v", seed, opts, got.Classes, want.Classes)
			}
		}
	}
}

// A series table not in tenant order (not one writeSeries wrote from a
// builder) is read whole instead, with the same result; so is a table on
// another step than asked for (rebuilt); a cancelled context stops the
// passes with its error.
func TestClassifyStoredFallbacks(t *testing.T) {
	ds, series := storedWorld(t, 7, func(s []dataset.Series) { slices.Reverse(s) })
	if _, err := classifyStored(context.Background(), ds, SeriesOptions{}, Options{}); !errors.Is(err, errRebuild) {
		t.Fatalf("unsorted table: err %v, want errRebuild", err)
	}
	want, err := Run(context.Background(), Input{Series: series}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, built, err := classifyDataset(context.Background(), ds, Options{})
	if err != nil || built || !reflect.DeepEqual(got, want) {
		t.Fatalf("unsorted table: built %v err %v, equal %v", built, err, reflect.DeepEqual(got, want))
	}
	if _, err := classifyStored(context.Background(), ds, SeriesOptions{Step: 600e9}, Options{}); !errors.Is(err, errOtherStep) {
		t.Fatalf("other step: err %v, want errOtherStep", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ds2, _ := storedWorld(t, 8, nil)
	if _, _, err := classifyDataset(ctx, ds2, Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: err %v", err)
	}
}

// classifyDataset is Load then Run, as wlprof classify does; built says
// whether the series were built from usage.
func classifyDataset(ctx context.Context, ds *dataset.Dataset, opts Options) (*Result, bool, error) {
	in, err := Load(ctx, ds, opts)
	if err != nil {
		return nil, false, err
	}
	res, err := Run(ctx, in, opts)
	if err != nil {
		return nil, false, err
	}
	return res, res.Built, nil
}
