package simulate

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"sort"
)

// Policy is a scheduling policy the simulator knows.
type Policy string

const (
	// YARN is stock YARN (Iorgulescu et al., ATC'17 §3, §4): fair ordering of jobs, node
	// reservation for the head job, regular allocations only.
	YARN Policy = "yarn"
	// YARNME is YARN-ME (§3, Alg. 1): YARN plus elastic allocations, and
	// other jobs in the gaps of reserved nodes.
	YARNME Policy = "yarn-me"
)

// Config is one simulation: a cluster and a policy. Memory is counted in
// whole units of UnitBytes (DSS §4: 100 MB): a node has ⌊memory / unit⌋
// units, a task's ideal memory is ⌈ideal / unit⌉.
type Config struct {
	Policy Policy
	// Groups are the cluster's nodes, in node order: the first group's
	// nodes have the lowest ids (tie-breaking visits them first).
	Groups    []NodeGroup
	UnitBytes int64
	// ElasticDiskBytesPerS is what elastic tasks together may take of a
	// node's disk bandwidth (§2.6, §3): share × bandwidth. Negative: no
	// limit.
	ElasticDiskBytesPerS int64
	// ReservedGaps lets yarn-me put other jobs' tasks on a reserved node
	// when they end before the reserved job's task could start there (§3).
	ReservedGaps bool
	// KeepSchedule records every task (Outcome.Schedule).
	KeepSchedule bool
	// SeriesPoints, when positive, asks for the memory in use over time
	// as that many time-weighted means (Outcome.MemorySeries).
	SeriesPoints int
}

// NodeGroup is Count identical nodes of the engine's cluster.
type NodeGroup struct {
	Count int
	Units int32 // memory units of a node
	Cores int32
	// MemoryBytes is a node's memory as given (for messages).
	MemoryBytes int64
	// OwnDisk says that ElasticDiskBytesPerS, what elastic tasks together
	// may take of one of these nodes' disk bandwidth, is the group's own
	// (negative: no limit); else the Config's applies.
	OwnDisk              bool
	ElasticDiskBytesPerS int64
}

// elasticDisk is what elastic tasks may take of a node of g, −1: no limit.
func (c *Config) elasticDisk(g NodeGroup) int64 {
	if g.OwnDisk {
		return max(g.ElasticDiskBytesPerS, -1)
	}
	return max(c.ElasticDiskBytesPerS, -1)
}

// nodes is the cluster's node count.
func (c *Config) nodes() int {
	n := 0
	for _, g := range c.Groups {
		n += g.Count
	}
	return n
}

// totalUnits is the cluster's memory, in units: the memory utilisation's
// denominator.
func (c *Config) totalUnits() float64 {
	var u float64
	for _, g := range c.Groups {
		u += float64(g.Units) * float64(g.Count)
	}
	return u
}

// TaskRun is one task as it ran.
type TaskRun struct {
	Job     int32 // index into the simulated jobs
	Phase   int32 // index into the job's phases
	Node    int32
	StartS  float64
	EndS    float64
	Units   int32 // memory units held
	Cores   int32
	Elastic bool
	// DiskBytesPerS is the disk bandwidth an elastic task takes.
	DiskBytesPerS int64
}

// SeriesPoint is the mean share of the cluster's memory in use over
// [StartS, EndS).
type SeriesPoint struct {
	StartS      float64 `json:"start_s"`
	EndS        float64 `json:"end_s"`
	Utilisation float64 `json:"memory_utilisation"`
}

// Outcome is one simulation's result, per job in the order of the jobs
// given.
type Outcome struct {
	FinishS      []float64
	Tasks        []int32
	ElasticTasks []int32
	// MakespanS is the last finish minus the first submission.
	MakespanS float64
	// MemoryUtilisation is the mean share of the cluster's memory units
	// held by tasks between the first submission and the last finish.
	MemoryUtilisation float64
	// TaskEvents counts task starts and finishes.
	TaskEvents   int64
	Schedule     []TaskRun
	MemorySeries []SeriesPoint
}

// prepared is a workload in units, shared read-only by the simulations
// of a sweep.
type prepared struct {
	jobs   []pjob
	phases []pphase
}

type pjob struct {
	id       string
	submit   float64
	p0, np   int32 // phases[p0 : p0+np]
	maxUnits int32 // largest ideal memory of its phases, units
	maxCores int32
}

