package plan

import "math"

// The multi-resource cost of Jyothi et al., OSDI'16 §6: c(t) = max over the resources a
// Capacity names of load(r, t) / capacity(r). Loads are whole numbers
// (containers, bytes, thousandths of a vcore); a cost is float64(load) /
// float64(capacity), correctly rounded, so that equal shares compare
// equal and scripts/lowcost.py, doing the same divisions, agrees exactly.

// costModel is the cost of a Capacity: the resources it names and their
// capacities.
type costModel struct {
	res  []int // the resources named, in resource order
	capF [nRes]float64
}

func newCostModel(c Capacity) *costModel {
	m := &costModel{}
	for r, v := range c.caps() {
		if v > 0 {
			m.res = append(m.res, r)
			m.capF[r] = float64(v)
		}
	}
	return m
}

// at is c(t) of loads at step t.
func (m *costModel) at(load *[nRes][]int64, t int) float64 {
	var c float64
	for _, r := range m.res {
		c = max(c, float64(load[r][t])/m.capF[r])
	}
	return c
}

// peak is max_t c(t).
func (m *costModel) peak(load *[nRes][]int64) float64 {
	var c float64
	for t := range load[resContainers] {
		c = max(c, m.at(load, t))
	}
	return c
}

// share is max over the resources named of v(r) / capacity(r).
func (m *costModel) share(v [nRes]int64) float64 {
	var c float64
	for _, r := range m.res {
		c = max(c, float64(v[r])/m.capF[r])
	}
	return c
}

// scaled is the unit's skyline per resource: containers × the size of a
// container of each step.
func (u *unit) scaled() [nRes][]int64 {
	var s [nRes][]int64
	for r := range s {
		s[r] = make([]int64, len(u.sky))
		for k, v := range u.sky {
			s[r][k] = v * u.w[r][k]
		}
	}
	return s
}

// areaSum adds whole numbers and divides by n rounding up, without
// overflowing on the way: the sum is kept as q·n + rem.
type areaSum struct{ q, rem int64 }

func (a *areaSum) add(x, n int64) {
	a.q += x / n
	a.rem += x % n
	if a.rem >= n {
		a.q, a.rem = a.q+1, a.rem-n
	}
}

func (a areaSum) ceil() int64 {
	if a.rem > 0 {
		return a.q + 1
	}
	return a.q
}

