package estimate

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// eps is the task count below which a fluid remainder counts as none:
// fit works in slot-seconds, and a remainder of 1e-9 tasks is rounding.
const eps = 1e-9

// Phase is one phase of a job (map, reduce, a Spark stage) at the instant
// of the estimate: its profile (Tasks, MuS) and its progress (Pending, the
// tasks not started, |U| of §3.3.1; Running, the elapsed time β_i of each
// running task, R).
type Phase struct {
	Name    string
	Tasks   int
	MuS     float64
	Pending int
	Running []float64
	// MuFrom says where µ came from ("" when the caller does not say).
	MuFrom string
}

// work is the phase's remaining work, slot-seconds: Σ_{i∈R} δ_i + |U|·µ
// with δ_i = max(µ − β_i, 0) (§3.3.2: a running task is assumed to last µ;
// one already past µ is assumed about to end).
func (p *Phase) work() float64 {
	w := float64(p.Pending) * p.MuS
	for _, b := range p.Running {
		w += math.Max(p.MuS-b, 0)
	}
	return w
}

// SReq is eq. 1 of §3.4.1 for one phase: the slots to give it in parallel,
// besides those its running tasks hold, to finish its remaining work in
// windowS seconds,
//
//	s_req = ⌈(Σ_{i∈R} δ_i + |U|·µ) / (T_goal − T_curr) − |R|⌉, at least 0.
//
// ok is false when the window is not positive (the goal has passed):
// §3.4.1 then gives the job the highest priority, to finish as soon as
// possible, so s_req is every pending task.
func SReq(p Phase, windowS float64) (sreq int, ok bool) {
	if !(windowS > 0) {
		return p.Pending, false
	}
	v := p.work()/windowS - float64(len(p.Running))
	if v <= eps {
		return 0, true
	}
	return int(math.Ceil(v - eps)), true
}

// SReqPhases is eq. 1 per phase (§3.3.1: "the completion time goal of the
// phase T_goal^{m,p}, calculated based on the completion time goal of the
// job and the time required for executing each phase"). Phases run in
// order; the window [now, goal] is split among the phases with work left
// in proportion to that work, so phase p's goal is
// now + window · Σ_{q≤p} W_q / Σ_q W_q — the split under which one slot
// count carries the job through all its phases. A phase without work gets
// 0. ok is false when the window is not positive.
func SReqPhases(phases []Phase, windowS float64) (sreq []int, ok bool) {
	sreq = make([]int, len(phases))
	total := 0.0
	for i := range phases {
		total += phases[i].work()
	}
	ok = windowS > 0
	for i := range phases {
		w := phases[i].work()
		switch {
		case !ok:
			sreq[i] = phases[i].Pending
		case w > 0:
			sreq[i], _ = SReq(phases[i], windowS*w/total)
		}
	}
	return sreq, ok
}

// Availability is Ω(t) of §5.3.3 as a step function: Slots[i] slots from
// Starts[i] (seconds) until the next start. With PeriodS > 0 it repeats:
// Ω(t) = Ω(Starts[0] + (t − Starts[0]) mod PeriodS), and every start lies
// in [Starts[0], Starts[0] + PeriodS) — a daily profile has Starts[0] = 0
// (UTC midnight, the Unix epoch) and PeriodS = 86400. Without a period the
// last step holds forever and nothing is available before Starts[0].
type Availability struct {
	Starts  []float64
	Slots   []float64
	PeriodS float64
	cum     []float64 // cum[i]: ∫ from Starts[0] to Starts[i]
	total   float64   // ∫ over one period
}

// NewAvailability checks the steps and precomputes their integrals.
func NewAvailability(starts, slots []float64, periodS float64) (*Availability, error) {
	var errs []error
	if len(starts) == 0 || len(starts) != len(slots) {
		return nil, fmt.Errorf("estimate: availability: %d starts and %d slot counts; want as many, at least one", len(starts), len(slots))
	}
	if !(periodS >= 0) || math.IsInf(periodS, 0) {
		errs = append(errs, fmt.Errorf("availability period %g: want ≥ 0 seconds (0: not periodic)", periodS))
	}
	for i := range starts {
		if math.IsNaN(starts[i]) || math.IsInf(starts[i], 0) {
			errs = append(errs, fmt.Errorf("availability step %d: start %g is not a time", i, starts[i]))
		} else if i > 0 && !(starts[i] > starts[i-1]) {
			errs = append(errs, fmt.Errorf("availability step %d: start %g not after the previous %g", i, starts[i], starts[i-1]))
		}
		if !(slots[i] >= 0) || math.IsInf(slots[i], 0) {
			errs = append(errs, fmt.Errorf("availability step %d: %g slots; want a count ≥ 0", i, slots[i]))
		}
	}
	if periodS > 0 && starts[len(starts)-1] >= starts[0]+periodS {
		errs = append(errs, fmt.Errorf("availability: step at %g is a period (%g s) or more after the first (%g)", starts[len(starts)-1], periodS, starts[0]))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	a := &Availability{Starts: starts, Slots: slots, PeriodS: periodS, cum: make([]float64, len(starts))}
	for i := 1; i < len(starts); i++ {
		a.cum[i] = a.cum[i-1] + slots[i-1]*(starts[i]-starts[i-1])
	}
	if periodS > 0 {
		n := len(starts) - 1
		a.total = a.cum[n] + slots[n]*(starts[0]+periodS-starts[n])
	}
	return a, nil
}

// step is the index of the step holding offset r ≥ 0 from Starts[0].
func (a *Availability) step(r float64) int {
	t := a.Starts[0] + r
	return sort.Search(len(a.Starts), func(i int) bool { return a.Starts[i] > t }) - 1
}

// At is Ω(t).
func (a *Availability) At(t float64) float64 {
	r := t - a.Starts[0]
	if a.PeriodS > 0 {
		r -= math.Floor(r/a.PeriodS) * a.PeriodS
	} else if r < 0 {
		return 0
	}
	return a.Slots[a.step(r)]
}

// prim is ∫ Ω from Starts[0] to t (negative before Starts[0] when
// periodic).
func (a *Availability) prim(t float64) float64 {
	r := t - a.Starts[0]
	base := 0.0
	if a.PeriodS > 0 {
		k := math.Floor(r / a.PeriodS)
		r -= k * a.PeriodS
		base = k * a.total
	} else if r <= 0 {
		return 0
	}
	i := a.step(r)
	return base + a.cum[i] + a.Slots[i]*(a.Starts[0]+r-a.Starts[i])
}

// Integral is ∫_t0^t1 Ω(t) dt, slot-seconds; 0 unless t1 > t0.
func (a *Availability) Integral(t0, t1 float64) float64 {
	if !(t1 > t0) {
		return 0
	}
	return math.Max(a.prim(t1)-a.prim(t0), 0)
}

// Mean is the average of Ω over [t0, t1] (Ω(t0) for an empty interval):
// the fixed availability §5.3.4.2 computes s_req under.
func (a *Availability) Mean(t0, t1 float64) float64 {
	if !(t1 > t0) {
		return a.At(t0)
	}
	return a.Integral(t0, t1) / (t1 - t0)
}
