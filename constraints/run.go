package constraints

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/wlprof/wlprof/dataset"
)

// taskState is one task as the sweep goes.
type taskState struct {
	set      int32 // constraints of the current episode (as last seen before it was scheduled)
	prevSet  int32 // set of the previous SUBMIT/UPDATE/SCHEDULE event, for relaxation; -1: none yet
	submit   int64 // of the open episode; NoTime when unknown
	sched    int64 // NoTime until scheduled
	firstW   int32 // window the episode's demand starts in
	carry    int32 // set the open episode carries now: its demand keys
	open     bool
	cpu, mem float32
}

// carryLog is kept (sweep.moved) only for an open episode whose carried
// set changed, the rare case: its demand keys that did not start at firstW
// (taken on later) and those it dropped, with the last window already
// counted, so a key dropped and taken back within a window counts once.
type carryLog struct {
	from []keyW
	gone []keyW
}

type keyW struct{ key, w int32 }

func findKey(ks []keyW, k int32) int {
	for i, x := range ks {
		if x.key == k {
			return i
		}
	}
	return -1
}

// consState accumulates one constraint.
type consState struct {
	k           compiled
	sat         int32 // machines satisfying it now
	ever        []uint64
	tasks       int64
	episodes    int64
	arrivals    int64
	relaxed     int64
	violated    int64
	waits       []float64
	s1, s2      float64 // Σ d·r and Σ (d·r)², d in s, r the task's share of a machine
	served      int64
	supply      []int32
	demandDelta []int32
	// area is Σ sat × time (machine·ms) from the first task event up to
	// lastT, the instant sat last changed: the queue's server is
	// area / span, the time-weighted mean over the span the arrival rate
	// is over.
	area  float64
	lastT int64
}

// accrue adds the machines satisfying cs (sat, before a change at t) to
// its area; changes before the first task event or after the last one
// weigh nothing.
func (s *sweep) accrue(cs *consState, sat int32, t int64) {
	if t == dataset.NoTime || t < s.first {
		t = s.first
	}
	t = min(t, s.last)
	if t > cs.lastT {
		cs.area += float64(sat) * float64(t-cs.lastT)
		cs.lastT = t
	}
}

// sweep is Run's state.
type sweep struct {
	in       *Input
	t0, w    int64
	nW       int
	cur      int
	cons     []consState
	attrCons [][]int32 // attribute → constraints on it
	consAttr []int32   // constraint → its attribute
	absentOK []int32   // constraints a machine without the attribute satisfies
	joined   []bool
	mattrs   []map[int32]mval
	attrHave []int32   // machines having each attribute now
	attrSup  [][]int32 // per attribute, per window
	attrDem  [][]int32 // per attribute, per window (deltas, then counts)
	setAttrs [][]int32 // per set, its distinct attributes
	// setKeys is per set the demand series it feeds: its constraints (i),
	// its attributes (len(cons) + a), or for the empty set the
	// unconstrained queue's (len(cons) + len(attrDem)).
	setKeys [][]int32
	first   int64 // first and last task event: the span rates and the
	last    int64 // queue's server are over
	tasks   []taskState
	seen    map[int32][]int32 // task → constraints it ever had (constrained tasks only)
	// none is the tasks without constraints, on every machine: the same
	// queue, for comparison. joinedN counts the machines so far.
	none    consState
	joinedN int32
	place   *placement          // nil when no event carries the different-machine flag
	moved   map[int32]*carryLog // task → its open episode's log, once its carried set changed
	touched []int32             // apply's scratch
	olds    []mval
	warn    map[string]int64
}

