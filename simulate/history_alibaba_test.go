package simulate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/ingest"
	"github.com/wlprof/wlprof/internal/datasettest"
)

// alibabaDataset ingests the batch_task and batch_instance rows written
// from the Alibaba cluster-trace-v2018 schema (testdata/dag/SOURCES.md);
// their last lines are rejects, so ingest reports errors beside the
// dataset.
func alibabaDataset(t *testing.T) *dataset.Dataset {
	t.Helper()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "ds")
	if _, ds, err := ingest.Into(ctx, dir, "alibaba2018-batch-task",
		[]string{"../testdata/dag/batch_task_schema_sample.csv"}, ingest.DefaultOptions()); ds == nil {
		t.Fatal(err)
	}
	_, ds, err := ingest.Into(ctx, dir, "alibaba2018-batch-instance",
		[]string{"../testdata/dag/batch_instance_schema_sample.csv"}, ingest.DefaultOptions())
	if ds == nil {
		t.Fatal(err)
	}
	return ds
}

// TestFromHistoryAlibaba replays job j_1 of the schema-written sample,
// values counted by hand from the two files (times are seconds from the
// trace start; plan_mem is a percentage of the machine, 100 GiB here):
//
//	M1     ins_1 100→130, ins_2 100→160: 2 tasks of (30+60)/2 = 45 s
//	M2_1   ins_3 160→200: 1 task of 40 s, after M1
//	M3_1   no instances: instance_num 6 tasks of batch_task's 230−160 = 70 s, after M1
//	R4_2   ins_4 failed 200→230 (left out), its retry 232→260: 1 task of 28 s,
//	       plan_cpu 50 → 0.5 cores, rounded up to 1; plan_mem 0.2 → 0.2% of 100 GiB
//	M5_3_4 no instances: 2 tasks of 300−260 = 40 s, after R4_2 (its
//	       instances ended at 260, M3_1 at batch_task's 230)
//
// plan_mem 0.39 is 0.0039 × 107374182400 = 418759311.36 → 418759311
// bytes; 0.2 is 214748364.8 → 214748365. Observed: the first instance
// start (100) to the last end, widened to the tasks replayed from
// batch_task alone (M5_3_4 ends at 300): 200 s. j_2's one instance is
// Waiting (no times), so its task never terminated: skipped with the
// reason. j_3 and j_4 have tasks but no instances (j_3's instance rows
// are rejects, as is j_5's task, which waits for itself).
func TestFromHistoryAlibaba(t *testing.T) {
	ds := alibabaDataset(t)
	const machine = 100 << 30
	jobs, info, warns, err := FromHistoryWith(context.Background(), ds, HistoryOptions{AlibabaMachineMemoryBytes: machine})
	if err != nil {
		t.Fatal(err)
	}
	const m39, m20 = 418759311, 214748365
	want := []Job{{ID: "j_1", ModelJob: "j_1", SubmitS: 0, ObservedS: 200, Phases: []Phase{
		{Task: "M1", Tasks: 2, RuntimeS: 45, MemoryBytes: m39, Cores: 1, ModelSource: "default"},
		{Task: "M2_1", Tasks: 1, RuntimeS: 40, MemoryBytes: m39, Cores: 1, After: "M1", ModelSource: "default"},
		{Task: "M3_1", Tasks: 6, RuntimeS: 70, MemoryBytes: m39, Cores: 1, After: "M1", ModelSource: "default"},
		{Task: "R4_2", Tasks: 1, RuntimeS: 28, MemoryBytes: m20, Cores: 1, After: "M2_1", ModelSource: "default"},
		{Task: "M5_3_4", Tasks: 2, RuntimeS: 40, MemoryBytes: m39, Cores: 1, After: "R4_2", ModelSource: "default"},
	}}}
	if !reflect.DeepEqual(jobs, want) {
		t.Errorf("jobs\n%+v\nwant\n%+v", jobs, want)
	}
	if info.Runs != 1 || info.Jobs != 1 || info.InstanceJobs != 1 || info.Instances != 4 || info.FailedInstances != 2 ||
		info.InstanceJobsSkipped != 1 || info.JobsWithoutInstances != 2 || info.FirstSubmitMs == dataset.NoTime {
		t.Errorf("info %+v: want 1 run and job replayed, 4 Terminated and 2 other instance runs, j_2 skipped, 2 jobs without instances", info)
	}
	all := strings.Join(warns, "\n")
	for _, w := range []string{
		"Alibaba job j_2 not replayed: task task_Nzg3ODAwNDgzMTAwNTc2NTQ2Mw== has no Terminated instance (1 other run(s))",
		"2 Alibaba task(s) have no instance rows",
		"1 Alibaba task(s) plan a fraction of a core",
		"2 Alibaba instance run(s) that did not terminate",
	} {
		if !strings.Contains(all, w) {
			t.Errorf("warnings\n%s\nwant %q", all, w)
		}
	}
	// On one 96-core node of 100 GiB every task fits at once: the JCT is
	// the chain M1 → M2_1 → R4_2 → M5_3_4, 45 + 40 + 28 + 40 = 153 s
	// (M1 → M3_1, 115 s, ends first).
	opts := DefaultOptions()
	opts.Nodes, opts.NodeMemoryBytes, opts.NodeCores = []int{1}, []int64{machine}, AlibabaMachineCores
	res, err := Run(context.Background(), Input{Jobs: jobs}, opts)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, j := range res.Jobs {
		if j.Job == "j_1" {
			seen++
			if math.Abs(j.JCTS-153) > 1e-9 {
				t.Errorf("j_1 under %s: JCT %g, want 153", j.Policy, j.JCTS)
			}
		}
	}
	if seen != 2 {
		t.Errorf("j_1 simulated under %d policies, want yarn and yarn-me", seen)
	}
}

