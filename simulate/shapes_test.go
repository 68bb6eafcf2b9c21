package simulate

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// bigSmall is the mixed hand cluster: node 0 has 10 GiB (102
// units of 100 MiB) and one core, node 1 has 4 GiB (40 units) and
// --node-cores (16).
var bigSmall = Cluster{Shapes: []NodeShape{{Nodes: 1, NodeMemoryBytes: 10 << 30, NodeCores: 1}, {Nodes: 1, NodeMemoryBytes: 4 << 30}}}

// A mixed cluster that matters: one job of two 100 s tasks of 6 GiB (62
// units; ⌈10%⌉ = 7 units) on bigSmall. The tasks fit only the big node,
// which runs one at a time (one core).
//
// yarn: task 1 runs on node 0 from 0 to 100 s; node 0 is then reserved
// for the job; node 1 could never fit the task and passes the job over;
// task 2 runs on node 0 from 100 to 200 s. Makespan 200 s; memory held
// 62 units over 200 s of 142: 62·200 / (142·200).
//
// yarn-me with step:1.5: node 0 has no core left for an elastic task and
// is reserved; node 1 passes the job over but may start it elastically:
// the least memory with the lowest runtime is 7 units (700 MiB), 150 s;
// the job's estimate is its lane (task 1, ending at 100 s) plus one task
// of 100 s: 200 s; 150 ≤ 200, so task 2 runs on node 1 from 0 to 150 s.
// Makespan 150 s; memory (62·100 + 7·150) / (142·150).
//
// With step:2 the elastic task ends at 200 s, exactly the estimate: it
// starts (makespan 200 s, one elastic task); with step:2.5 it would end at
// 250 s, after the estimate: it waits for node 0 as under yarn (200 s).
func TestMixedHandCase(t *testing.T) {
	jobs := []Job{{ID: "j", Phases: []Phase{{Task: "reduce", Tasks: 2, RuntimeS: 100, MemoryBytes: 6 << 30, Cores: 1,
		Model: mustModel(t, "step:1.5"), modelSet: true}}}}
	y := sim(t, jobs, bigSmall, YARN, nil)
	if y.MakespanS != 200 || y.ElasticTasks[0] != 0 {
		t.Errorf("yarn: makespan %g, elastic %d; want 200, 0", y.MakespanS, y.ElasticTasks[0])
	}
	for _, r := range y.Schedule {
		if r.Node != 0 {
			t.Errorf("yarn ran %+v on the small node", r)
		}
	}
	if want := 62.0 * 200 / (142 * 200); math.Abs(y.MemoryUtilisation-want) > 1e-12 {
		t.Errorf("yarn utilisation %g, want %g", y.MemoryUtilisation, want)
	}
	me := sim(t, jobs, bigSmall, YARNME, nil)
	if me.MakespanS != 150 || me.ElasticTasks[0] != 1 {
		t.Errorf("yarn-me: makespan %g, elastic %d; want 150, 1", me.MakespanS, me.ElasticTasks[0])
	}
	want := []TaskRun{{Job: 0, Node: 0, StartS: 0, EndS: 100, Units: 62, Cores: 1}, {Job: 0, Node: 1, StartS: 0, EndS: 150, Units: 7, Cores: 1, Elastic: true}}
	if !reflect.DeepEqual(me.Schedule, want) {
		t.Errorf("yarn-me schedule %+v\nwant %+v", me.Schedule, want)
	}
	if want := (62.0*100 + 7*150) / (142 * 150); math.Abs(me.MemoryUtilisation-want) > 1e-12 {
		t.Errorf("yarn-me utilisation %g, want %g", me.MemoryUtilisation, want)
	}
	for spec, want := range map[string][2]float64{"step:2": {200, 1}, "step:2.5": {200, 0}} {
		jobs[0].Phases[0].Model = mustModel(t, spec)
		if me := sim(t, jobs, bigSmall, YARNME, nil); me.MakespanS != want[0] || float64(me.ElasticTasks[0]) != want[1] {
			t.Errorf("%s: makespan %g, elastic %d; want %g, %g", spec, me.MakespanS, me.ElasticTasks[0], want[0], want[1])
		}
	}
}

