package simulate

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"
)

func mustModel(t testing.TB, spec string) Model {
	t.Helper()
	m, err := ParseModel(spec)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// oneJob is the hand case: one job of three 100 s tasks at 4 GiB.
func oneJob(t testing.TB, model string) []Job {
	return []Job{{ID: "j", Phases: []Phase{{Task: "reduce", Tasks: 3, RuntimeS: 100, MemoryBytes: 4 << 30, Cores: 1,
		Model: mustModel(t, model), modelSet: true}}}}
}

func sim(t testing.TB, jobs []Job, c Cluster, p Policy, mod func(*Options)) *Outcome {
	t.Helper()
	o := DefaultOptions()
	o.KeepSchedule = true
	if mod != nil {
		mod(&o)
	}
	out, _, err := Simulate(context.Background(), jobs, c, p, o)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var oneNode = Cluster{Nodes: 1, NodeMemoryBytes: 10 << 30, NodeCores: 16}

// The hand-computable case: on one 10 GiB node, YARN runs two 4 GiB
// tasks, then the third when one ends: 200 s. YARN-ME starts the third at
// once with less memory: with the step model (slowdown 1.5 below ideal)
// the least memory with the lowest runtime is 10% of ideal, ⌈409.6 MiB⌉
// in 100 MiB units = 500 MiB; it ends at 150 s, before the job's estimate
// of 200 s (two lanes ending at 100 s, one task left of 100 s).
func TestHandCaseStep(t *testing.T) {
	jobs := oneJob(t, "step:1.5")
	y := sim(t, jobs, oneNode, YARN, nil)
	if y.MakespanS != 200 || y.ElasticTasks[0] != 0 {
		t.Errorf("yarn: makespan %g, elastic %d; want 200, 0", y.MakespanS, y.ElasticTasks[0])
	}
	me := sim(t, jobs, oneNode, YARNME, nil)
	if me.MakespanS != 150 || me.ElasticTasks[0] != 1 || me.FinishS[0] != 150 {
		t.Errorf("yarn-me: makespan %g, finish %g, elastic %d; want 150, 150, 1", me.MakespanS, me.FinishS[0], me.ElasticTasks[0])
	}
	var el []TaskRun
	for _, r := range me.Schedule {
		if r.Elastic {
			el = append(el, r)
		}
	}
	if len(el) != 1 || el[0].Units != 5 || el[0].StartS != 0 || el[0].EndS != 150 {
		t.Errorf("yarn-me elastic task %+v; want 5 units (500 MiB) from 0 to 150 s", el)
	}
	// Memory held: yarn 82 units for 100 s then 41 for 100 s over 200 s
	// of 102 units; yarn-me 87 units for 100 s then 5 for 50 s.
	if want := (82.0*100 + 41*100) / (102 * 200); math.Abs(y.MemoryUtilisation-want) > 1e-12 {
		t.Errorf("yarn utilisation %g, want %g", y.MemoryUtilisation, want)
	}
	if want := (87.0*100 + 5*50) / (102 * 150); math.Abs(me.MemoryUtilisation-want) > 1e-12 {
		t.Errorf("yarn-me utilisation %g, want %g", me.MemoryUtilisation, want)
	}
}

// The same with 2 GiB: a curve model that allows half of
// ideal memory and no less, in 1 MiB units so the node's 10 GiB leave
// exactly 2 GiB next to two 4 GiB tasks: the third task takes exactly
// 2 GiB (the least memory with the lowest runtime the node has).
func TestHandCaseTwoGiB(t *testing.T) {
	jobs := oneJob(t, "curve:0.5=1.5")
	mib := func(o *Options) { o.MemoryUnitBytes = 1 << 20 }
	if y := sim(t, jobs, oneNode, YARN, mib); y.MakespanS != 200 {
		t.Errorf("yarn makespan %g, want 200", y.MakespanS)
	}
	me := sim(t, jobs, oneNode, YARNME, mib)
	if me.MakespanS != 150 {
		t.Errorf("yarn-me makespan %g, want 150", me.MakespanS)
	}
	for _, r := range me.Schedule {
		if r.Elastic && (r.Units != 2048 || r.EndS != 150) {
			t.Errorf("elastic task %+v: want 2048 MiB until 150 s", r)
		}
	}
	// In 100 MiB units the node leaves 20 units (2000 MiB) < half of 41:
	// no elastic memory gives a finite runtime, so yarn-me waits as yarn.
	if me := sim(t, jobs, oneNode, YARNME, nil); me.MakespanS != 200 || me.ElasticTasks[0] != 0 {
		t.Errorf("100 MiB units: yarn-me makespan %g, elastic %d; want 200, 0", me.MakespanS, me.ElasticTasks[0])
	}
}

// An elastic task that would end after its job's estimate is not
// started: slowdown 2.5 gives 250 s > 200 s.
func TestElasticOnlyWhenNotLater(t *testing.T) {
	jobs := oneJob(t, "step:2.5")
	if me := sim(t, jobs, oneNode, YARNME, nil); me.MakespanS != 200 || me.ElasticTasks[0] != 0 {
		t.Errorf("slowdown 2.5: makespan %g, elastic %d; want 200, 0", me.MakespanS, me.ElasticTasks[0])
	}
	// Exactly at the estimate (slowdown 2: 200 s) is allowed (≤).
	if me := sim(t, oneJob(t, "step:2"), oneNode, YARNME, nil); me.MakespanS != 200 || me.ElasticTasks[0] != 1 {
		t.Errorf("slowdown 2: makespan %g, elastic %d; want 200, 1", me.MakespanS, me.ElasticTasks[0])
	}
}

// The disk share: an elastic task needing more than a node's elastic
// share of the disk never starts; within it, it does.
func TestElasticDiskShare(t *testing.T) {
	jobs := oneJob(t, "step:1.5@300M")
	if me := sim(t, jobs, oneNode, YARNME, nil); me.ElasticTasks[0] != 0 { // share 250 MiB/s of 500
		t.Errorf("300 MiB/s over a 250 MiB/s share: %d elastic tasks, want 0", me.ElasticTasks[0])
	}
	if me := sim(t, jobs, oneNode, YARNME, func(o *Options) { o.ElasticDiskShare = 0.6 }); me.ElasticTasks[0] != 1 {
		t.Errorf("300 MiB/s within a 300 MiB/s share: %d elastic tasks, want 1", me.ElasticTasks[0])
	}
	if me := sim(t, jobs, oneNode, YARNME, func(o *Options) { o.NodeDiskBytesPerS = 0 }); me.ElasticTasks[0] != 1 {
		t.Errorf("no disk limit: %d elastic tasks, want 1", me.ElasticTasks[0])
	}
}

// Reservation (§3): job a holds 8 GiB of the node until 100 s and job s
// 512 MiB until 5 s; job b, first in the fair order (less memory held),
// asks for 4 GiB at 1 s and reserves the node; job c's 1 GiB task of
// 50 s, submitted at 2 s, would fit in what is left. YARN keeps it out of
// the reserved node until b has started (c runs from 100 s). yarn-me
// lets it in when the node is next visited (s ends at 5 s) because it
// ends (55 s) before b's task could start (100 s), and does not delay b.
// c's second task would end at 105 s, after b's start: it waits.
func TestReservedGaps(t *testing.T) {
	none := mustModel(t, "none")
	jobs := []Job{
		{ID: "a", SubmitS: 0, Phases: []Phase{{Task: "m", Tasks: 1, RuntimeS: 100, MemoryBytes: 8 << 30, Cores: 1, Model: none, modelSet: true}}},
		{ID: "s", SubmitS: 0, Phases: []Phase{{Task: "m", Tasks: 1, RuntimeS: 5, MemoryBytes: 512 << 20, Cores: 1, Model: none, modelSet: true}}},
		{ID: "b", SubmitS: 1, Phases: []Phase{{Task: "m", Tasks: 1, RuntimeS: 100, MemoryBytes: 4 << 30, Cores: 1, Model: none, modelSet: true}}},
		{ID: "c", SubmitS: 2, Phases: []Phase{{Task: "m", Tasks: 1, RuntimeS: 50, MemoryBytes: 1 << 30, Cores: 1, Model: none, modelSet: true}}},
	}
	y := sim(t, jobs, oneNode, YARN, nil)
	me := sim(t, jobs, oneNode, YARNME, nil)
	if y.FinishS[2] != 200 || y.FinishS[3] != 150 {
		t.Errorf("yarn: b ends %g, c %g; want 200, 150", y.FinishS[2], y.FinishS[3])
	}
	if me.FinishS[2] != 200 || me.FinishS[3] != 55 {
		t.Errorf("yarn-me: b ends %g, c %g; want 200 (not delayed), 55", me.FinishS[2], me.FinishS[3])
	}
	if off := sim(t, jobs, oneNode, YARNME, func(o *Options) { o.ReservedGaps = false }); off.FinishS[3] != 150 {
		t.Errorf("yarn-me without gaps: c ends %g, want 150", off.FinishS[3])
	}
	jobs[3].Phases[0].Tasks = 2
	if me := sim(t, jobs, oneNode, YARNME, nil); me.FinishS[2] != 200 || me.FinishS[3] != 150 {
		t.Errorf("yarn-me, c with two tasks: b ends %g, c %g; want 200, 150", me.FinishS[2], me.FinishS[3])
	}
}

// Phases: a phase with after starts when every task of the phase it
// waits for has ended.
func TestPhaseOrder(t *testing.T) {
	none := mustModel(t, "none")
	jobs := []Job{{ID: "j", Phases: []Phase{
		{Task: "map", Tasks: 4, RuntimeS: 10, MemoryBytes: 1 << 30, Cores: 1, Model: none, modelSet: true},
		{Task: "reduce", Tasks: 2, RuntimeS: 30, MemoryBytes: 2 << 30, Cores: 1, After: "map", Model: none, modelSet: true},
	}}}
	c := Cluster{Nodes: 1, NodeMemoryBytes: 10 << 30, NodeCores: 2}
	for _, p := range []Policy{YARN, YARNME} {
		out := sim(t, jobs, c, p, nil)
		if out.FinishS[0] != 50 { // maps 2 × 2 waves of 10 s, then reduces 30 s
			t.Errorf("%s: finish %g, want 50", p, out.FinishS[0])
		}
	}
}

// With memory for everything both policies give the same schedule.
func TestEnoughMemorySameSchedule(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 1))
	for i := 0; i < 50; i++ {
		jobs := genJobs(rng, 1+rng.IntN(8), 50, 2<<30)
		c := Cluster{Nodes: 200, NodeMemoryBytes: 64 << 30, NodeCores: 64}
		y, me := sim(t, jobs, c, YARN, nil), sim(t, jobs, c, YARNME, nil)
		if !reflect.DeepEqual(y.Schedule, me.Schedule) {
			t.Fatalf("trace %d: schedules differ with memory for everything", i)
		}
	}
}