// Run profiles the constraints, builds the CRV series and the M/G/1
// estimates.
func Run(ctx context.Context, in Input, opts Options) (*Result, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	s := &sweep{in: &in, w: opts.Window.Milliseconds(), warn: map[string]int64{}}
	first, last := dataset.NoTime, dataset.NoTime
	for _, e := range in.Events {
		if e.TimeMs != dataset.NoTime {
			if first == dataset.NoTime {
				first = e.TimeMs
			}
			last = e.TimeMs
		}
	}
	if first == dataset.NoTime {
		return nil, fmt.Errorf("%w (every task event is outside the trace window)", ErrNoEvents)
	}
	s.first, s.last = first, last
	s.t0 = first - ((first%s.w)+s.w)%s.w
	s.nW = int((last-s.t0)/s.w) + 1
	if s.nW > opts.MaxWindows {
		return nil, fmt.Errorf("constraints: %d windows of %v from %s to %s: more than %d; use a longer --window",
			s.nW, opts.Window, rfc(first), rfc(last), opts.MaxWindows)
	}
	s.init()
	s.place = newPlacement(s.in)
	if err := s.run(ctx); err != nil {
		return nil, err
	}
	return s.result(opts, first, last), nil
}

func (s *sweep) init() {
	in := s.in
	nM := len(in.Machines)
	words := (nM + 63) / 64
	s.cons = make([]consState, len(in.Constraints))
	s.attrCons = make([][]int32, len(in.AttrNames))
	for i, c := range in.Constraints {
		k, _ := compile(c) // sets hold compiled-checked constraints only
		cs := &s.cons[i]
		cs.k = k
		cs.ever = make([]uint64, words)
		cs.supply = make([]int32, s.nW)
		cs.demandDelta = make([]int32, s.nW+1)
		if k.match(mval{}) {
			s.absentOK = append(s.absentOK, int32(i))
		}
		// A constraint on an attribute no machine has still gets an index.
		a, ok := attrIndex(in, c.Attribute)
		if !ok {
			in.AttrNames = append(in.AttrNames, c.Attribute)
			s.attrCons = append(s.attrCons, nil)
			a = int32(len(in.AttrNames) - 1)
		}
		s.attrCons[a] = append(s.attrCons[a], int32(i))
		s.consAttr = append(s.consAttr, a)
	}
	s.none.supply = make([]int32, s.nW)
	s.none.demandDelta = make([]int32, s.nW+1)
	s.joined = make([]bool, nM)
	s.mattrs = make([]map[int32]mval, nM)
	s.attrHave = make([]int32, len(in.AttrNames))
	s.attrSup = make([][]int32, len(in.AttrNames))
	s.attrDem = make([][]int32, len(in.AttrNames))
	s.setAttrs = make([][]int32, len(in.Sets))
	for i, set := range in.Sets {
		var as []int32
		for _, c := range set {
			a, _ := attrIndex(in, in.Constraints[c].Attribute)
			if !slices.Contains(as, a) {
				as = append(as, a)
			}
		}
		s.setAttrs[i] = as
		for _, a := range as {
			if s.attrDem[a] == nil {
				s.attrSup[a] = make([]int32, s.nW)
				s.attrDem[a] = make([]int32, s.nW+1)
			}
		}
	}
	nC, nA := int32(len(s.cons)), int32(len(s.attrDem))
	s.setKeys = make([][]int32, len(in.Sets))
	for i, set := range in.Sets {
		if len(set) == 0 {
			s.setKeys[i] = []int32{nC + nA}
			continue
		}
		ks := append([]int32{}, set...)
		for _, a := range s.setAttrs[i] {
			ks = append(ks, nC+a)
		}
		s.setKeys[i] = ks
	}
	for i := range s.cons {
		s.cons[i].lastT = s.first
	}
	s.none.lastT = s.first
	s.tasks = make([]taskState, len(in.Tasks))
	for i := range s.tasks {
		s.tasks[i].prevSet = -1
	}
	s.seen = map[int32][]int32{}
	s.moved = map[int32]*carryLog{}
}

// attrIndex finds an attribute name (the names are few: a linear scan
// at init only).
func attrIndex(in *Input, name string) (int32, bool) {
	for i, n := range in.AttrNames {
		if n == name {
			return int32(i), true
		}
	}
	return -1, false
}

