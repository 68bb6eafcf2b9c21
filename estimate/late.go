package estimate

import (
	"container/heap"
	"math"
	"sort"
)

// NextChange is the first instant after t at which Ω(t) steps (+Inf when
// it never does again).
func (a *Availability) NextChange(t float64) float64 {
	if a.PeriodS > 0 {
		r := t - a.Starts[0]
		k := math.Floor(r / a.PeriodS)
		base := a.Starts[0] + k*a.PeriodS
		i := sort.Search(len(a.Starts), func(i int) bool { return base+a.Starts[i]-a.Starts[0] > t })
		if i < len(a.Starts) {
			return base + a.Starts[i] - a.Starts[0]
		}
		return base + a.PeriodS
	}
	i := sort.Search(len(a.Starts), func(i int) bool { return a.Starts[i] > t })
	if i < len(a.Starts) {
		return a.Starts[i]
	}
	return math.Inf(1)
}

// readyHeap orders jobs with a startable task by goal (ties by index):
// earliest deadline first.
type readyHeap struct {
	idx  []int
	goal []float64
}

func (h readyHeap) Len() int { return len(h.idx) }
func (h readyHeap) Less(a, b int) bool {
	ga, gb := h.goal[h.idx[a]], h.goal[h.idx[b]]
	return ga < gb || ga == gb && h.idx[a] < h.idx[b]
}
func (h readyHeap) Swap(a, b int) { h.idx[a], h.idx[b] = h.idx[b], h.idx[a] }
func (h *readyHeap) Push(x any)   { h.idx = append(h.idx, x.(int)) }
func (h *readyHeap) Pop() any {
	x := h.idx[len(h.idx)-1]
	h.idx = h.idx[:len(h.idx)-1]
	return x
}

// Late is, per job, how many of its tasks end after its goal when the
// slots of Ω are handed out earliest goal first, one task to one slot for
// µ (a running task keeps its slot for δ = max(µ − β, 0); Polo, PhD
// thesis, UPC 2014, §3.3.1–3.3.2). A task starts when a slot is free,
// ⌊Ω(t)⌋ less the slots busy; it is not stopped when Ω falls (the Task
// Scheduler of §5.3.4.5 only assigns a tasktracker tasks that "do not
// exceed its current capacity"). A job's phases run in order: a phase's
// tasks start once every task of the earlier ones has ended. A job whose
// goal has passed is first (§3.4.1). Tasks that never start count as
// late. Goals are on av's clock, as now.
func Late(now float64, jobs []JobInput, av *Availability) []int {
	n := len(jobs)
	late := make([]int, n)
	if n == 0 {
		return late
	}
	pend := make([][]int, n)
	run := make([][]int, n)
	cur := make([]int, n)
	goal := make([]float64, n)
	maxGoal := math.Inf(-1)
	var busy groupHeap
	used := 0
	for j := range jobs {
		goal[j] = jobs[j].GoalS
		maxGoal = math.Max(maxGoal, goal[j])
		pend[j] = make([]int, len(jobs[j].Phases))
		run[j] = make([]int, len(jobs[j].Phases))
		for p, ph := range jobs[j].Phases {
			pend[j][p] = ph.Pending
			for _, b := range ph.Running {
				busy = append(busy, slotGroup{t: now + math.Max(ph.MuS-b, 0), count: 1, j: j, p: p})
				run[j][p]++
				used++
			}
		}
	}
	heap.Init(&busy)
	onTime := func(j int, t float64) bool { return t <= goal[j]+1e-9*math.Max(1, math.Abs(goal[j])) }
	ready := &readyHeap{goal: goal}
	inReady := make([]bool, n)
	// advance moves job j's current phase past phases without work and
	// queues it when that phase has a task to start.
	advance := func(j int) {
		for cur[j] < len(pend[j]) && pend[j][cur[j]] == 0 && run[j][cur[j]] == 0 {
			cur[j]++
		}
		if cur[j] < len(pend[j]) && pend[j][cur[j]] > 0 && !inReady[j] {
			inReady[j] = true
			heap.Push(ready, j)
		}
	}
	for j := range jobs {
		advance(j)
	}
	// Ω's largest step: with nothing busy and no slot ever, no task starts.
	peak := 0.0
	for _, s := range av.Slots {
		peak = math.Max(peak, s)
	}
	t := now
	for {
		for len(busy) > 0 && busy[0].t <= t {
			g := heap.Pop(&busy).(slotGroup)
			run[g.j][g.p] -= g.count
			used -= g.count
			if !onTime(g.j, g.t) {
				late[g.j] += g.count
			}
			if g.p == cur[g.j] {
				advance(g.j)
			}
		}
		free := int(math.Floor(av.At(t)+1e-9)) - used
		for free > 0 && ready.Len() > 0 {
			j := ready.idx[0]
			p := cur[j]
			k := min(free, pend[j][p])
			heap.Push(&busy, slotGroup{t: t + jobs[j].Phases[p].MuS, count: k, j: j, p: p})
			pend[j][p] -= k
			run[j][p] += k
			used += k
			free -= k
			if pend[j][p] == 0 {
				heap.Pop(ready)
				inReady[j] = false
			}
		}
		next := av.NextChange(t)
		if len(busy) > 0 {
			next = math.Min(next, busy[0].t)
		}
		if ready.Len() == 0 && len(busy) == 0 || math.IsInf(next, 1) || len(busy) == 0 && peak < 1 || next > maxGoal && ready.Len() > 0 && len(busy) == 0 {
			break
		}
		if t > maxGoal {
			break // whatever ends from here on ends after every goal
		}
		t = next
	}
	for len(busy) > 0 {
		g := heap.Pop(&busy).(slotGroup)
		if !onTime(g.j, g.t) {
			late[g.j] += g.count
		}
	}
	for j := range pend {
		for _, c := range pend[j] {
			late[j] += c
		}
	}
	return late
}
