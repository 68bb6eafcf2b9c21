package plan

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/wlprof/wlprof/internal/timeflag"
)

func fmtS(s float64) string { return timeflag.FormatSeconds(s) }

// Job is one recurring job to place: its skyline and its window, all in
// steps of the plan's grid. Times are offsets in the LCM frame (see
// frame): instance i of the job may run from Start + i·Period to
// Start + i·Period + Window (modulo the LCM).
type Job struct {
	ID string
	// PeriodS, ArrivalS and DeadlineS are the job's period and its SLO
	// window as offsets from the start of its period, in seconds; PhaseS
	// is where its periods start in the LCM frame (the slo stage's period
	// anchor modulo the period: 0 for periods that divide a day, which
	// start at midnight UTC).
	PeriodS, ArrivalS, DeadlineS, PhaseS float64
	// Skyline is the fitted reservation, containers per step from the
	// run's start.
	Skyline []int64
	// MemoryPerContainer and MilliVCoresPerContainer are the size of one
	// container in each step of Skyline, bytes and thousandths of a vcore
	// (Run derives them from the training runs' skyline samples: see
	// stepSizes); nil is unknown, which counts as 0. Only the
	// multi-resource cost (PackOptions.Capacity) reads them.
	MemoryPerContainer      []int64
	MilliVCoresPerContainer []int64
}

// Placement is where LowCost (or the naive fallback) put one instance
// pattern of a job: the allocation, containers per step from OffsetS.
type Placement struct {
	Job     string  `json:"job"`
	PeriodS float64 `json:"period_s"`
	// OffsetS is where the allocation starts, WindowStartS and WindowEndS
	// the SLO window, all seconds from the start of the job's period
	// (from the LCM's start for a job placed instance by instance).
	OffsetS      float64 `json:"offset_s"`
	WindowStartS float64 `json:"window_start_s"`
	WindowEndS   float64 `json:"window_end_s"`
	StepS        float64 `json:"step_s"`
	Allocation   []int64 `json:"allocation"`
	// MemoryBytes and VCores are the allocation in bytes and vcores per
	// step (its containers × the size of a container of the skyline step
	// they were placed for), when the capacity names that resource.
	MemoryBytes []int64   `json:"memory_bytes,omitempty"`
	VCores      []float64 `json:"vcores,omitempty"`
	// PeriodStartS is where the job's periods start in the LCM (the first
	// at PeriodStartS, then every PeriodS; 0 for one-off reservations):
	// instance i's allocation starts at PeriodStartS + i·PeriodS +
	// OffsetS, modulo the LCM.
	PeriodStartS float64 `json:"period_start_s"`
	// Instances is how many times the allocation repeats in the LCM (every
	// PeriodS); Instance, for a job whose period does not divide the LCM
	// cap, is which of its one-off reservations this is (from 0).
	Instances int  `json:"instances"`
	Instance  *int `json:"instance,omitempty"`
	// Naive is true when the job keeps its skyline at its arrival because
	// LowCost's placement raised the footprint above the naive plan's.
	Naive bool `json:"naive"`
}

// NotPlanned is a job the plan leaves out, and why.
type NotPlanned struct {
	Job    string `json:"job"`
	Reason string `json:"reason"`
}

