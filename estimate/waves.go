package estimate

import (
	"container/heap"
	"math"
	"sort"
)

// One task, one slot. Polo, PhD thesis, UPC 2014, §3.3.1: "Each task
// takes time α to be completed, and requires one slot to execute"; a
// pending task holds its slot for µ, a running one for what it has left,
// δ = max(µ − β, 0) (§3.3.2). The fluid reading of eq. 1 lets a task's
// work spread over slots, which undercounts when few µ are left before
// the goal; §3.4.6 reasons in waves ("the number of sequential task
// executions, or waves"). SReqWaves and Late count whole tasks.

// slotGroup is count slots that become free at t (or, in the late
// simulation, count tasks of job j's phase p that end at t).
type slotGroup struct {
	t     float64
	count int
	j, p  int
}

type groupHeap []slotGroup

func (h groupHeap) Len() int           { return len(h) }
func (h groupHeap) Less(a, b int) bool { return h[a].t < h[b].t }
func (h groupHeap) Swap(a, b int)      { h[a], h[b] = h[b], h[a] }
func (h *groupHeap) Push(x any)        { *h = append(*h, x.(slotGroup)) }
func (h *groupHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// phaseEnd is when n pending tasks of length mu, each started on the
// earliest free slot from start on, have all ended: s slots are free at
// start, and one more at each time of running (ascending; the slots of
// running tasks). The earliest slot first is the fewest waves for tasks
// of one length.
func phaseEnd(start float64, s int, running []float64, n int, mu float64) float64 {
	h := make(groupHeap, 0, len(running)+1)
	h = append(h, slotGroup{t: start, count: s})
	for _, r := range running {
		t := math.Max(r, start)
		if last := &h[len(h)-1]; last.t == t {
			last.count++
			continue
		}
		h = append(h, slotGroup{t: t, count: 1})
	}
	if h[0].count == 0 {
		h = h[1:]
	}
	heap.Init(&h)
	end := math.Inf(1)
	for n > 0 && len(h) > 0 {
		g := heap.Pop(&h).(slotGroup)
		if len(h) == 0 { // one group left: its waves at once
			waves := (n + g.count - 1) / g.count
			return g.t + float64(waves)*mu
		}
		k := min(g.count, n)
		n -= k
		end = g.t + mu
		heap.Push(&h, slotGroup{t: end, count: k})
		if k < g.count {
			heap.Push(&h, slotGroup{t: g.t, count: g.count - k})
		}
	}
	return end
}

// jobEnd is when the job's last task ends, seconds from now, when it
// holds s slots besides those its running tasks hold (and keeps those as
// they free up), phases in order: a phase's pending tasks start once
// every task of the earlier phases has ended. +Inf when a phase has
// pending tasks and no slot.
func jobEnd(phases []Phase, s int) float64 {
	var running []float64 // when each running task's slot frees
	for _, p := range phases {
		for _, b := range p.Running {
			running = append(running, math.Max(p.MuS-b, 0))
		}
	}
	sort.Float64s(running)
	barrier := 0.0
	for _, p := range phases {
		end := barrier
		for _, b := range p.Running {
			end = math.Max(end, p.MuS-b)
		}
		if p.Pending > 0 {
			end = math.Max(end, phaseEnd(barrier, s, running, p.Pending, p.MuS))
		}
		barrier = end
	}
	return barrier
}

// SReqWaves is the fewest slots, besides those its running tasks hold,
// that carry the job through all its phases by windowS seconds from now
// when each task holds one slot for µ (a running one for δ): the reading
// of eq. 1 in waves (§3.4.6). ok is false when no slot count does (the
// goal has passed, or a task needs longer than the time left): s is then
// the current phase's pending tasks, as §3.4.1 gives a job that missed
// its goal ("complete it as soon as possible").
func SReqWaves(phases []Phase, windowS float64) (s int, ok bool) {
	cur, hi, work, running := -1, 0, 0.0, 0
	for k := range phases {
		if cur < 0 && phases[k].Pending > 0 {
			cur = k
		}
		hi = max(hi, phases[k].Pending)
		work += phases[k].work()
		running += len(phases[k].Running)
	}
	pend := 0
	if cur >= 0 {
		pend = phases[cur].Pending
	}
	const tol = 1e-9
	meets := func(s int) bool { return jobEnd(phases, s) <= windowS*(1+tol)+tol }
	if !(windowS > 0) || !meets(hi) {
		return pend, false
	}
	// n slots over the window hold n·window slot-seconds: a lower bound.
	lo := max(0, int(math.Floor(work/windowS-float64(running)))-1)
	for lo < hi { // the fewest s in [lo, hi] that meets the goal
		mid := lo + (hi-lo)/2
		if meets(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo, true
}
