package placement

import (
	"math"
	"math/rand/v2"
	"sort"
)

// Policies of the durability and availability replay.
const (
	PolicyStock = "hdfs-stock"  // writer, same rack, remote rack
	PolicyAlg2  = "algorithm-2" // §4.2: distinct rows and columns of the 3 × 3
)

// rServer is a server of the replay: its tenant, rack, class, and the
// instants it leaves and rejoins the cluster.
type rServer struct {
	tenant   int // index into rWorld.tenants
	rack     int
	row, col int
	downs    []int64 // REMOVE instants
	ups      []int64 // ADD instants (the first may be the start)
}

// rWorld is what a replay runs on.
type rWorld struct {
	startMs, endMs int64
	servers        []rServer
	tenants        []rTenant
	byRack         [][]int // servers of each rack
	all            []int
	// classes[row][col] lists the tenants of the class.
	classes [3][3][]int
}

type rTenant struct {
	servers []int
	// busy: the tenant's average-server CPU per slot (NaN: unknown, not
	// busy) from busyStartMs, stepMs apart.
	cpu         []float64
	busyStartMs int64
	stepMs      int64
}

func (t *rTenant) busy(ms int64, threshold float64) bool {
	if t.stepMs <= 0 || ms < t.busyStartMs {
		return false
	}
	i := (ms - t.busyStartMs) / t.stepMs
	if i >= int64(len(t.cpu)) {
		return false
	}
	return t.cpu[i] > threshold // NaN compares false: a gap is not busy
}

// replayParams are the replay's knobs, from Options.
type replayParams struct {
	replicas    int
	busy        float64
	copyMs      int64 // one block copy: 3600 s / blocks per hour per server
	detectMs    int64
	accesses    int
	blocks      int
	initialPlan [][]int // test hook: blocks' initial replicas (servers)
	accessAt    []int64 // test hook: accesses of block 0 at these instants
}

// outcome of one replay.
type outcome struct {
	lost, failed, accesses int
	unwritten              int // blocks written when no server was in the cluster
	// underReplicated: blocks alive at the window's end with fewer
	// replicas than asked.
	underReplicated int
}

// event kinds, in the order they run at one instant: a server returns
// (empty), leaves, a block is written, a loss is detected, a copy
// completes.
const (
	evUp = iota
	evDown
	evWrite
	evDetect
	evCopy
)

type event struct {
	ms    int64
	kind  int
	id    int // server or block
	epoch int // evCopy: the source's epoch when the copy was scheduled
	src   int
	seq   int
}

// eventQ is a binary min-heap of events (typed: container/heap's
// interface calls cost a third of the replay).
type eventQ []event

func (e *event) before(f *event) bool {
	if e.ms != f.ms {
		return e.ms < f.ms
	}
	if e.kind != f.kind {
		return e.kind < f.kind
	}
	return e.seq < f.seq
}