// Packing is the packed plan over one LCM.
type Packing struct {
	LCMS                float64      `json:"lcm_s"`
	StepS               float64      `json:"step_s"`
	Footprint           int64        `json:"footprint_containers"`
	NaiveFootprint      int64        `json:"naive_footprint_containers"`
	LowerBound          int64        `json:"lower_bound_containers"`
	Placements          []Placement  `json:"placements"`
	NotPlanned          []NotPlanned `json:"not_planned"`
	Load                []int64      `json:"-"` // packed containers per step of the LCM
	NaiveLoad           []int64      `json:"-"`
	FallbackToNaiveJobs []string     `json:"fallback_to_naive"`
	Warnings            []string     `json:"warnings"`
	// Under a capacity (PackOptions.Capacity; all absent without one):
	// the capacity; FootprintShare and NaiveFootprintShare, the peak cost
	// max_t c(t) of the packed and naive plans, c(t) = max over the
	// resources named of load(r, t) / capacity(r); LowerBoundShare, max
	// over the resources named of the resource's lower bound / capacity
	// (below the share of every plan: each resource's peak is at least its
	// bound); and, for memory and vcores when named, the packed and naive
	// plans' peaks (each at its own step, not necessarily the peak cost's)
	// and the resource's lower bound, max(⌈total area / LCM⌉, max over jobs
	// ⌈area of one instance / window⌉) as for containers. The container
	// fields above stay the packed plan's containers, which under a
	// capacity may exceed naive's: the fallback compares shares.
	Capacity                  *Capacity `json:"capacity,omitempty"`
	FootprintShare            *float64  `json:"footprint_share,omitempty"`
	NaiveFootprintShare       *float64  `json:"naive_footprint_share,omitempty"`
	LowerBoundShare           *float64  `json:"lower_bound_share,omitempty"`
	FootprintMemoryBytes      *int64    `json:"footprint_memory_bytes,omitempty"`
	NaiveFootprintMemoryBytes *int64    `json:"naive_footprint_memory_bytes,omitempty"`
	LowerBoundMemoryBytes     *int64    `json:"lower_bound_memory_bytes,omitempty"`
	FootprintVCores           *float64  `json:"footprint_vcores,omitempty"`
	NaiveFootprintVCores      *float64  `json:"naive_footprint_vcores,omitempty"`
	LowerBoundVCores          *float64  `json:"lower_bound_vcores,omitempty"`
}

// PackOptions are the packing's parameters.
type PackOptions struct {
	// StepS is the grid step in seconds: the skylines' step.
	StepS float64
	// LCMCapS caps the LCM of the periods (Jyothi et al., OSDI'16 §6 sets it to a day).
	LCMCapS float64
	// EndPoints is how many end points LowCost tries per job, evenly
	// spaced over the feasible ones (all of them when there are fewer).
	EndPoints int
	// Capacity, when set, makes the cost the largest share of a resource
	// in use (Jyothi et al., OSDI'16 §6), with each job's container sizes
	// (Job.MemoryPerContainer, MilliVCoresPerContainer); unset, the cost
	// is the load in containers.
	Capacity Capacity
}

// unit is one job instance pattern on the grid: what packing places.
type unit struct {
	job      *Job
	period   int   // steps; the LCM for a one-off instance
	starts   []int // window start of every instance in the LCM frame, steps
	window   int   // steps
	arrival  int   // the arrival offset from the period's start, steps
	sky      []int64
	w        [nRes][]int64 // a container's size per resource, per step of sky (multi-resource cost)
	instance *int
	order    int // placement order
}

