package plan

import (
	"math/rand/v2"
	"testing"
)

// Hand-computed replays (60 s steps, the paper's DRA: R_recent two steps,
// ρ = 2).
func TestReplayByHand(t *testing.T) {
	d := DefaultDRA()
	cases := []struct {
		name          string
		c             []float64
		x             []int64
		start, window int
		want          Outcome
	}{
		{"exact fit", []float64{2, 2}, []int64{2, 2}, 0, 2, Outcome{}},
		// debt 1 after the first step, paid back by the second's spare;
		// DRA, seeing usage above the allocation, grants the 1 at once.
		{"debt repaid in time", []float64{3, 1}, []int64{2, 2}, 0, 2, Outcome{OverAllocation: 1, DRAAdded: 1}},
		// debt 1, then 2, nothing allocated after: a miss; DRA grants the
		// shortfall (1 ≤ ρ·2) at both steps and meets the deadline.
		{"DRA saves it", []float64{3, 3}, []int64{2, 2}, 0, 3, Outcome{Miss: true, UnderAllocation: 2, DRAAdded: 2}},
		// the run is longer than the window: its last step's work is left.
		{"run outlasts the window", []float64{1, 1, 1, 1}, []int64{1, 1, 1, 1}, 0, 3, Outcome{Miss: true, MissDRA: true}},
		// the run waits for its reservation at step 1.
		{"starts at the offset", []float64{2}, []int64{0, 2}, 1, 2, Outcome{}},
		// DRA's cap: ρ × the largest recent allocation (2 × 1 = 2 < 5).
		{"DRA capped", []float64{6}, []int64{1}, 0, 1, Outcome{Miss: true, MissDRA: true, UnderAllocation: 5, DRAAdded: 2}},
	}
	for _, c := range cases {
		got := Replay(c.c, c.x, c.start, c.window, 60, d)
		if got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

// DRA only ever adds containers, so it never turns a met deadline into a
// miss, and what it adds is bounded by ρ × the allocation's peak per step.
func TestDRANeverIncreasesMisses(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	saved := 0
	for trial := 0; trial < 20000; trial++ {
		c := make([]float64, 1+rng.IntN(12))
		for i := range c {
			c[i] = float64(rng.IntN(8))
		}
		x := make([]int64, 1+rng.IntN(14))
		var top int64
		for i := range x {
			x[i] = int64(rng.IntN(8))
			top = max(top, x[i])
		}
		start := rng.IntN(len(x))
		window := start + rng.IntN(16)
		d := DRA{TS: 60, RecentS: float64(60 * (1 + rng.IntN(3))), Rho: 3 * rng.Float64()}
		o := Replay(c, x, start, window, 60, d)
		if o.MissDRA && !o.Miss {
			t.Fatalf("trial %d: DRA made a miss: c %v x %v start %d window %d %+v", trial, c, x, start, window, o)
		}
		if o.DRAAdded > d.Rho*float64(top)*float64(window)+1e-9 || o.DRAAdded < 0 {
			t.Fatalf("trial %d: DRA added %g, more than ρ·peak·window", trial, o.DRAAdded)
		}
		if o.Miss && !o.MissDRA {
			saved++
		}
	}
	if saved == 0 {
		t.Error("DRA never saved a run: the test would not see it work")
	}
}