// A phase with no task running has no lanes; on a node too small for its
// task, its estimate is the earliest regular start on the nodes that
// could fit it. Job a (1 GiB, no model, 100 s) takes node 0's core at 0;
// job b (one 6 GiB task of 60 s) reserves node 0 (no core) and is passed
// over by node 1, which may start it elastically: the estimate is node
// 0's release at 100 s plus 60 s = 160 s. With step:1.5 it ends at 90 s
// (yarn: 160 s); with step:3 it would end at 180 s > 160 s, so it waits
// (160 s); node 1's own timeline would have no end and let it start.
func TestMixedEstimateFromOtherNodes(t *testing.T) {
	jobs := func(spec string) []Job {
		return []Job{
			{ID: "a", Phases: []Phase{{Task: "m", Tasks: 1, RuntimeS: 100, MemoryBytes: 1 << 30, Cores: 1, Model: mustModel(t, "none"), modelSet: true}}},
			{ID: "b", Phases: []Phase{{Task: "m", Tasks: 1, RuntimeS: 60, MemoryBytes: 6 << 30, Cores: 1, Model: mustModel(t, spec), modelSet: true}}},
		}
	}
	if y := sim(t, jobs("step:1.5"), bigSmall, YARN, nil); y.FinishS[1] != 160 {
		t.Errorf("yarn: b ends %g, want 160", y.FinishS[1])
	}
	if me := sim(t, jobs("step:1.5"), bigSmall, YARNME, nil); me.FinishS[1] != 90 || me.ElasticTasks[1] != 1 || me.MakespanS != 100 {
		t.Errorf("yarn-me step:1.5: b ends %g (%d elastic), makespan %g; want 90, 1, 100", me.FinishS[1], me.ElasticTasks[1], me.MakespanS)
	}
	if me := sim(t, jobs("step:3"), bigSmall, YARNME, nil); me.FinishS[1] != 160 || me.ElasticTasks[1] != 0 {
		t.Errorf("yarn-me step:3: b ends %g (%d elastic); want 160, 0", me.FinishS[1], me.ElasticTasks[1])
	}
}

// Nodes are numbered in the order of the shapes, and visited in that
// order. TestMixedHandCase with the small node first: at 0 s node 0 (4
// GiB) is visited first and could never fit a task. Started regularly,
// the job's tasks would run one after the other on node 1 (the second
// behind its reservation) and the job would complete at 200 s, so an
// elastic task of 150 s on node 0 does not delay it (Iorgulescu et al.,
// ATC'17 §3: its "expected completion time does not exceed the current
// estimated completion time of its job"). The estimate is the instant's
// (the generator runs once per heartbeat), so node 0 starts both tasks
// elastically (600 MiB each) from 0 to 150 s; node 1 is left idle.
func TestMixedNodeOrder(t *testing.T) {
	jobs := []Job{{ID: "j", Phases: []Phase{{Task: "reduce", Tasks: 2, RuntimeS: 100, MemoryBytes: 6 << 30, Cores: 1,
		Model: mustModel(t, "step:1.5"), modelSet: true}}}}
	smallBig := Cluster{Shapes: []NodeShape{bigSmall.Shapes[1], bigSmall.Shapes[0]}}
	me := sim(t, jobs, smallBig, YARNME, nil)
	if me.MakespanS != 150 || me.ElasticTasks[0] != 2 {
		t.Errorf("small node first: makespan %g, elastic %d; want 150, 2", me.MakespanS, me.ElasticTasks[0])
	}
	for _, r := range me.Schedule {
		if r.Node != 0 || r.StartS != 0 || r.EndS != 150 || !r.Elastic {
			t.Errorf("task %+v: want elastic on node 0 from 0 to 150 s", r)
		}
	}
}