// Pack places every job over the LCM of their periods with LowCost (seed
// 001 §6), and computes the naive plan and the lower bound beside it.
func Pack(jobs []Job, o PackOptions) (*Packing, error) {
	if !(o.StepS > 0) || math.IsInf(o.StepS, 0) {
		return nil, fmt.Errorf("plan: step %g s must be positive", o.StepS)
	}
	if !(o.LCMCapS >= o.StepS) || math.IsInf(o.LCMCapS, 0) {
		return nil, fmt.Errorf("plan: lcm-cap %g s must be at least one step (%g s)", o.LCMCapS, o.StepS)
	}
	if o.EndPoints <= 0 {
		o.EndPoints = 64
	}
	if errs := o.Capacity.validate(); len(errs) > 0 {
		return nil, fmt.Errorf("plan: %w", errors.Join(errs...))
	}
	p := &Packing{StepS: o.StepS, Placements: []Placement{}, NotPlanned: []NotPlanned{}, FallbackToNaiveJobs: []string{}, Warnings: []string{}}
	capSteps := int(math.Floor(o.LCMCapS/o.StepS + 1e-9))
	type ok struct {
		j              *Job
		period, window int
		start, arrival int
		sky            []int64
		w              [nRes][]int64
	}
	var good []ok
	lcm := 1
	oneOff := false
	for i := range jobs {
		j := &jobs[i]
		sky, trim, period, start, arrival, window, reason := check(j, o.StepS, o.Capacity.Set())
		if reason != "" {
			p.NotPlanned = append(p.NotPlanned, NotPlanned{j.ID, reason})
			continue
		}
		if capSteps%period == 0 {
			lcm = lcmOf(lcm, period)
		} else {
			oneOff = true
		}
		g := ok{j: j, period: period, window: window, start: start, arrival: arrival, sky: sky}
		if o.Capacity.Set() {
			g.w = weights(j, trim, len(sky))
			for _, r := range []struct {
				res  int
				name string
				cap  bool
			}{{resMemory, "memory", o.Capacity.MemoryBytes > 0}, {resMilliCores, "vcores", o.Capacity.VCores > 0}} {
				if r.cap && peak(g.w[r.res]) == 0 {
					p.Warnings = append(p.Warnings, fmt.Sprintf("job %s: the size of its containers in %s is unknown: it counts as 0 in the cost", j.ID, r.name))
				}
			}
		}
		good = append(good, g)
	}
	if oneOff {
		lcm = capSteps // one-off instances fill the whole cap
	}
	p.LCMS = float64(lcm) * o.StepS
	var units []*unit
	for _, g := range good {
		if lcm%g.period == 0 {
			u := &unit{job: g.j, period: g.period, window: g.window, arrival: g.arrival, sky: g.sky, w: g.w}
			for s := g.start % g.period; s < lcm; s += g.period {
				u.starts = append(u.starts, s)
			}
			units = append(units, u)
			continue
		}
		// A period that does not divide the cap: one reservation per
		// instance that arrives inside the cap (§6), each placed alone.
		n := 0
		for s := g.start; s < lcm; s += g.period {
			k := n
			units = append(units, &unit{job: g.j, period: lcm, window: g.window, arrival: g.arrival, sky: g.sky, w: g.w, starts: []int{s}, instance: &k})
			n++
		}
		if n == 0 {
			p.NotPlanned = append(p.NotPlanned, NotPlanned{g.j.ID, fmt.Sprintf("no instance arrives inside the %s LCM cap", fmtS(o.LCMCapS))})
		} else {
			p.Warnings = append(p.Warnings, fmt.Sprintf("job %s: period %s does not divide the LCM cap %s: %d one-off reservation(s), one per instance",
				g.j.ID, fmtS(g.j.PeriodS), fmtS(o.LCMCapS), n))
		}
	}
	// Arrival order of the first instance; ties by job id, then instance.
	sort.SliceStable(units, func(a, b int) bool {
		ua, ub := units[a], units[b]
		if ua.starts[0] != ub.starts[0] {
			return ua.starts[0] < ub.starts[0]
		}
		return ua.job.ID < ub.job.ID
	})
	for i, u := range units {
		u.order = i
	}
	var offsets []int
	var allocs [][]int64
	var allocsR [][nRes][]int64
	var isNaive []bool
	switch c := o.Capacity; {
	case c.MemoryBytes > 0 || c.VCores > 0:
		offsets, allocs, allocsR, isNaive = packMulti(p, units, lcm, o)
	default:
		offsets, allocs, isNaive = packContainers(p, units, lcm, o)
		if c.Containers > 0 {
			// Containers alone: the cost is the load over a constant,
			// which orders the steps and the end points as the load does;
			// the packing is the default one, and its shares are its
			// footprints over the capacity.
			n := float64(c.Containers)
			fs, ns, ls := float64(p.Footprint)/n, float64(p.NaiveFootprint)/n, float64(p.LowerBound)/n
			p.Capacity, p.FootprintShare, p.NaiveFootprintShare, p.LowerBoundShare = &c, &fs, &ns, &ls
		}
	}
	for i, u := range units {
		arr := float64(u.arrival) * o.StepS
		ps := ((u.starts[0]-u.arrival)%lcm + lcm) % lcm
		pl := Placement{Job: u.job.ID, PeriodS: u.job.PeriodS, StepS: o.StepS, Allocation: allocs[i],
			Instances: len(u.starts), Instance: u.instance, Naive: isNaive[i], PeriodStartS: float64(ps) * o.StepS,
			OffsetS: arr + float64(offsets[i])*o.StepS, WindowStartS: arr, WindowEndS: arr + float64(u.window)*o.StepS}
		if u.instance != nil { // seconds from the LCM's start
			pl.PeriodStartS = 0
			pl.WindowStartS = float64(u.starts[0]) * o.StepS
			pl.OffsetS = pl.WindowStartS + float64(offsets[i])*o.StepS
			pl.WindowEndS = pl.WindowStartS + float64(u.window)*o.StepS
		}
		if o.Capacity.MemoryBytes > 0 {
			pl.MemoryBytes = allocsR[i][resMemory]
		}
		if o.Capacity.VCores > 0 {
			pl.VCores = make([]float64, len(allocs[i]))
			for t, v := range allocsR[i][resMilliCores] {
				pl.VCores[t] = float64(v) / 1000
			}
		}
		p.Placements = append(p.Placements, pl)
	}
	sort.SliceStable(p.Placements, func(a, b int) bool {
		pa, pb := p.Placements[a], p.Placements[b]
		if pa.Job != pb.Job {
			return pa.Job < pb.Job
		}
		return pa.WindowStartS < pb.WindowStartS
	})
	sort.SliceStable(p.NotPlanned, func(a, b int) bool { return p.NotPlanned[a].Job < p.NotPlanned[b].Job })
	return p, nil
}