func (s *sweep) window(t int64) int32 {
	if t == dataset.NoTime || t < s.t0 {
		return 0
	}
	w := (t - s.t0) / s.w
	if w >= int64(s.nW) {
		w = int64(s.nW - 1)
	}
	return int32(w)
}

// snapshot records the supply at the start of window w.
func (s *sweep) snapshot(w int) {
	for i := range s.cons {
		s.cons[i].supply[w] = s.cons[i].sat
	}
	s.none.supply[w] = s.joinedN
	for a, sup := range s.attrSup {
		if sup != nil {
			sup[w] = s.attrHave[a]
		}
	}
}

// advance moves the window cursor to the window holding t, recording the
// supply of every window it enters.
func (s *sweep) advance(t int64) {
	for s.cur+1 < s.nW && t != dataset.NoTime && t >= s.t0+int64(s.cur+1)*s.w {
		s.cur++
		s.snapshot(s.cur)
	}
}

func (s *sweep) run(ctx context.Context) error {
	in := s.in
	i, j := 0, 0
	// Attribute changes before the first window's start (and those held
	// from before the trace) make its supply.
	for i < len(in.Attrs) && (in.Attrs[i].TimeMs == dataset.NoTime || in.Attrs[i].TimeMs < s.t0) {
		j := group(in.Attrs, i)
		s.apply(in.Attrs[i:j])
		i = j
	}
	s.snapshot(0)
	for n := 0; i < len(in.Attrs) || j < len(in.Events); n++ {
		if n&0xfffff == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		// At equal times attribute changes go first: a machine updated at
		// the instant a task lands on it is judged by its new attributes.
		if i < len(in.Attrs) && (j >= len(in.Events) || in.Attrs[i].TimeMs <= in.Events[j].TimeMs) {
			s.advance(in.Attrs[i].TimeMs)
			k := group(in.Attrs, i)
			s.apply(in.Attrs[i:k])
			i = k
			continue
		}
		e := &in.Events[j]
		s.advance(e.TimeMs)
		s.event(e)
		j++
	}
	for s.cur+1 < s.nW {
		s.cur++
		s.snapshot(s.cur)
	}
	for t := range s.tasks {
		if s.tasks[t].open {
			s.closeDemand(int32(t), int32(s.nW-1))
		}
	}
	return nil
}

// apply takes the attribute changes of one machine at one instant
// together (a machine's first rows all come at once): the constraints on
// the attributes they touch are judged again for that machine only, so a
// change costs the constraints on its attribute, not all of them.
func (s *sweep) apply(rows []Attr) {
	m := rows[0].Machine
	if m < 0 {
		return
	}
	t := rows[0].TimeMs
	joining := !s.joined[m]
	if joining {
		// A machine exists from its first attribute rows.
		s.joined[m] = true
		s.accrue(&s.none, s.joinedN, t)
		s.joinedN++
		s.mattrs[m] = map[int32]mval{}
	}
	touched := s.touched[:0]
	olds := s.olds[:0]
	for _, a := range rows {
		if !slices.Contains(touched, a.Name) {
			touched = append(touched, a.Name)
			olds = append(olds, s.mattrs[m][a.Name])
		}
		if a.Deleted {
			delete(s.mattrs[m], a.Name)
		} else {
			s.mattrs[m][a.Name] = newMval(a.Value)
		}
	}
	for i, name := range touched {
		old, nv := olds[i], s.mattrs[m][name]
		switch {
		case old.ok && !nv.ok:
			s.attrHave[name]--
		case !old.ok && nv.ok:
			s.attrHave[name]++
		}
		for _, c := range s.attrCons[name] {
			cs := &s.cons[c]
			before, after := !joining && cs.k.match(old), cs.k.match(nv)
			if before != after {
				s.accrue(cs, cs.sat, t)
			}
			switch {
			case before && !after:
				cs.sat--
			case !before && after:
				cs.sat++
			}
			if after {
				cs.ever[m/64] |= 1 << (m % 64)
			}
		}
	}
	if joining {
		// The constraints on attributes the machine does not have and that
		// an absent attribute satisfies (NOT_EQUAL, NOT_PRESENT).
		for _, c := range s.absentOK {
			if !slices.Contains(touched, s.consAttr[c]) {
				s.accrue(&s.cons[c], s.cons[c].sat, t)
				s.cons[c].sat++
				s.cons[c].ever[m/64] |= 1 << (m % 64)
			}
		}
	}
	s.touched, s.olds = touched, olds
}

