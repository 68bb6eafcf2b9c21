package simulate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/elasticity"
	"github.com/wlprof/wlprof/internal/datasettest"
)

// historyDataset writes profruns and runs rows into a new dataset.
func historyDataset(t *testing.T, prof []dataset.ProfRun, runs []dataset.Run) *dataset.Dataset {
	t.Helper()
	ds, tx := datasettest.Begin(t, filepath.Join(t.TempDir(), "ds"))
	datasettest.Append(t, tx.ProfRuns(), prof)
	datasettest.Append(t, tx.Runs(), runs)
	datasettest.Commit(t, tx)
	return ds
}

const t0 = int64(1_700_000_000_000)

func jh(job, jobID, kind string, task, attempt int, startS, rt float64, exit int32) dataset.ProfRun {
	k := kind[:1]
	return dataset.ProfRun{Job: job, Task: kind, Framework: "mapreduce", MemoryBytes: 2 << 30, Slots: 1, RuntimeS: rt, ExitCode: exit,
		StartMs: t0 + int64(startS*1000), Source: jobID + ".jhist",
		Config: fmt.Sprintf(`{"attempt":"attempt_1_%s_%s_%06d_%d","job_id":"%s"}`, strings.TrimPrefix(jobID, "job_"), k, task, attempt, jobID)}
}

func sp(src string, stage, index int, parents string, startS, rt float64) dataset.ProfRun {
	return dataset.ProfRun{Job: "pr", Task: fmt.Sprintf("stage %d: s%d", stage, stage), Framework: "spark", MemoryBytes: 4 << 30, Slots: 2,
		RuntimeS: rt, StartMs: t0 + int64(startS*1000), Source: src,
		Config: fmt.Sprintf(`{"stage_attempt_index":"%d.%d","app_id":"app-1","parent_stages":%s,"spark.task.cpus":"2"}`, stage, index, parents)}
}