// packMulti is packContainers under the multi-resource cost: the units are
// placed in order by lowCostMulti, and while the packed plan's peak cost
// exceeds the naive plan's, the last-placed job with an allocation at a
// step of that peak cost goes back to its naive placement. It sets p's
// footprints, in containers as always and in shares of the capacity and
// per resource named. allocsR is every allocation per resource.
func packMulti(p *Packing, units []*unit, lcm int, o PackOptions) (offsets []int, allocs [][]int64, allocsR [][nRes][]int64, isNaive []bool) {
	m := newCostModel(o.Capacity)
	var load, naive [nRes][]int64
	for r := range load {
		load[r], naive[r] = make([]int64, lcm), make([]int64, lcm)
	}
	offsets, allocs, allocsR = make([]int, len(units)), make([][]int64, len(units)), make([][nRes][]int64, len(units))
	naiveR := make([][nRes][]int64, len(units))
	var area [nRes]areaSum
	var lb [nRes]int64
	for i, u := range units {
		naiveR[i] = u.scaled()
		for r := range naiveR[i] {
			var a int64
			for _, v := range naiveR[i][r] {
				a += v
			}
			for range u.starts {
				area[r].add(a, int64(lcm))
			}
			lb[r] = max(lb[r], ceilDiv(a, int64(u.window)))
			addAt(naive[r], u.starts, 0, naiveR[i][r])
		}
		offsets[i], allocsR[i] = lowCostMulti(&load, u, o.EndPoints, m)
		allocs[i] = allocsR[i][resContainers]
		for r := range load {
			addAt(load[r], u.starts, offsets[i], allocsR[i][r])
		}
	}
	for r := range lb {
		lb[r] = max(lb[r], area[r].ceil())
	}
	naiveTop := m.peak(&naive)
	isNaive = make([]bool, len(units))
	for {
		top := m.peak(&load)
		if top <= naiveTop {
			break
		}
		victim := -1
		for i := len(units) - 1; i >= 0 && victim < 0; i-- {
			if !isNaive[i] && m.touches(&load, top, units[i], offsets[i], allocs[i]) {
				victim = i
			}
		}
		if victim < 0 {
			break // cannot happen: with every job naive the loads are equal
		}
		u := units[victim]
		for r := range load {
			subAt(load[r], u.starts, offsets[victim], allocsR[victim][r])
			addAt(load[r], u.starts, 0, naiveR[victim][r])
		}
		offsets[victim], allocs[victim], allocsR[victim], isNaive[victim] = 0, u.sky, naiveR[victim], true
		p.FallbackToNaiveJobs = append(p.FallbackToNaiveJobs, u.job.ID)
	}
	p.Footprint, p.NaiveFootprint, p.LowerBound = peak(load[resContainers]), peak(naive[resContainers]), lb[resContainers]
	p.Load, p.NaiveLoad = load[resContainers], naive[resContainers]
	c := o.Capacity
	p.Capacity = &c
	fs, ns, ls := m.peak(&load), naiveTop, m.share(lb)
	p.FootprintShare, p.NaiveFootprintShare, p.LowerBoundShare = &fs, &ns, &ls
	if c.MemoryBytes > 0 {
		f, n, l := peak(load[resMemory]), peak(naive[resMemory]), lb[resMemory]
		p.FootprintMemoryBytes, p.NaiveFootprintMemoryBytes, p.LowerBoundMemoryBytes = &f, &n, &l
	}
	if c.VCores > 0 {
		f, n, l := float64(peak(load[resMilliCores]))/1000, float64(peak(naive[resMilliCores]))/1000, float64(lb[resMilliCores])/1000
		p.FootprintVCores, p.NaiveFootprintVCores, p.LowerBoundVCores = &f, &n, &l
	}
	return offsets, allocs, allocsR, isNaive
}

// touches says whether the unit's allocation covers a step of cost top.
func (m *costModel) touches(load *[nRes][]int64, top float64, u *unit, offset int, alloc []int64) bool {
	n := len(load[resContainers])
	for _, s := range u.starts {
		for t, v := range alloc {
			if v > 0 && m.at(load, (s+offset+t)%n) == top {
				return true
			}
		}
	}
	return false
}

// lowCostMulti is lowCost under the multi-resource cost. The cost a unit
// sees at a step of its window is, per resource, the highest load over
// its instances at that offset plus what it already put there, divided
// by the capacity; the max over resources. Each container goes to the
// eligible step (as in lowCost) where the cost with it is lowest — a
// container of stage k weighs that stage's size in every resource —
// ties to the latest step. Of the end points, the one whose allocation
// meets the lowest highest cost wins (ties: the lower Σ containers ×
// cost, then the earliest end). It returns the allocation's first step
// and the allocation per resource (containers, bytes, thousandths of a
// vcore per step).
func lowCostMulti(load *[nRes][]int64, u *unit, endPoints int, m *costModel) (int, [nRes][]int64) {
	n := len(load[resContainers])
	var base, alloc, best [nRes][]int64
	for r := range base {
		base[r], alloc[r], best[r] = make([]int64, u.window), make([]int64, u.window), make([]int64, u.window)
	}
	for _, r := range m.res {
		for t := range base[r] {
			for _, s := range u.starts {
				base[r][t] = max(base[r][t], load[r][(s+t)%n])
			}
		}
	}
	k := len(u.sky)
	bestLo, bestEnd := -1, -1
	var bestPeak, bestSum float64
	var h stepHeap
	for _, e := range endCandidates(k-1, u.window-1, endPoints) {
		for r := range alloc {
			clear(alloc[r])
		}
		lo := placeStagesMulti(&base, &alloc, u, e, m, &h)
		var pk, sum float64
		for t := lo; t <= e; t++ {
			var c float64
			for _, r := range m.res {
				c = max(c, float64(base[r][t]+alloc[r][t])/m.capF[r])
			}
			pk = max(pk, c)
			sum += float64(float64(alloc[resContainers][t]) * c) // no fused multiply-add: Python rounds each
		}
		if bestLo < 0 || pk < bestPeak || pk == bestPeak && sum < bestSum {
			bestPeak, bestSum, bestLo, bestEnd = pk, sum, lo, e
			for r := range best {
				copy(best[r], alloc[r])
			}
		}
	}
	var out [nRes][]int64
	for r := range out {
		out[r] = append([]int64(nil), best[r][bestLo:bestEnd+1]...)
	}
	return bestLo, out
}

