package estimate

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/wlprof/wlprof/profile"
)

// Util is a utility value; −∞ (no slot where one is required) is null in
// JSON, which has no infinities.
type Util float64

// MarshalJSON writes −∞ as null.
func (u Util) MarshalJSON() ([]byte, error) {
	if math.IsInf(float64(u), -1) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, float64(u), 'g', 6, 64), nil
}

// Step is one step of the daily availability.
type Step struct {
	StartS float64 `json:"start_s"` // seconds after UTC midnight
	Slots  float64 `json:"slots"`
}

// PhaseResult is eq. 1 for one phase.
type PhaseResult struct {
	Phase   string  `json:"phase"`
	Tasks   int     `json:"tasks"`
	MuS     float64 `json:"mu_s"`
	Pending int     `json:"pending_tasks"`
	Running int     `json:"running_tasks"`
	SReq    int     `json:"s_req"`
	// MuFrom says where µ came from: "--jobs", the task history, the
	// profiling runs, or "assumed: ..." (§3.4.5).
	MuFrom string `json:"mu_from"`
}

// JobResult is one job's estimate.
type JobResult struct {
	Job string `json:"job"`
	// DeadlineS is the goal, seconds after the instant (negative: passed);
	// Deadline the same instant, RFC 3339 UTC.
	DeadlineS    float64 `json:"deadline_s"`
	Deadline     string  `json:"deadline"`
	DeadlineFrom string  `json:"deadline_from"`
	ProfileFrom  string  `json:"profile_from"`
	// Phase is the current phase (the first with pending tasks); the
	// counts, µ, s_req, s_fit and the utility are its.
	Phase        string  `json:"phase"`
	PendingTasks int     `json:"pending_tasks"`
	RunningTasks int     `json:"running_tasks"`
	MuS          float64 `json:"mu_s"`
	SReq         int     `json:"s_req"`
	// SReqWaves is SReqWaves: the fewest slots besides those its running
	// tasks hold that carry the job through every phase by its goal when
	// each task holds one slot for µ (§3.4.6's waves); s_req is eq. 1's
	// fluid reading, which undercounts when few µ are left. When no slot
	// count meets the goal it is the current phase's pending tasks, with
	// a warning.
	SReqWaves int `json:"s_req_waves"`
	// AvailMeanSlots is Ω's mean from the instant to the goal; SFit is
	// Alg. 2's, ShortTasks the tasks that miss the goal when Ω is given
	// out earliest goal first (Shortfall); null without an availability.
	AvailMeanSlots *float64 `json:"avail_mean_slots"`
	SFit           *int     `json:"s_fit"`
	ShortTasks     *float64 `json:"short_tasks"`
	// LateTasks are the job's tasks that end after its goal when Ω's
	// slots go earliest goal first, one task to a slot for µ (Late); null
	// without an availability. ShortTasks is the fluid bound below it.
	LateTasks *int `json:"late_tasks"`
	// MeetsGoal: the goal is ahead and, with an availability, no task is
	// late; without one, some slot count meets it (s_req_waves exists).
	MeetsGoal bool          `json:"meets_goal"`
	Phases    []PhaseResult `json:"phases"`
	// Utility is eq. 14 (eq. 6 when there is no s_fit) and UtilityReq
	// eq. 6, at the allocations 0…pending_tasks, or, for more than
	// Options.MaxCurve pending tasks, at the allocations UtilityAlloc.
	Utility      []Util `json:"utility"`
	UtilityReq   []Util `json:"utility_req"`
	UtilityAlloc []int  `json:"utility_alloc,omitempty"`
	// RPend and RAlloc are eq. 15's r_pend and r_alloc: the job's reduce
	// tasks not finished and those holding a slot (running) at the
	// instant, when its phase named "reduce" comes after the current one
	// (0 otherwise: the current phase's own curve is Utility).
	// UtilityReduce is u^R of eq. 15 at RAlloc, and UtilitySum is
	// u_j = u^M + u^R of eq. 13 at each allocation of Utility, with u^R at
	// RAlloc.
	RPend         int    `json:"r_pend"`
	RAlloc        int    `json:"r_alloc"`
	UtilityReduce Util   `json:"utility_reduce"`
	UtilitySum    []Util `json:"utility_sum"`
	// Warnings are caveats about this job's estimate (an assumed µ).
	Warnings []string `json:"warnings"`
	// Rank is the job's place in the placement order of §3.4.1 (1
	// first), over every job, those without data included (Ranks).
	Rank int `json:"rank"`
}

