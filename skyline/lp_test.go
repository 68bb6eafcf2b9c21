package skyline

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
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

// TestWindowsMatchTextbook is the oracle property of column generation over
// the segments: on random problems, forced into small windows around the
// guess or around bad ones (so that windows must grow, and the warm restarts
// run), with one link row per step or per block of steps, the reduced
// model reaches the textbook LP's optimum (Jyothi et al., OSDI'16 §5). The problems
// include the degenerate shapes: a single run, identical runs (every
// breakpoint a tie), integer values with many ties, and steps where every
// run is idle.
func TestWindowsMatchTextbook(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 23))
	for trial := 0; trial < 200; trial++ {
		n := 1 + rng.IntN(7)
		k := 2 + rng.IntN(60)
		job := genJob(uint64(100+trial), n, k, 60)
		for i := range job.Runs { // a run of a few steps may round to nothing
			job.Runs[i].Samples[0].Containers++
		}
		c, err := Quantise(job.Runs, 60)
		if err != nil {
			t.Fatal(err)
		}
		shape := "random"
		switch trial % 5 {
		case 1:
			shape = "identical runs"
			for i := range c {
				copy(c[i], c[0])
			}
		case 2:
			shape = "small integers"
			for i := range c {
				for s := range c[i] {
					c[i][s] = math.Floor(c[i][s] / 60)
				}
				c[i][0]++
			}
		case 3:
			shape = "idle steps"
			lo := rng.IntN(len(c[0]))
			for i := range c {
				for s := lo; s < min(len(c[i]), lo+1+len(c[i])/3); s++ {
					c[i][s] = 0
				}
				c[i][len(c[i])-1]++ // no run without resources
			}
		case 4:
			shape = "one run"
			c = c[:1]
		}
		p := &problem{c: c, total: make([]float64, len(c)),
			alpha: []float64{0, 0.01, 0.1, 0.5, 0.9, 1}[rng.IntN(6)],
			beta:  []float64{0, 0.1, 1, 10}[rng.IntN(4)]}
		for i, ci := range c {
			for _, v := range ci {
				p.total[i] += v
			}
		}
		txt, err := p.solveTextbook(time.Time{}, "")
		if err != nil {
			t.Fatalf("trial %d textbook: %v", trial, err)
		}
		want, _, _, _ := p.cost(txt.x)
		for _, w := range []int{0, 1} {
			r := newReduced(p)
			r.window = w
			if w > 0 {
				r.block = []int{1, 2, 5, 32}[trial%4]
			}
			if w > 0 && trial%3 > 0 { // bad guesses: x = 0, x far above every run
				r.guess = make([]float64, len(c[0]))
				for s := range r.guess {
					r.guess[s] = float64(trial%3-1) * 1e6
				}
			}
			res, err := r.solveCtx(context.Background(), time.Time{})
			if err != nil {
				t.Fatalf("trial %d window %d: %v", trial, w, err)
			}
			got, _, _, _ := p.cost(res.x)
			if rel := math.Abs(got-want) / math.Max(1, math.Abs(want)); rel > 1e-6 {
				t.Errorf("trial %d (%s, n=%d k=%d α=%g β=%g) window %d: objective %.12g, textbook %.12g",
					trial, shape, len(c), len(c[0]), p.alpha, p.beta, w, got, want)
			}
			if rel := math.Abs(res.objective-got) / math.Max(1, math.Abs(got)); rel > 1e-6 {
				t.Errorf("trial %d window %d: the model's objective %.12g, recomputed %.12g", trial, w, res.objective, got)
			}
		}
	}
}

// TestWindowedSolveMatchesWhole: jobs large enough for Solve to generate
// the segments (and share link rows among steps) reach the optimum of the
// whole reduced model, itself held to the textbook's by the tests above.
func TestWindowedSolveMatchesWhole(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		job := genJob(seed, 20+int(seed)*5, 300, 60)
		opts := DefaultOptions()
		opts.Alpha = []float64{0.1, 0.5, 0.01, 0.9}[seed-1]
		f, err := Solve(context.Background(), job, opts)
		if err != nil {
			t.Fatal(err)
		}
		c, err := Quantise(job.Runs, opts.StepS)
		if err != nil {
			t.Fatal(err)
		}
		p := &problem{c: c, total: make([]float64, len(c)), alpha: opts.Alpha, beta: opts.Beta}
		for i, ci := range c {
			for _, v := range ci {
				p.total[i] += v
			}
		}
		r := newReduced(p)
		if r.window == 0 {
			t.Fatalf("seed %d: %d runs × %d steps is solved whole; the test wants the windowed path", seed, len(c), len(c[0]))
		}
		r.window, r.block = 0, 1
		whole, err := r.solveCtx(context.Background(), time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		want, _, _, _ := p.cost(whole.x)
		if rel := math.Abs(f.Objective-want) / want; rel > 1e-6 {
			t.Errorf("seed %d: windowed objective %.12g, whole model %.12g", seed, f.Objective, want)
		}
		if f.Cols >= whole.cols {
			t.Errorf("seed %d: windowed model has %d columns, no fewer than the whole model's %d", seed, f.Cols, whole.cols)
		}
	}
}
