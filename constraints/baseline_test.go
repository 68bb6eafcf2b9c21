package constraints

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/wlprof/wlprof/dataset"
)

// baseline is the straightforward profile the benchmark compares Run
// with, and the oracle the agreement test holds it to: rows read as
// structs of strings, each event's constraint list decoded again, tasks
// and machines in maps keyed by ids and names, and the supply of every
// window counted by judging every constraint on every machine at the
// window's start (machines × constraints × windows), and a constraint's
// demand by marking every window of every stretch a task carried it. Same
// rules as Run;
// 2019-style events (constraints on the events) only.
type baseCons struct {
	tasks, episodes, arrivals, served, relaxed, violated int64
	waits                                                []float64
	s1, s2                                               float64
	supply, demand                                       []int32
}

type baseTask struct {
	set, prev     string
	hasPrev       bool
	submit, sched int64
	open          bool
	firstW        int
	cpu, mem      float64
	seen          map[string]bool
	// carry is the list the open episode carries since window segW;
	// marked, per constraint, the windows it was carried in.
	carry  string
	segW   int
	marked map[dataset.Constraint]map[int]bool
}

func baselineProfile(ctx context.Context, ds *dataset.Dataset, opts Options) (map[dataset.Constraint]*baseCons, error) {
	rows, err := dataset.ReadAll(ctx, ds, dataset.TaskEventsTable)
	if err != nil {
		return nil, err
	}
	attrs, err := dataset.ReadAll(ctx, ds, dataset.MachineAttributesTable)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].TimeMs < rows[j].TimeMs })
	sort.SliceStable(attrs, func(i, j int) bool { return attrs[i].TimeMs < attrs[j].TimeMs })
	w := opts.Window.Milliseconds()
	first, last := dataset.NoTime, dataset.NoTime
	for _, r := range rows {
		if r.TimeMs != dataset.NoTime {
			if first == dataset.NoTime {
				first = r.TimeMs
			}
			last = r.TimeMs
		}
	}
	t0 := first - ((first%w)+w)%w
	nW := int((last-t0)/w) + 1
	window := func(t int64) int {
		if t == dataset.NoTime || t < t0 {
			return 0
		}
		return min(int((t-t0)/w), nW-1)
	}
	out := map[dataset.Constraint]*baseCons{}
	get := func(c dataset.Constraint) *baseCons {
		bc := out[c]
		if bc == nil {
			bc = &baseCons{supply: make([]int32, nW), demand: make([]int32, nW)}
			out[c] = bc
		}
		return bc
	}
	decode := func(s string) []dataset.Constraint {
		cs, ok := dataset.DecodeConstraints(s)
		if !ok {
			panic("baseline: bad constraint list " + fmt.Sprintf("%q", s))
		}
		return cs
	}
	for _, r := range rows { // every constraint, for the supply series
		for _, c := range decode(r.Constraints) {
			get(c)
		}
	}
	machines := map[int64]map[string]string{}
	satisfies := func(m map[string]string, c dataset.Constraint) bool {
		v, ok := m[c.Attribute]
		got, err := Match(c.Relation, c.Value, v, ok)
		if err != nil {
			panic(err)
		}
		return got
	}
	ai := 0
	for wi := 0; wi < nW; wi++ {
		start := t0 + int64(wi)*w
		for ; ai < len(attrs) && (attrs[ai].TimeMs == dataset.NoTime || attrs[ai].TimeMs < start); ai++ {
			applyAttribute(machines, attrs[ai])
		}
		for c, bc := range out {
			for _, m := range machines {
				if satisfies(m, c) {
					bc.supply[wi]++
				}
			}
		}
	}
	// Events, with the machines' attributes as of each event (changes at
	// the same instant first).
	machines = map[int64]map[string]string{}
	ai = 0
	tasks := map[TaskKey]*baseTask{}
	// mark: the episode carried t.carry from window t.segW to lastW.
	mark := func(t *baseTask, lastW int) {
		for _, c := range decode(t.carry) {
			if t.marked[c] == nil {
				t.marked[c] = map[int]bool{}
			}
			for x := t.segW; x <= lastW; x++ {
				t.marked[c][x] = true
			}
		}
	}
	openEp := func(t *baseTask, list string, w int) {
		t.carry, t.segW, t.marked = list, w, map[dataset.Constraint]map[int]bool{}
	}
	closeEp := func(t *baseTask, lastW int) {
		t.open = false
		mark(t, max(lastW, t.firstW))
		for c, ws := range t.marked {
			for x := range ws {
				out[c].demand[x]++
			}
		}
	}
	for _, r := range rows {
		for ; ai < len(attrs) && attrs[ai].TimeMs <= r.TimeMs; ai++ {
			applyAttribute(machines, attrs[ai])
		}
		k := TaskKey{r.Job, r.Task}
		t := tasks[k]
		if t == nil {
			t = &baseTask{seen: map[string]bool{}, submit: dataset.NoTime, sched: dataset.NoTime}
			tasks[k] = t
		}
		if !math.IsNaN(r.CPURequest) {
			t.cpu = r.CPURequest
		}
		if !math.IsNaN(r.MemoryRequest) {
			t.mem = r.MemoryRequest
		}
		switch r.Type {
		case "SUBMIT", "SCHEDULE", "UPDATE_PENDING", "UPDATE_RUNNING":
			if t.hasPrev && t.prev != r.Constraints {
				now := map[dataset.Constraint]bool{}
				for _, c := range decode(r.Constraints) {
					now[c] = true
				}
				for _, c := range decode(t.prev) {
					if !now[c] {
						out[c].relaxed++
					}
				}
			}
			t.prev, t.hasPrev = r.Constraints, true
			if t.open && r.Type != "SUBMIT" && t.carry != r.Constraints {
				w := max(window(r.TimeMs), t.firstW)
				mark(t, w)
				t.carry, t.segW = r.Constraints, w
			}
			for _, c := range decode(r.Constraints) {
				key := c.Attribute + "\x00" + c.Relation + "\x00" + c.Value
				if !t.seen[key] {
					t.seen[key] = true
					out[c].tasks++
				}
			}
		}
		switch r.Type {
		case "SUBMIT":
			if t.open {
				closeEp(t, window(r.TimeMs))
			}
			t.set, t.submit, t.sched, t.open, t.firstW = r.Constraints, r.TimeMs, dataset.NoTime, true, window(r.TimeMs)
			openEp(t, r.Constraints, t.firstW)
			for _, c := range decode(t.set) {
				out[c].episodes++
				if r.TimeMs != dataset.NoTime {
					out[c].arrivals++
				}
			}
		case "QUEUE", "ENABLE", "UPDATE_PENDING":
			if t.open && t.sched == dataset.NoTime {
				t.set = r.Constraints
			}
		case "SCHEDULE":
			if !t.open {
				t.submit, t.open, t.firstW = dataset.NoTime, true, window(r.TimeMs)
				openEp(t, r.Constraints, t.firstW)
			}
			t.set, t.sched = r.Constraints, r.TimeMs
			for _, c := range decode(t.set) {
				if t.submit != dataset.NoTime && r.TimeMs != dataset.NoTime {
					out[c].waits = append(out[c].waits, float64(r.TimeMs-t.submit)/1000)
				}
				if m := machines[r.Machine]; m != nil && !satisfies(m, c) {
					out[c].violated++
				}
			}
		case "EVICT", "FAIL", "FINISH", "KILL", "LOST":
			if !t.open {
				continue
			}
			if t.sched != dataset.NoTime && r.TimeMs != dataset.NoTime {
				rq := math.Max(float64(float32(t.cpu)), float64(float32(t.mem)))
				if !(rq > 0) {
					rq = 1
				}
				x := float64(r.TimeMs-t.sched) / 1000 * math.Min(rq, 1)
				for _, c := range decode(t.set) {
					out[c].s1 += x
					out[c].s2 += x * x
					out[c].served++
				}
			}
			closeEp(t, window(r.TimeMs))
		}
	}
	for _, t := range tasks {
		if t.open {
			closeEp(t, nW-1)
		}
	}
	return out, nil
}

// applyAttribute sets or deletes one machine attribute.
func applyAttribute(machines map[int64]map[string]string, a dataset.MachineAttribute) {
	if machines[a.Machine] == nil {
		machines[a.Machine] = map[string]string{}
	}
	if a.Deleted {
		delete(machines[a.Machine], a.Attribute)
	} else {
		machines[a.Machine][a.Attribute] = a.Value
	}
}