// Result is the estimate stage's document.
type Result struct {
	Version int    `json:"version"`
	At      string `json:"at"`
	AtMs    int64  `json:"at_ms"`
	// SlotCPU, SlotMemory and Reserve are the options Ω was derived with.
	SlotCPU    float64 `json:"slot_cpu"`
	SlotMemory float64 `json:"slot_memory"`
	Reserve    float64 `json:"reserve"`
	// PlacementCycleS is the placement cycle s_fit was fitted with.
	PlacementCycleS float64 `json:"placement_cycle_s"`
	// Availability is the daily profile Ω (empty when none), repeating
	// every AvailabilityPeriodS; AvailabilityFrom says where it came from
	// and Tenants are the periodic tenants folded into it.
	AvailabilityFrom    string         `json:"availability_from"`
	AvailabilityPeriodS float64        `json:"availability_period_s"`
	Availability        []Step         `json:"availability"`
	Tenants             []string       `json:"tenants"`
	Jobs                []JobResult    `json:"jobs"`
	NotEstimated        []NotEstimated `json:"not_estimated"`
	Warnings            []string       `json:"warnings"`
}

// MaxCurve is how many pending tasks get a utility value per allocation;
// above it the curve is sampled (UtilityAlloc), so 10,000 jobs of
// thousands of tasks stay a readable document.
const MaxCurve = 1000