// placeStagesMulti is placeStages under the multi-resource cost: the
// same intervals (shares of the demand in containers), filled by
// fillMulti.
func placeStagesMulti(base, alloc *[nRes][]int64, u *unit, end int, m *costModel, h *stepHeap) int {
	var rest int64
	for _, v := range u.sky {
		rest += v
	}
	hi := end
	lo := end + 1
	for k := len(u.sky) - 1; k >= 0; k-- {
		if u.sky[k] == 0 {
			continue
		}
		span := hi + 1
		length := max(1, int(math.Floor(float64(span)*float64(u.sky[k])/float64(rest))))
		minLo := max(hi-length+1, k)
		var wk [nRes]int64
		for r := range wk {
			wk[r] = u.w[r][k]
		}
		lo = fillMulti(base, alloc, minLo, hi, u.sky[k], wk, m, h)
		rest -= u.sky[k]
		hi = lo - 1
	}
	return lo
}

// fillMulti places d containers of one stage, each of size wk, on steps
// [lo, hi] of the window, lo moving left from hi but not past minLo: each
// on the step, among those holding the stage and the one left of them
// (only hi for the first), whose cost with it is the lowest; ties to the
// latest. A heap keeps the stage's steps by that cost. It returns the
// stage's first step.
func fillMulti(base, alloc *[nRes][]int64, minLo, hi int, d int64, wk [nRes]int64, m *costModel, h *stepHeap) int {
	next := func(t int) float64 { // the cost at t with one more container
		var c float64
		for _, r := range m.res {
			c = max(c, float64(base[r][t]+alloc[r][t]+wk[r])/m.capF[r])
		}
		return c
	}
	put := func(t int) {
		for r := range alloc {
			alloc[r][t] += wk[r]
		}
	}
	h.s = h.s[:0]
	lo := hi
	put(hi)
	h.push(stepCost{next(hi), hi})
	for d--; d > 0; d-- {
		if lo-1 >= minLo {
			if c := next(lo - 1); c < h.s[0].c { // the left step joins only when strictly cheaper: it is the earliest
				lo--
				put(lo)
				h.push(stepCost{next(lo), lo})
				continue
			}
		}
		t := h.s[0].t
		put(t)
		h.s[0].c = next(t)
		h.down(0)
	}
	return lo
}

// stepCost is a step and its cost with one more container.
type stepCost struct {
	c float64
	t int
}

// stepHeap is a min-heap of steps by cost, the latest first on ties.
type stepHeap struct{ s []stepCost }

func (h *stepHeap) less(i, j int) bool {
	a, b := h.s[i], h.s[j]
	return a.c < b.c || a.c == b.c && a.t > b.t
}

func (h *stepHeap) push(x stepCost) {
	h.s = append(h.s, x)
	for i := len(h.s) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h.s[i], h.s[p] = h.s[p], h.s[i]
		i = p
	}
}

func (h *stepHeap) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h.s) {
			return
		}
		j := l
		if r := l + 1; r < len(h.s) && h.less(r, l) {
			j = r
		}
		if !h.less(j, i) {
			return
		}
		h.s[i], h.s[j] = h.s[j], h.s[i]
		i = j
	}
}