// With an infinite slowdown no task is elastic, and yarn-me without
// reserved-node gaps is yarn, task for task.
func TestInfiniteSlowdownIsYARN(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 2))
	inf := mustModel(t, "step:inf")
	for i := 0; i < 100; i++ {
		jobs := genJobs(rng, 2+rng.IntN(10), 100, 6<<30)
		for j := range jobs {
			for p := range jobs[j].Phases {
				jobs[j].Phases[p].Model = inf
			}
		}
		c := Cluster{Nodes: 1 + rng.IntN(4), NodeMemoryBytes: 8 << 30, NodeCores: 1 + rng.IntN(8)}
		y := sim(t, jobs, c, YARN, nil)
		me := sim(t, jobs, c, YARNME, func(o *Options) { o.ReservedGaps = false })
		if !reflect.DeepEqual(y.Schedule, me.Schedule) {
			t.Fatalf("trace %d: yarn-me with infinite slowdowns differs from yarn", i)
		}
		for _, r := range me.Schedule {
			if r.Elastic {
				t.Fatalf("trace %d: an elastic task with an infinite slowdown: %+v", i, r)
			}
		}
	}
}

// Invariants on random traces and clusters, both policies: no node over
// its memory, cores or elastic disk share at any instant; every task
// runs once, after its job's submission and after the phase it waits
// for; elastic tasks hold 10% to less than 100% of ideal memory and run
// for their model's slowdown; regular tasks hold ideal memory for the
// trace's runtime; a job ends with its last task.
func TestInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 3))
	for i := 0; i < 300; i++ {
		jobs := genJobs(rng, 1+rng.IntN(12), 200, 12<<30)
		c := Cluster{Nodes: 1 + rng.IntN(5), NodeMemoryBytes: int64(4+rng.IntN(12)) << 30, NodeCores: 1 + rng.IntN(16)}
		mod := func(o *Options) {
			o.ReservedGaps = rng.IntN(4) > 0
			o.NodeDiskBytesPerS = int64(rng.IntN(3)) * 400 << 20
		}
		for _, p := range []Policy{YARN, YARNME} {
			var o Options
			m := func(x *Options) { mod(x); o = *x }
			out := sim(t, jobs, c, p, m)
			if err := checkInvariants(jobs, c, p, o, out); err != nil {
				t.Fatalf("trace %d, %s on %+v: %v", i, p, c, err)
			}
		}
	}
}

