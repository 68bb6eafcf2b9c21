package simulate

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/elasticity"
)

func writeTrace(t testing.TB, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "trace.csv")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func runTrace(t testing.TB, body string, mod func(*Options)) *Result {
	t.Helper()
	o := DefaultOptions()
	o.Trace = writeTrace(t, body)
	if mod != nil {
		mod(&o)
	}
	in, err := Load(context.Background(), nil, o)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), in, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Workload == nil || res.Workload.Source != "trace" || res.Workload.Trace != o.Trace {
		t.Fatalf("workload %+v, want the trace %s", res.Workload, o.Trace)
	}
	res.Workload.Trace = "trace.csv" // a new temporary file each time
	return res
}

// Options are checked all at once.
func TestValidate(t *testing.T) {
	o := DefaultOptions()
	o.Policies = []Policy{"fifo", YARN, YARN}
	o.Nodes = []int{0}
	o.NodeMemoryBytes = []int64{1 << 20}
	o.NodeCores = 0
	o.ElasticDiskShare = 2
	o.DefaultModel = "step:zero"
	o.TargetMakespan = -time.Second
	err := o.Validate()
	for _, w := range []string{`policy "fifo"`, `policy "yarn" given twice`, "nodes 0", "node-memory 1M", "node-cores 0", "elastic-disk-share 2", "default-model", "target-makespan"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("%q not in %v", w, err)
		}
	}
	if _, err := Run(context.Background(), Input{}, o); err == nil {
		t.Error("Run accepted bad options")
	}
	if _, err := Run(context.Background(), Input{}, DefaultOptions()); err != ErrNoJobs {
		t.Errorf("no jobs: %v", err)
	}
	if _, err := Load(context.Background(), nil, DefaultOptions()); err != ErrNoWorkload {
		t.Errorf("no trace: %v", err)
	}
}

const sweepTrace = `job,submit_s,task,tasks,runtime_s,memory_bytes,after,model
a,0,map,40,30,3G,,step:1.2
a,0,reduce,8,90,6G,map,step:1.5
b,20,map,30,20,2.5G,,step:1.3
c,40,reduce,12,60,7G,,curve:0.25=2;0.5=1.4
big,5,huge,1,10,40G,,none
`

// A sweep over node memory: the job whose task needs 40 GiB is left out
// of the 10 GiB and 32 GiB clusters (listed, never scheduled) and runs on
// 64 GiB nodes; the target picks per policy the smallest cluster that
// runs every job within the makespan; no NaN anywhere (the JSON encodes).
func TestSweepAndTarget(t *testing.T) {
	res := runTrace(t, sweepTrace, func(o *Options) {
		o.Nodes = []int{2, 4}
		o.NodeMemoryBytes = []int64{10 << 30, 32 << 30, 64 << 30}
		o.TargetMakespan = 10 * time.Minute
	})
	if len(res.Sweep) != 12 || len(res.Targets) != 2 {
		t.Fatalf("sweep %d points, %d targets", len(res.Sweep), len(res.Targets))
	}
	if res.Cluster.Nodes != 2 || res.Cluster.NodeMemoryBytes != 10<<30 || len(res.Policies) != 2 {
		t.Errorf("first cluster %+v, %d policies", res.Cluster, len(res.Policies))
	}
	if len(res.Unschedulable) != 1 || res.Unschedulable[0].Job != "big" || !strings.Contains(res.Unschedulable[0].Reason, "more than a node's 10 GiB") {
		t.Errorf("unschedulable %+v", res.Unschedulable)
	}
	for _, s := range res.Sweep {
		if want := map[int64]int{10 << 30: 1, 32 << 30: 1, 64 << 30: 0}[s.NodeMemoryBytes]; s.JobsLeftOut != want {
			t.Errorf("%+v: %d jobs left out, want %d", s, s.JobsLeftOut, want)
		}
	}
	for _, tg := range res.Targets {
		if tg.Nodes == nil {
			t.Errorf("%s: no cluster meets 10 minutes", tg.Policy)
			continue
		}
		if *tg.NodeMemoryBytes != 64<<30 || *tg.MakespanS > 600 {
			t.Errorf("%s: target %d × %d, makespan %g", tg.Policy, *tg.Nodes, *tg.NodeMemoryBytes, *tg.MakespanS)
		}
	}
	for _, j := range res.Jobs {
		if j.Job == "big" {
			t.Errorf("a left-out job is listed: %+v", j)
		}
	}
	if _, err := json.Marshal(res); err != nil {
		t.Errorf("json: %v", err)
	}
	var me, y PolicySummary
	for _, p := range res.Policies {
		if p.Policy == YARNME {
			me = p
		} else {
			y = p
		}
	}
	if me.ElasticTasks == 0 || y.ElasticTasks != 0 || me.Tasks != 90 || y.Tasks != 90 || me.Jobs != 3 {
		t.Errorf("yarn %+v\nyarn-me %+v", y, me)
	}
}

// Results are the same from run to run and whatever GOMAXPROCS is (the
// sweep runs its simulations in parallel).
func TestDeterministic(t *testing.T) {
	var docs []*Result
	for _, procs := range []int{1, 4, 1, 8} {
		old := runtime.GOMAXPROCS(procs)
		res := runTrace(t, sweepTrace, func(o *Options) {
			o.Nodes = []int{1, 2, 3}
			o.NodeMemoryBytes = []int64{48 << 30, 64 << 30}
			o.TargetMakespan = time.Hour
			o.SeriesPoints = 20
		})
		runtime.GOMAXPROCS(old)
		docs = append(docs, res)
	}
	sameJSON(t, docs)
}