// A cluster of several shapes that are all the same is the cluster of
// identical nodes: the same schedule, task for task, on random traces,
// both policies; and a job too large for every node is left out alike.
func TestEqualShapesAreUniform(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 6))
	for i := 0; i < 100; i++ {
		jobs := genJobs(rng, 1+rng.IntN(12), 150, 12<<30)
		mem, cores := int64(4+rng.IntN(12))<<30, 1+rng.IntN(12)
		var shapes []NodeShape
		n := 0
		for range 2 + rng.IntN(2) {
			k := 1 + rng.IntN(2)
			shapes = append(shapes, NodeShape{Nodes: k, NodeMemoryBytes: mem, NodeCores: cores})
			n += k
		}
		uni := Cluster{Nodes: n, NodeMemoryBytes: mem, NodeCores: cores}
		mixed := Cluster{Shapes: shapes}
		for _, p := range []Policy{YARN, YARNME} {
			o := DefaultOptions()
			o.KeepSchedule, o.SeriesPoints = true, 10
			a, ua, err := Simulate(context.Background(), jobs, uni, p, o)
			if err != nil {
				t.Fatal(err)
			}
			b, ub, err := Simulate(context.Background(), jobs, mixed, p, o)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range []*Outcome{a, b} { // left-out jobs' NaN finishes
				for k, f := range x.FinishS {
					if math.IsNaN(f) {
						x.FinishS[k] = -1
					}
				}
			}
			if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(ua, ub) {
				t.Fatalf("trace %d, %s: %d nodes of %d GiB / %d cores given as %+v differ:\n%+v %+v\n%+v %+v", i, p, n, mem>>30, cores, shapes, a.FinishS, ua, b.FinishS, ub)
			}
		}
	}
}

// TestInvariants on random mixed clusters: no node over its own memory,
// cores or disk share, and the rest.
func TestInvariantsMixed(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 7))
	for i := 0; i < 150; i++ {
		jobs := genJobs(rng, 1+rng.IntN(12), 200, 12<<30)
		c := randomShapes(rng)
		for _, p := range []Policy{YARN, YARNME} {
			var o Options
			out := sim(t, jobs, c, p, func(x *Options) {
				x.NodeCores = 1 + rng.IntN(16)
				x.ReservedGaps = rng.IntN(4) > 0
				x.NodeDiskBytesPerS = int64(rng.IntN(3)) * 400 << 20
				o = *x
			})
			if err := checkInvariants(jobs, c, p, o, out); err != nil {
				t.Fatalf("trace %d, %s on %+v: %v", i, p, c.Shapes, err)
			}
		}
	}
}

// The stage on shapes: one cluster, not swept; nodes the total;
// node_memory_bytes and node_cores 0 where the nodes differ, the common
// value where they do not; a job whose task fits no node listed with
// the largest node named; the same document whatever GOMAXPROCS is.
func TestRunShapes(t *testing.T) {
	var docs []*Result
	for _, procs := range []int{1, 2, 1, 2} {
		old := runtime.GOMAXPROCS(procs)
		res := runTrace(t, sweepTrace, func(o *Options) {
			o.Nodes, o.NodeMemoryBytes = nil, nil
			o.NodeShapes = [][]NodeShape{{{Nodes: 2, NodeMemoryBytes: 16 << 30}, {Nodes: 1, NodeMemoryBytes: 32 << 30, NodeCores: 32}}}
			o.SeriesPoints = 20
		})
		runtime.GOMAXPROCS(old)
		c := res.Cluster.Cluster
		if c.Nodes != 3 || c.NodeMemoryBytes != 0 || c.NodeCores != 0 || !slices.Equal(c.Shapes, []NodeShape{{2, 16 << 30, 16, 0}, {1, 32 << 30, 32, 0}}) {
			t.Fatalf("cluster %+v", c)
		}
		if len(res.Sweep) != 0 || len(res.Policies) != 2 {
			t.Errorf("%d sweep points, %d policies", len(res.Sweep), len(res.Policies))
		}
		if len(res.Unschedulable) != 1 || !strings.Contains(res.Unschedulable[0].Reason, "more than the largest node's 32 GiB (327 units)") {
			t.Errorf("unschedulable %+v", res.Unschedulable)
		}
		docs = append(docs, res)
	}
	sameJSON(t, docs)
	if c := ShapesCluster([]NodeShape{{Nodes: 2, NodeMemoryBytes: 8 << 30}, {Nodes: 3, NodeMemoryBytes: 8 << 30, NodeCores: 16}}, 16); c.Nodes != 5 ||
		c.NodeMemoryBytes != 8<<30 || c.NodeCores != 16 || c.Describe() != "5 nodes of 8 GiB and 16 cores" {
		t.Errorf("equal shapes: %+v, %q", c, c.Describe())
	}
	if d := ShapesCluster([]NodeShape{{Nodes: 40, NodeMemoryBytes: 16 << 30}, {Nodes: 10, NodeMemoryBytes: 64 << 30, NodeCores: 32}}, 16).Describe(); d != "50 nodes: 40 of 16 GiB and 16 cores, 10 of 64 GiB and 32 cores" {
		t.Errorf("describe %q", d)
	}
}