func checkInvariants(jobs []Job, c Cluster, p Policy, o Options, out *Outcome) error {
	w := prepare(jobs, o.MemoryUnitBytes)
	cfg := o.config(c, p)
	skip, _ := leftOut(w, jobs, cfg)
	type ev struct {
		t     float64
		start bool
		r     TaskRun
	}
	byNode := map[int32][]ev{}
	count := map[[2]int32]int{}
	phaseEnd := map[[2]int32]float64{}
	jobEnd := map[int32]float64{}
	for _, r := range out.Schedule {
		if skip[r.Job] {
			return fmt.Errorf("left-out job %d ran", r.Job)
		}
		j := jobs[r.Job]
		ph := j.Phases[r.Phase]
		pp := w.phases[w.jobs[r.Job].p0+r.Phase]
		count[[2]int32{r.Job, r.Phase}]++
		if r.StartS < j.SubmitS {
			return fmt.Errorf("task %+v starts before its job's submission %g", r, j.SubmitS)
		}
		if r.Elastic {
			if p == YARN {
				return fmt.Errorf("yarn ran an elastic task %+v", r)
			}
			kmin := (pp.ideal*10 + 99) / 100
			if r.Units < kmin || r.Units >= pp.ideal {
				return fmt.Errorf("elastic task %+v holds %d units; ideal %d, 10%% is %d", r, r.Units, pp.ideal, kmin)
			}
			s, d := ph.Model.At(int64(r.Units)*o.MemoryUnitBytes, int64(pp.ideal)*o.MemoryUnitBytes)
			if r.EndS-r.StartS != ph.RuntimeS*s && r.EndS != r.StartS+ph.RuntimeS*s {
				return fmt.Errorf("elastic task %+v runs %g s, model says %g × %g", r, r.EndS-r.StartS, ph.RuntimeS, s)
			}
			if d != r.DiskBytesPerS {
				return fmt.Errorf("elastic task %+v takes %d B/s of disk, model says %d", r, r.DiskBytesPerS, d)
			}
		} else if r.Units != pp.ideal || r.EndS != r.StartS+ph.RuntimeS {
			return fmt.Errorf("regular task %+v: want %d units for %g s", r, pp.ideal, ph.RuntimeS)
		}
		if ph.After != "" {
			for ai, a := range j.Phases {
				if a.Task == ph.After {
					for _, q := range out.Schedule {
						if q.Job == r.Job && q.Phase == int32(ai) && q.EndS > r.StartS {
							return fmt.Errorf("task %+v starts before %+v of the phase it waits for ends", r, q)
						}
					}
				}
			}
		}
		k := [2]int32{r.Job, r.Phase}
		phaseEnd[k] = math.Max(phaseEnd[k], r.EndS)
		jobEnd[r.Job] = math.Max(jobEnd[r.Job], r.EndS)
		byNode[r.Node] = append(byNode[r.Node], ev{r.StartS, true, r}, ev{r.EndS, false, r})
	}
	for ji, j := range jobs {
		if skip[ji] {
			if !math.IsNaN(out.FinishS[ji]) {
				return fmt.Errorf("left-out job %s has a finish", j.ID)
			}
			continue
		}
		for pi, ph := range j.Phases {
			if n := count[[2]int32{int32(ji), int32(pi)}]; n != ph.Tasks {
				return fmt.Errorf("job %s task %s ran %d times, want %d", j.ID, ph.Task, n, ph.Tasks)
			}
		}
		if out.FinishS[ji] != jobEnd[int32(ji)] {
			return fmt.Errorf("job %s finish %g, last task ends %g", j.ID, out.FinishS[ji], jobEnd[int32(ji)])
		}
	}
	var capUnits, capCores []int32 // by node id, in the groups' order
	for _, g := range cfg.Groups {
		for range g.Count {
			capUnits, capCores = append(capUnits, g.Units), append(capCores, g.Cores)
		}
	}
	for n, evs := range byNode {
		if n < 0 || int(n) >= len(capUnits) {
			return fmt.Errorf("node %d out of range", n)
		}
		sort.SliceStable(evs, func(a, b int) bool {
			if evs[a].t != evs[b].t {
				return evs[a].t < evs[b].t
			}
			return !evs[a].start && evs[b].start // ends first
		})
		var units, cores int32
		var disk int64
		for _, e := range evs {
			sign := int32(1)
			if !e.start {
				sign = -1
			}
			units += sign * e.r.Units
			cores += sign * e.r.Cores
			disk += int64(sign) * e.r.DiskBytesPerS
			if units > capUnits[n] || cores > capCores[n] {
				return fmt.Errorf("node %d at %g s: %d units, %d cores; capacity %d, %d", n, e.t, units, cores, capUnits[n], capCores[n])
			}
			if e.start && e.r.Elastic && e.r.DiskBytesPerS > 0 && cfg.ElasticDiskBytesPerS >= 0 && disk > cfg.ElasticDiskBytesPerS {
				return fmt.Errorf("node %d at %g s: elastic disk %d B/s over the share %d", n, e.t, disk, cfg.ElasticDiskBytesPerS)
			}
		}
	}
	return nil
}