// Without the machine's memory the Alibaba jobs cannot be sized: Load
// says which flag to give instead of simulating nothing silently.
func TestLoadAlibabaNeedsMachineMemory(t *testing.T) {
	ds := alibabaDataset(t)
	_, err := Load(context.Background(), ds, DefaultOptions())
	if !errors.Is(err, ErrNoWorkload) || !strings.Contains(err.Error(), "--alibaba-machine-memory") {
		t.Errorf("err %v, want ErrNoWorkload naming --alibaba-machine-memory", err)
	}
	opts := DefaultOptions()
	opts.AlibabaMachineMemoryBytes = 100 << 30
	in, err := Load(context.Background(), ds, opts)
	if err != nil {
		t.Fatal(err)
	}
	if in.Workload.History == nil || in.Workload.History.InstanceJobs != 1 || len(in.Jobs) != 1 {
		t.Errorf("workload %+v, %d jobs: want j_1 replayed", in.Workload.History, len(in.Jobs))
	}
}

// Seeded random Alibaba jobs (tasks waiting for lower-numbered tasks,
// instances of random status and times): every job whose tasks all have
// a Terminated run is replayed, each phase holds exactly its task's
// Terminated runs (tasks × mean = their summed durations), waits for a
// task it names, the one whose instances ended last, and the observed
// JCT is the job's last instance end − its first instance start.
func TestFromHistoryAlibabaProperties(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	ds, tx := datasettest.Begin(t, filepath.Join(t.TempDir(), "ds"))
	type stageWant struct {
		name    string
		n       int
		sumS    float64
		endMs   int64
		parents []int
	}
	type jobWant struct {
		stages     []stageWant
		start, end int64
		ok         bool
	}
	want := map[string]*jobWant{}
	for ji := 0; ji < 40; ji++ {
		job := fmt.Sprintf("j_%d", ji)
		jw := &jobWant{start: math.MaxInt64, ok: true}
		k := 1 + rng.Intn(5)
		for si := 1; si <= k; si++ {
			sw := stageWant{}
			name := fmt.Sprintf("M%d", si)
			var par []string
			for p := 1; p < si; p++ {
				if rng.Intn(2) == 0 {
					sw.parents = append(sw.parents, p)
					par = append(par, strconv.Itoa(p))
					name += "_" + strconv.Itoa(p)
				}
			}
			sw.name = name
			if err := tx.Stages().Append(&dataset.Stage{Job: job, Stage: strconv.Itoa(si), Name: name, Parents: strings.Join(par, ","),
				Tasks: 9, StartMs: dataset.NoTime, EndMs: dataset.NoTime, CPUs: 1, Memory: 0.01, Source: "test"}); err != nil {
				t.Fatal(err)
			}
			for ii := 0; ii < 1+rng.Intn(4); ii++ {
				start := int64(1000 * rng.Intn(1000))
				end := start + int64(1000*(1+rng.Intn(100)))
				status := "Terminated"
				if rng.Intn(4) == 0 {
					status = "Failed"
				} else {
					sw.n++
					sw.sumS += float64(end-start) / 1000
				}
				sw.endMs = max(sw.endMs, end)
				jw.start, jw.end = min(jw.start, start), max(jw.end, end)
				if err := tx.Instances().Append(&dataset.Instance{Job: job, Stage: strconv.Itoa(si), Task: name, Instance: fmt.Sprint(ii), Status: status,
					StartMs: start, EndMs: end, Source: "test"}); err != nil {
					t.Fatal(err)
				}
			}
			if sw.n == 0 {
				jw.ok = false
			}
			jw.stages = append(jw.stages, sw)
		}
		want[job] = jw
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	jobs, info, _, err := FromHistoryWith(context.Background(), ds, HistoryOptions{AlibabaMachineMemoryBytes: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	replayed := 0
	for _, jw := range want {
		if jw.ok {
			replayed++
		}
	}
	if len(jobs) != replayed || info.InstanceJobs != replayed || info.InstanceJobsSkipped != len(want)-replayed {
		t.Fatalf("%d jobs replayed, info %+v; want %d of %d", len(jobs), info, replayed, len(want))
	}
	for _, j := range jobs {
		jw := want[j.ID]
		if !jw.ok || len(j.Phases) != len(jw.stages) {
			t.Fatalf("job %s: %d phases, want %d (replayable %v)", j.ID, len(j.Phases), len(jw.stages), jw.ok)
		}
		if math.Abs(j.ObservedS-float64(jw.end-jw.start)/1000) > 1e-9 {
			t.Errorf("job %s: observed %g, want %g", j.ID, j.ObservedS, float64(jw.end-jw.start)/1000)
		}
		for i, p := range j.Phases {
			sw := jw.stages[i]
			if p.Task != sw.name || p.Tasks != sw.n || math.Abs(p.RuntimeS*float64(p.Tasks)-sw.sumS) > 1e-6 {
				t.Errorf("job %s phase %d: %s %d × %g s, want %s %d tasks summing %g s", j.ID, i, p.Task, p.Tasks, p.RuntimeS, sw.name, sw.n, sw.sumS)
			}
			if len(sw.parents) == 0 {
				if p.After != "" {
					t.Errorf("job %s %s waits for %s, names no task", j.ID, p.Task, p.After)
				}
				continue
			}
			last := sw.parents[0]
			for _, q := range sw.parents {
				if e, l := jw.stages[q-1].endMs, jw.stages[last-1].endMs; e > l || (e == l && q > last) {
					last = q
				}
			}
			if p.After != jw.stages[last-1].name {
				t.Errorf("job %s %s waits for %q, want %q (its parent that ended last)", j.ID, p.Task, p.After, jw.stages[last-1].name)
			}
		}
	}
}

// A dataset holding both task attempts and Alibaba instances replays
// both, submitted relative to the first of either: the Alibaba instance
// starts at 10 s, the MapReduce map at 20 s.
func TestFromHistoryAlibabaBesideAttempts(t *testing.T) {
	ds := historyDataset(t, []dataset.ProfRun{jh("wc", "job_1", "map", 0, 0, 20, 10, 0)}, nil)
	tx, err := ds.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Stages().Append(&dataset.Stage{Job: "j_1", Stage: "1", Name: "M1", Tasks: 1, StartMs: dataset.NoTime, EndMs: dataset.NoTime,
		CPUs: 2, Memory: 0.5, Source: "test"}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Instances().Append(&dataset.Instance{Job: "j_1", Stage: "1", Task: "M1", Instance: "i", Status: "Terminated",
		StartMs: t0 + 10000, EndMs: t0 + 40000, Source: "test"}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	jobs, info, _, err := FromHistoryWith(context.Background(), ds, HistoryOptions{AlibabaMachineMemoryBytes: 64 << 30})
	if err != nil {
		t.Fatal(err)
	}
	want := []Job{
		{ID: "j_1", ModelJob: "j_1", SubmitS: 0, ObservedS: 30, Phases: []Phase{
			{Task: "M1", Tasks: 1, RuntimeS: 30, MemoryBytes: 32 << 30, Cores: 2, ModelSource: "default"}}},
		{ID: "wc/job_1", ModelJob: "wc", SubmitS: 10, ObservedS: 10, Phases: []Phase{
			{Task: "map", Tasks: 1, RuntimeS: 10, MemoryBytes: 2 << 30, Cores: 1, ModelSource: "default"}}},
	}
	if !reflect.DeepEqual(jobs, want) {
		t.Errorf("jobs\n%+v\nwant\n%+v", jobs, want)
	}
	if info.Runs != 2 || info.Jobs != 2 || info.Attempts != 1 || info.Instances != 1 || info.FirstSubmitMs != t0+10000 {
		t.Errorf("info %+v", info)
	}
}
