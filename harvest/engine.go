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
	// History is seed 000's YARN-H/Tez-H: Algorithm 1 picks the class(es)
	// of a job, then every container goes to a tenant of them with
	// probability proportional to its free cores (§5's RM-H).
	History Policy = "history"
	// Blind is the history-blind baseline (§6's YARN-PT): primary-tenant
	// aware (the reserve, the kills), but every container goes to a tenant
	// of the whole cluster with probability proportional to its free
	// cores now.
	Blind Policy = "blind"
)

// World is what the engine replays: every tenant's usage on one grid, the
// classes in force from each epoch on, and the batch jobs.
type World struct {
	StepMs  int64
	Tenants []WorldTenant
	// Epochs in time order; Epochs[0].FromMs is where the replay starts.
	Epochs []Epoch
	// EndMs is where the replay stops (running containers are cut there).
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
}

// Epoch is one classification: its classes, in force from FromMs.
type Epoch struct {
	FromMs  int64
	Classes []WorldClass
}

// WorldClass is one class of an epoch: its pattern, mean and peak from
// history (the class's, as fft computes them), Algorithm 1's weights per
// job type, and its member tenants (indexes into World.Tenants).
type WorldClass struct {
	Name    string
	Pattern string
	Mean    float64
	Peak    float64
	Weights [3]float64 // by JobType
	Members []int
}

// Job is one batch job: Containers containers of one core each, all
// started at SubmitMs (when placed) and running DurationMs.
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

// Tally counts containers and their core-hours.
type Tally struct {
	Containers int64 `json:"containers"`
	Completed  int64 `json:"completed"`
	Killed     int64 `json:"killed"`
	// Running: still running when the replay ended (cut there).
	Running int64 `json:"running"`
	// HarvestedCoreH: core-hours every container ran (killed ones up to
	// their kill); LostCoreH: those of killed containers, work to redo.
	HarvestedCoreH float64 `json:"harvested_core_h"`
	LostCoreH      float64 `json:"lost_core_h"`
}

// Outcome is one policy's replay.
type Outcome struct {
	Policy Policy `json:"policy"`
	Tally
	// Unplaced: containers no tenant had a free core for at submission
	// (they are not queued).
	Unplaced int64 `json:"unplaced"`
	// Fallback: jobs Algorithm 1 named no class for (line 16), placed by
	// the default policy (§5: RM-H's default when Tez-H names no label);
	// MultiClass: jobs given several classes (lines 12–14).
	Fallback   int64 `json:"fallback_jobs"`
	MultiClass int64 `json:"multi_class_jobs"`
	// ByPattern: by the pattern of the tenant's class at placement
	// ("none": a tenant with no class); ByType by job type.
	ByPattern map[string]*Tally `json:"by_pattern"`
	ByType    map[string]*Tally `json:"by_type"`
	// Kills lists every kill when the world asks (tests).
	Kills []Kill `json:"-"`
}

// Kill is one killed container.
type Kill struct {
	AtMs    int64
	Tenant  string
	Job     string
	StartMs int64
}

type container struct {
	job     int32
	tenant  int32
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

	cs     []container
	ends   endHeap
	alloc  []int     // cores held by containers per tenant
	stack  [][]int32 // per tenant, its containers by start (youngest last)
	active []int32   // tenants with containers
	actPos []int32   // tenant → its index in active, −1 when not there
	slot   int64     // current slot (usage in force)
	epoch  int
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

// Replay runs one policy over the world. keepKills records every kill.
func Replay(w *World, p Params, policy Policy, keepKills bool) *Outcome {
	e := &engine{w: w, p: p, policy: policy, keep: keepKills,
		rng:   rand.New(rand.NewPCG(p.Seed, policySalt(policy))),
		out:   &Outcome{Policy: policy, ByPattern: map[string]*Tally{}, ByType: map[string]*Tally{}},
		alloc: make([]int, len(w.Tenants)), stack: make([][]int32, len(w.Tenants)), actPos: make([]int32, len(w.Tenants)),
		classOf: make([]int, len(w.Tenants)), free: make([]int, len(w.Tenants)),
		fc: make([]int32, len(w.Tenants)), fcSlot: make([]int64, len(w.Tenants))}
	for i := range e.fcSlot {
		e.fcSlot[i] = math.MinInt64
	}
	all := make([]int32, len(w.Tenants))
	for i := range all {
		all[i] = int32(i)
	}
	e.allTab = newSampler(all, w.Tenants, p.Cores-p.ReserveCores)
	for i := range e.actPos {
		e.actPos[i] = -1
	}
	if len(w.Epochs) == 0 {
		return e.out
	}
	e.slot = floorDiv(w.Epochs[0].FromMs, w.StepMs)
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
		e.place(ji)
	}
	e.advance(w.EndMs)
	// Containers still running are cut at the end.
	for i := range e.cs {
		c := &e.cs[i]
		if c.alive {
			e.account(c, w.EndMs, func(t *Tally) { t.Running++ })
		}
	}
	return e.out
}

