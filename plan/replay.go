package plan

import "math"

// DRA is Jyothi et al., OSDI'16 §7's dynamic reprovisioning, offline.
type DRA struct {
	// TS is how long extra containers are granted before DRA looks again
	// (default 60 s); the replay looks at every step, so it rounds to the
	// step.
	TS float64
	// RecentS is R_recent, the window of the reservation's recent
	// allocation the extra is capped by (default 120 s).
	RecentS float64
	// Rho is the fudge factor ρ (default 2).
	Rho float64
}

// DefaultDRA are the paper's defaults: T = 1 min, R_recent = 2 min, ρ = 2.
func DefaultDRA() DRA { return DRA{TS: 60, RecentS: 120, Rho: 2} }

// Outcome is how one held-out run fares against an allocation.
type Outcome struct {
	// Miss: work was left at the deadline (the §5 under-allocation debt,
	// plus any usage the run had not reached yet) with the reservation
	// alone; MissDRA the same with DRA.
	Miss, MissDRA bool
	// OverAllocation is Σ (x − c)⁺ over the run and the allocation, and
	// UnderAllocation the debt left when the run's last step has passed,
	// both in container·steps, without DRA.
	OverAllocation, UnderAllocation float64
	// DRAAdded is what DRA granted, in container·steps.
	DRAAdded float64
}

// Replay runs one held-out run's usage c (containers per step from the
// run's start) against an allocation x (containers per step from the
// window's start), the run starting at step start of the window (the
// reservation's offset: it arrives no earlier than its data, and waits
// for its reservation), with deadline at step window. The run is served by
// the reservation alone (§9's worst case, no opportunistic capacity): the
// debt D grows by c − x each step and never goes below 0 (§5). With DRA,
// whenever the run's demand — its usage plus its debt, standing in for
// "used containers plus pending ask", which an offline trace does not
// have — exceeds the allocation, DRA grants up to the shortfall, capped at
// ρ × the largest allocation of the last R_recent. DRA stretches the
// skyline (§7) up to the deadline, past the reservation's last step when
// the run is still behind there: from then on R_recent is the
// reservation's last R_recent, as if its last allocation went on ("By
// extending the 1000 containers allocation at the end of Red1 by an extra
// minute", §7).
func Replay(c []float64, x []int64, start, window int, stepS float64, d DRA) Outcome {
	var o Outcome
	recent := max(1, int(math.Ceil(d.RecentS/stepS-1e-9)))
	at := func(t int) float64 {
		if t >= 0 && t < len(x) {
			return float64(x[t])
		}
		return 0
	}
	use := func(t int) float64 { // the run's usage at window step t
		if k := t - start; k >= 0 && k < len(c) {
			return c[k]
		}
		return 0
	}
	// The replay runs to the run's end, the reservation's, or the
	// deadline, whichever is last: DRA may still grant before the
	// deadline once both have ended.
	end := max(start+len(c), len(x), window)
	var debt, debtDRA float64
	left := func(t int, debt float64) float64 { // work not done at window step t
		rest := debt
		for k := t; k < start+len(c); k++ {
			rest += use(k)
		}
		return rest
	}
	const eps = 1e-9
	for t := 0; t < end; t++ {
		if t == window {
			o.Miss = left(t, debt) > eps
			o.MissDRA = left(t, debtDRA) > eps
		}
		u, a := use(t), at(t)
		if t >= start {
			o.OverAllocation += math.Max(a-u, 0)
		}
		debt = math.Max(debt+u-a, 0)
		if t == start+len(c)-1 {
			o.UnderAllocation = debt
		}
		extra := 0.0
		if demand := u + debtDRA; t < window && demand > a+eps {
			top := 0.0
			last := min(t, len(x)-1) // past its end, the reservation's last R_recent
			for q := max(0, last-recent+1); q <= last; q++ {
				top = math.Max(top, at(q))
			}
			extra = math.Min(demand-a, d.Rho*top)
		}
		o.DRAAdded += extra
		debtDRA = math.Max(debtDRA+u-a-extra, 0)
	}
	if window >= end {
		o.Miss = debt > eps
		o.MissDRA = debtDRA > eps
	}
	return o
}