type pphase struct {
	job        int32
	tasks      int32
	dur        float64
	ideal      int32 // units
	cores      int32
	after      int32 // phase index, −1: ready at submission
	tab        *table
	dependents []int32
	// tail is the longest chain of phases waiting for this one, in ideal
	// durations: the job cannot complete sooner after this phase does.
	tail float64
}

// prepare converts jobs (ordered as SortJobs orders them) to units and
// tabulates each phase's model.
func prepare(jobs []Job, unit int64) *prepared {
	pw := &prepared{jobs: make([]pjob, len(jobs))}
	for ji, j := range jobs {
		pj := pjob{id: j.ID, submit: j.SubmitS, p0: int32(len(pw.phases)), np: int32(len(j.Phases))}
		idx := map[string]int32{}
		for i, p := range j.Phases {
			idx[p.Task] = pj.p0 + int32(i)
		}
		for _, p := range j.Phases {
			units := int32(min((p.MemoryBytes+unit-1)/unit, math.MaxInt32/2))
			pp := pphase{job: int32(ji), tasks: int32(p.Tasks), dur: p.RuntimeS, ideal: units, cores: int32(p.Cores), after: -1,
				tab: buildTable(p.Model, units, unit, p.RuntimeS)}
			if p.After != "" {
				pp.after = idx[p.After]
			}
			pj.maxUnits, pj.maxCores = max(pj.maxUnits, units), max(pj.maxCores, pp.cores)
			pw.phases = append(pw.phases, pp)
		}
		for i := pj.p0; i < pj.p0+pj.np; i++ {
			if a := pw.phases[i].after; a >= 0 {
				pw.phases[a].dependents = append(pw.phases[a].dependents, i)
			}
		}
		for i := pj.p0; i < pj.p0+pj.np; i++ { // phases form a forest (ReadTrace rejects cycles)
			d := 0.0
			for a := i; pw.phases[a].after >= 0; a = pw.phases[a].after {
				d += pw.phases[a].dur
				pw.phases[pw.phases[a].after].tail = math.Max(pw.phases[pw.phases[a].after].tail, d)
			}
		}
		pw.jobs[ji] = pj
	}
	return pw
}

type ejob struct {
	cons     int64 // memory units its running tasks hold (fair ordering)
	rank     int32
	next     int32 // phase whose task it asks for next, −1: none (not queued)
	left     int32 // phases not finished
	reserved []int32
	finish   float64
	tasks    int32
	elastic  int32
}

type ephase struct {
	pending, running, done int32
	ready                  bool
}

type enode struct {
	units, cores         int32 // what the node has in all
	freeUnits, freeCores int32
	disk                 int64   // elastic tasks' disk bandwidth
	diskCap              int64   // what they may take together, −1: no limit
	resJob, resPhase     int32   // reservation, −1: none
	run                  []int32 // running tasks, by finish
	// ended are the tasks that ended at this instant and that the node
	// has not yet reported: it does at its visit (its heartbeat).
	ended []int32
}

type etask struct {
	start, finish    float64
	job, phase, node int32
	units, cores     int32
	disk             int64
	elastic          bool
	nextFree         int32
}

type engine struct {
	cfg    Config
	w      *prepared
	jobs   []ejob
	phases []ephase
	nodes  []enode
	tasks  []etask
	free   int32 // free list of tasks, −1: none
	events []event
	q      jobQueue
	dirty  []uint64 // the due nodes, a bit each
	dlo    int      // the words of dirty below it are zero
	now    float64
	out    *Outcome
	// utilisation
	held    int64 // memory units held by running tasks
	area    float64
	lastT   float64
	series  []float64 // (t, held) pairs at instants
	running int
	mixed   bool // nodes of several shapes
	ctx     context.Context
	last    float64 // the last task end
	// peek is the regular continuation taken at peekAt (notLater), run
	// as far as the questions asked of it needed; nil when a new one is
	// due (none yet, or a job arrived).
	peek   *engine
	peekAt float64
	fork   bool // a regular continuation: it records no schedule
	// visiting is the node being visited.
	visiting int32
	// doneTo: a continuation has run every instant up to it.
	doneTo float64
	// stale are the jobs whose memory held changed since the queue last
	// put them in place (isStale marks them): the queue is put in fair
	// order when it is read (flush), so that a job whose tasks end
	// together, or that ends a task and starts another, moves once.
	stale   []int32
	isStale []bool
	// bufs are buffers a continuation reuses when it is taken again.
	bufs *cloneBufs
	// hq, when set, is the queue instead of q: a continuation on
	// identical nodes reads only the head.
	hq *headQueue
	// spare is a continuation no longer valid, whose buffers the next
	// one reuses.
	spare *engine
}

