package estimate

import (
	"math"
	"sort"
)

// FitJob is one job as Alg. 2 sees it: its completion goal (seconds, on
// the availability's clock) and its phases in execution order, each with
// the tasks not yet started and their length µ. RunningS is the remaining
// work of its running tasks, slot-seconds: Alg. 2 counts pending tasks
// only (s_fit starts at s_pend); Shortfall counts it as the job's work.
type FitJob struct {
	GoalS    float64
	Phases   []FitPhase
	RunningS float64
}

// FitPhase is a phase's pending tasks and their mean length.
type FitPhase struct {
	Pending int
	MuS     float64
}

// fitState is the fluid remainder of one job while fitting.
type fitState struct {
	rem []float64 // pending tasks left per phase, fluid
	mu  []float64
}

// consume is fit(j, a, b) of Alg. 2 applied: the job's remaining tasks
// take the window's capacity c (slot-seconds), the last phase first (it
// runs last, nearest the goal), and c is what is left. Work is fluid: a
// task may straddle a goal, its part before the window fitting in the
// window before. That keeps fit monotone: more capacity never leaves a
// job, or any job fitted after it, more to do (whole tasks would let a
// larger window leave a smaller remainder for the next job, as 19 slot-
// seconds fit one 10-second task and leave 9 where 20 leave none).
func (s *fitState) consume(c float64) float64 {
	for p := len(s.rem) - 1; p >= 0 && c > 0; p-- {
		if s.rem[p] <= 0 {
			continue
		}
		need := s.rem[p] * s.mu[p]
		if need <= c {
			c -= need
			s.rem[p] = 0
			continue
		}
		s.rem[p] -= c / s.mu[p]
		if s.rem[p] < eps {
			s.rem[p] = 0
		}
		c = 0
	}
	if c < eps {
		c = 0
	}
	return c
}

func (s *fitState) left() bool {
	for _, r := range s.rem {
		if r > 0 {
			return true
		}
	}
	return false
}

func (s *fitState) total() float64 {
	t := 0.0
	for _, r := range s.rem {
		t += r
	}
	return t
}

// current is the remainder of the first phase with pending tasks.
func (s *fitState) current(jobs []FitJob, j int) float64 {
	for p, ph := range jobs[j].Phases {
		if ph.Pending > 0 {
			return s.rem[p]
		}
	}
	return 0
}

func newStates(jobs []FitJob) []fitState {
	st := make([]fitState, len(jobs))
	for j := range jobs {
		st[j].rem = make([]float64, len(jobs[j].Phases))
		st[j].mu = make([]float64, len(jobs[j].Phases))
		for p, ph := range jobs[j].Phases {
			st[j].rem[p], st[j].mu[p] = float64(ph.Pending), ph.MuS
		}
	}
	return st
}

// goalOrder sorts jobs by goal, ties by index (Alg. 2 line 5).
func goalOrder(jobs []FitJob) []int {
	order := make([]int, len(jobs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return jobs[order[a]].GoalS < jobs[order[b]].GoalS })
	return order
}