// Run estimates every job of the input together (s_fit needs them all)
// and keeps those Options.Job names.
func Run(ctx context.Context, in Input, opts Options) (*Result, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	atMs := int64(math.Round(in.AtS * 1000))
	res := &Result{Version: 1, At: time.UnixMilli(atMs).UTC().Format(time.RFC3339), AtMs: atMs,
		SlotCPU: opts.SlotCPU, SlotMemory: opts.SlotMemory, Reserve: opts.Reserve, PlacementCycleS: opts.PlacementCycle.Seconds(),
		AvailabilityFrom: in.AvailabilityFrom, Availability: []Step{}, Tenants: in.Tenants,
		Jobs: []JobResult{}, NotEstimated: append([]NotEstimated{}, in.NotEstimated...),
		Warnings: append([]string{}, in.Warnings...)}
	if res.Tenants == nil {
		res.Tenants = []string{}
	}
	if av := in.Availability; av != nil {
		res.AvailabilityPeriodS = av.PeriodS
		for i := range av.Starts {
			if i > 0 && av.Slots[i] == av.Slots[i-1] {
				continue
			}
			res.Availability = append(res.Availability, Step{av.Starts[i], av.Slots[i]})
		}
	}
	var jobs []JobInput
	for _, j := range in.Jobs {
		if r := check(&j); r != "" {
			res.NotEstimated = append(res.NotEstimated, NotEstimated{Job: j.Job, Reason: r})
			continue
		}
		jobs = append(jobs, j)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	jobRank, neRank := Ranks(in.AtS, jobs, res.NotEstimated)
	for k, r := range neRank {
		if r > 0 {
			res.NotEstimated[k].Rank = &neRank[k]
		}
	}
	var fits, lates []int
	var shorts []float64
	if in.Availability != nil {
		fj := make([]FitJob, len(jobs))
		for i, j := range jobs {
			fj[i].GoalS = j.GoalS
			for _, p := range j.Phases {
				fj[i].Phases = append(fj[i].Phases, FitPhase{Pending: p.Pending, MuS: p.MuS})
				fj[i].RunningS += p.work() - float64(p.Pending)*p.MuS
			}
		}
		fits = SFit(in.AtS, opts.PlacementCycle.Seconds(), fj, in.Availability)
		shorts = Shortfall(in.AtS, fj, in.Availability)
		lates = Late(in.AtS, jobs, in.Availability)
	}
	for i, j := range jobs {
		if opts.Job != "" && j.Job != opts.Job {
			continue
		}
		window := j.GoalS - in.AtS
		sreqs, ok := SReqPhases(j.Phases, window)
		cur := len(j.Phases) - 1
		for k, p := range j.Phases {
			if p.Pending > 0 {
				cur = k
				break
			}
		}
		p := j.Phases[cur]
		jr := JobResult{Job: j.Job, DeadlineS: math.Round(window*1000) / 1000, Deadline: time.UnixMilli(int64(math.Round(j.GoalS * 1000))).UTC().Format(time.RFC3339),
			DeadlineFrom: j.GoalFrom, ProfileFrom: j.ProfileFrom, Phase: p.Name, PendingTasks: p.Pending,
			RunningTasks: len(p.Running), MuS: p.MuS, SReq: sreqs[cur], Warnings: append([]string{}, j.Warnings...)}
		waves, reachable := SReqWaves(j.Phases, window)
		jr.SReqWaves = waves
		if !reachable && ok {
			jr.Warnings = append(jr.Warnings, "no slot count meets the goal with one task to a slot for µ (a task needs longer than the time left): s_req_waves is every pending task (Polo, PhD thesis, UPC 2014, §3.4.1: as soon as possible)")
		}
		for k, ph := range j.Phases {
			jr.Phases = append(jr.Phases, PhaseResult{ph.Name, ph.Tasks, ph.MuS, ph.Pending, len(ph.Running), sreqs[k], ph.MuFrom})
		}
		fit := -1
		if fits != nil {
			m := in.Availability.Mean(in.AtS, math.Max(j.GoalS, in.AtS))
			jr.AvailMeanSlots, jr.SFit, jr.ShortTasks, jr.LateTasks = &m, &fits[i], &shorts[i], &lates[i]
			jr.MeetsGoal = ok && lates[i] == 0
			fit = fits[i]
		} else {
			jr.MeetsGoal = ok && reachable
		}
		jr.Utility, jr.UtilityReq, jr.UtilityAlloc = curves(fit, jr.SReq, p.Pending)
		for k := cur + 1; k < len(j.Phases); k++ {
			if j.Phases[k].Name == "reduce" {
				jr.RAlloc = len(j.Phases[k].Running)
				jr.RPend = j.Phases[k].Pending + jr.RAlloc
			}
		}
		jr.Rank = jobRank[i]
		jr.UtilityReduce = Util(UtilityReduce(jr.RAlloc, jr.RPend))
		jr.UtilitySum = make([]Util, len(jr.Utility))
		for k, u := range jr.Utility {
			jr.UtilitySum[k] = u + jr.UtilityReduce
		}
		res.Jobs = append(res.Jobs, jr)
	}
	sort.SliceStable(res.Jobs, func(a, b int) bool { return res.Jobs[a].DeadlineS < res.Jobs[b].DeadlineS })
	if opts.Job != "" {
		ne := res.NotEstimated[:0]
		for _, n := range res.NotEstimated {
			if n.Job == opts.Job {
				ne = append(ne, n)
			}
		}
		res.NotEstimated = ne
	}
	return res, nil
}

// check says why a job cannot be estimated ("" when it can): the inputs
// a hand-made Input may get wrong.
func check(j *JobInput) string {
	if math.IsNaN(j.GoalS) || math.IsInf(j.GoalS, 0) {
		return "no deadline"
	}
	if len(j.Phases) == 0 {
		return "no phases"
	}
	for _, p := range j.Phases {
		switch {
		case !(p.MuS > 0) || math.IsInf(p.MuS, 0):
			return fmt.Sprintf("phase %q: no µ (mean task length %g)", p.Name, p.MuS)
		case p.Pending < 0:
			return fmt.Sprintf("phase %q: %d pending tasks", p.Name, p.Pending)
		}
	}
	return ""
}

// curves are the utilities at 0…pend, or at up to MaxCurve+1 evenly
// spaced allocations with fit, req and pend among them.
func curves(fit, req, pend int) (u, ureq []Util, alloc []int) {
	var at []int
	if pend <= MaxCurve {
		at = make([]int, pend+1)
		for a := range at {
			at[a] = a
		}
	} else {
		set := map[int]bool{0: true, 1: true, pend: true}
		for _, a := range []int{fit, req} {
			if a >= 0 && a <= pend {
				set[a] = true
			}
		}
		for k := 0; k <= MaxCurve; k++ {
			set[k*pend/MaxCurve] = true
		}
		for a := range set {
			at = append(at, a)
		}
		sort.Ints(at)
		alloc = at
	}
	u, ureq = make([]Util, len(at)), make([]Util, len(at))
	for k, a := range at {
		ureq[k] = Util(UtilityReq(a, req, pend))
		if fit >= 0 {
			u[k] = Util(UtilityFit(a, fit, req, pend))
		} else {
			u[k] = ureq[k]
		}
	}
	return u, ureq, alloc
}

// Profile sets each estimated job's estimate: the phases' task counts, µ
// (and where it came from) and pending tasks it was computed from, its
// s_req, s_req_waves, s_fit, late tasks, rank and whether it meets its
// goal. The profile has no utility curve, so the utilities stay in the
// stage's own document.
func (r *Result) Profile(jobs profile.Jobs) error {
	for i := range r.Jobs {
		j := &r.Jobs[i]
		waves, rank := j.SReqWaves, j.Rank
		e := &profile.Estimate{AtMs: r.AtMs, DeadlineMs: r.AtMs + int64(math.Round(j.DeadlineS*1000)),
			DeadlineFrom: j.DeadlineFrom, ProfileFrom: j.ProfileFrom, SReq: j.SReq, MeetsGoal: j.MeetsGoal,
			SReqWaves: &waves, Phases: make([]profile.EstimatePhase, len(j.Phases))}
		if rank > 0 {
			e.Rank = &rank
		}
		if j.SFit != nil {
			v := *j.SFit
			e.SFit = &v
		}
		if j.LateTasks != nil {
			v := *j.LateTasks
			e.LateTasks = &v
		}
		for k, p := range j.Phases {
			e.Phases[k] = profile.EstimatePhase{Phase: p.Phase, Tasks: p.Tasks, MuS: p.MuS, PendingTasks: p.Pending, SReq: p.SReq, MuFrom: p.MuFrom}
		}
		jobs.Get(j.Job).Estimate = e
	}
	return nil
}

// Ranks is the placement order of Polo, PhD thesis, UPC 2014, §3.4.1:
// "First, jobs that have already missed the deadline. Second, recently
// submitted jobs for which there is no available data. Finally,
// executing jobs based on their s_req" — the largest s_req first, as a
// slot given to a job lowers its s_req and so its priority (§3.4). Jobs
// without data are the not-estimated ones with a goal and no µ; the
// others not estimated get 0 (no rank). Ties, and the order within the
// first two groups, go by goal, earliest first (the thesis puts the
// oldest job without data first; submission times are not in the input,
// and the goal stands in for them), then by name. Ranks start at 1.
func Ranks(atS float64, jobs []JobInput, ne []NotEstimated) (jobRank, neRank []int) {
	type entry struct {
		group int
		sreq  int
		goal  float64
		name  string
		job   int // index in jobs, or −1 − index in ne
	}
	var es []entry
	for i, j := range jobs {
		e := entry{group: 2, goal: j.GoalS, name: j.Job, job: i}
		sreqs, ok := SReqPhases(j.Phases, j.GoalS-atS)
		if !ok {
			e.group = 0
		}
		for k, p := range j.Phases {
			if p.Pending > 0 {
				e.sreq = sreqs[k]
				break
			}
		}
		es = append(es, e)
	}
	for i, n := range ne {
		if !n.noData {
			continue
		}
		e := entry{group: 1, goal: n.goalS, name: n.Job, job: -1 - i}
		if !(n.goalS > atS) {
			e.group = 0
		}
		es = append(es, e)
	}
	sort.SliceStable(es, func(a, b int) bool {
		x, y := es[a], es[b]
		switch {
		case x.group != y.group:
			return x.group < y.group
		case x.group == 2 && x.sreq != y.sreq:
			return x.sreq > y.sreq
		case x.goal != y.goal:
			return x.goal < y.goal
		}
		return x.name < y.name
	})
	jobRank, neRank = make([]int, len(jobs)), make([]int, len(ne))
	for r, e := range es {
		if e.job >= 0 {
			jobRank[e.job] = r + 1
		} else {
			neRank[-1-e.job] = r + 1
		}
	}
	return jobRank, neRank
}
