package harvest

import (
	"container/heap"
	"math"
	"math/rand/v2"
	"sort"
)

// Policy is how batch containers are placed.
type Policy string

const (
	// History is Zhang et al., OSDI'16's YARN-H/Tez-H: Algorithm 1 picks
	// the class(es) of a job, then every container goes to a tenant of
	// them with probability proportional to its free cores (§5's RM-H).
	History Policy = "history"
	// Blind is the history-blind baseline (§6's YARN-PT): primary-tenant
	// aware (the reserve, the kills), but every container goes to a tenant
	// of the whole cluster with probability proportional to its free
	// cores now.
	Blind Policy = "blind"
	// Stock is §6's YARN-Stock, unaware of the primary tenants: a server
	// offers all its cores to containers whatever its primary uses, keeps
	// no reserve and kills nothing. §6: "As one would expect, YARN-Stock
	// exhibits the lowest execution times. Unfortunately, this
	// performance comes at the cost of ruining that of the primary
	// tenant": Outcome.ContendedCoreH counts the cores the primaries
	// wanted that containers held.
	Stock Policy = "stock"
)

// World is what the engine replays: every tenant's usage on one grid, the
// classes in force from each epoch on, and the batch jobs.
type World struct {
	StepMs  int64
	Tenants []WorldTenant
	// Epochs in time order; Epochs[0].FromMs is where the replay starts.
	Epochs []Epoch
	// EndMs is where the usage data stops: after it every server keeps its
	// last slot's usage while the jobs still queued or running finish.
	EndMs int64
	Jobs  []Job // by SubmitMs, then ID
}

// WorldTenant is a primary tenant: its average server's utilisation
// (fraction of a server, NaN a gap) from StartMs on the world's grid,
// and its servers.
type WorldTenant struct {
	Name    string
	Servers int
	StartMs int64
	Values  []float64
	// ServerValues, when set, is each of its Servers' own utilisation
	// from ServerStartMs on the world's grid (NaN a gap: the server's last
	// value holds, else the average server's): free cores and kills are
	// then per server, as each server's NodeManager decides them (§5
	// NM-H). Nil: every server follows Values.
	ServerStartMs int64
	ServerValues  [][]float32
}

// Epoch is one classification: its classes, in force from FromMs.
type Epoch struct {
	FromMs  int64
	Classes []WorldClass
}

// WorldClass is one class of an epoch: its pattern, mean and peak from
// history (the class's, as the classify stage computes them), Algorithm 1's weights per
// job type, and its member tenants (indexes into World.Tenants).
type WorldClass struct {
	Name    string
	Pattern string
	Mean    float64
	Peak    float64
	Weights [3]float64 // by JobType
	Members []int
}

// Job is one batch job: Containers tasks of one core each, every one
// running DurationMs once it starts; the job is done when all are.
type Job struct {
	ID         string
	Type       JobType
	SubmitMs   int64
	DurationMs int64
	Containers int
}

// Params are the engine's physical assumptions.
type Params struct {
	Cores        int    // per server
	ReserveCores int    // kept free for the primary tenant per server
	Seed         uint64 // of the policy's draws
	// linear places every job by one pass over its candidate tenants
	// (scan) instead of the draws: the straightforward baseline the
	// benchmark compares with.
	linear bool
}

// Tally counts containers (task attempts) and their core-hours.
type Tally struct {
	Containers int64 `json:"containers"`
	Completed  int64 `json:"completed"`
	Killed     int64 `json:"killed"`
	// Running: still running when the replay stopped (none: every job is
	// run to its end).
	Running int64 `json:"running"`
	// HarvestedCoreH: core-hours every container ran (killed ones up to
	// their kill); LostCoreH: those of killed containers, the wasted work
	// their tasks redo; CompletedCoreH: those of containers that ran to
	// their end, the useful work.
	HarvestedCoreH float64 `json:"harvested_core_h"`
	LostCoreH      float64 `json:"lost_core_h"`
	CompletedCoreH float64 `json:"completed_core_h"`
}

// JobTimes are the execution times (submission to the end of its last
// task, §6's "job execution time") of the jobs a policy replayed.
type JobTimes struct {
	Jobs int `json:"jobs"`
	// Finished: jobs whose every task completed; the others found no
	// core ever again after the data ended (their times are left out).
	Finished int     `json:"finished"`
	MeanS    float64 `json:"mean_s"`
	P50S     float64 `json:"p50_s"`
	P95S     float64 `json:"p95_s"`
	MaxS     float64 `json:"max_s"`
	// MeanWaitS: submission to the first task's start, on average.
	MeanWaitS float64 `json:"mean_wait_s"`
	// JobsWithKills: jobs that lost a task to a kill at least once.
	JobsWithKills int `json:"jobs_with_kills"`
}