// Simulate runs one simulation of the jobs (ordered as SortJobs orders
// them) on cfg's cluster, skipping the jobs whose skip is true. It is the
// stage's per-key core: a plain function of the workload and the cluster.
func simulate(ctx context.Context, w *prepared, skip []bool, cfg Config) (*Outcome, error) {
	e := &engine{cfg: cfg, w: w, free: -1, out: &Outcome{}}
	nj := len(w.jobs)
	e.jobs = make([]ejob, nj)
	e.isStale = make([]bool, nj)
	e.phases = make([]ephase, len(w.phases))
	nn := cfg.nodes()
	e.nodes = make([]enode, 0, nn)
	e.dirty = make([]uint64, (nn+63)/64)
	e.dlo = len(e.dirty)
	e.out.FinishS = make([]float64, nj)
	e.out.Tasks = make([]int32, nj)
	e.out.ElasticTasks = make([]int32, nj)
	for _, g := range cfg.Groups {
		dc := cfg.elasticDisk(g)
		for range g.Count {
			e.nodes = append(e.nodes, enode{units: g.Units, cores: g.Cores, freeUnits: g.Units, freeCores: g.Cores, diskCap: dc, resJob: -1, resPhase: -1})
		}
	}
	e.mixed = len(cfg.Groups) > 1
	var arrivals []int32
	for i := range e.jobs {
		e.jobs[i] = ejob{rank: int32(i), next: -1, left: w.jobs[i].np}
		e.out.FinishS[i] = math.NaN()
		if skip == nil || !skip[i] {
			arrivals = append(arrivals, int32(i))
		}
	}
	for i := range e.phases {
		e.phases[i].pending = w.phases[i].tasks
	}
	e.q = newJobQueue(nj, cfg.Policy == YARNME && cfg.ReservedGaps)
	if len(arrivals) == 0 {
		return e.out, nil
	}
	first := w.jobs[arrivals[0]].submit
	e.lastT, e.last, e.ctx = first, first, ctx
	if err := e.advance(arrivals, math.Inf(1)); err != nil {
		return nil, err
	}
	for _, j := range arrivals {
		if e.jobs[j].left > 0 {
			return nil, fmt.Errorf("simulate: internal error: job %s has %d phases left with nothing running", w.jobs[j].id, e.jobs[j].left)
		}
	}
	last := e.last
	e.out.MakespanS = last - first
	if span, tot := last-first, cfg.totalUnits(); span > 0 && tot > 0 {
		e.out.MemoryUtilisation = e.area / (tot * span)
	}
	if cfg.SeriesPoints > 0 {
		e.out.MemorySeries = bucketSeries(e.series, first, last, cfg.SeriesPoints, cfg.totalUnits())
	}
	return e.out, nil
}

// advance runs the instants up to until: at each, the tasks ending
// then are handed to their nodes (each reports them at its visit), the
// jobs submitted then arrive, and the due nodes are visited, lowest id
// first, until none is due.
func (e *engine) advance(arrivals []int32, until float64) error {
	for ai, steps := 0, 0; ai < len(arrivals) || len(e.events) > 0; steps++ {
		if steps&4095 == 0 && e.ctx != nil {
			if err := e.ctx.Err(); err != nil {
				return err
			}
		}
		t := math.Inf(1)
		if ai < len(arrivals) {
			t = e.w.jobs[arrivals[ai]].submit
		}
		if len(e.events) > 0 && e.events[0].t < t {
			t = e.events[0].t
		}
		if t > until {
			return nil
		}
		e.area += float64(float64(e.held) * (t - e.lastT)) // conversion: no fused multiply-add
		e.lastT, e.now = t, t
		for len(e.events) > 0 && e.events[0].t == t {
			ti := e.popEvent()
			n := e.tasks[ti].node
			e.nodes[n].ended = append(e.nodes[n].ended, ti)
			e.markDirty(n)
			e.last = t
		}
		for ai < len(arrivals) && e.w.jobs[arrivals[ai]].submit == t {
			e.arrive(arrivals[ai])
			ai++
		}
		e.drain()
		if e.cfg.SeriesPoints > 0 {
			e.series = append(e.series, t, float64(e.held))
		}
	}
	return nil
}

// drain visits the due nodes, lowest id first, until none is due.
func (e *engine) drain() {
	for n := e.popDirty(); n >= 0; n = e.popDirty() {
		e.visit(n)
	}
}