// SFit is the reverse fitting of Alg. 2 (§5.3.4.2) over all jobs at once,
// at instant now, with a placement cycle of cycleS seconds, under
// availability av:
//
//  1. s_fit^j = s_pend^j for every job;
//  2. from the job with the last goal to the one with the earliest, the
//     window between its goal and the previous goal is filled — for the
//     earliest job, from the next placement cycle (now + cycleS) to its
//     goal (§5.3.4.1, Fig. 5.16c: "the timeframe between 1 and 17"); no
//     window reaches before now + cycleS: first by the jobs already
//     visited, latest goal first, while they have tasks left, then by the
//     job itself — fit(j, a, b) takes as many of j's tasks as the
//     window's remaining slot-seconds ∫_a^b Ω hold (consume);
//  3. what is left of each job fits nowhere after the current cycle, so
//     it must start in it: its current phase's remainder, rounded up, is
//     s_fit, "the minimum number of tasks that should be allocated
//     concurrently during the next placement cycle".
//
// It runs in O(J log J + windows): a job with nothing left leaves the
// list, and a window stops when its capacity is spent. sfitBaseline is
// Alg. 2 as written, O(J²), and gives the same numbers (tested).
func SFit(now, cycleS float64, jobs []FitJob, av *Availability) []int {
	next := now + math.Max(cycleS, 0)
	st := newStates(jobs)
	order := goalOrder(jobs)
	// P: visited jobs with tasks left, in visiting order (latest goal
	// first), as a linked list so leaving is O(1) and order is kept.
	succ := make([]int, len(jobs)+1)
	prev := make([]int, len(jobs)+1)
	head := len(jobs) // sentinel
	succ[head], prev[head] = head, head
	push := func(j int) {
		last := prev[head]
		succ[last], prev[j], succ[j], prev[head] = j, last, head, j
	}
	drop := func(j int) { succ[prev[j]], prev[succ[j]] = succ[j], prev[j] }
	fill := func(c float64) float64 {
		for p := succ[head]; p != head && c > 0; {
			n := succ[p]
			c = st[p].consume(c)
			if !st[p].left() {
				drop(p)
			}
			p = n
		}
		return c
	}
	for k := len(order) - 1; k >= 0; k-- {
		j := order[k]
		a, b := window(jobs, order, k, next)
		if c := fill(av.Integral(a, b)); c > 0 {
			st[j].consume(c)
		}
		if st[j].left() {
			push(j)
		}
	}
	out := make([]int, len(jobs))
	for j := range jobs {
		out[j] = ceilTasks(st[j].current(jobs, j))
	}
	return out
}

// window is Alg. 2's [a, b] for the k-th job by goal (lines 7–8): from
// the previous goal, or for the earliest job from the next placement
// cycle, to its goal; neither before the next cycle.
func window(jobs []FitJob, order []int, k int, next float64) (a, b float64) {
	a = next
	if k > 0 {
		a = math.Max(jobs[order[k-1]].GoalS, next)
	}
	return a, math.Max(jobs[order[k]].GoalS, next)
}

// sfitBaseline is Alg. 2 line by line: every window visits every job
// already visited. The benchmark's baseline and the test's oracle.
func sfitBaseline(now, cycleS float64, jobs []FitJob, av *Availability) []int {
	st := newStates(jobs)
	order := goalOrder(jobs)
	next := now + math.Max(cycleS, 0)
	var P []int
	for k := len(order) - 1; k >= 0; k-- {
		j := order[k]
		c := av.Integral(window(jobs, order, k, next))
		for _, p := range P {
			if st[p].left() {
				c = st[p].consume(c)
			}
		}
		if st[j].left() {
			st[j].consume(c)
		}
		P = append(P, j)
	}
	out := make([]int, len(jobs))
	for j := range jobs {
		out[j] = ceilTasks(st[j].current(jobs, j))
	}
	return out
}

func ceilTasks(r float64) int {
	if r <= eps {
		return 0
	}
	return int(math.Ceil(r - eps))
}

// Shortfall is the work of each job, in tasks, that misses its goal when
// the availability is given out earliest goal first (EDF, fluid), a job's
// work not done by its goal being dropped there: job j gets what of
// ∫_now^{goal_j} Ω the jobs with earlier goals left, and its running
// tasks' remaining work counts as its own. Alg. 2 says what must run
// now, not who is late: it fills every window latest goal first, so a
// late job's overflow would be charged to the earlier ones. The missing
// work is the job's last (EDF runs its phases in order): it is counted
// in tasks of the last phases first. More availability never raises it.
func Shortfall(now float64, jobs []FitJob, av *Availability) []float64 {
	out := make([]float64, len(jobs))
	used := 0.0
	for _, j := range goalOrder(jobs) {
		w := jobs[j].RunningS
		for _, p := range jobs[j].Phases {
			w += float64(p.Pending) * p.MuS
		}
		avail := math.Max(av.Integral(now, math.Max(jobs[j].GoalS, now))-used, 0)
		done := math.Min(w, avail)
		used += done
		short := w - done
		if short <= eps*math.Max(w, 1) {
			continue
		}
		for p := len(jobs[j].Phases) - 1; p >= 0 && short > 0; p-- {
			ph := jobs[j].Phases[p]
			pw := float64(ph.Pending) * ph.MuS
			take := math.Min(pw, short)
			out[j] += take / ph.MuS
			short -= take
		}
	}
	return out
}