// Outcome is one policy's replay.
type Outcome struct {
	Policy Policy `json:"policy"`
	Tally
	// Unplaced: containers no server had a free core for at their job's
	// submission; they wait in the queue (first come, first served) with
	// the killed ones.
	Unplaced int64 `json:"unplaced"`
	// Fallback: jobs Algorithm 1 named no class for (line 16), placed by
	// the default policy (§5: RM-H's default when Tez-H names no label);
	// MultiClass: jobs given several classes (lines 12–14). Both at a
	// job's first placement.
	Fallback   int64 `json:"fallback_jobs"`
	MultiClass int64 `json:"multi_class_jobs"`
	// ByPattern: by the pattern of the tenant's class at placement
	// ("none": a tenant with no class); ByType by job type.
	ByPattern map[string]*Tally `json:"by_pattern"`
	ByType    map[string]*Tally `json:"by_type"`
	// JobTimes: the jobs' execution times, all and by type.
	JobTimes       *JobTimes            `json:"job_times"`
	JobTimesByType map[string]*JobTimes `json:"job_times_by_type"`
	// ContendedCoreH: core-hours, sampled at each slot's start, that the
	// primary tenants wanted and containers held (used + held above the
	// server's cores): only stock lets that happen.
	ContendedCoreH float64 `json:"primary_contended_core_h"`
	// LastEndMs: when the last task ended (epoch ms UTC; after the data's
	// end when the queue drains there).
	LastEndMs int64 `json:"last_end_ms"`
	// Kills lists every kill when the world asks (tests).
	Kills []Kill `json:"-"`
}

// Kill is one killed container.
type Kill struct {
	AtMs    int64
	Tenant  string
	Server  int // the tenant's server, from 0
	Job     string
	StartMs int64
}

type container struct {
	job     int32
	tenant  int32
	server  int32 // global server index
	pattern string
	startMs int64
	endMs   int64
	alive   bool
}

type endItem struct {
	endMs int64
	id    int32
}

type endHeap []endItem

