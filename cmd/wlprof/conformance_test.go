package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/pipeline"
)

// conformanceInputs are every real fixture that reads as runs or
// provenance: logs and histories written by clusters (or by the tools'
// maintainers from their clusters), none written by this project.
// Attribution in testdata/jobs/SOURCES.md and testdata/provenance/SOURCES.md.
// The Alibaba and Google files written from those traces' schemas are
// not real rows and are left out; their own tests count them.
var conformanceInputs = []string{
	"../../testdata/jobs/spark-real",
	"../../testdata/jobs/spark",
	"../../testdata/jobs/jhist-real",
	"../../testdata/provenance/marquez/docker_metadata.json",
	"../../testdata/provenance/marquez/api_tests",
	"../../testdata/provenance/openlineage",
	"../../testdata/provenance/hadoop_dynamometer_audit_trace_direct_audit0.log",
	"../../testdata/provenance/ibm_cdh713_hdfs-audit.log",
}

// TestConformanceRealFixtures is the quality bar of the real inputs: one
// `wlprof run` over every real fixture, then, per fixture, the numbers a
// person counted by hand in the file itself, without wlprof. How each was
// counted is said beside it; the Spark logs were decompressed with
// `zstdcat` / `gzip -dc` and read with a few lines of Python (json.loads
// per line), the .jhist files likewise (one JSON event per line after the
// Avro schema line), the Hadoop 1 history with grep.
func TestConformanceRealFixtures(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	stdout, stderr, code := wlprof(t, append([]string{"run", "--out", out, "-o", "json", "-q"}, conformanceInputs...)...)
	// Exit 3: records were rejected (the cut hraven history's one).
	if code != 3 {
		t.Fatalf("wlprof run: exit %d, want 3 (one reject): %s", code, stderr)
	}
	var rep pipeline.RunReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("bad JSON (%v): %s", err, stdout)
	}
	if len(rep.Undetected) != 0 {
		t.Errorf("undetected inputs %+v: every real fixture has a reader", rep.Undetected)
	}
	if rep.Report == nil {
		t.Errorf("no report written")
	} else if _, err := os.Stat(filepath.Join(out, "report", "index.json")); err != nil {
		t.Error(err)
	}

	// Per file: accepted and rejected records. Only the hraven history cut
	// after MAP_ATTEMPT_STARTED rejects anything: its one map attempt
	// started (grep -n MAP_ATTEMPT_STARTED: line 15 of 16) and never
	// finished (no *_ATTEMPT_FINISHED, FAILED or KILLED line).
	accepted := map[string]int64{}
	for _, f := range rep.Files {
		name := filepath.Base(f.Path)
		accepted[name] = f.Accepted
		wantRejects := int64(0)
		if strings.HasPrefix(name, "job_1410289045532_259974") {
			wantRejects = 1
		}
		if f.Rejected != wantRejects {
			t.Errorf("%s: %d rejects, want %d", f.Path, f.Rejected, wantRejects)
		}
	}
	if rep.Rejected != 1 {
		t.Errorf("%d rejects in all, want 1", rep.Rejected)
	}
	rejOut, _, _ := wlprof(t, "rejects", "-d", filepath.Join(out, "dataset"))
	if !strings.Contains(rejOut, "job_1410289045532_259974") || !strings.Contains(rejOut, "attempt_1410289045532_259974_m_000000_0 started but has no finish event") ||
		!strings.Contains(rejOut, ".jhist:15") {
		t.Errorf("wlprof rejects does not name the cut history's unfinished attempt and its line 15:\n%s", rejOut)
	}
	// Every other OpenLineage file is one event (python: json.load gives
	// one object per file): 13 in Marquez's api_tests, 11 under
	// testdata/provenance/openlineage.
	var olFiles int
	for _, f := range rep.Files {
		if strings.Contains(f.Path, "/api_tests/") || strings.Contains(f.Path, "/provenance/openlineage/") {
			olFiles++
			if f.Accepted != 1 {
				t.Errorf("%s: %d accepted, want its one event", f.Path, f.Accepted)
			}
		}
	}
	if olFiles != 13+11 {
		t.Errorf("%d OpenLineage event files read, want 24", olFiles)
	}
	for name, want := range map[string]int64{
		// Marquez's demo: 26 events (python: len(json.load(f)), 13 START
		// and 13 COMPLETE).
		"docker_metadata.json": 26,
		// Dynamometer audit log: 6 lines (wc -l).
		"hadoop_dynamometer_audit_trace_direct_audit0.log": 6,
		// CDH 7.1.3 audit log: 100 lines (wc -l), every one a record.
		"ibm_cdh713_hdfs-audit.log": 100,
		// Task attempts: grep -c '"type":"MAP_ATTEMPT_STARTED"' and
		// REDUCE_ATTEMPT_STARTED: 10 + 1 in hraven's Sleep job, 1 map in
		// the ERROR job; the Hadoop 1 Sleep job has one MAP and one REDUCE
		// MapAttempt/ReduceAttempt (SETUP and CLEANUP are the framework's).
		"job_1329348432655_0001-1329348443227-user-Sleep+job-1329348468601-10-1-SUCCEEDED-default.jhist":             11,
		"job_1300307629410_0001-1393307687476-user1-Example+job-1393307723835-0-0-ERROR-default-1393307693920.jhist": 1,
		"job_201311192236_3583_1386370578196_user1_Sleep+job":                                                        2,
	} {
		if accepted[name] != want {
			t.Errorf("%s: %d accepted, want %d", name, accepted[name], want)
		}
	}

	// rapids_multiple_attempts: each log's SparkListenerApplicationStart
	// has App ID application_1724877841851_0016 and App Attempt ID 1, 2, 3
	// and 4 (zstdcat | grep ApplicationStart): one run of four attempts.
	attemptLogs := 0
	for _, f := range rep.Files {
		if strings.Contains(f.Path, "rapids_multiple_attempts/") {
			attemptLogs++
		}
		if strings.Contains(f.Path, "rapids_multiple_attempts/") && !strings.Contains(strings.Join(f.Notes, "\n"), "one run of attempts 1, 2, 3, 4") {
			t.Errorf("%s: notes %q do not say it is one run of attempts 1–4", f.Path, f.Notes)
		}
	}
	if attemptLogs != 4 {
		t.Errorf("%d logs of rapids_multiple_attempts read, want 4", attemptLogs)
	}

	ctx := context.Background()
	ds, err := dataset.Open(filepath.Join(out, "dataset"))
	if err != nil {
		t.Fatal(err)
	}

	// Runs: one per application or run id; the runs table may hold a run
	// in several rows (an OpenLineage START and its COMPLETE, a rolled log
	// read twice), so they are counted distinct. rapids_multiple_attempts'
	// four logs are App Attempt ID 1..4 of application_1724877841851_0016:
	// one run. rapids_db_sim_eventlog is eventlog_v2_local-1623876083964
	// laid out as Databricks rolls it (same App ID): one run. The .jhist
	// histories are profiling runs (their attempts), checked below through
	// wlprof simulate.
	runs, err := dataset.ReadAll(ctx, ds, dataset.RunsTable)
	if err != nil {
		t.Fatal(err)
	}
	bySource := map[string]map[string]bool{}
	demoRuns := map[string]bool{}
	var menusStart, menusEnd int64 = math.MaxInt64, math.MinInt64
	for _, r := range runs {
		if bySource[r.Source] == nil {
			bySource[r.Source] = map[string]bool{}
		}
		bySource[r.Source][r.Run] = true
		if strings.HasPrefix(r.Job, "food_delivery/") {
			demoRuns[r.Run] = true
		}
		if r.Job == "food_delivery/etl_menus" {
			if r.StartMs != dataset.NoTime {
				menusStart = min(menusStart, r.StartMs)
			}
			if r.EndMs != dataset.NoTime {
				menusEnd = max(menusEnd, r.EndMs)
			}
		}
	}
	ids := func(src string) string {
		var s []string
		for id := range bySource[src] {
			s = append(s, id)
		}
		sort.Strings(s)
		return strings.Join(s, " ")
	}
	// "App ID" of each log's SparkListenerApplicationStart.
	if got, want := ids("spark-eventlog"), "application_1457600942802_0093 application_1603128018386_7846 application_1707709865217_0493 application_1724877841851_0016 local-1532512550423 local-1623876083964"; got != want {
		t.Errorf("Spark runs: %s\nwant %s", got, want)
	}
	// Marquez's demo: 13 distinct run.runId (python: len({e["run"]["runId"] for e in events})).
	if n := len(demoRuns); n != 13 {
		t.Errorf("Marquez demo runs: %d, want 13", n)
	}
	// etl_menus: START eventTime 2020-02-22T22:42:42Z, COMPLETE 22:45:52Z: 190 s.
	if menusStart != 1582411362000 || menusEnd != 1582411552000 {
		t.Errorf("etl_menus runs %d → %d, want 1582411362000 → 1582411552000 (190 s)", menusStart, menusEnd)
	}

	// Provenance. Marquez's demo (jobs food_delivery/…) declares 14 inputs
	// and 13 outputs over its START events (python:
	// sum(len(e["inputs"])), sum(len(e["outputs"]))), the COMPLETEs none.
	// OpenLineage's apple chain (grandmas.kitchen/…, 8 COMPLETE events):
	// 1+2+2+1+1+1+3+1 = 12 inputs and 8 outputs. The audit logs (no job),
	// `grep -o 'cmd=[a-zA-Z]*' | sort | uniq -c` over both: Dynamometer's
	// create 1, rename 1, mkdirs 4; CDH's create 8, rename 10, delete 4,
	// open 1, listStatus 33, getfileinfo 11, setPermission 21, setTimes 10,
	// listCachePools 1, listCacheDirectives 1.
	prov, err := dataset.ReadAll(ctx, ds, dataset.ProvenanceTable)
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]int{}
	for _, p := range prov {
		switch {
		case strings.HasPrefix(p.Job, "food_delivery/"):
			ops["marquez demo "+p.Cmd+"/"+p.Op]++
		case strings.HasPrefix(p.Job, "grandmas.kitchen/"):
			ops["apples "+p.Op]++
		case p.Job == "" && p.Attribution == "":
			ops["audit "+p.Cmd+"/"+p.Op]++
		}
	}
	for k, want := range map[string]int{
		"marquez demo START/read": 14, "marquez demo COMPLETE/write": 13,
		"apples read": 12, "apples write": 8,
		"audit create/write": 1 + 8, "audit rename/rename": 1 + 10, "audit mkdirs/meta": 4,
		"audit delete/delete": 4, "audit open/read": 1, "audit listStatus/meta": 33, "audit getfileinfo/meta": 11,
		"audit setPermission/meta": 21, "audit setTimes/meta": 10, "audit listCachePools/meta": 1, "audit listCacheDirectives/meta": 1,
	} {
		if ops[k] != want {
			t.Errorf("provenance %s: %d rows, want %d (all: %v)", k, ops[k], want, ops)
		}
	}
	if n := ops["marquez demo START/read"] + ops["marquez demo COMPLETE/write"]; n != 27 {
		t.Errorf("Marquez's demo: %d provenance rows, want 14 + 13: %v", n, ops)
	}

	// Observed JCT: the run's last task attempt finish − its first attempt
	// launch, from the log's own timestamps (Spark: TaskEnd's "Task
	// Info" "Launch Time" and "Finish Time"; .jhist: ATTEMPT_STARTED
	// startTime and ATTEMPT_FINISHED/FAILED finishTime; Hadoop 1:
	// START_TIME and FINISH_TIME of the MAP and REDUCE attempts).
	simOut, stderr, code := wlprof(t, "simulate", "-d", filepath.Join(out, "dataset"), "--nodes", "10", "--node-memory", "64G", "--node-cores", "16", "-o", "json")
	if code != 0 {
		t.Fatalf("wlprof simulate: exit %d: %s", code, stderr)
	}
	var sim struct {
		Jobs []struct {
			Job       string   `json:"job"`
			Policy    string   `json:"policy"`
			Tasks     int      `json:"tasks"`
			ObservedS *float64 `json:"observed_jct_s"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(simOut), &sim); err != nil {
		t.Fatalf("bad simulate JSON (%v): %s", err, simOut)
	}
	observed := map[string]float64{}
	tasks := map[string]int{}
	for _, j := range sim.Jobs {
		if j.Policy == "yarn" && j.ObservedS != nil {
			run := j.Job[strings.LastIndexByte(j.Job, '/')+1:]
			observed[run], tasks[run] = *j.ObservedS, j.Tasks
		}
	}
	// The MapReduce jobs replay their successful attempts: hraven's Sleep
	// job 10 MAP_ATTEMPT_FINISHED + 1 REDUCE_ATTEMPT_FINISHED; the Hadoop 1
	// one a MAP and a REDUCE attempt with TASK_STATUS="SUCCESS". The ERROR
	// job's one attempt failed (MAP_ATTEMPT_FAILED): nothing to replay.
	if tasks["job_1329348432655_0001"] != 11 || tasks["job_201311192236_3583"] != 2 {
		t.Errorf("replayed MapReduce tasks: %v, want 11 and 2", tasks)
	}
	if _, ok := observed["job_1300307629410_0001"]; ok {
		t.Errorf("the ERROR job, whose one attempt failed, was replayed")
	}
	for run, want := range map[string]float64{
		// rapids_tasks_executors_fail: 1623285410168 → 1623285426843.
		"application_1603128018386_7846": 16.675,
		// rapids 4nodes_8cores_dynamic_alloc: 1727966096099 → 1727966166064.
		"application_1707709865217_0493": 69.965,
		// rapids_multiple_attempts, all four attempts: 1724884541155 → 1724884713966.
		"application_1724877841851_0016": 172.811,
		// eventlog_v2_local (and its Databricks copy): 1623876092910 → 1623876212115.
		"local-1623876083964": 119.205,
		// dr-elephant's PythonPi: 1458126398712 → 1458126409598.
		"application_1457600942802_0093": 10.886,
		// sparklens' Spark shell: 1532512561948 → 1532512563460.
		"local-1532512550423": 1.512,
		// hraven's Sleep job: 1329348450485 → 1329348468600.
		"job_1329348432655_0001": 18.115,
		// Hadoop 1 Sleep job: MAP START_TIME 1386370582498 → REDUCE FINISH_TIME 1386370592528.
		"job_201311192236_3583": 10.03,
	} {
		got, ok := observed[run]
		if !ok {
			t.Errorf("%s: no observed JCT in wlprof simulate (jobs: %v)", run, observed)
			continue
		}
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("%s: observed JCT %v s, want the log's %v s", run, got, want)
		}
	}

	// DAGs. Tasks: the sum of "Number of Tasks" over the log's
	// SparkListenerStageCompleted events (4nodes: 235, the TaskEnd count
	// too; multiple_attempts: 4 × 107 = 428; eventlog_v2_local: 2801;
	// tasks_executors_fail: 8550 over its 135 completed stages, fewer than
	// its 8630 TaskEnds, which count retries and resubmissions). The
	// 4nodes log's most containers at once: 48, its stages 27 and 28
	// (24 tasks each, one Spark job's two stages with no edge between
	// them), at breadth-first level 9, counted by hand in
	// dag/TestSparkJobsInSequence.
	dagOut := mustRun(t, "dag", "-d", filepath.Join(out, "dataset"), "-o", "json")
	var dg struct {
		Jobs []struct {
			Run           string `json:"run"`
			Stages        int    `json:"stages"`
			Tasks         int    `json:"tasks"`
			MaxContainers int    `json:"max_containers"`
			MaxLevel      int    `json:"max_level"`
			SparkJobs     int    `json:"spark_jobs"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(dagOut), &dg); err != nil {
		t.Fatalf("bad dag JSON (%v): %s", err, dagOut)
	}
	type dagWant struct{ stages, tasks, sparkJobs, maxContainers, maxLevel int }
	got := map[string]dagWant{}
	for _, j := range dg.Jobs {
		got[j.Run] = dagWant{j.Stages, j.Tasks, j.SparkJobs, j.MaxContainers, j.MaxLevel}
	}
	for run, want := range map[string]dagWant{
		// 20 SparkListenerJobStart, 20 StageCompleted.
		"application_1707709865217_0493": {20, 235, 20, 48, 9},
		// 75 JobStart, 135 StageCompleted.
		"application_1603128018386_7846": {135, 8550, 75, -1, -1},
		// 20 JobStart (five per attempt), 20 StageCompleted.
		"application_1724877841851_0016": {20, 428, 20, -1, -1},
		// 1 JobStart, 4 StageCompleted.
		"local-1623876083964": {4, 2801, 1, -1, -1},
	} {
		g, ok := got[run]
		if !ok {
			t.Errorf("%s: no DAG in wlprof dag", run)
			continue
		}
		if want.maxContainers < 0 {
			g.maxContainers, g.maxLevel = -1, -1
		}
		if g != want {
			t.Errorf("%s: dag {stages tasks spark_jobs max_containers max_level} = %v, want %v", run, g, want)
		}
	}
}
