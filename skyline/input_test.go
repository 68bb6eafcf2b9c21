package skyline

import (
	"context"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

// TestQuantise pins the alignment rules: the maximum of the step function
// within a step (Hadoop's getDiscreteSkyline), a value carried into a step
// from before it, zero padding to the longest run, equal offsets summed,
// and a last non-zero sample holding for one step.
func TestQuantise(t *testing.T) {
	runs := []JobRun{
		// 3 containers from 0 s, 7 from 70 s, 2 from 100 s, 0 from 130 s.
		{ID: "a", Samples: []Sample{{0, 3}, {70, 7}, {100, 2}, {130, 0}}},
		// given out of order; 1+4 at 30 s; last sample non-zero.
		{ID: "b", Samples: []Sample{{30, 4}, {0, 1}, {30, 1}}},
	}
	got, err := Quantise(runs, 60)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float64{
		{3, 7, 2}, // [0,60): 3; [60,120): max(3,7,2); [120,180): 2 then 0
		{5, 5, 0}, // [0,60): max(1,5); [60,120): 5, held one step past 30 s, to 90 s; then padded
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Quantise = %v, want %v", got, want)
	}
}

func TestQuantiseErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		runs []JobRun
		want error
	}{
		{"no samples", []JobRun{{ID: "a"}}, ErrEmptyRun},
		{"all zero", []JobRun{{ID: "a", Samples: []Sample{{0, 0}, {60, 0}}}}, ErrEmptyRun},
		{"NaN", []JobRun{{ID: "a", Samples: []Sample{{0, math.NaN()}}}}, ErrBadSample},
		{"negative", []JobRun{{ID: "a", Samples: []Sample{{0, -1}}}}, ErrBadSample},
		{"negative offset", []JobRun{{ID: "a", Samples: []Sample{{-5, 1}}}}, ErrBadSample},
		{"too long", []JobRun{{ID: "a", Samples: []Sample{{0, 1}, {1e9, 0}}}}, ErrBadSample},
	} {
		if _, err := Quantise(c.runs, 60); !errors.Is(err, c.want) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.want)
		}
	}
	// Every problem is reported at once.
	_, err := Quantise([]JobRun{{ID: "x", Samples: []Sample{{0, -1}}}, {ID: "y", Samples: []Sample{{0, math.Inf(1)}}}}, 60)
	if err == nil || !strings.Contains(err.Error(), "run x") || !strings.Contains(err.Error(), "run y") {
		t.Errorf("error %v should name both runs", err)
	}
}

// TestSkylineCovers: properties of any optimum. With α small the skyline
// leaves each run little final debt; the reservation is the skyline
// rounded up; per-run measures add up to the means.
func TestSkylineCovers(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		job := genJob(seed, 8, 120, 60)
		opts := DefaultOptions()
		opts.Alpha = 0.01
		f, err := Solve(context.Background(), job, opts)
		if err != nil {
			t.Fatal(err)
		}
		over, under := 0.0, 0.0
		for _, r := range f.PerRun {
			over += r.OverAllocation / float64(len(f.PerRun))
			under += r.UnderAllocation / float64(len(f.PerRun))
		}
		if math.Abs(over-f.OverAllocation) > 1e-9*(1+over) || math.Abs(under-f.UnderAllocation) > 1e-9*(1+under) {
			t.Errorf("seed %d: per-run means %g/%g, fit says %g/%g", seed, over, under, f.OverAllocation, f.UnderAllocation)
		}
		// With α = 0.01 a unit of final debt costs 99× a unit of
		// over-allocation: no run may end with debt the skyline could
		// cheaply have covered, i.e. the mean debt is below one container·step
		// per run on these shapes.
		if f.UnderAllocation > 1 {
			t.Errorf("seed %d: mean final debt %g container·steps at α = 0.01", seed, f.UnderAllocation)
		}
		for k, v := range f.Containers {
			if r := f.Reservation[k]; float64(r) < v-1e-6*math.Max(1, v) || float64(r) >= v+1 {
				t.Errorf("seed %d step %d: reservation %d for skyline %g", seed, k, r, v)
			}
		}
	}
}