// A job whose task needs more cores than the largest node has, or the
// memory of one shape and the cores of another, is left out.
func TestMixedLeftOut(t *testing.T) {
	none := mustModel(t, "none")
	jobs := []Job{
		{ID: "both", Phases: []Phase{{Task: "m", Tasks: 1, RuntimeS: 10, MemoryBytes: 8 << 30, Cores: 8, Model: none, modelSet: true}}},
		{ID: "cores", Phases: []Phase{{Task: "m", Tasks: 1, RuntimeS: 10, MemoryBytes: 1 << 30, Cores: 32, Model: none, modelSet: true}}},
		{ID: "ok", Phases: []Phase{{Task: "m", Tasks: 1, RuntimeS: 10, MemoryBytes: 8 << 30, Cores: 1, Model: none, modelSet: true}}},
	}
	c := Cluster{Shapes: []NodeShape{{Nodes: 1, NodeMemoryBytes: 10 << 30, NodeCores: 2}, {Nodes: 1, NodeMemoryBytes: 4 << 30, NodeCores: 16}}}
	out, un, err := Simulate(context.Background(), jobs, c, YARN, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(un) != 2 || !strings.Contains(un[0].Reason, "no node has both") || !strings.Contains(un[1].Reason, "more than the largest node's 16") {
		t.Errorf("left out %+v", un)
	}
	if out.FinishS[2] != 10 || !math.IsNaN(out.FinishS[0]) {
		t.Errorf("finishes %v", out.FinishS)
	}
}

// Shapes are checked with the other options, every problem at once.
func TestValidateShapes(t *testing.T) {
	o := DefaultOptions()
	o.NodeShapes = [][]NodeShape{{{Nodes: 0, NodeMemoryBytes: 16 << 30}, {Nodes: 2, NodeMemoryBytes: 10 << 20}, {Nodes: 1, NodeMemoryBytes: 1 << 30, NodeCores: -1}}, {}}
	err := o.Validate()
	for _, w := range []string{"node-shapes 0x16G: 0 nodes", "node-shapes 2x10M: memory 10M: want at least one memory unit (100M)", "node-shapes 1x1G/-1: -1 cores",
		"nodes and node-shapes both given: use --node-shapes alone", "node-memory and node-shapes both given", "an empty cluster"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("%q not in %v", w, err)
		}
	}
	o = DefaultOptions()
	o.Nodes, o.NodeMemoryBytes = nil, nil
	o.NodeShapes = [][]NodeShape{{{Nodes: 40, NodeMemoryBytes: 16 << 30, NodeCores: 16}, {Nodes: 10, NodeMemoryBytes: 64 << 30}}, {{Nodes: 3, NodeMemoryBytes: 1 << 30}}}
	o.TargetMakespan = time.Hour // picks among swept clusters of shapes too
	if err := o.Validate(); err != nil {
		t.Errorf("good shapes: %v", err)
	}
}

