package skyline

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestReducedMatchesTextbook is the oracle property: on random jobs, with
// random α and β (including 0 and 1), the reduced model reaches the same
// optimum as the textbook LP of Jyothi et al., OSDI'16 §5, and both report the objective
// that recomputing it from its definition gives.
func TestReducedMatchesTextbook(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := 0; trial < 60; trial++ {
		n := 1 + rng.IntN(6)
		k := 1 + rng.IntN(40)
		job := genJob(uint64(trial), n, k, 60)
		if trial%5 == 0 { // integer-valued, small: many ties among runs
			for i := range job.Runs {
				for s := range job.Runs[i].Samples {
					job.Runs[i].Samples[s].Containers = math.Floor(job.Runs[i].Samples[s].Containers / 60)
				}
				job.Runs[i].Samples[0].Containers++
			}
		}
		opts := DefaultOptions()
		opts.MinRuns = 1
		opts.Alpha = []float64{0, 0.01, 0.1, 0.5, 0.9, 1}[rng.IntN(6)]
		opts.Beta = []float64{0, 0.1, 1, 10}[rng.IntN(4)]
		opts.BetaAuto = trial%7 == 3
		red, err := Solve(context.Background(), job, opts)
		if err != nil {
			t.Fatalf("trial %d reduced: %v", trial, err)
		}
		opts.Model = Textbook
		txt, err := Solve(context.Background(), job, opts)
		if err != nil {
			t.Fatalf("trial %d textbook: %v", trial, err)
		}
		if rel := math.Abs(red.Objective-txt.Objective) / math.Max(1e-9, math.Abs(txt.Objective)); rel > 1e-6 && math.Abs(red.Objective-txt.Objective) > 1e-9 {
			t.Errorf("trial %d (n=%d k=%d α=%g β=%g auto=%v): reduced %.12g, textbook %.12g",
				trial, n, k, opts.Alpha, opts.Beta, opts.BetaAuto, red.Objective, txt.Objective)
		}
		for _, f := range []*Fit{red, txt} {
			for _, w := range f.Warnings {
				if strings.Contains(w, "differs") {
					t.Errorf("trial %d %s: %s", trial, f.Model, w)
				}
			}
		}
	}
}

// TestWarmRefit: a refit seeded with the rows of an earlier fit (one run
// fewer) reaches the optimum of a cold fit (speed is BenchmarkRefit's).
func TestWarmRefit(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		job := genJob(seed, 12, 200, 60)
		opts := DefaultOptions()
		before := job
		before.Runs = job.Runs[:len(job.Runs)-1]
		prev, err := Solve(context.Background(), before, opts)
		if err != nil {
			t.Fatal(err)
		}
		cold, err := Solve(context.Background(), job, opts)
		if err != nil {
			t.Fatal(err)
		}
		opts.Previous = prev
		warm, err := Solve(context.Background(), job, opts)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(warm.Objective-cold.Objective) > 1e-7*math.Abs(cold.Objective) {
			t.Errorf("seed %d: warm objective %.12g, cold %.12g", seed, warm.Objective, cold.Objective)
		}
	}
}