// group is the end of the run of attribute changes at i with its time and
// machine.
func group(as []Attr, i int) int {
	j := i + 1
	for j < len(as) && as[j].TimeMs == as[i].TimeMs && as[j].Machine == as[i].Machine {
		j++
	}
	return j
}

// carriesSet: the events whose constraint list is compared for
// relaxation. Terminal events and QUEUE/ENABLE are left out: whether the
// trace fills their lists is not documented.
func carriesSet(t uint8) bool {
	return t == evSubmit || t == evSchedule || t == evUpdatePending || t == evUpdateRunning
}

func (s *sweep) event(e *Event) {
	ts := &s.tasks[e.Task]
	if s.place != nil {
		submit := int64(dataset.NoTime)
		if ts.open {
			submit = ts.submit
		}
		s.place.event(e, s.in.Tasks[e.Task].Job, submit)
	}
	if !math.IsNaN(float64(e.CPU)) {
		ts.cpu = e.CPU
	}
	if !math.IsNaN(float64(e.Mem)) {
		ts.mem = e.Mem
	}
	set := s.in.Sets[e.Set]
	if carriesSet(e.Type) {
		if ts.prevSet > 0 && ts.prevSet != e.Set {
			for _, c := range s.in.Sets[ts.prevSet] {
				if _, found := slices.BinarySearch(set, c); !found {
					s.cons[c].relaxed++
				}
			}
		}
		ts.prevSet = e.Set
		if ts.open && e.Type != evSubmit && ts.carry != e.Set {
			s.recarry(e.Task, e.Set, s.window(e.TimeMs))
		}
		if len(set) > 0 {
			had := s.seen[e.Task]
			for _, c := range set {
				if !slices.Contains(had, c) {
					had = append(had, c)
					s.cons[c].tasks++
				}
			}
			s.seen[e.Task] = had
		}
	}
	switch e.Type {
	case evSubmit:
		if ts.open {
			s.closeDemand(e.Task, s.window(e.TimeMs))
		}
		*ts = taskState{set: e.Set, prevSet: ts.prevSet, carry: e.Set, submit: e.TimeMs, sched: dataset.NoTime,
			firstW: s.window(e.TimeMs), open: true, cpu: ts.cpu, mem: ts.mem}
		for _, c := range set {
			s.cons[c].episodes++
			if e.TimeMs != dataset.NoTime {
				s.cons[c].arrivals++
			}
		}
		if len(set) == 0 {
			s.none.episodes++
			if e.TimeMs != dataset.NoTime {
				s.none.arrivals++
			}
		}
	case evQueue, evEnable, evUpdatePending:
		if ts.open && ts.sched == dataset.NoTime {
			ts.set = e.Set
		}
	case evSchedule:
		if !ts.open { // scheduled without a SUBMIT in the data (it predates the trace)
			*ts = taskState{set: e.Set, prevSet: ts.prevSet, carry: e.Set, submit: dataset.NoTime, firstW: s.window(e.TimeMs), open: true, cpu: ts.cpu, mem: ts.mem}
		}
		ts.set = e.Set
		ts.sched = e.TimeMs
		set = s.in.Sets[ts.set]
		if ts.submit != dataset.NoTime && e.TimeMs != dataset.NoTime {
			wait := float64(e.TimeMs-ts.submit) / 1000
			for _, c := range set {
				s.cons[c].waits = append(s.cons[c].waits, wait)
			}
			if len(set) == 0 {
				s.none.waits = append(s.none.waits, wait)
			}
		}
		if len(set) > 0 {
			switch m := e.Machine; {
			case m < 0:
				s.warn["SCHEDULE events of constrained tasks without a machine id"]++
			case !s.joined[m]:
				s.warn["SCHEDULE events of constrained tasks on machines without attribute rows (not judged)"]++
			default:
				for _, c := range set {
					if !s.cons[c].k.match(s.mattrs[m][s.consAttr[c]]) {
						s.cons[c].violated++
					}
				}
			}
		}
	case evEvict, evFail, evFinish, evKill, evLost:
		if !ts.open {
			return
		}
		if ts.sched != dataset.NoTime && e.TimeMs != dataset.NoTime {
			d := float64(e.TimeMs-ts.sched) / 1000
			r := float64(max(ts.cpu, ts.mem))
			if !(r > 0) {
				r = 1 // no request known: the task takes a whole machine
			}
			x := d * min(r, 1)
			for _, c := range s.in.Sets[ts.set] {
				cs := &s.cons[c]
				cs.s1 += x
				cs.s2 += x * x
				cs.served++
			}
			if len(s.in.Sets[ts.set]) == 0 {
				s.none.s1 += x
				s.none.s2 += x * x
				s.none.served++
			}
		}
		s.closeDemand(e.Task, s.window(e.TimeMs))
	}
}