func policySalt(p Policy) uint64 {
	if p == History {
		return 0x9e3779b97f4a7c15
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
		e.classTab[ci] = newSampler(members, e.w.Tenants, e.p.Cores-e.p.ReserveCores)
	}
}

// held changes tenant i's cores given to containers by d.
func (e *engine) held(i, d int) {
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

// usage is tenant i's utilisation at slot k: its value there, the last
// one before a gap, NaN outside its series.
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

// serverFree is the cores a server of a tenant at utilisation u leaves to
// batch containers: cores − reserve − the primary's cores rounded up
// (§5: NM-H rounds the primary tenant's usage up to whole cores); none
// outside the tenant's data.
func (e *engine) serverFree(u float64) int {
	if math.IsNaN(u) {
		return 0
	}
	used := int(math.Ceil(math.Min(1, math.Max(0, u))*float64(e.p.Cores) - 1e-9))
	return max(0, e.p.Cores-e.p.ReserveCores-used)
}

// tenantFree is the cores tenant i can still give at the current slot.
func (e *engine) tenantFree(i int) int {
	if e.fcSlot[i] != e.slot {
		e.fcSlot[i] = e.slot
		e.fc[i] = int32(e.w.Tenants[i].Servers * e.serverFree(e.usage(i, e.slot)))
	}
	return int(e.fc[i]) - e.alloc[i]
}

// advance applies every container end and usage change up to t: at an
// instant, ends first, then the new slot's usage (kills).
func (e *engine) advance(t int64) {
	target := floorDiv(t, e.w.StepMs)
	for e.slot < target {
		b := (e.slot + 1) * e.w.StepMs
		e.endUpTo(b)
		e.slot++
		if b < e.w.EndMs { // the replay ends before the slot at its end
			e.enforce(b)
		}
	}
	e.endUpTo(t)
}

func (e *engine) endUpTo(t int64) {
	for len(e.ends) > 0 && e.ends[0].endMs <= t {
		it := heap.Pop(&e.ends).(endItem)
		c := &e.cs[it.id]
		if !c.alive {
			continue
		}
		e.release(c)
		e.account(c, c.endMs, func(t *Tally) { t.Completed++ })
	}
}

// enforce is NM-H (§5): a tenant whose primary needs its reserve back
// kills its containers youngest first until they fit.
func (e *engine) enforce(at int64) {
	for k := 0; k < len(e.active); k++ {
		i := int(e.active[k])
		over := -e.tenantFree(i)
		st := e.stack[i]
		for over > 0 && len(st) > 0 {
			id := st[len(st)-1]
			st = st[:len(st)-1]
			c := &e.cs[id]
			if !c.alive {
				continue
			}
			c.alive = false
			e.held(i, -1)
			over--
			e.account(c, at, func(t *Tally) { t.Killed++; t.LostCoreH += float64(at-c.startMs) / 3.6e6 })
			if e.keep {
				e.out.Kills = append(e.out.Kills, Kill{AtMs: at, Tenant: e.w.Tenants[i].Name, Job: e.w.Jobs[c.job].ID, StartMs: c.startMs})
			}
		}
		e.stack[i] = st
		if e.alloc[i] == 0 {
			e.deactivate(k)
			k--
		}
	}
}

func (e *engine) deactivate(k int) {
	i := e.active[k]
	e.stack[i] = e.stack[i][:0]
	last := len(e.active) - 1
	e.active[k] = e.active[last]
	e.actPos[e.active[k]] = int32(k)
	e.active = e.active[:last]
	e.actPos[i] = -1
}

func (e *engine) release(c *container) {
	c.alive = false
	i := int(c.tenant)
	e.held(i, -1)
	if e.alloc[i] == 0 {
		e.deactivate(int(e.actPos[i]))
		return
	}
	// Ended containers stay in the stack until it is compacted, when
	// they outnumber the live ones.
	if st := e.stack[i]; len(st) > 2*e.alloc[i]+16 {
		live := st[:0]
		for _, id := range st {
			if e.cs[id].alive {
				live = append(live, id)
			}
		}
		e.stack[i] = live
	}
}

// account adds a container that stopped at t (ended, killed, cut) to the
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

// place places job ji's containers under the policy.
func (e *engine) place(ji int) {
	j := &e.w.Jobs[ji]
	need := j.Containers
	if e.policy == History {
		classes := e.selectClasses(j)
		if classes == nil {
			e.out.Fallback++
		} else {
			if len(classes) > 1 {
				e.out.MultiClass++
			}
			tabs := make([]*sampler, len(classes))
			for k, ci := range classes {
				tabs[k] = &e.classTab[ci]
			}
			need -= e.spread(ji, need, tabs)
		}
	}
	if need > 0 {
		// The default policy: every tenant with free cores now.
		need -= e.spread(ji, need, []*sampler{&e.allTab})
	}
	if need > 0 {
		e.out.Unplaced += int64(need)
	}
}

// selectClasses is Algorithm 1 (§4.1) for job j at the current slot:
// Headroom(type, c) in cores is the class's servers × (cores × (1 − u) −
// reserve) less the cores its tenants already give to containers, with u
// the class's current utilisation (short), max(mean, current) (medium)
// or max(peak, current) (long); mean and peak come from the epoch's
// classification (history), current from the servers now (§5's
// heartbeats). It returns the classes picked (indexes in the epoch), or
// nil for none (line 16).
func (e *engine) selectClasses(j *Job) []int {
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
		if room[ci] >= float64(j.Containers) && weighted[ci] > 0 {
			fit = append(fit, ci)
		}
	}
	if len(fit) > 0 { // lines 9–11
		return []int{e.draw(fit, weighted)}
	}
	if total < float64(j.Containers) { // lines 15–17
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
	for got < float64(j.Containers) && len(left) > 0 {
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
	if got < float64(j.Containers) {
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
	j := &e.w.Jobs[ji]
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
			e.start(ji, i, j)
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
	j := &e.w.Jobs[ji]
	acc, p := 0, 0
	for _, i := range cand {
		f := e.free[i]
		for p < len(picks) && picks[p] < acc+f {
			e.start(ji, int(i), j)
			p++
		}
		acc += f
	}
	return n
}

func (e *engine) start(ji, i int, j *Job) {
	pattern := "none"
	if ci := e.classOf[i]; ci >= 0 {
		pattern = e.w.Epochs[e.epoch].Classes[ci].Pattern
	}
	id := int32(len(e.cs))
	e.cs = append(e.cs, container{job: int32(ji), tenant: int32(i), pattern: pattern, startMs: j.SubmitMs,
		endMs: j.SubmitMs + j.DurationMs, alive: true})
	e.held(i, 1)
	e.stack[i] = append(e.stack[i], id)
	if e.actPos[i] < 0 {
		e.actPos[i] = int32(len(e.active))
		e.active = append(e.active, int32(i))
	}
	heap.Push(&e.ends, endItem{j.SubmitMs + j.DurationMs, id})
	tl := func(t *Tally) { t.Containers++ }
	tl(&e.out.Tally)
	tl(e.tally(e.out.ByPattern, pattern))
	tl(e.tally(e.out.ByType, j.Type.String()))
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
