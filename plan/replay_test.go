package plan

import (
	"math"
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

// Jyothi et al., OSDI'16 §7: DRA "intuitively 'stretches' the skyline of
// resources to accommodate a slower-than-expected job execution", and of
// TPC-H Query1 (Fig. 8): "DRA kicks in for jobs that have straggling Map2
// tasks, which translates in a delayed start of Red1 stage. By extending
// the 1000 containers allocation at the end of Red1 by an extra minute we
// allow most jobs to complete effectively." The stretch goes past the
// reservation's last step, up to the deadline, capped by the reservation's
// own recent allocation (ρ × max R_recent: 2 × 1000).
//
// One-minute steps. The reservation: Map2 at 200 containers for two
// minutes, Red1 at 1000 for two; the deadline is four minutes after it
// ends (LowCost leaves slack before the deadline for DRA, §7). A held-out
// run whose Map2 straggles for three more minutes starts Red1 at minute 5,
// after the reservation's end and its R_recent: its 2000 container·minutes
// of Red1 need the allocation stretched by two minutes, inside the
// deadline. Second case: a run that outlasts both its usage and the
// reservation with work left (its last minute asked 3000, ρ capped the
// grant at 2000) is still before its deadline, and DRA finishes it.
// Third: the same run with the deadline at the reservation's end misses.
func TestDRAStretchesPastTheReservation(t *testing.T) {
	d := DefaultDRA()
	cases := []struct {
		name          string
		c             []float64
		x             []int64
		start, window int
		missDRA       bool
		added         float64
	}{
		{"Red1 delayed past the reservation (Fig. 8)", []float64{200, 200, 200, 200, 200, 1000, 1000},
			[]int64{200, 200, 1000, 1000}, 0, 8, false, 200 + 1000 + 1000},
		{"work left after the run's and the reservation's last step", []float64{1000, 1000, 3000},
			[]int64{1000, 1000}, 0, 5, false, 3000},
		{"deadline at the reservation's end", []float64{1000, 1000, 3000},
			[]int64{1000, 1000}, 0, 2, true, 0},
	}
	for _, c := range cases {
		o := Replay(c.c, c.x, c.start, c.window, 60, d)
		if !o.Miss || o.MissDRA != c.missDRA || o.DRAAdded != c.added {
			t.Errorf("%s: miss %v, miss with DRA %v (want %v), DRA added %g container·steps (want %g)",
				c.name, o.Miss, o.MissDRA, c.missDRA, o.DRAAdded, c.added)
		}
	}
}

// Random worlds: a held-out run still behind when both its usage and the
// reservation have ended gets DRA up to the deadline, at most ρ × the
// reservation's last R_recent peak a step (§7's cap), so with a deadline
// far enough after the end to grant all its work at that cap it never
// misses with DRA. The reservation ends on a positive step, as LowCost's
// allocations do (contiguous, no trailing zero).
func TestDRAGrantsUntilTheDeadline(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	const trials = 20000
	behind := 0
	for trial := 0; trial < trials; trial++ {
		c := make([]float64, 1+rng.IntN(12))
		var work float64
		for i := range c {
			c[i] = float64(rng.IntN(9))
			work += c[i]
		}
		x := make([]int64, 1+rng.IntN(10))
		for i := range x {
			x[i] = int64(rng.IntN(8))
		}
		x[len(x)-1] = 1 + int64(rng.IntN(8))
		start := rng.IntN(len(x))
		d := DRA{TS: 60, RecentS: float64(60 * (1 + rng.IntN(3))), Rho: 0.5 + 2*rng.Float64()}
		end := max(start+len(c), len(x))
		recent := int(d.RecentS / 60)
		var top float64
		for q := max(0, len(x)-recent); q < len(x); q++ {
			top = max(top, float64(x[q]))
		}
		window := end + int(math.Ceil(work/(d.Rho*top))) + 1
		if Replay(c, x, start, end, 60, d).MissDRA {
			behind++ // behind at the last step: only DRA after it can save it
		}
		if o := Replay(c, x, start, window, 60, d); o.MissDRA {
			t.Fatalf("trial %d: c %v x %v start %d, deadline %d steps after the end: missed with DRA (%+v)", trial, c, x, start, window-end, o)
		}
	}
	t.Logf("%d of %d runs were behind after their and the reservation's last step; DRA finished all of them before the deadline", behind, trials)
	if behind == 0 {
		t.Error("no run was behind at the end: the test would not see DRA go past it")
	}
}