// bucketSeries turns the step function of memory held (value from each
// instant to the next) into n time-weighted means over [first, last].
func bucketSeries(pts []float64, first, last float64, n int, capUnits float64) []SeriesPoint {
	if !(last > first) || capUnits <= 0 {
		return nil
	}
	out := make([]SeriesPoint, n)
	width := (last - first) / float64(n)
	for i := range out {
		out[i].StartS = first + float64(i)*width
		out[i].EndS = first + float64(i+1)*width
	}
	out[n-1].EndS = last
	for i := 0; i+2 < len(pts); i += 2 {
		a, b, v := pts[i], pts[i+2], pts[i+1]
		for k := max(0, int((a-first)/width)); k < n && out[k].StartS < b; k++ {
			lo, hi := math.Max(a, out[k].StartS), math.Min(b, out[k].EndS)
			if hi > lo {
				out[k].Utilisation += v * (hi - lo)
			}
		}
	}
	for i := range out {
		if d := out[i].EndS - out[i].StartS; d > 0 {
			out[i].Utilisation /= d * capUnits
		}
	}
	return out
}

// arrive makes a job's phases without after ready.
func (e *engine) arrive(j int32) {
	if e.peek != nil { // the timeline generator runs again when a job arrives (§3)
		e.spare, e.peek = e.peek, nil
	}
	pj := &e.w.jobs[j]
	for i := pj.p0; i < pj.p0+pj.np; i++ {
		if e.w.phases[i].after < 0 {
			e.phases[i].ready = true
		}
	}
	e.updateNext(j)
}

// updateNext sets the phase the job asks for next: the first phase, in
// trace order, that is ready and has tasks not started. A job that asks
// for a new phase (it joins the queue, or moves on) makes due every node
// without a reservation and those reserved for it; a job that asks for
// nothing more leaves the queue, and the nodes reserved for it are due.
func (e *engine) updateNext(j int32) {
	pj := &e.w.jobs[j]
	next := int32(-1)
	for i := pj.p0; i < pj.p0+pj.np; i++ {
		if e.phases[i].ready && e.phases[i].pending > 0 {
			next = i
			break
		}
	}
	ej := &e.jobs[j]
	if next == ej.next {
		return
	}
	old := ej.next
	ej.next = next
	if old >= 0 {
		if e.hq != nil {
			e.hq.remove(j)
		} else {
			e.q.remove(j)
		}
	}
	if next < 0 {
		e.dirtyReserved(j)
		return
	}
	if e.hq != nil {
		e.hq.insert(j, ej.cons)
	} else {
		e.q.insert(j, ej.cons, e.needOf(next))
	}
	e.dirtyNewPhase(j)
}

// dirtyNewPhase makes due the nodes without a reservation and those
// reserved for job j.
func (e *engine) dirtyNewPhase(j int32) {
	for i := range e.nodes {
		if r := e.nodes[i].resJob; r < 0 || r == j {
			e.dirty[i>>6] |= 1 << (i & 63)
		}
	}
	e.dlo = 0
}

func (e *engine) dirtyReserved(j int32) {
	ej := &e.jobs[j]
	keep := ej.reserved[:0]
	for _, n := range ej.reserved {
		if e.nodes[n].resJob == j {
			e.markDirty(n)
			keep = append(keep, n)
		}
	}
	ej.reserved = keep
}

// finish ends a task: its node gets its resources back (the node is
// being visited: it reports the end at its heartbeat).
func (e *engine) finish(ti int32) {
	t := &e.tasks[ti]
	n := &e.nodes[t.node]
	n.freeUnits += t.units
	n.freeCores += t.cores
	n.disk -= t.disk
	for i, x := range n.run {
		if x == ti {
			n.run = append(n.run[:i], n.run[i+1:]...)
			break
		}
	}
	e.held -= int64(t.units)
	j, ph := t.job, t.phase
	p := &e.phases[ph]
	p.running--
	p.done++
	e.out.TaskEvents++
	t.nextFree, e.free = e.free, ti
	e.setCons(j, e.jobs[j].cons-int64(t.units))
	if p.done < e.w.phases[ph].tasks {
		return
	}
	for _, d := range e.w.phases[ph].dependents {
		e.phases[d].ready = true
	}
	ej := &e.jobs[j]
	ej.left--
	if ej.left == 0 {
		e.out.FinishS[j] = e.now
	}
	e.updateNext(j)
}