// demand is the delta series of a demand key (setKeys).
func (s *sweep) demand(k int32) []int32 {
	nC := int32(len(s.cons))
	switch {
	case k < nC:
		return s.cons[k].demandDelta
	case k-nC < int32(len(s.attrDem)):
		return s.attrDem[k-nC]
	}
	return s.none.demandDelta
}

// count adds one to key k's demand in windows from…last.
func (s *sweep) count(k, from, last int32) {
	if last < from {
		return
	}
	d := s.demand(k)
	d[from]++
	d[last+1]--
}

// recarry: the open episode's event in window w carries set instead of
// ts.carry. A key it drops is demand up to w included (it was carried
// for part of w); a key it takes on starts at w, or after the window a
// drop of it in this episode already counted.
func (s *sweep) recarry(task, set int32, w int32) {
	ts := &s.tasks[task]
	if w < ts.firstW {
		w = ts.firstW
	}
	old, nw := s.setKeys[ts.carry], s.setKeys[set]
	l := s.moved[task]
	if l == nil {
		l = &carryLog{}
		s.moved[task] = l
	}
	for _, k := range old {
		if slices.Contains(nw, k) {
			continue
		}
		from := ts.firstW
		if i := findKey(l.from, k); i >= 0 {
			from = l.from[i].w
			l.from = slices.Delete(l.from, i, i+1)
		}
		s.count(k, from, w)
		if i := findKey(l.gone, k); i >= 0 {
			l.gone[i].w = w
		} else {
			l.gone = append(l.gone, keyW{k, w})
		}
	}
	for _, k := range nw {
		if slices.Contains(old, k) {
			continue
		}
		from := w
		if i := findKey(l.gone, k); i >= 0 && l.gone[i].w >= w {
			from = l.gone[i].w + 1
		}
		l.from = append(l.from, keyW{k, from})
	}
	ts.carry = set
}

// closeDemand ends an episode's demand in window last: every key it
// carries now counts from where it was taken on (the episode's first
// window for those carried all along) to last.
func (s *sweep) closeDemand(task int32, last int32) {
	ts := &s.tasks[task]
	l := s.moved[task]
	ts.open = false
	if last < ts.firstW {
		last = ts.firstW
	}
	for _, k := range s.setKeys[ts.carry] {
		from := ts.firstW
		if l != nil {
			if i := findKey(l.from, k); i >= 0 {
				from = l.from[i].w
			}
		}
		s.count(k, from, last)
	}
	if l != nil {
		delete(s.moved, task)
	}
}

func popcount(b []uint64) int {
	n := 0
	for _, w := range b {
		for ; w != 0; w &= w - 1 {
			n++
		}
	}
	return n
}

func sortedWarnings(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = fmt.Sprintf("%d× %s", m[k], k)
	}
	return out
}