// A shape's own disk bandwidth bounds the elastic tasks on its nodes: the
// hand case's third task needs 200 MiB/s of disk below ideal memory. On
// a node of 300 MiB/s (half for elastic tasks: 150) it cannot start
// elastically (yarn-me = yarn, 200 s); of 1 GiB/s (512) it can (150 s),
// whatever --node-disk-bandwidth says for the other shapes.
func TestShapeDiskBandwidth(t *testing.T) {
	jobs := oneJob(t, "step:1.5@200M")
	for _, c := range []struct {
		disk int64
		want float64
	}{{300 << 20, 200}, {1 << 30, 150}} {
		cl := ShapesCluster([]NodeShape{{Nodes: 1, NodeMemoryBytes: 10 << 30, NodeCores: 16, DiskBytesPerS: c.disk}}, 16)
		for _, def := range []int64{0, 100 << 20, 10 << 30} {
			me := sim(t, jobs, cl, YARNME, func(o *Options) { o.NodeDiskBytesPerS = def })
			if me.MakespanS != c.want {
				t.Errorf("node disk %d MiB/s, --node-disk-bandwidth %d MiB/s: yarn-me makespan %g, want %g", c.disk>>20, def>>20, me.MakespanS, c.want)
			}
		}
	}
	if got := ShapesCluster([]NodeShape{{Nodes: 1, NodeMemoryBytes: 10 << 30, DiskBytesPerS: 1 << 30}}, 16).Describe(); got != "1 node: 1 of 10 GiB and 16 cores with 1 GiB/s of disk" {
		t.Errorf("describe %q", got)
	}
}

// Clusters of shapes are swept like counts and memories: each cluster
// under each policy, and --target-makespan picks the one of least memory
// that meets it. On the hand case's job (three 100 s tasks of 4 GiB),
// 1x8G runs two at once (200 s), 1x12G three (100 s), 1x4G,1x8G three
// (100 s) with 12 GiB as well but on 2 nodes: the 100 s target picks
// 1x12G (same memory, fewer nodes).
func TestSweepShapes(t *testing.T) {
	jobs := oneJob(t, "none")
	o := DefaultOptions()
	o.Nodes, o.NodeMemoryBytes, o.Policies, o.TargetMakespan = nil, nil, []Policy{YARN}, 100*time.Second
	o.MemoryUnitBytes = 1 << 30 // 4 GiB tasks fill 8 and 12 GiB nodes exactly
	o.NodeShapes = [][]NodeShape{{{Nodes: 1, NodeMemoryBytes: 8 << 30}}, {{Nodes: 1, NodeMemoryBytes: 4 << 30}, {Nodes: 1, NodeMemoryBytes: 8 << 30}}, {{Nodes: 1, NodeMemoryBytes: 12 << 30}}}
	res, err := Run(context.Background(), Input{Jobs: jobs}, o)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range res.Sweep {
		got = append(got, fmt.Sprintf("%s=%g/%d", ShapesString(p.Shapes), p.MakespanS, p.MemoryBytes>>30))
	}
	if want := []string{"1x8G/16=200/8", "1x4G/16,1x8G/16=100/12", "1x12G/16=100/12"}; !slices.Equal(got, want) {
		t.Errorf("sweep %v, want %v", got, want)
	}
	if len(res.Targets) != 1 || res.Targets[0].Shapes == nil || ShapesString(res.Targets[0].Shapes) != "1x12G/16" {
		t.Errorf("targets %+v, want 1x12G", res.Targets)
	}
}

// randomShapes is a random cluster of one to three node shapes.
func randomShapes(rng *rand.Rand) Cluster {
	var shapes []NodeShape
	for range 2 + rng.IntN(2) {
		s := NodeShape{Nodes: 1 + rng.IntN(3), NodeMemoryBytes: int64(2+rng.IntN(15)) << 30}
		if rng.IntN(4) > 0 {
			s.NodeCores = 1 + rng.IntN(12)
		}
		if rng.IntN(3) == 0 {
			s.DiskBytesPerS = int64(1+rng.IntN(4)) * 100 << 20
		}
		shapes = append(shapes, s)
	}
	return Cluster{Shapes: shapes}
}