// packContainers places the units in order under the default cost, the
// load in containers, and falls back to naive where LowCost ends above
// it; it sets p's footprints and loads.
func packContainers(p *Packing, units []*unit, lcm int, o PackOptions) (offsets []int, allocs [][]int64, isNaive []bool) {
	load := make([]int64, lcm)
	naive := make([]int64, lcm)
	allocs = make([][]int64, len(units))
	offsets = make([]int, len(units))
	var area, lb int64
	for i, u := range units {
		a := int64(0)
		for _, v := range u.sky {
			a += v
		}
		area += a * int64(len(u.starts))
		lb = max(lb, ceilDiv(a, int64(u.window)))
		addAt(naive, u.starts, 0, u.sky)
		offsets[i], allocs[i] = lowCost(load, u, o.EndPoints)
		addAt(load, u.starts, offsets[i], allocs[i])
	}
	p.LowerBound = max(lb, ceilDiv(area, int64(lcm)))
	p.NaiveFootprint = peak(naive)
	// The planner is never worse than doing nothing: while LowCost's plan
	// peaks above the naive one, the last-placed job with an allocation at
	// a peak step goes back to its naive placement.
	isNaive = make([]bool, len(units))
	for peak(load) > p.NaiveFootprint {
		top := peak(load)
		victim := -1
		for i := len(units) - 1; i >= 0 && victim < 0; i-- {
			if !isNaive[i] && touches(load, top, units[i], offsets[i], allocs[i]) {
				victim = i
			}
		}
		if victim < 0 {
			break // cannot happen: with every job naive the loads are equal
		}
		u := units[victim]
		subAt(load, u.starts, offsets[victim], allocs[victim])
		offsets[victim], allocs[victim], isNaive[victim] = 0, u.sky, true
		addAt(load, u.starts, 0, u.sky)
		p.FallbackToNaiveJobs = append(p.FallbackToNaiveJobs, u.job.ID)
	}
	p.Footprint = peak(load)
	p.Load, p.NaiveLoad = load, naive
	return offsets, allocs, isNaive
}