// visit schedules on node n until nothing more can start there
// (Algorithm 1 for one node; doc.go has the rules).
func (e *engine) visit(ni int32) {
	n := &e.nodes[ni]
	e.visiting = ni
	for _, ti := range n.ended {
		e.finish(ti)
	}
	n.ended = n.ended[:0]
	for {
		if n.resJob >= 0 {
			j := n.resJob
			ph := e.jobs[j].next
			if ph != n.resPhase {
				e.release(ni)
				continue
			}
			if e.fits(n, ph) {
				e.start(ni, j, ph, e.w.phases[ph].ideal, e.w.phases[ph].dur, 0, false)
				e.release(ni)
				continue
			}
			if e.cfg.Policy != YARNME {
				return
			}
			if k, rt, disk, ok := e.elastic(ni, ph); ok {
				e.start(ni, j, ph, k, rt, disk, true)
				e.release(ni)
				continue
			}
			if e.cfg.ReservedGaps {
				e.gaps(ni, j, ph)
			}
			return
		}
		// The head: the first job in queue order whose task the node
		// could fit in all (memory and cores); the jobs before it are
		// passed over on this node (YARN: a request must fit the node's
		// total resources), though yarn-me may start them elastically.
		// On identical nodes no job is passed over (leftOut).
		e.flush()
		var j int32
		if e.hq != nil {
			j = e.hq.head()
		} else {
			j = e.q.head()
		}
		started := false
		if e.mixed {
			j = -1
			e.q.each(func(k int32) bool {
				kph := e.jobs[k].next
				if e.couldFit(n, kph) {
					j = k
					return false
				}
				if e.cfg.Policy == YARNME {
					if u, rt, disk, ok := e.elastic(ni, kph); ok {
						e.start(ni, k, kph, u, rt, disk, true)
						started = true
						return false
					}
				}
				return true
			})
		}
		if started {
			continue
		}
		if j < 0 {
			return
		}
		ph := e.jobs[j].next
		if e.fits(n, ph) {
			e.start(ni, j, ph, e.w.phases[ph].ideal, e.w.phases[ph].dur, 0, false)
			continue
		}
		if e.cfg.Policy == YARNME {
			if k, rt, disk, ok := e.elastic(ni, ph); ok {
				e.start(ni, j, ph, k, rt, disk, true)
				continue
			}
		}
		n.resJob, n.resPhase = j, ph
		e.jobs[j].reserved = append(e.jobs[j].reserved, ni)
	}
}

func (e *engine) release(ni int32) { e.nodes[ni].resJob, e.nodes[ni].resPhase = -1, -1 }

func (e *engine) fits(n *enode, ph int32) bool {
	p := &e.w.phases[ph]
	return n.freeUnits >= p.ideal && n.freeCores >= p.cores
}

// couldFit: phase ph's task fits node n when nothing runs there.
func (e *engine) couldFit(n *enode, ph int32) bool {
	p := &e.w.phases[ph]
	return n.units >= p.ideal && n.cores >= p.cores
}

// gapTries is how many candidates (gapCandidate) a gap walk tries
// before it gives up: YARN-ME's work per node visit stays bounded.
var gapTries = 8

// gaps fills a node reserved for job r with other jobs' tasks that end
// no later than r's task could start there (§3): the other jobs are taken
// in queue order; of those that are candidates, each starts a regular
// task when it fits, else an elastic one when it may; after a start the
// walk begins again at the head; it stops when gapTries candidates in a
// row start nothing, or the queue ends. The queue's gap walk meets, in
// queue order, every candidate (and some others, which are skipped).
func (e *engine) gaps(ni int32, r, rph int32) {
	n := &e.nodes[ni]
	limit := e.fitTime(ni, rph)
	// Supersets of now + d ≤ limit and now + minRT ≤ estimate despite
	// rounding, for the walk; gapCandidate checks them exactly.
	slack := math.Inf(1)
	if !math.IsInf(limit, 1) {
		slack = limit - e.now + 1e-9*math.Max(1, math.Max(math.Abs(limit), math.Abs(e.now)))
	}
	since := e.now - 1e-9*math.Max(1, math.Abs(e.now))
	for started := true; started && n.freeCores > 0; {
		started = false
		tries := 0
		e.flush()
		e.q.gapWalk(n.freeUnits, n.freeCores, slack, since, func(j int32) bool {
			if j == r || !e.gapCandidate(n, j, limit) {
				return true
			}
			ph := e.jobs[j].next
			p := &e.w.phases[ph]
			if e.fits(n, ph) { // a candidate: it ends by the limit
				e.start(ni, j, ph, p.ideal, p.dur, 0, false)
				started = true
				return false
			}
			if k, rt, disk, ok := e.elastic(ni, ph); ok && e.now+rt <= limit {
				e.start(ni, j, ph, k, rt, disk, true)
				started = true
				return false
			}
			tries++
			return tries < gapTries
		})
	}
}