func (q *eventQ) push(e event) {
	*q = append(*q, e)
	h := *q
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !h[i].before(&h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (q *eventQ) pop() event {
	h := *q
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < n && h[l].before(&h[m]) {
			m = l
		}
		if r := l + 1; r < n && h[r].before(&h[m]) {
			m = r
		}
		if m == i {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	*q = h
	return top
}

type block struct {
	replicas  []int
	lost      bool
	unwritten bool
	pending   bool // a detection or a copy is scheduled
}

type sim struct {
	w         *rWorld
	p         *replayParams
	policy    string
	rng       *rand.Rand
	up        []bool
	epoch     []int
	free      []int64 // when each server's copy slot is free
	holds     [][]int // blocks placed on each server since it last came up
	blocks    []block
	q         eventQ
	seq       int
	lost      int
	unwritten int
	writer    []uint64 // per block: the draw that picks its writer
	upCount   int
	upOf      []int     // up servers per tenant
	stalled   []int     // blocks a copy found no target for: retried when a server rejoins
	upIn      [3][3]int // up servers per class
}

func (s *sim) push(e event) {
	s.seq++
	e.seq = s.seq
	s.q.push(e)
}

// replay runs one seed of one policy. Writers and accesses come from
// their own stream (seed, 1), the same for both policies; placement
// choices from (seed, 2).
func replay(w *rWorld, p *replayParams, policy string, seed uint64) outcome {
	s := &sim{w: w, p: p, policy: policy, rng: newRand(seed),
		up: make([]bool, len(w.servers)), epoch: make([]int, len(w.servers)), free: make([]int64, len(w.servers)),
		holds: make([][]int, len(w.servers)), upOf: make([]int, len(w.tenants))}
	common := rand.New(rand.NewPCG(seed, 1))
	for i, sv := range w.servers {
		for _, t := range sv.ups {
			s.push(event{ms: t, kind: evUp, id: i})
		}
		for _, t := range sv.downs {
			s.push(event{ms: t, kind: evDown, id: i})
		}
	}
	// Blocks are written at instants uniform over the window, each by a
	// server drawn among those in the cluster then (the test hook writes
	// its plan at the start); accesses are uniform over the blocks and,
	// for each, over the time from its write to the window's end.
	s.blocks = make([]block, p.blocks)
	span := max(w.endMs-w.startMs, 1)
	writeAt := make([]int64, p.blocks)
	writer := make([]uint64, p.blocks)
	for b := range s.blocks {
		writeAt[b], writer[b] = w.startMs, common.Uint64()
		if p.initialPlan == nil {
			writeAt[b] = w.startMs + common.Int64N(span)
		}
		s.push(event{ms: writeAt[b], kind: evWrite, id: b})
	}
	s.writer = writer
	times := make([]int64, p.accesses)
	which := make([]int, p.accesses)
	for i := range times {
		which[i] = common.IntN(max(p.blocks, 1))
		if p.blocks > 0 {
			times[i] = writeAt[which[i]] + common.Int64N(max(w.endMs-writeAt[which[i]], 1))
		}
	}
	if p.accessAt != nil {
		times, which = p.accessAt, make([]int, len(p.accessAt))
	}
	order := make([]int, len(times))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return times[order[a]] < times[order[b]] })
	out := outcome{}
	for _, i := range order {
		s.runUntil(times[i])
		if p.blocks == 0 {
			break
		}
		b := &s.blocks[which[i]]
		if b.unwritten {
			continue
		}
		out.accesses++
		if b.lost || !s.available(b, times[i]) {
			out.failed++
		}
	}
	s.runUntil(w.endMs)
	out.lost, out.unwritten = s.lost, s.unwritten
	for b := range s.blocks {
		if bl := &s.blocks[b]; !bl.lost && !bl.unwritten && len(bl.replicas) < p.replicas {
			out.underReplicated++
		}
	}
	return out
}

// write places block b: the test plan, or the writer's replica and the
// policy's others, the writer drawn among the servers in the cluster.
func (s *sim) write(b int) {
	bl := &s.blocks[b]
	if s.p.initialPlan != nil {
		bl.replicas = append([]int(nil), s.p.initialPlan[b]...)
	} else if s.upCount > 0 {
		// The writer: a server drawn from the common stream, or the next
		// one in the cluster after it (membership is the trace's, so both
		// policies see the same writers).
		n := len(s.up)
		for k, sv := 0, int(s.writer[b]%uint64(n)); k < n; k, sv = k+1, (sv+1)%n {
			if s.up[sv] {
				bl.replicas = s.place(sv)
				break
			}
		}
	}
	if len(bl.replicas) == 0 {
		bl.unwritten = true // no server to write to: counted apart, not as lost
		s.unwritten++
		return
	}
	for _, sv := range bl.replicas {
		s.holds[sv] = append(s.holds[sv], b)
	}
	if len(bl.replicas) < s.p.replicas {
		// Too few servers in the cluster for every replica: the block is
		// under-replicated from its write and, as HDFS's NameNode does,
		// gets its missing replicas when a server (re)joins.
		s.stalled = append(s.stalled, b)
	}
}

// available: some replica's server is up and its tenant not busy.
func (s *sim) available(b *block, ms int64) bool {
	for _, sv := range b.replicas {
		if s.up[sv] && !s.w.tenants[s.w.servers[sv].tenant].busy(ms, s.p.busy) {
			return true
		}
	}
	return false
}

// runUntil runs every event at or before ms.
func (s *sim) runUntil(ms int64) {
	for len(s.q) > 0 && s.q[0].ms <= ms {
		e := s.q.pop()
		switch e.kind {
		case evUp:
			if !s.up[e.id] {
				s.up[e.id] = true
				s.upCount++
				sv := &s.w.servers[e.id]
				s.upOf[sv.tenant]++
				s.upIn[sv.row][sv.col]++
				st := s.stalled
				s.stalled = nil
				for _, b := range st {
					if bl := &s.blocks[b]; !bl.lost && !bl.pending {
						bl.pending = true
						s.startCopy(b, e.ms)
					}
				}
				s.holds[e.id] = s.holds[e.id][:0] // the disk comes back empty
			}
		case evDown:
			if s.up[e.id] {
				s.down(e.id, e.ms)
			}
		case evWrite:
			s.write(e.id)
		case evDetect:
			s.startCopy(e.id, e.ms)
		case evCopy:
			s.copyDone(e, e.ms)
		}
	}
}

// down: the server leaves; every replica on it is gone.
func (s *sim) down(sv int, ms int64) {
	s.up[sv] = false
	s.upCount--
	s.epoch[sv]++
	srv := &s.w.servers[sv]
	s.upOf[srv.tenant]--
	s.upIn[srv.row][srv.col]--
	for _, b := range s.holds[sv] {
		bl := &s.blocks[b]
		k := indexOf(bl.replicas, sv)
		if k < 0 {
			continue
		}
		bl.replicas = append(bl.replicas[:k], bl.replicas[k+1:]...)
		if bl.lost {
			continue
		}
		if len(bl.replicas) == 0 {
			bl.lost = true
			s.lost++
			continue
		}
		if !bl.pending {
			bl.pending = true
			s.push(event{ms: ms + s.p.detectMs, kind: evDetect, id: b})
		}
	}
	s.holds[sv] = s.holds[sv][:0]
}

// startCopy schedules one copy of an under-replicated block from the
// live replica whose copy slot frees first.
func (s *sim) startCopy(b int, ms int64) {
	bl := &s.blocks[b]
	if bl.lost || len(bl.replicas) >= s.p.replicas {
		bl.pending = false
		return
	}
	src := bl.replicas[0]
	for _, sv := range bl.replicas[1:] {
		if s.free[sv] < s.free[src] || s.free[sv] == s.free[src] && sv < src {
			src = sv
		}
	}
	done := max(ms, s.free[src]) + s.p.copyMs
	s.free[src] = done
	s.push(event{ms: done, kind: evCopy, id: b, src: src, epoch: s.epoch[src]})
}

func (s *sim) copyDone(e event, ms int64) {
	bl := &s.blocks[e.id]
	if bl.lost {
		bl.pending = false
		return
	}
	if s.epoch[e.src] == e.epoch && s.up[e.src] {
		t := s.target(bl.replicas)
		if t < 0 { // no server to copy to: wait for one to rejoin
			bl.pending = false
			s.stalled = append(s.stalled, e.id)
			return
		}
		bl.replicas = append(bl.replicas, t)
		s.holds[t] = append(s.holds[t], e.id)
	}
	if len(bl.replicas) < s.p.replicas && len(bl.replicas) > 0 {
		s.startCopy(e.id, ms) // the next copy, or again from another source
		return
	}
	bl.pending = false
}

func indexOf(xs []int, v int) int {
	for i, x := range xs {
		if x == v {
			return i
		}
	}
	return -1
}

// place: the writer's replica, then the policy's others.
func (s *sim) place(writer int) []int {
	reps := []int{writer}
	for len(reps) < s.p.replicas {
		t := s.target(reps)
		if t < 0 {
			break
		}
		reps = append(reps, t)
	}
	return reps
}

// target picks the server of the next replica of a block held on reps
// (up servers only, none of reps); -1 when there is none.
func (s *sim) target(reps []int) int {
	if s.policy == PolicyStock {
		return s.stockTarget(reps)
	}
	return s.alg2Target(reps)
}

// stockTarget: HDFS's default as the placement what-if's specification states it: the second replica
// on another server of the writer's rack, the third on another rack; for
// re-replication, another rack while all replicas share one, else any
// server. Falls back to any up server when the rule has none.
func (s *sim) stockTarget(reps []int) int {
	w := s.w
	if len(reps) == 1 {
		if t := s.pick(w.byRack[w.servers[reps[0]].rack], reps, nil); t >= 0 {
			return t
		}
		return s.pick(w.all, reps, nil)
	}
	one := true
	for _, r := range reps[1:] {
		one = one && w.servers[r].rack == w.servers[reps[0]].rack
	}
	if one && len(w.byRack) > 1 {
		rk := w.servers[reps[0]].rack
		if t := s.pick(w.all, reps, func(sv int) bool { return w.servers[sv].rack != rk }); t >= 0 {
			return t
		}
	}
	return s.pick(w.all, reps, nil)
}

// pick draws, uniformly, an up server of list that is not in reps and for
// which ok (nil: any) holds: 64 random draws, then one pass.
func (s *sim) pick(list, reps []int, ok func(int) bool) int {
	fits := func(sv int) bool { return s.up[sv] && indexOf(reps, sv) < 0 && (ok == nil || ok(sv)) }
	if len(list) == 0 {
		return -1
	}
	for k := 0; k < 64; k++ {
		if sv := list[s.rng.IntN(len(list))]; fits(sv) {
			return sv
		}
	}
	n, chosen := 0, -1
	for _, sv := range list {
		if fits(sv) {
			n++
			if s.rng.IntN(n) == 0 { // reservoir sampling: uniform in one pass
				chosen = sv
			}
		}
	}
	return chosen
}

// alg2Target is Algorithm 2 lines 9–16: a class in a row and a column no
// replica's class uses (rows and columns forgotten after every third
// replica), a tenant of it holding no replica, a server of that tenant.
// When no such class has an up server: a class in an unused row, then any
// class with a tenant holding no replica.
func (s *sim) alg2Target(reps []int) int {
	w := s.w
	var rowUsed, colUsed [3]bool
	held := map[int]bool{}
	start := len(reps) - len(reps)%3 // line 15: forget after each third
	for k, r := range reps {
		sv := &w.servers[r]
		held[sv.tenant] = true
		if k >= start {
			rowUsed[sv.row], colUsed[sv.col] = true, true
		}
	}
	for _, rule := range []func(r, c int) bool{
		func(r, c int) bool { return !rowUsed[r] && !colUsed[c] },
		func(r, c int) bool { return !rowUsed[r] },
		func(r, c int) bool { return true },
	} {
		var cands [][2]int
		for r := 0; r < 3; r++ {
			for c := 0; c < 3; c++ {
				if rule(r, c) && s.classHasRoom(r, c, held, reps) {
					cands = append(cands, [2]int{r, c})
				}
			}
		}
		if len(cands) == 0 {
			continue
		}
		cl := cands[s.rng.IntN(len(cands))]
		ts := w.classes[cl[0]][cl[1]]
		t := -1
		for k := 0; k < 64 && t < 0; k++ {
			if c := ts[s.rng.IntN(len(ts))]; !held[c] && s.tenantHasUp(c, reps) {
				t = c
			}
		}
		if t < 0 {
			n := 0
			for _, c := range ts {
				if !held[c] && s.tenantHasUp(c, reps) {
					if n++; s.rng.IntN(n) == 0 {
						t = c
					}
				}
			}
		}
		return s.pick(w.tenants[t].servers, reps, nil)
	}
	return s.pick(w.all, reps, nil)
}

// classHasRoom: an up server, not in reps, of a tenant of the class that
// holds no replica (held tenants' up servers are the class's less theirs).
func (s *sim) classHasRoom(r, c int, held map[int]bool, reps []int) bool {
	n := s.upIn[r][c]
	for t := range held {
		if sv := &s.w.servers[s.w.tenants[t].servers[0]]; sv.row == r && sv.col == c {
			n -= s.upOf[t]
		}
	}
	return n > 0
}

// tenantHasUp: the tenant has an up server not in reps (reps hold none
// of an unheld tenant's servers, so its up count says).
func (s *sim) tenantHasUp(t int, reps []int) bool { return s.upOf[t] > 0 }

// spread is the mean, min and max of xs.
type Spread struct {
	Mean float64 `json:"mean"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
}

func spreadOf(xs []float64) Spread {
	if len(xs) == 0 {
		return Spread{}
	}
	sp := Spread{Min: math.Inf(1), Max: math.Inf(-1)}
	for _, x := range xs {
		sp.Mean += x
		sp.Min, sp.Max = min(sp.Min, x), max(sp.Max, x)
	}
	sp.Mean /= float64(len(xs))
	return sp
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 2)) }