// check turns a job into grid steps, or says why it cannot be planned:
// start is the first window's start in the LCM frame, arrival the window's
// offset from its period's start, both in steps; trim is how many zero
// steps the skyline began with. Its container sizes are checked when
// sized (the multi-resource cost reads them).
func check(j *Job, stepS float64, sized bool) (sky []int64, trim, period, start, arrival, window int, reason string) {
	fail := func(format string, a ...any) ([]int64, int, int, int, int, int, string) {
		return nil, 0, 0, 0, 0, 0, fmt.Sprintf(format, a...)
	}
	for _, x := range []float64{j.PeriodS, j.ArrivalS, j.DeadlineS, j.PhaseS} {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fail("period, arrival or deadline is not a finite number")
		}
	}
	switch {
	case len(j.Skyline) == 0:
		return fail("no skyline")
	case j.PeriodS <= 0:
		return fail("period %gs: want > 0", j.PeriodS)
	case j.ArrivalS < 0:
		return fail("arrival %s is negative", fmtS(j.ArrivalS))
	case j.DeadlineS <= j.ArrivalS:
		return fail("deadline %s is not after arrival %s", fmtS(j.DeadlineS), fmtS(j.ArrivalS))
	}
	for _, v := range j.Skyline {
		if v < 0 {
			return fail("the skyline has a negative value (%d containers)", v)
		}
	}
	for _, sz := range []struct {
		name string
		v    []int64
	}{{"memory per container", j.MemoryPerContainer}, {"thousandths of a vcore per container", j.MilliVCoresPerContainer}} {
		if !sized {
			break
		}
		if sz.v != nil && len(sz.v) != len(j.Skyline) {
			return fail("%d steps of %s for a skyline of %d steps", len(sz.v), sz.name, len(j.Skyline))
		}
		for _, v := range sz.v {
			if v < 0 {
				return fail("the %s is negative (%d)", sz.name, v)
			}
		}
	}
	lo, hi := 0, len(j.Skyline)
	for lo < hi && j.Skyline[lo] == 0 {
		lo++
	}
	for hi > lo && j.Skyline[hi-1] == 0 {
		hi--
	}
	if lo == hi {
		return fail("the skyline reserves nothing")
	}
	sky = j.Skyline[lo:hi]
	period = int(math.Round(j.PeriodS / stepS))
	if period < 1 {
		return fail("period %s is shorter than a step (%s)", fmtS(j.PeriodS), fmtS(stepS))
	}
	window = int(math.Floor((j.DeadlineS-j.ArrivalS)/stepS + 1e-9))
	if window < len(sky) {
		return fail("the window from arrival to deadline (%s) is shorter than the skyline (%s)",
			fmtS(j.DeadlineS-j.ArrivalS), fmtS(float64(len(sky))*stepS))
	}
	arrival = int(math.Round(j.ArrivalS / stepS))
	start = int(math.Round(j.PhaseS/stepS)) + arrival
	start = ((start % period) + period) % period
	return sky, lo, period, start, arrival, window, ""
}

// lowCost places one unit against load (Jyothi et al., OSDI'16 §6): for each end point
// tried, the stages are handled in reverse chronological order, stage k in
// an interval ending right before stage k+1's allocation and as long as
// its share of the demand still to place (s_k / Σ_{k'≤k} s_k') of the
// window left, its containers (gangs of one, the paper's minimum
// parallelism) put one at a time on the cheapest eligible step — the step
// left of the stage's allocation or one already in it, so the allocation
// stays contiguous; ties go to the latest step. The cost of a step is the
// highest load over the unit's instances at that offset plus what the
// unit already put there. Of the end points, the one whose allocation
// meets the lowest highest cost wins (ties: the lower Σ alloc·cost, then
// the earliest end, leaving slack before the deadline). It returns the
// allocation's first step (from the window start) and the allocation.
func lowCost(load []int64, u *unit, endPoints int) (int, []int64) {
	n := len(load)
	base := make([]int64, u.window)
	for t := range base {
		for _, s := range u.starts {
			base[t] = max(base[t], load[(s+t)%n])
		}
	}
	k := len(u.sky)
	first, last := k-1, u.window-1
	cands := endCandidates(first, last, endPoints)
	alloc := make([]int64, u.window)
	best := make([]int64, u.window)
	bestLo, bestEnd := -1, -1
	var bestPeak, bestSum int64
	for _, e := range cands {
		clear(alloc)
		lo := placeStages(base, alloc, u.sky, e)
		var pk, sum int64
		for t := lo; t <= e; t++ {
			c := base[t] + alloc[t]
			pk = max(pk, c)
			sum += alloc[t] * c
		}
		if bestLo < 0 || pk < bestPeak || pk == bestPeak && sum < bestSum {
			bestPeak, bestSum, bestLo, bestEnd = pk, sum, lo, e
			copy(best, alloc)
		}
	}
	return bestLo, append([]int64(nil), best[bestLo:bestEnd+1]...)
}