// gapCandidate: job j's next task fits node n and ends by limit, or it
// does not fit, has a model, n has its cores and ⌈10%⌉ of its ideal
// memory, and its lowest elastic runtime would end by limit and by its
// job's completion in the regular continuation (peek).
func (e *engine) gapCandidate(n *enode, j int32, limit float64) bool {
	ph := e.jobs[j].next
	p := &e.w.phases[ph]
	if p.cores > n.freeCores {
		return false
	}
	if p.ideal <= n.freeUnits {
		return e.now+p.dur <= limit
	}
	t := p.tab
	if t == nil || t.kmin > n.freeUnits {
		return false
	}
	minRT := t.rt[len(t.rt)-1]
	return e.now+minRT <= limit && e.notLater(ph, e.now+minRT)
}

// elastic is Alg. 1's elastic allocation of phase ph's next task on node
// ni: the least memory giving the lowest runtime among what the node has
// free (never below 10% of ideal), if the node's elastic disk share
// allows it and the task would end no later than its job would complete
// were it started regularly, on whatever node (notLater).
func (e *engine) elastic(ni int32, ph int32) (units int32, rt float64, disk int64, ok bool) {
	p := &e.w.phases[ph]
	n := &e.nodes[ni]
	t := p.tab
	if t == nil || n.freeCores < p.cores {
		return 0, 0, 0, false
	}
	avail := min(n.freeUnits, p.ideal-1)
	if avail < t.kmin {
		return 0, 0, 0, false
	}
	i := avail - t.kmin
	units, rt, disk = t.choice[i], t.rt[i], t.disk[i]
	if units < 0 || math.IsInf(rt, 1) {
		return 0, 0, 0, false
	}
	if disk > 0 && n.diskCap >= 0 && n.disk+disk > n.diskCap {
		return 0, 0, 0, false
	}
	if !e.notLater(ph, e.now+rt) {
		return 0, 0, 0, false
	}
	return units, rt, disk, true
}

// heartbeatS is how often the timeline generator runs (§3: "every
// heartbeat interval"): YARN's default node heartbeat, and DSS's.
const heartbeatS = 1.0

// notLater says whether a task of phase ph ending at end would end no
// later than the timeline generator's estimate of its job's completion
// (§3): when the job completes if from now on every task starts
// regularly, as stock YARN would start it — on any node, behind the
// reservations and the other jobs' tasks, with the running elastic tasks
// ending when they end, and never sooner than a regular start now
// allows. That continuation (peek) is taken at the first elastic
// decision once a heartbeat has passed since the last or a job has
// arrived, as the generator runs every heartbeat interval and at
// arrivals, without the jobs not yet submitted (as DSS's PEEK); it is
// run only as far as the questions need.
func (e *engine) notLater(ph int32, end float64) bool {
	p := &e.w.phases[ph]
	if end <= e.now+p.dur+p.tail { // started regularly from now, the job cannot complete sooner
		return true
	}
	if e.peek == nil || e.now >= e.peekAt+heartbeatS {
		old := e.peek
		if old == nil {
			old = e.spare
		}
		e.spare = nil
		f := e.clone(old)
		// The visit of this node goes on there first, as here (from the
		// top: a visit repeats until nothing changes), then the others.
		f.visit(e.visiting)
		f.drain()
		e.peek, e.peekAt, f.doneTo = f, e.now, e.now
	}
	// The continuation runs only until the answer is known: the job
	// completes, or one of its tasks is still to start when even a start
	// at once would end (with the phases after it) past end.
	f := e.peek
	j := p.job
	for f.jobs[j].left > 0 {
		until := end
		if nx := f.jobs[j].next; nx >= 0 {
			until = end - f.w.phases[nx].dur - f.w.phases[nx].tail
		}
		if f.doneTo >= until || len(f.events) == 0 {
			return true // it completes after end
		}
		_ = f.advance(nil, until) // no context: it cannot fail
		f.doneTo = until
	}
	return end <= f.out.FinishS[j]
}