// The checks above can fail: a schedule with a task moved before its
// phase's predecessor, or over a node's memory, is caught.
func TestInvariantsCatchBrokenSchedules(t *testing.T) {
	jobs := []Job{{ID: "j", Phases: []Phase{
		{Task: "map", Tasks: 2, RuntimeS: 10, MemoryBytes: 6 << 30, Cores: 1, modelSet: true},
		{Task: "reduce", Tasks: 1, RuntimeS: 10, MemoryBytes: 1 << 30, Cores: 1, After: "map", modelSet: true},
	}}}
	o := DefaultOptions()
	o.KeepSchedule = true
	out := sim(t, jobs, oneNode, YARN, nil)
	if err := checkInvariants(jobs, oneNode, YARN, o, out); err != nil {
		t.Fatal(err)
	}
	bad := *out
	bad.Schedule = append([]TaskRun(nil), out.Schedule...)
	bad.Schedule[1].StartS, bad.Schedule[1].EndS = 0, 10 // both maps at once: 12 GiB
	if err := checkInvariants(jobs, oneNode, YARN, o, &bad); err == nil || !strings.Contains(err.Error(), "capacity") {
		t.Errorf("over-memory schedule: %v", err)
	}
	bad.Schedule = append([]TaskRun(nil), out.Schedule...)
	bad.Schedule[2].StartS, bad.Schedule[2].EndS = 5, 15
	if err := checkInvariants(jobs, oneNode, YARN, o, &bad); err == nil || !strings.Contains(err.Error(), "waits for") {
		t.Errorf("reduce before maps: %v", err)
	}
}