// A hand-built history: two MapReduce runs of wc (one map retried after
// a failure), one Spark application read from two logs (the .inprogress
// copy repeats two tasks), a sandbox run and a run without attempts.
func TestFromHistory(t *testing.T) {
	prof := []dataset.ProfRun{
		jh("wc", "job_1", "map", 0, 0, 20, 10, 0),
		jh("wc", "job_1", "map", 1, 0, 20, 30, 1), // failed
		jh("wc", "job_1", "map", 1, 1, 51, 20, 0), // its retry
		jh("wc", "job_1", "map", 2, 0, 21, 12, 0),
		jh("wc", "job_1", "reduce", 0, 0, 75, 40, 0),
		jh("wc", "job_2", "map", 0, 0, 620, 8, 0),
		jh("wc", "job_2", "map", 1, 0, 620, 12, 0),
		sp("app-1.inprogress", 0, 0, "[]", 5, 4),
		sp("app-1.inprogress", 1, 0, "[]", 5, 9),
		sp("app-1", 0, 0, "[]", 5, 4),
		sp("app-1", 0, 1, "[]", 5, 6),
		sp("app-1", 1, 0, "[]", 5, 9),
		sp("app-1", 2, 0, "[0,1]", 15, 3),
		sp("app-1", 2, 1, "[0,1]", 15, 5),
		{Job: "wc", Task: "map", Framework: "sandbox", MemoryBytes: 1 << 30, RuntimeS: 7, StartMs: t0 - 1e6, Config: `{}`},
	}
	runs := []dataset.Run{
		{Job: "pr", Run: "app-1", SubmitMs: dataset.NoTime, StartMs: t0 + 2000, EndMs: t0 + 21000, Source: "spark-eventlog"},
		{Job: "etl", Run: "application_9", SubmitMs: t0, StartMs: t0, EndMs: t0 + 1000, Source: "yarn-rm"},
	}
	ds := historyDataset(t, prof, runs)
	jobs, info, warns, err := FromHistory(context.Background(), ds)
	if err != nil {
		t.Fatal(err)
	}
	wantInfo := HistoryWorkload{Runs: 3, Jobs: 2, Attempts: 11, FailedAttempts: 1, RunsWithoutAttempts: 1, FirstSubmitMs: t0 + 5000}
	if info != wantInfo {
		t.Errorf("info %+v, want %+v", info, wantInfo)
	}
	// pr's first task starts at 5 s (its runs-table start, 2 s, is not
	// used: the simulator does not model the application's start-up).
	want := []Job{
		{ID: "pr/app-1", ModelJob: "pr", SubmitS: 0, ObservedS: 15, Phases: []Phase{
			{Task: "stage 0: s0", Tasks: 2, RuntimeS: 5, MemoryBytes: 4 << 30, Cores: 2, ModelSource: "default"},
			{Task: "stage 1: s1", Tasks: 1, RuntimeS: 9, MemoryBytes: 4 << 30, Cores: 2, ModelSource: "default"},
			// stage 1 ended at 14 s, stage 0 at 11 s: wait for stage 1.
			{Task: "stage 2: s2", Tasks: 2, RuntimeS: 4, MemoryBytes: 4 << 30, Cores: 2, After: "stage 1: s1", ModelSource: "default"}}},
		{ID: "wc/job_1", ModelJob: "wc", SubmitS: 15, ObservedS: 95, Phases: []Phase{
			{Task: "map", Tasks: 3, RuntimeS: 14, MemoryBytes: 2 << 30, Cores: 1, ModelSource: "default"},
			{Task: "reduce", Tasks: 1, RuntimeS: 40, MemoryBytes: 2 << 30, Cores: 1, After: "map", ModelSource: "default"}}},
		{ID: "wc/job_2", ModelJob: "wc", SubmitS: 615, ObservedS: 12, Phases: []Phase{
			{Task: "map", Tasks: 2, RuntimeS: 10, MemoryBytes: 2 << 30, Cores: 1, ModelSource: "default"}}},
	}
	if !reflect.DeepEqual(jobs, want) {
		t.Errorf("jobs\n%+v\nwant\n%+v", jobs, want)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "1 failed or killed task attempt") {
		t.Errorf("warnings %q", warns)
	}
	// The workload simulates: the reduce starts after the last map.
	opts := DefaultOptions()
	opts.Nodes, opts.NodeMemoryBytes = []int{1}, []int64{16 << 30}
	res, err := Run(context.Background(), Input{Jobs: jobs}, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range res.Jobs {
		if j.Job == "wc/job_1" && j.Policy == YARN && math.Abs(j.JCTS-(14+40)) > 1e-9 {
			t.Errorf("wc/job_1 under yarn: JCT %g, want 54 (three parallel 14 s maps, then the 40 s reduce)", j.JCTS)
		}
	}
	// The recurring job's models apply to each of its runs (a bare
	// model: only its ideal memory is read here).
	models := []*elasticity.Model{{Job: "wc", Task: "map", Framework: "mapreduce", Slots: 1, IdealMemoryBytes: 1 << 30}}
	ResolveModels(jobs, models, nil)
	for _, j := range jobs[1:] {
		if p := j.Phases[0]; p.ModelSource != "dataset" || p.MemoryBytes != 1<<30 {
			t.Errorf("%s map: model %s, memory %d; want the dataset model of wc/map and its 1 GiB", j.ID, p.ModelSource, p.MemoryBytes)
		}
	}
}

// Without start times (datasets ingested before they were kept) or stage
// parents, the workload still builds and says what it assumed.
func TestFromHistoryOldDataset(t *testing.T) {
	a := jh("wc", "job_1", "map", 0, 0, 0, 10, 0)
	a.StartMs = 0
	b := sp("app-1", 1, 0, "[]", 0, 4)
	b.StartMs = dataset.NoTime
	b.Config = `{"stage_attempt_index":"1.0"}`
	ds := historyDataset(t, []dataset.ProfRun{a, b}, nil)
	jobs, info, warns, err := FromHistory(context.Background(), ds)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 || jobs[0].SubmitS != 0 || jobs[1].SubmitS != 0 || info.FirstSubmitMs != dataset.NoTime {
		t.Fatalf("jobs %+v info %+v", jobs, info)
	}
	// The Spark run is named after its log, having no app id.
	if jobs[0].ID != "pr/app-1" && jobs[1].ID != "pr/app-1" {
		t.Errorf("ids %s, %s: want the Spark run named after its log", jobs[0].ID, jobs[1].ID)
	}
	text := strings.Join(warns, "\n")
	for _, w := range []string{"2 run(s) have no start time", "1 Spark stage(s) have no recorded parents"} {
		if !strings.Contains(text, w) {
			t.Errorf("%q not in warnings %q", w, text)
		}
	}
}

// A dataset without task attempts gives no workload, and Load says what
// to ingest.
func TestLoadNoHistory(t *testing.T) {
	ds := historyDataset(t, nil, []dataset.Run{{Job: "etl", Run: "r", SubmitMs: t0, StartMs: t0, EndMs: t0 + 1, Source: "yarn-rm"}})
	_, err := Load(context.Background(), ds, DefaultOptions())
	if !errors.Is(err, ErrNoWorkload) || !strings.Contains(err.Error(), "jhist") {
		t.Errorf("err %v, want ErrNoWorkload naming what to ingest", err)
	}
}

// A Spark application of two jobs, one after the other: job 0 (stage 0,
// tasks of 4, 4 and 10 s launched at 0 s) and job 1 (stage 1, launched at
// 13 s, submitted after job 0 ended). Stage 1 has no parent that ran, so
// it waits for job 0 through the driver's 3 s gap (13 s − stage 0's last
// end at 10 s); stage 0's 10 s task, more than twice the 4 s of the
// others, is a phase of its own, the one that ended last.
func TestFromHistorySparkJobs(t *testing.T) {
	task := func(stage, index int, job int, startS, rt float64) dataset.ProfRun {
		r := sp("app-2", stage, index, "[]", startS, rt)
		r.TaskMemoryBytes = 1 << 30
		r.Config = fmt.Sprintf(`{"stage_attempt_index":"%d.%d","app_id":"app-2","parent_stages":[],"spark.task.cpus":"2","spark_job":%d,"job_submit_ms":%d,"job_end_ms":%d}`,
			stage, index, job, t0+int64(job)*12000, t0+int64(job)*12000+11000)
		return r
	}
	ds := historyDataset(t, []dataset.ProfRun{task(0, 0, 0, 0, 4), task(0, 1, 0, 0, 4), task(0, 2, 0, 0, 10), task(1, 0, 1, 13, 2)}, nil)
	jobs, _, warns, err := FromHistory(context.Background(), ds)
	if err != nil {
		t.Fatal(err)
	}
	want := []Phase{
		{Task: "stage 0: s0 (longest task)", Tasks: 1, RuntimeS: 10, MemoryBytes: 1 << 30, Cores: 2, ModelSource: "default"},
		{Task: "stage 0: s0", Tasks: 2, RuntimeS: 4, MemoryBytes: 1 << 30, Cores: 2, ModelSource: "default"},
		{Task: "stage 1: s1", Tasks: 1, RuntimeS: 2, MemoryBytes: 1 << 30, Cores: 2, After: "driver before Spark job 1", ModelSource: "default"},
		{Task: "driver before Spark job 1", Tasks: 1, RuntimeS: 3, MemoryBytes: 1, Cores: 1, After: "stage 0: s0 (longest task)", ModelSource: "none", modelSet: true},
	}
	if len(jobs) != 1 || !reflect.DeepEqual(jobs[0].Phases, want) || jobs[0].ObservedS != 15 {
		t.Fatalf("jobs %+v\nwant phases %+v", jobs, want)
	}
	if len(warns) != 2 {
		t.Errorf("warnings %q", warns)
	}
	// Replayed: 10 s, then 3 s, then 2 s: the observed 15 s.
	opts := DefaultOptions()
	opts.Nodes, opts.NodeMemoryBytes, opts.NodeCores = []int{2}, []int64{4 << 30}, 4
	res, err := Run(context.Background(), Input{Jobs: jobs}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if j := res.Jobs[0]; math.Abs(j.JCTS-15) > 1e-9 {
		t.Errorf("JCT %v, want 15", j.JCTS)
	}
}