// readProfRuns reads testdata/elasticity/profruns.csv (the profruns-csv
// fixture) without the ingest stage.
func readProfRuns(t testing.TB) []dataset.ProfRun {
	recs := readCSV(t, "../testdata/elasticity/profruns.csv")
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	var runs []dataset.ProfRun
	for _, r := range recs[1:] {
		i64 := func(c string) int64 { v, _ := strconv.ParseInt(r[col[c]], 10, 64); return v }
		rt, _ := strconv.ParseFloat(r[col["runtime_s"]], 64)
		runs = append(runs, dataset.ProfRun{Job: r[col["job"]], Task: r[col["task"]], Framework: r[col["framework"]], MemoryBytes: i64("memory_bytes"),
			InputBytes: i64("input_bytes"), RuntimeS: rt, SpilledBytes: i64("spilled_bytes"), Repetition: int32(i64("repetition")),
			Slots: int32(i64("slots")), MemorySpilledBytes: i64("memory_spilled_bytes"), OutputBytes: i64("output_bytes"),
			OutputRecords: i64("output_records"), Config: r[col["config"]], ExitCode: 0, Outcome: "ok"})
	}
	return runs
}

// Fitted models (the elasticity stage on the bundled profiling runs): a
// phase without a trace model takes its (job, task)'s model and ideal
// memory, with a warning when the trace's differs by more than 10%;
// the simulator's slowdown is the model's prediction over its ideal
// runtime, at least 1.
func TestFittedModels(t *testing.T) {
	eo := elasticity.DefaultOptions()
	er, err := elasticity.Run(context.Background(), elasticity.Input{Runs: readProfRuns(t)}, eo)
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := ReadTrace(strings.NewReader(`job,submit_s,task,tasks,runtime_s,memory_bytes,model
wordcount,0,map,10,20,5.8G,
wordcount,0,reduce,4,120,4G,
other,0,reduce,4,120,4G,
pagerank,0,reduce,2,200,500M,step:1.1
`), "t.csv")
	if err != nil {
		t.Fatal(err)
	}
	warns := ResolveModels(jobs, er.Models, StepModel{Slowdown: 2})
	byTask := map[string]Phase{}
	for _, j := range jobs {
		for _, p := range j.Phases {
			byTask[j.ID+"/"+p.Task] = p
		}
	}
	var wcReduce *elasticity.Model
	for _, m := range er.Models {
		if m.Job == "wordcount" && m.Task == "reduce" {
			wcReduce = m
		}
	}
	if wcReduce == nil {
		t.Fatal("no wordcount reduce model in the fixture")
	}
	r := byTask["wordcount/reduce"]
	if r.ModelSource != "dataset" || r.MemoryBytes != wcReduce.IdealMemoryBytes {
		t.Errorf("wordcount reduce: %s model, %d bytes; want dataset, %d", r.ModelSource, r.MemoryBytes, wcReduce.IdealMemoryBytes)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "job wordcount task reduce: the model's ideal memory") {
		t.Errorf("warnings %q", warns)
	}
	if byTask["other/reduce"].ModelSource != "default" || byTask["pagerank/reduce"].ModelSource != "trace" || byTask["wordcount/map"].ModelSource != "dataset" {
		t.Errorf("sources %+v", byTask)
	}
	for _, frac := range []float64{0.1, 0.3, 0.52, 0.9} {
		mem := int64(frac * float64(wcReduce.IdealMemoryBytes))
		s, disk := r.Model.At(mem, wcReduce.IdealMemoryBytes)
		want := math.Max(1, wcReduce.Predict(mem)/wcReduce.IdealRuntimeS)
		if s != want || disk < 0 {
			t.Errorf("at %.0f%%: slowdown %g, disk %d; want %g", 100*frac, s, disk, want)
		}
	}
	c := Cluster{Nodes: 2, NodeMemoryBytes: 16 << 30, NodeCores: 8}
	o := DefaultOptions()
	o.KeepSchedule = true
	for _, p := range []Policy{YARN, YARNME} {
		out, _, err := Simulate(context.Background(), jobs, c, p, o)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkInvariants(jobs, c, p, o, out); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// A context cancelled stops a simulation.
func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	jobs := []Job{{ID: "j", Phases: []Phase{{Task: "m", Tasks: 100000, RuntimeS: 1, MemoryBytes: 1 << 30, Cores: 1}}}}
	if _, _, err := Simulate(ctx, jobs, oneNode, YARN, DefaultOptions()); err != context.Canceled {
		t.Errorf("err %v, want context.Canceled", err)
	}
}

// sameJSON fails t unless every run's result marshals to the JSON of the
// first.
func sameJSON(t *testing.T, runs []*Result) {
	t.Helper()
	var first []byte
	for i, res := range runs {
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = b
		} else if string(b) != string(first) {
			t.Fatalf("run %d differs from run 0", i)
		}
	}
}

// readCSV reads a whole CSV file.
func readCSV(t testing.TB, path string) [][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	var recs [][]string
	if err == nil {
		recs, err = csv.NewReader(bytes.NewReader(b)).ReadAll()
	}
	if err != nil {
		t.Fatal(err)
	}
	return recs
}