// capJobs: a node reserved for r, nine jobs in front of s in the queue
// whose tasks could only run elastically and need more disk than the
// node's elastic share (candidates that start nothing), then s, whose
// 1 GiB task fits the gap. The gap walk gives up after 8 candidates, so s
// waits until r starts; without the cap it would fill the gap when the
// node is visited (t ends at 20 s).
func capJobs(t testing.TB) []Job {
	none, disky := mustModel(t, "none"), mustModel(t, "step:1.1@400M")
	jobs := []Job{
		{ID: "a", SubmitS: 0, Phases: []Phase{{Task: "m", Tasks: 1, RuntimeS: 100, MemoryBytes: 8 << 30, Cores: 1, Model: none, modelSet: true}}},
		{ID: "t", SubmitS: 0, Phases: []Phase{{Task: "m", Tasks: 1, RuntimeS: 20, MemoryBytes: 100 << 20, Cores: 1, Model: none, modelSet: true}}},
		{ID: "r", SubmitS: 1, Phases: []Phase{{Task: "m", Tasks: 1, RuntimeS: 100, MemoryBytes: 4 << 30, Cores: 1, Model: none, modelSet: true}}},
	}
	for i := 0; i < 9; i++ {
		jobs = append(jobs, Job{ID: fmt.Sprintf("e%d", i), SubmitS: 2 + float64(i), Phases: []Phase{{Task: "m", Tasks: 1, RuntimeS: 10, MemoryBytes: 4 << 30,
			Cores: 1, Model: disky, modelSet: true}}})
	}
	return append(jobs, Job{ID: "s", SubmitS: 15, Phases: []Phase{{Task: "m", Tasks: 1, RuntimeS: 10, MemoryBytes: 1 << 30, Cores: 1, Model: none, modelSet: true}}})
}

func TestGapWalkGivesUp(t *testing.T) {
	jobs := capJobs(t)
	s := len(jobs) - 1
	if me := sim(t, jobs, oneNode, YARNME, nil); me.FinishS[s] <= 100 {
		t.Errorf("s ends at %g: the walk should give up before it", me.FinishS[s])
	}
	old := gapTries
	gapTries = 10
	defer func() { gapTries = old }()
	if me := sim(t, jobs, oneNode, YARNME, nil); me.FinishS[s] != 30 {
		t.Errorf("with 10 tries s ends at %g, want 30", me.FinishS[s])
	}
}