func (h endHeap) Len() int { return len(h) }
func (h endHeap) Less(i, j int) bool {
	if h[i].endMs != h[j].endMs {
		return h[i].endMs < h[j].endMs
	}
	return h[i].id < h[j].id
}
func (h endHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *endHeap) Push(x any)   { *h = append(*h, x.(endItem)) }
func (h *endHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// engine is one policy's replay state.
type engine struct {
	w      *World
	p      Params
	policy Policy
	rng    *rand.Rand
	out    *Outcome
	keep   bool

	cs    []container
	ends  endHeap
	alloc []int // cores held by containers per tenant
	// Servers: tenant i's are base[i] .. base[i]+Servers−1.
	base      []int
	srvTenant []int32
	srvHeld   []int32
	srvStack  [][]int32 // per server, its containers by start (youngest last)
	active    []int32   // servers with containers
	actPos    []int32   // server → its index in active, −1 when not there
	slot      int64     // current slot (usage in force)
	lastSlot  int64     // the data's last slot: it holds after EndMs
	now       int64
	epoch     int
	// per epoch: each tenant's class index (−1 none)
	classOf []int
	// Per-tenant free cores at a slot, computed once (fcSlot the slot).
	fc     []int32
	fcSlot []int64
	// Per class of the epoch: all its servers, the cores its tenants give
	// to containers, and at aggSlot the server-weighted sum of its members'
	// utilisation and the servers with data.
	classServers []int
	classHeld    []int
	classSum     []float64
	classData    []float64
	aggSlot      int64
	// Sampling tables (samplers): each class's members and every tenant,
	// weighted by the cores a server leaves when the primary is idle.
	classTab []sampler
	allTab   sampler
	// The queue: per job its tasks waiting and not yet done, its first
	// start and its end; queue holds the jobs with tasks waiting, by
	// index (submission order: first come, first served).
	pending   []int32
	left      []int32
	firstMs   []int64
	finishMs  []int64
	attempted []bool
	hadKill   []bool
	replayed  []bool
	queue     []int32
	// freeSum: Σ free cores over the tenants at freeSlot (kept by starts
	// and ends within the slot).
	freeSum  int64
	freeSlot int64
	// scratch
	free []int
	cand []int32
}

// sampler draws a tenant with probability ∝ its cap (servers × (cores −
// reserve)): cum is the running sum over idx.
type sampler struct {
	idx []int32
	cap []int32
	cum []int64
}

func newSampler(members []int32, tenants []WorldTenant, coresLeft int) sampler {
	var sp sampler
	var acc int64
	for _, m := range members {
		c := int32(tenants[m].Servers * coresLeft)
		if c <= 0 {
			continue
		}
		acc += int64(c)
		sp.idx, sp.cap, sp.cum = append(sp.idx, m), append(sp.cap, c), append(sp.cum, acc)
	}
	return sp
}

func (sp *sampler) total() int64 {
	if len(sp.cum) == 0 {
		return 0
	}
	return sp.cum[len(sp.cum)-1]
}

// draw is an index into sp.idx.
func (sp *sampler) draw(rng *rand.Rand) int {
	x := rng.Int64N(sp.total())
	return sort.Search(len(sp.cum), func(k int) bool { return sp.cum[k] > x })
}

// idleCap is the cores a server gives containers when its primary is
// idle: all of them under stock, else less the reserve.
func (e *engine) idleCap() int {
	if e.policy == Stock {
		return e.p.Cores
	}
	return e.p.Cores - e.p.ReserveCores
}

// Replay runs one policy over the world: every job is queued at its
// submission and runs to its end, killed tasks queued again. keepKills
// records every kill.
func Replay(w *World, p Params, policy Policy, keepKills bool) *Outcome {
	nt, nj := len(w.Tenants), len(w.Jobs)
	e := &engine{w: w, p: p, policy: policy, keep: keepKills,
		rng:   rand.New(rand.NewPCG(p.Seed, policySalt(policy))),
		out:   &Outcome{Policy: policy, ByPattern: map[string]*Tally{}, ByType: map[string]*Tally{}},
		alloc: make([]int, nt), base: make([]int, nt),
		classOf: make([]int, nt), free: make([]int, nt),
		fc: make([]int32, nt), fcSlot: make([]int64, nt),
		pending: make([]int32, nj), left: make([]int32, nj), firstMs: make([]int64, nj), finishMs: make([]int64, nj),
		attempted: make([]bool, nj), hadKill: make([]bool, nj), replayed: make([]bool, nj), freeSlot: math.MinInt64}
	for i := range e.fcSlot {
		e.fcSlot[i] = math.MinInt64
	}
	for i, t := range w.Tenants {
		e.base[i] = len(e.srvTenant)
		for s := 0; s < t.Servers; s++ {
			e.srvTenant = append(e.srvTenant, int32(i))
		}
	}
	ns := len(e.srvTenant)
	e.srvHeld, e.srvStack, e.actPos = make([]int32, ns), make([][]int32, ns), make([]int32, ns)
	for i := range e.actPos {
		e.actPos[i] = -1
	}
	all := make([]int32, nt)
	for i := range all {
		all[i] = int32(i)
	}
	e.allTab = newSampler(all, w.Tenants, e.idleCap())
	if len(w.Epochs) == 0 {
		e.out.JobTimes, e.out.JobTimesByType = &JobTimes{}, map[string]*JobTimes{}
		return e.out
	}
	e.slot = floorDiv(w.Epochs[0].FromMs, w.StepMs)
	e.lastSlot = max(e.slot, floorDiv(w.EndMs-1, w.StepMs))
	e.now = w.Epochs[0].FromMs
	e.setEpoch(0)
	for ji := range w.Jobs {
		j := &w.Jobs[ji]
		if j.SubmitMs < w.Epochs[0].FromMs || j.SubmitMs >= w.EndMs {
			continue
		}
		e.advance(j.SubmitMs)
		for e.epoch+1 < len(w.Epochs) && w.Epochs[e.epoch+1].FromMs <= j.SubmitMs {
			e.setEpoch(e.epoch + 1)
		}
		e.submit(ji)
	}
	e.advance(w.EndMs)
	// The data has ended: every server keeps its last usage (no more
	// kills) while the queue drains. It stops early only when nothing
	// runs and what waits finds no core, which the last usage then never
	// gives.
	for len(e.ends) > 0 {
		e.runEnds(e.ends[0].endMs, true)
	}
	e.jobTimes()
	return e.out
}

func policySalt(p Policy) uint64 {
	switch p {
	case History:
		return 0x9e3779b97f4a7c15
	case Stock:
		return 0x94d049bb133111eb
	}
	return 0xbf58476d1ce4e5b9
}

func (e *engine) setEpoch(k int) {
	e.epoch = k
	for i := range e.classOf {
		e.classOf[i] = -1
	}
	classes := e.w.Epochs[k].Classes
	e.classServers, e.classHeld = make([]int, len(classes)), make([]int, len(classes))
	e.classSum, e.classData = make([]float64, len(classes)), make([]float64, len(classes))
	e.classTab = make([]sampler, len(classes))
	e.aggSlot = math.MinInt64
	for ci, c := range classes {
		members := make([]int32, len(c.Members))
		for k, m := range c.Members {
			e.classOf[m] = ci
			e.classServers[ci] += e.w.Tenants[m].Servers
			e.classHeld[ci] += e.alloc[m]
			members[k] = int32(m)
		}
		e.classTab[ci] = newSampler(members, e.w.Tenants, e.idleCap())
	}
}

// held changes server s's cores given to containers by d.
func (e *engine) held(s, d int) {
	i := int(e.srvTenant[s])
	e.srvHeld[s] += int32(d)
	e.alloc[i] += d
	if ci := e.classOf[i]; ci >= 0 {
		e.classHeld[ci] += d
	}
}

// aggregate fills every class's utilisation sums at the current slot.
func (e *engine) aggregate() {
	if e.aggSlot == e.slot {
		return
	}
	e.aggSlot = e.slot
	clear(e.classSum)
	clear(e.classData)
	for i, ci := range e.classOf {
		if ci < 0 {
			continue
		}
		if u := e.usage(i, e.slot); !math.IsNaN(u) {
			s := float64(e.w.Tenants[i].Servers)
			e.classSum[ci] += s * u
			e.classData[ci] += s
		}
	}
}

// usage is tenant i's average-server utilisation at slot k: its value
// there, the last one before a gap, NaN outside its series.
func (e *engine) usage(i int, k int64) float64 {
	t := &e.w.Tenants[i]
	j := k - floorDiv(t.StartMs, e.w.StepMs)
	if j < 0 || j >= int64(len(t.Values)) {
		return math.NaN()
	}
	for ; j >= 0; j-- {
		if v := t.Values[j]; !math.IsNaN(v) {
			return v
		}
	}
	return math.NaN()
}

// serverUsage is server s's own utilisation at slot k where its tenant
// has per-server data (its last value before a gap, else the average
// server's), the average server's otherwise; NaN outside the tenant's
// series.
func (e *engine) serverUsage(s int, k int64) float64 {
	i := int(e.srvTenant[s])
	avg := e.usage(i, k)
	t := &e.w.Tenants[i]
	if t.ServerValues == nil || math.IsNaN(avg) {
		return avg
	}
	v := t.ServerValues[s-e.base[i]]
	for j := min(k-floorDiv(t.ServerStartMs, e.w.StepMs), int64(len(v))-1); j >= 0; j-- {
		if x := v[j]; !math.IsNaN(float64(x)) {
			return float64(x)
		}
	}
	return avg
}

// serverFree is the cores a server of a tenant at utilisation u leaves to
// batch containers: cores − reserve − the primary's cores rounded up
// (§5: NM-H rounds the primary tenant's usage up to whole cores); none
// outside the tenant's data. Stock ignores the primary: every core.
func (e *engine) serverFree(u float64) int {
	if math.IsNaN(u) {
		return 0
	}
	if e.policy == Stock {
		return e.p.Cores
	}
	return max(0, e.p.Cores-e.p.ReserveCores-primaryCores(u, e.p.Cores))
}

// primaryCores is a primary at utilisation u in whole cores, rounded up.
func primaryCores(u float64, cores int) int {
	return int(math.Ceil(math.Min(1, math.Max(0, u))*float64(cores) - 1e-9))
}

// srvCap is the cores server s gives containers at the current slot.
func (e *engine) srvCap(s int) int { return e.serverFree(e.serverUsage(s, e.slot)) }

// tenantFree is the cores tenant i can still give at the current slot.
func (e *engine) tenantFree(i int) int {
	if e.fcSlot[i] != e.slot {
		e.fcSlot[i] = e.slot
		t := &e.w.Tenants[i]
		if t.ServerValues == nil {
			e.fc[i] = int32(t.Servers * e.serverFree(e.usage(i, e.slot)))
		} else {
			sum := 0
			for s := e.base[i]; s < e.base[i]+t.Servers; s++ {
				sum += e.srvCap(s)
			}
			e.fc[i] = int32(sum)
		}
	}
	return int(e.fc[i]) - e.alloc[i]
}

// freeTotal is the free cores of the whole cluster now.
func (e *engine) freeTotal() int64 {
	if e.freeSlot != e.slot {
		e.freeSlot = e.slot
		e.freeSum = 0
		for i := range e.w.Tenants {
			e.freeSum += int64(max(0, e.tenantFree(i)))
		}
	}
	return e.freeSum
}

// advance applies every container end and usage change up to t: at an
// instant, ends first, then the new slot's usage (kills), then the queue.
// Past the data's last slot the usage no longer changes.
func (e *engine) advance(t int64) {
	target := min(floorDiv(t, e.w.StepMs), e.lastSlot)
	for e.slot < target {
		b := (e.slot + 1) * e.w.StepMs
		e.runEnds(b, false)
		e.slot++
		e.now = b
		e.enforce(b)
		e.schedule()
	}
	e.runEnds(t, true)
	e.now = max(e.now, t)
}

// runEnds ends every container that ends by limit, instant by instant,
// serving the queue after each instant's ends (at limit itself only when
// passAtLimit: a slot's usage comes first there).
func (e *engine) runEnds(limit int64, passAtLimit bool) {
	for len(e.ends) > 0 && e.ends[0].endMs <= limit {
		at := e.ends[0].endMs
		for len(e.ends) > 0 && e.ends[0].endMs == at {
			it := heap.Pop(&e.ends).(endItem)
			c := &e.cs[it.id]
			if !c.alive {
				continue
			}
			e.release(c)
			e.account(c, c.endMs, func(t *Tally) { t.Completed++; t.CompletedCoreH += float64(c.endMs-c.startMs) / 3.6e6 })
			e.out.LastEndMs = max(e.out.LastEndMs, c.endMs)
			if e.left[c.job]--; e.left[c.job] == 0 {
				e.finishMs[c.job] = c.endMs
			}
		}
		if at < limit || passAtLimit {
			e.now = max(e.now, at)
			e.schedule()
		}
	}
}

// enforce is NM-H (§5) on every server holding containers: a server
// whose primary needs its reserve back kills its own containers,
// youngest first, until they fit; their tasks wait in the queue again.
// Stock kills nothing and counts the cores it takes from the primaries.
func (e *engine) enforce(at int64) {
	if e.policy == Stock {
		slotH := float64(e.w.StepMs) / 3.6e6
		for _, s := range e.active {
			u := e.serverUsage(int(s), e.slot)
			if math.IsNaN(u) {
				continue
			}
			if over := primaryCores(u, e.p.Cores) + int(e.srvHeld[s]) - e.p.Cores; over > 0 {
				e.out.ContendedCoreH += float64(over) * slotH
			}
		}
		return
	}
	for k := 0; k < len(e.active); k++ {
		s := int(e.active[k])
		i := int(e.srvTenant[s])
		over := int(e.srvHeld[s]) - e.srvCap(s)
		st := e.srvStack[s]
		for over > 0 && len(st) > 0 {
			id := st[len(st)-1]
			st = st[:len(st)-1]
			c := &e.cs[id]
			if !c.alive {
				continue
			}
			c.alive = false
			e.held(s, -1)
			over--
			e.account(c, at, func(t *Tally) { t.Killed++; t.LostCoreH += float64(at-c.startMs) / 3.6e6 })
			if e.keep {
				e.out.Kills = append(e.out.Kills, Kill{AtMs: at, Tenant: e.w.Tenants[i].Name, Server: s - e.base[i], Job: e.w.Jobs[c.job].ID, StartMs: c.startMs})
			}
			e.hadKill[c.job] = true
			e.enqueue(c.job, 1)
		}
		e.srvStack[s] = st
		if e.srvHeld[s] == 0 {
			e.deactivate(k)
			k--
		}
	}
}

func (e *engine) deactivate(k int) {
	s := e.active[k]
	e.srvStack[s] = e.srvStack[s][:0]
	last := len(e.active) - 1
	e.active[k] = e.active[last]
	e.actPos[e.active[k]] = int32(k)
	e.active = e.active[:last]
	e.actPos[s] = -1
}

func (e *engine) release(c *container) {
	c.alive = false
	s := int(c.server)
	e.held(s, -1)
	if e.freeSlot == e.slot {
		e.freeSum++
	}
	if e.srvHeld[s] == 0 {
		e.deactivate(int(e.actPos[s]))
		return
	}
	// Ended containers stay in the stack until it is compacted, when
	// they outnumber the live ones.
	if st := e.srvStack[s]; len(st) > 2*int(e.srvHeld[s])+16 {
		live := st[:0]
		for _, id := range st {
			if e.cs[id].alive {
				live = append(live, id)
			}
		}
		e.srvStack[s] = live
	}
}

// account adds a container that stopped at t (ended, killed) to the
// outcome's tallies.
func (e *engine) account(c *container, t int64, f func(*Tally)) {
	h := float64(t-c.startMs) / 3.6e6
	j := &e.w.Jobs[c.job]
	for _, tl := range []*Tally{&e.out.Tally, e.tally(e.out.ByPattern, c.pattern), e.tally(e.out.ByType, j.Type.String())} {
		tl.HarvestedCoreH += h
		f(tl)
	}
}

func (e *engine) tally(m map[string]*Tally, k string) *Tally {
	t := m[k]
	if t == nil {
		t = &Tally{}
		m[k] = t
	}
	return t
}

// submit queues job ji's tasks and serves the queue; the tasks that did
// not start at once are counted as unplaced (they wait).
func (e *engine) submit(ji int) {
	j := &e.w.Jobs[ji]
	e.replayed[ji] = true
	e.firstMs[ji] = -1
	e.finishMs[ji] = -1
	e.left[ji] = int32(j.Containers)
	if j.Containers <= 0 {
		e.finishMs[ji] = j.SubmitMs
		return
	}
	e.now = max(e.now, j.SubmitMs)
	e.enqueue(int32(ji), j.Containers)
	e.schedule()
	e.out.Unplaced += int64(e.pending[ji])
}

// enqueue adds n waiting tasks to job ji, queueing it in submission order.
func (e *engine) enqueue(ji int32, n int) {
	if e.pending[ji] == 0 {
		k := sort.Search(len(e.queue), func(k int) bool { return e.queue[k] >= ji })
		e.queue = append(e.queue, 0)
		copy(e.queue[k+1:], e.queue[k:])
		e.queue[k] = ji
	}
	e.pending[ji] += int32(n)
}

// schedule serves the queue first come, first served: each job in turn
// places what it can under the policy; one that cannot place all its
// tasks has had the default policy look at every tenant, so no core is
// free and the pass stops.
func (e *engine) schedule() {
	if len(e.queue) == 0 || e.freeTotal() <= 0 {
		return
	}
	k := 0
	for k < len(e.queue) {
		ji := e.queue[k]
		first := !e.attempted[ji]
		e.attempted[ji] = true
		n := e.place(int(ji), int(e.pending[ji]), first)
		e.pending[ji] -= int32(n)
		if e.pending[ji] == 0 {
			e.queue = append(e.queue[:k], e.queue[k+1:]...)
			continue
		}
		k++
		if e.freeTotal() <= 0 {
			break
		}
	}
}

// place places up to need of job ji's tasks under the policy and says
// how many started; first: the job's first placement (counted).
func (e *engine) place(ji, need int, first bool) int {
	j := &e.w.Jobs[ji]
	placed := 0
	if e.policy == History {
		classes := e.selectClasses(j, need)
		if classes == nil {
			if first {
				e.out.Fallback++
			}
		} else {
			if len(classes) > 1 && first {
				e.out.MultiClass++
			}
			tabs := make([]*sampler, len(classes))
			for k, ci := range classes {
				tabs[k] = &e.classTab[ci]
			}
			placed += e.spread(ji, need, tabs)
		}
	}
	if placed < need {
		// The default policy: every tenant with free cores now.
		placed += e.spread(ji, need-placed, []*sampler{&e.allTab})
	}
	return placed
}

// selectClasses is Algorithm 1 (§4.1) for job j at the current slot:
// Headroom(type, c) in cores is the class's servers × (cores × (1 − u) −
// reserve) less the cores its tenants already give to containers, with u
// the class's current utilisation (short), max(mean, current) (medium)
// or max(peak, current) (long); mean and peak come from the epoch's
// classification (history), current from the servers now (§5's
// heartbeats). It returns the classes picked (indexes in the epoch), or
// nil for none (line 16).
func (e *engine) selectClasses(j *Job, need int) []int {
	classes := e.w.Epochs[e.epoch].Classes
	if len(classes) == 0 {
		return nil
	}
	room := make([]float64, len(classes))
	weighted := make([]float64, len(classes))
	var fit []int
	total := 0.0
	e.aggregate()
	for ci := range classes {
		c := &classes[ci]
		if e.classData[ci] == 0 {
			continue // no member has data now: nothing to harvest
		}
		held, allServers := e.classHeld[ci], e.classServers[ci]
		cur := e.classSum[ci] / e.classData[ci]
		u := cur
		switch j.Type {
		case Medium:
			u = math.Max(c.Mean, cur)
		case Long:
			u = math.Max(c.Peak, cur)
		}
		r := float64(allServers)*math.Max(0, float64(e.p.Cores)*(1-math.Min(1, u))-float64(e.p.ReserveCores)) - float64(held)
		room[ci] = math.Max(0, r)
		weighted[ci] = room[ci] * c.Weights[j.Type]
		total += room[ci]
		if room[ci] >= float64(need) && weighted[ci] > 0 {
			fit = append(fit, ci)
		}
	}
	if len(fit) > 0 { // lines 9–11
		return []int{e.draw(fit, weighted)}
	}
	if total < float64(need) { // lines 15–17
		return nil
	}
	// Lines 12–14: draw classes without replacement, each with
	// probability ∝ its weighted room, until their room holds the job.
	var left, picked []int
	for ci := range classes {
		if weighted[ci] > 0 {
			left = append(left, ci)
		}
	}
	got := 0.0
	for got < float64(need) && len(left) > 0 {
		ci := e.draw(left, weighted)
		picked = append(picked, ci)
		got += room[ci]
		for k, x := range left {
			if x == ci {
				left = append(left[:k], left[k+1:]...)
				break
			}
		}
	}
	if got < float64(need) {
		return nil
	}
	sort.Ints(picked)
	return picked
}

// draw picks one of idx with probability ∝ w[idx].
func (e *engine) draw(idx []int, w []float64) int {
	total := 0.0
	for _, i := range idx {
		total += w[i]
	}
	x := e.rng.Float64() * total
	for _, i := range idx {
		if x < w[i] {
			return i
		}
		x -= w[i]
	}
	return idx[len(idx)-1]
}

// spread starts up to n of job ji's containers on the tenants of tabs,
// one after another, each on a tenant with probability ∝ its free cores
// now (§5: RM-H picks a heartbeating server of the class ∝ its available
// resources). A tenant is drawn ∝ its cores when idle (a table, then the
// class ∝ its table's total) and kept with probability free/idle cores:
// exactly ∝ free cores, in O(log n) a draw. When few cores are free
// (draws keep failing) the rest are placed by one pass over the tenants
// (place). It returns how many started.
func (e *engine) spread(ji, n int, tabs []*sampler) int {
	var total int64
	for _, t := range tabs {
		total += t.total()
	}
	if total == 0 || n == 0 {
		return 0
	}
	placed, misses := 0, 0
	if e.p.linear {
		misses = math.MaxInt
	}
	for placed < n && misses < 32 {
		x := e.rng.Int64N(total)
		t := tabs[0]
		for _, tt := range tabs {
			if x < tt.total() {
				t = tt
				break
			}
			x -= tt.total()
		}
		k := t.draw(e.rng)
		i := int(t.idx[k])
		if f := e.tenantFree(i); f > 0 && e.rng.Int32N(t.cap[k]) < int32(f) {
			e.start(ji, i)
			placed++
			misses = 0
			continue
		}
		misses++
	}
	if placed < n {
		e.cand = e.cand[:0]
		for _, t := range tabs {
			e.cand = append(e.cand, t.idx...)
		}
		placed += e.scan(ji, n-placed, e.cand)
	}
	return placed
}

// scan starts up to n of job ji's containers on the candidates by one
// pass: n distinct free cores drawn uniformly among all of theirs (the
// same law as spread's draws one after another).
func (e *engine) scan(ji, n int, cand []int32) int {
	total := 0
	for _, i := range cand {
		f := max(0, e.tenantFree(int(i)))
		e.free[i] = f
		total += f
	}
	if total == 0 || n == 0 {
		return 0
	}
	n = min(n, total)
	// n distinct cores of total, uniformly (Floyd), in ascending order.
	picks := make([]int, 0, n)
	seen := make(map[int]bool, n)
	for k := total - n; k < total; k++ {
		x := e.rng.IntN(k + 1)
		if seen[x] {
			x = k
		}
		seen[x] = true
		picks = append(picks, x)
	}
	sort.Ints(picks)
	acc, p := 0, 0
	for _, i := range cand {
		f := e.free[i]
		for p < len(picks) && picks[p] < acc+f {
			e.start(ji, int(i))
			p++
		}
		acc += f
	}
	return n
}

// start starts one of job ji's tasks on a server of tenant i, drawn with
// probability ∝ its free cores (§5: RM-H offers a heartbeating server's
// free resources).
func (e *engine) start(ji, i int) {
	j := &e.w.Jobs[ji]
	pattern := "none"
	if ci := e.classOf[i]; ci >= 0 {
		pattern = e.w.Epochs[e.epoch].Classes[ci].Pattern
	}
	s := e.pickServer(i)
	id := int32(len(e.cs))
	e.cs = append(e.cs, container{job: int32(ji), tenant: int32(i), server: int32(s), pattern: pattern, startMs: e.now,
		endMs: e.now + j.DurationMs, alive: true})
	e.held(s, 1)
	if e.freeSlot == e.slot {
		e.freeSum--
	}
	e.srvStack[s] = append(e.srvStack[s], id)
	if e.actPos[s] < 0 {
		e.actPos[s] = int32(len(e.active))
		e.active = append(e.active, int32(s))
	}
	if e.firstMs[ji] < 0 {
		e.firstMs[ji] = e.now
	}
	heap.Push(&e.ends, endItem{e.now + j.DurationMs, id})
	tl := func(t *Tally) { t.Containers++ }
	tl(&e.out.Tally)
	tl(e.tally(e.out.ByPattern, pattern))
	tl(e.tally(e.out.ByType, j.Type.String()))
}

// pickServer draws a server of tenant i (which has a free core) with
// probability ∝ its free cores: a server drawn uniformly is kept with
// probability free / idle cores, and after 32 misses one pass decides.
func (e *engine) pickServer(i int) int {
	n := e.w.Tenants[i].Servers
	b := e.base[i]
	if n == 1 {
		return b
	}
	idle := int32(e.idleCap())
	for k := 0; k < 32 && !e.p.linear; k++ {
		s := b + e.rng.IntN(n)
		if f := int32(e.srvCap(s)) - e.srvHeld[s]; f > 0 && e.rng.Int32N(idle) < f {
			return s
		}
	}
	total := 0
	for s := b; s < b+n; s++ {
		total += max(0, e.srvCap(s)-int(e.srvHeld[s]))
	}
	if total == 0 {
		return b // not reached: the tenant had a free core
	}
	x := e.rng.IntN(total)
	for s := b; s < b+n; s++ {
		if f := max(0, e.srvCap(s)-int(e.srvHeld[s])); x < f {
			return s
		} else {
			x -= f
		}
	}
	return b + n - 1
}

// jobTimes fills the outcome's execution times from the replayed jobs.
func (e *engine) jobTimes() {
	all := &jobAcc{}
	by := map[string]*jobAcc{}
	for ji := range e.w.Jobs {
		if !e.replayed[ji] {
			continue
		}
		j := &e.w.Jobs[ji]
		k := j.Type.String()
		if by[k] == nil {
			by[k] = &jobAcc{}
		}
		for _, a := range []*jobAcc{all, by[k]} {
			a.add(j, e.firstMs[ji], e.finishMs[ji], e.hadKill[ji])
		}
	}
	e.out.JobTimes = all.times()
	e.out.JobTimesByType = map[string]*JobTimes{}
	for k, a := range by {
		e.out.JobTimesByType[k] = a.times()
	}
}

type jobAcc struct {
	jobs, kills int
	exec        []float64
	wait        float64
	waited      int
}

func (a *jobAcc) add(j *Job, firstMs, finishMs int64, killed bool) {
	a.jobs++
	if killed {
		a.kills++
	}
	if firstMs >= 0 {
		a.wait += float64(firstMs-j.SubmitMs) / 1000
		a.waited++
	}
	if finishMs >= 0 {
		a.exec = append(a.exec, float64(finishMs-j.SubmitMs)/1000)
	}
}

func (a *jobAcc) times() *JobTimes {
	t := &JobTimes{Jobs: a.jobs, Finished: len(a.exec), JobsWithKills: a.kills}
	if a.waited > 0 {
		t.MeanWaitS = a.wait / float64(a.waited)
	}
	if len(a.exec) == 0 {
		return t
	}
	sort.Float64s(a.exec)
	sum := 0.0
	for _, x := range a.exec {
		sum += x
	}
	t.MeanS = sum / float64(len(a.exec))
	t.P50S, t.P95S, t.MaxS = nearestRank(a.exec, 0.5), nearestRank(a.exec, 0.95), a.exec[len(a.exec)-1]
	return t
}

// nearestRank is the q-quantile of sorted xs by nearest rank.
func nearestRank(xs []float64, q float64) float64 {
	k := int(math.Ceil(q*float64(len(xs)))) - 1
	return xs[min(max(k, 0), len(xs)-1)]
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