// clone is a copy of e, run as stock YARN, that shares nothing e
// changes; it reuses the buffers of old, a continuation no longer
// needed (nil: none), and e's bufs.
func (e *engine) clone(old *engine) *engine {
	if old == nil {
		old = &engine{}
	}
	b := e.bufs
	if b == nil {
		b = &cloneBufs{}
		e.bufs = b
	}
	// old's per-node buffers, which it may have grown.
	b.run, b.ended = b.run[:0], b.ended[:0]
	for i := range old.nodes {
		b.run = append(b.run, old.nodes[i].run[:0])
		b.ended = append(b.ended, old.nodes[i].ended[:0])
	}
	f := *e
	f.cfg.Policy, f.cfg.ReservedGaps, f.cfg.KeepSchedule, f.cfg.SeriesPoints = YARN, false, false, 0
	f.fork, f.ctx, f.peek, f.spare, f.series, f.bufs = true, nil, nil, nil, nil, nil
	for i := range old.jobs { // the reservation lists old may have grown
		if r := old.jobs[i].reserved; cap(r) > cap(b.res[i]) {
			b.res[i] = r[:0]
		}
	}
	f.jobs = append(old.jobs[:0], e.jobs...)
	if len(b.res) != len(f.jobs) {
		b.res = make([][]int32, len(f.jobs))
	}
	// A job's list holds the nodes reserved for it, and others whose
	// reservation has ended (dirtyReserved drops them): the copy's lists
	// are the nodes reserved now, the ones dirtyReserved makes due.
	for i := range f.jobs {
		f.jobs[i].reserved = b.res[i][:0]
	}
	for n := range e.nodes {
		if j := e.nodes[n].resJob; j >= 0 {
			f.jobs[j].reserved = append(f.jobs[j].reserved, int32(n))
		}
	}
	f.phases = append(old.phases[:0], e.phases...)
	f.nodes = append(old.nodes[:0], e.nodes...)
	for i := range f.nodes {
		var run, ended []int32
		if i < len(b.run) {
			run, ended = b.run[i], b.ended[i]
		}
		f.nodes[i].run = append(run, e.nodes[i].run...)
		f.nodes[i].ended = append(ended, e.nodes[i].ended...)
	}
	f.tasks = append(old.tasks[:0], e.tasks...)
	f.events = append(old.events[:0], e.events...)
	if e.mixed { // nodes may pass jobs over: the whole order is read
		f.q, f.hq = e.q.cloneInto(&old.q), nil
	} else {
		f.q, f.hq = jobQueue{}, old.hq
		if f.hq == nil {
			f.hq = &headQueue{}
		}
		f.hq.load(&e.q)
	}
	f.stale = append(old.stale[:0], e.stale...)
	f.isStale = append(old.isStale[:0], e.isStale...)
	f.flush()
	f.dirty = append(old.dirty[:0], e.dirty...)
	fin := nil2(old.out)
	f.out = &Outcome{FinishS: append(fin, e.out.FinishS...)}
	return &f
}

// cloneBufs are the buffers clone reuses: per node and per job, those
// of the continuation it replaces.
type cloneBufs struct {
	run, ended [][]int32
	res        [][]int32 // the jobs' reservation lists
}

// nil2 is o's FinishS emptied, for reuse (o may be nil).
func nil2(o *Outcome) []float64 {
	if o == nil {
		return nil
	}
	return o.FinishS[:0]
}

// fitTime is the earliest instant at which node ni's running tasks have
// released enough for a regular task of phase ph: now if it fits, +Inf
// if it never would.
func (e *engine) fitTime(ni int32, ph int32) float64 {
	n := &e.nodes[ni]
	p := &e.w.phases[ph]
	u, c := n.freeUnits, n.freeCores
	if u >= p.ideal && c >= p.cores {
		return e.now
	}
	for _, ti := range n.run { // sorted by finish
		t := &e.tasks[ti]
		u += t.units
		c += t.cores
		if u >= p.ideal && c >= p.cores {
			return t.finish
		}
	}
	return math.Inf(1)
}