// endCandidates are up to n end points from first to last, evenly spaced,
// both ends included, in increasing order.
func endCandidates(first, last, n int) []int {
	if last-first+1 <= n {
		out := make([]int, 0, last-first+1)
		for e := first; e <= last; e++ {
			out = append(out, e)
		}
		return out
	}
	out := make([]int, 0, n)
	for i := 0; i < n; i++ {
		e := first + int(math.Round(float64(i)*float64(last-first)/float64(n-1)))
		if len(out) == 0 || e != out[len(out)-1] {
			out = append(out, e)
		}
	}
	return out
}

// placeStages places the stages of sky, the last ending at step end, and
// returns the allocation's first step.
func placeStages(base, alloc, sky []int64, end int) int {
	var rest int64 // demand of the stages not placed yet
	for _, v := range sky {
		rest += v
	}
	hi := end
	lo := end + 1
	for k := len(sky) - 1; k >= 0; k-- {
		if sky[k] == 0 { // a gap in the skyline: nothing to place
			continue
		}
		// Stage k's interval: its share of the window left [0, hi], and at
		// least one step for each earlier stage.
		span := hi + 1
		length := max(1, int(math.Floor(float64(span)*float64(sky[k])/float64(rest))))
		minLo := max(hi-length+1, k)
		lo = fillStage(base, alloc, minLo, hi, sky[k])
		rest -= sky[k]
		hi = lo - 1
	}
	return lo
}

// fillStage is fill; the benchmark swaps in the one-at-a-time definition
// as its baseline.
var fillStage = fill

// fill water-fills d containers of one stage onto steps [lo, hi] of the
// window, lo moving left from hi but not past minLo: as if each container
// went to the cheapest eligible step (the steps holding the stage, and the
// one left of them), ties to the latest. It returns the stage's first
// step.
func fill(base, alloc []int64, minLo, hi int, d int64) int {
	lev := func(t int) int64 { return base[t] + alloc[t] }
	lo := hi
	alloc[hi]++ // the first container: right before the next stage (or at the end)
	d--
	var set []int
	for d > 0 {
		m, m2 := int64(math.MaxInt64), int64(math.MaxInt64)
		for t := lo; t <= hi; t++ {
			switch l := lev(t); {
			case l < m:
				m2, m = m, l
			case l > m && l < m2:
				m2 = l
			}
		}
		b := int64(math.MaxInt64)
		if lo-1 >= minLo {
			b = lev(lo - 1)
		}
		if b < m { // the step on the left is the cheapest: it joins
			lo--
			alloc[lo]++
			d--
			continue
		}
		set = set[:0]
		for t := hi; t >= lo; t-- { // latest first
			if lev(t) == m {
				set = append(set, t)
			}
		}
		s := int64(len(set))
		if b == m { // a round: the set, latest first, then the left step
			if d < s+1 {
				for _, t := range set[:d] {
					alloc[t]++
				}
				return lo
			}
			for _, t := range set {
				alloc[t]++
			}
			lo--
			alloc[lo]++
			d -= s + 1
			continue
		}
		rounds := min(m2-m, b-m, d/s)
		if rounds == 0 { // a partial round
			for _, t := range set[:d] {
				alloc[t]++
			}
			return lo
		}
		for _, t := range set {
			alloc[t] += rounds
		}
		d -= rounds * s
	}
	return lo
}

// addAt adds alloc, from offset steps after each start, to load (modulo
// its length); subAt takes it away.
func addAt(load []int64, starts []int, offset int, alloc []int64) {
	n := len(load)
	for _, s := range starts {
		for t, v := range alloc {
			load[(s+offset+t)%n] += v
		}
	}
}

func subAt(load []int64, starts []int, offset int, alloc []int64) {
	n := len(load)
	for _, s := range starts {
		for t, v := range alloc {
			load[(s+offset+t)%n] -= v
		}
	}
}

// touches says whether the unit's allocation covers a step loaded to top.
func touches(load []int64, top int64, u *unit, offset int, alloc []int64) bool {
	n := len(load)
	for _, s := range u.starts {
		for t, v := range alloc {
			if v > 0 && load[(s+offset+t)%n] == top {
				return true
			}
		}
	}
	return false
}

func peak(load []int64) int64 {
	var m int64
	for _, v := range load {
		m = max(m, v)
	}
	return m
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

func lcmOf(a, b int) int {
	x, y := a, b
	for y != 0 {
		x, y = y, x%y
	}
	return a / x * b
}