// start runs phase ph's next task on node ni with units of memory for rt
// seconds.
func (e *engine) start(ni, j, ph, units int32, rt float64, disk int64, elastic bool) {
	pp := &e.w.phases[ph]
	ti := e.free
	if ti >= 0 {
		e.free = e.tasks[ti].nextFree
	} else {
		ti = int32(len(e.tasks))
		e.tasks = append(e.tasks, etask{})
	}
	fin := e.now + rt
	e.tasks[ti] = etask{start: e.now, finish: fin, job: j, phase: ph, node: ni, units: units, cores: pp.cores, disk: disk, elastic: elastic, nextFree: -1}
	n := &e.nodes[ni]
	n.freeUnits -= units
	n.freeCores -= pp.cores
	n.disk += disk
	k := sort.Search(len(n.run), func(i int) bool { return e.tasks[n.run[i]].finish > fin })
	n.run = append(n.run, 0)
	copy(n.run[k+1:], n.run[k:])
	n.run[k] = ti
	e.held += int64(units)
	p := &e.phases[ph]
	p.pending--
	p.running++
	if !e.fork {
		if elastic {
			e.out.ElasticTasks[j]++
		}
		e.out.Tasks[j]++
	}
	e.out.TaskEvents++
	e.pushEvent(ti)
	if e.cfg.KeepSchedule {
		e.out.Schedule = append(e.out.Schedule, TaskRun{Job: j, Phase: ph - e.w.jobs[j].p0, Node: ni, StartS: e.now, EndS: fin, Units: units, Cores: pp.cores, Elastic: elastic, DiskBytesPerS: disk})
	}
	e.setCons(j, e.jobs[j].cons+int64(units))
	if p.pending == 0 {
		e.updateNext(j)
	}
}

// Dirty nodes: a bit each, visited lowest id first (popDirty takes the
// lowest set bit); dlo skips the words known to be zero.

func (e *engine) markDirty(n int32) {
	w := int(n >> 6)
	e.dirty[w] |= 1 << (n & 63)
	e.dlo = min(e.dlo, w)
}

func (e *engine) popDirty() int32 {
	for ; e.dlo < len(e.dirty); e.dlo++ {
		if x := e.dirty[e.dlo]; x != 0 {
			b := bits.TrailingZeros64(x)
			e.dirty[e.dlo] = x &^ (1 << b)
			return int32(e.dlo<<6 + b)
		}
	}
	return -1
}

// The event queue: task ends in a binary min-heap by time, then task id
// (a total order: any heap pops the same sequence). A pop moves the hole
// down to a leaf along the lesser children, one comparison a level, and
// puts the last event there, from where it rarely rises (Floyd's
// bottom-up heapsort): the engine's and its look-ahead's most frequent
// step.

type event struct {
	t  float64
	id int32
}

func evLess(a, b event) bool { return a.t < b.t || (a.t == b.t && a.id < b.id) }

func (e *engine) pushEvent(ti int32) {
	x := event{e.tasks[ti].finish, ti}
	h := append(e.events, x)
	e.events = h
	siftUp(h, len(h)-1, x)
}

// siftUp puts x at hole i of h or above.
func siftUp(h []event, i int, x event) {
	for i > 0 {
		p := (i - 1) / 2
		if !evLess(x, h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = x
}

func (e *engine) popEvent() int32 {
	h := e.events
	top := h[0].id
	last := len(h) - 1
	x := h[last]
	h = h[:last]
	e.events = h
	if last == 0 {
		return top
	}
	i := 0
	for {
		l := 2*i + 1
		if l+1 < last {
			if evLess(h[l+1], h[l]) {
				l++
			}
		} else if l >= last {
			break
		}
		h[i] = h[l]
		i = l
	}
	siftUp(h, i, x)
	return top
}

// setCons changes the memory job j holds; the queue puts it in its
// place when next read (flush). The queue's order is a total order on
// (memory held, rank), so when the job moves does not change where it
// is when read; what its next task needs changes only with its next
// phase (updateNext), not with what it holds.
func (e *engine) setCons(j int32, cons int64) {
	e.jobs[j].cons = cons
	if !e.isStale[j] {
		e.isStale[j] = true
		e.stale = append(e.stale, j)
	}
}

// flush puts the jobs whose memory held changed in their place in the
// queue, before it is read.
func (e *engine) flush() {
	for _, j := range e.stale {
		e.isStale[j] = false
		if e.hq != nil {
			e.hq.setCons(j, e.jobs[j].cons)
		} else {
			e.q.setCons(j, e.jobs[j].cons)
		}
	}
	e.stale = e.stale[:0]
}

// needOf is what phase ph's task needs to start in a gap.
func (e *engine) needOf(ph int32) need {
	p := &e.w.phases[ph]
	n := need{ideal: p.ideal, cores: p.cores, dur: p.dur, kmin: math.MaxInt32, minRT: math.Inf(1), latest: math.Inf(-1)}
	if t := p.tab; t != nil {
		// The lowest runtime: with all it may take. The job's estimate
		// (jobLimit) is known only once the instant's continuation has
		// run, so the walk does not skip by it; gapCandidate checks it.
		n.kmin, n.minRT, n.latest = t.kmin, t.rt[len(t.rt)-1], math.Inf(1)
	}
	return n
}
