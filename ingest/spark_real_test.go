package ingest

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The real Spark logs of NVIDIA/spark-rapids-tools' test resources (see
// testdata/jobs/SOURCES.md).
const sparkRealDir = "../testdata/jobs/spark-real/"

// TestSparkTaskEndsWithoutMetrics: Spark writes no "Task Metrics" for
// Resubmitted, FetchFailed and ExecutorLostFailure ends. In the real log of
// an application that lost executors (8,630 SparkListenerTaskEnd lines:
// Success 8,577, Resubmitted 50, FetchFailed 2, ExecutorLostFailure 1,
// counted with grep on the decompressed log) every end is a task attempt
// and none is a reject; the failed ones keep their launch-to-finish time.
func TestSparkTaskEndsWithoutMetrics(t *testing.T) {
	o := ingestJobs(t, "spark-eventlog", []string{sparkRealDir + "rapids_tasks_executors_fail_compressed_eventlog.zstd"}, DefaultOptions())
	if len(o.rejects) != 0 {
		t.Fatalf("%d rejects, first %+v", len(o.rejects), o.rejects[0])
	}
	outcomes := map[string]int{}
	noMetrics := 0
	for _, r := range o.prof {
		outcomes[r.Outcome]++
		if strings.Contains(r.Config, `"task_metrics":"none"`) {
			noMetrics++
			if r.ExitCode == 0 || !(r.RuntimeS > 0) {
				t.Errorf("%s: exit %d runtime %v", r.Config, r.ExitCode, r.RuntimeS)
			}
		}
	}
	if len(o.prof) != 8630 || noMetrics != 53 || outcomes["ok"] != 8577 || outcomes["resubmitted"] != 50 || outcomes["failed"] != 3 {
		t.Errorf("%d attempts, %d without metrics, outcomes %v", len(o.prof), noMetrics, outcomes)
	}
	// Line 17600, the first Resubmitted end: task 8409 (stage 238, index
	// 51) on executor 2, launched 1623285426511, finished 1623285426516,
	// the same Task Info as its Success end on line 17325.
	for _, r := range o.prof {
		if strings.Contains(r.Config, `"task_id":8409,`) && r.Outcome == "resubmitted" {
			if r.StartMs != 1623285426511 || r.RuntimeS != 0.005 || !strings.Contains(r.Config, `"reason":"Resubmitted"`) {
				t.Errorf("task 8409 resubmitted: %+v", r)
			}
			return
		}
	}
	t.Error("no resubmitted attempt of task 8409")
}

// copyDir copies the regular files of src into a new folder dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, dst, e.Name(), b)
	}
}

// TestSparkRolledByContents: a rolled log is known by its parts, whatever
// its folder is called. The real rolled log eventlog_v2_local-1623876083964
// (appstatus_, events_1_ and events_2_ parts) copied under another name,
// and the same application in Databricks' layout (eventlog-2021-06-15--15-00.gz
// rolled over, eventlog the current part, which holds the
// SparkListenerApplicationEnd), each give the one finished run that
// Spark's own folder gives, with no reject.
func TestSparkRolledByContents(t *testing.T) {
	ref := ingestJobs(t, "auto", []string{sparkRealDir + "eventlog_v2_local-1623876083964"}, DefaultOptions())
	if len(ref.rejects) != 0 || len(ref.runs) != 1 || ref.runs[0].Status != "FINISHED" {
		t.Fatalf("Spark's folder: rejects %v runs %+v", ref.rejects, ref.runs)
	}
	renamed := filepath.Join(t.TempDir(), "app1")
	copyDir(t, sparkRealDir+"eventlog_v2_local-1623876083964", renamed)
	for _, path := range []string{renamed, sparkRealDir + "rapids_db_sim_eventlog"} {
		o := ingestJobs(t, "auto", []string{path}, DefaultOptions())
		if len(o.rejects) != 0 {
			t.Errorf("%s: %d rejects, first %+v", path, len(o.rejects), o.rejects[0])
		}
		if !reflect.DeepEqual(o.runs, ref.runs) || !reflect.DeepEqual(o.sky, ref.sky) || len(o.prof) != len(ref.prof) {
			t.Errorf("%s: runs %+v (want %+v), %d skyline samples (want %d), %d attempts (want %d)",
				path, o.runs, ref.runs, len(o.sky), len(ref.sky), len(o.prof), len(ref.prof))
		}
	}
}

// TestSparkTaskAndContainerMemory: a task's memory is its executor's
// share, a container's memory the executor's plus its overhead as YARN
// allocates it. Values from the real logs' SparkListenerEnvironmentUpdate:
//   - 4nodes_8cores_dynamic_alloc: spark.executor.memory 20g,
//     spark.executor.memoryOverhead 8g, spark.executor.cores 4 (every
//     ExecutorAdded says Total Cores 4): a task 20 GiB / 4 = 5 GiB, a
//     container 28 GiB (a multiple of YARN's 1 GiB minimum already);
//   - multiple_attempts: spark.executor.memory 9397M, spark.executor.cores
//     3, no overhead set: a task 9397 MiB / 3, a container 9397 MiB +
//     max(384, ⌊0.1 × 9397⌋ = 939) MiB = 10336 MiB, rounded up to 11 GiB.
//
// The skyline's memory per executor is the container's.
func TestSparkTaskAndContainerMemory(t *testing.T) {
	for _, c := range []struct {
		path                  string
		exec, task, container int64
	}{
		{"rapids_eventlog_4nodes_8cores_dynamic_alloc.zstd", 20 << 30, 5 << 30, 28 << 30},
		{"rapids_multiple_attempts/attempt_1_eventlog.zstd", 9397 << 20, (9397 << 20) / 3, 11 << 30},
	} {
		o := ingestJobs(t, "spark-eventlog", []string{sparkRealDir + c.path}, DefaultOptions())
		if len(o.prof) == 0 || len(o.rejects) != 0 {
			t.Fatalf("%s: %d attempts, rejects %v", c.path, len(o.prof), o.rejects)
		}
		for _, r := range o.prof {
			if r.MemoryBytes != c.exec || r.TaskMemoryBytes != c.task || r.ContainerMemoryBytes != c.container {
				t.Fatalf("%s: memory %d task %d container %d, want %d %d %d", c.path, r.MemoryBytes, r.TaskMemoryBytes, r.ContainerMemoryBytes, c.exec, c.task, c.container)
			}
		}
		for _, s := range o.sky {
			if s.Containers > 0 && s.MemoryBytes != int64(s.Containers)*c.container {
				t.Fatalf("%s: skyline sample %+v: want %d bytes a container", c.path, s, c.container)
			}
		}
	}
}

// TestSparkApplicationAttempts: the four real logs of one YARN application
// (App ID application_1724877841851_0016, App Attempt ID 1 to 4, 107
// SparkListenerTaskEnd lines each) are one run, not copies: it starts with
// attempt 1 (ApplicationStart Timestamp 1724884534755), ends with attempt
// 4 (ApplicationEnd 1724884717231, FINISHED), and keeps all 428 task
// attempts, 107 marked with each app_attempt.
func TestSparkApplicationAttempts(t *testing.T) {
	o := ingestJobs(t, "auto", []string{sparkRealDir + "rapids_multiple_attempts"}, DefaultOptions())
	if len(o.rejects) != 0 {
		t.Fatalf("rejects %v", o.rejects)
	}
	if len(o.runs) != 1 {
		t.Fatalf("%d runs, want 1: %+v", len(o.runs), o.runs)
	}
	r := o.runs[0]
	if r.Run != "application_1724877841851_0016" || r.StartMs != 1724884534755 || r.EndMs != 1724884717231 || r.Status != "FINISHED" {
		t.Errorf("run %+v", r)
	}
	per := map[string]int{}
	for _, p := range o.prof {
		for _, a := range []string{"1", "2", "3", "4"} {
			if strings.Contains(p.Config, `"app_attempt":"`+a+`"`) {
				per[a]++
			}
		}
	}
	if len(o.prof) != 428 || per["1"] != 107 || per["2"] != 107 || per["3"] != 107 || per["4"] != 107 {
		t.Errorf("%d task attempts, per application attempt %v", len(o.prof), per)
	}
	for _, f := range o.res.Files {
		if hasNoteLike(f.Notes, "written twice") || !hasNoteLike(f.Notes, "one run of attempts 1, 2, 3, 4") {
			t.Errorf("%s: notes %q", f.Path, f.Notes)
		}
	}
	// The skyline holds every attempt's executors at their instants, and
	// none between attempts: it is 0 when attempt 1 ended and again when
	// attempt 4 began (+138.819 s after attempt 1's start).
	sky := o.skyline(r.Job, r.Run)
	last := sky[len(sky)-1]
	if last.Containers != 0 || last.OffsetS != float64(1724884717231-1724884534755)/1000 {
		t.Errorf("skyline ends %+v", last)
	}
	at := func(off float64) float64 {
		c := 0.0
		for _, s := range sky {
			if s.OffsetS <= off {
				c = s.Containers
			}
		}
		return c
	}
	if at(float64(1724884673574-1724884534755)/1000-0.001) != 0 {
		t.Errorf("executors held just before attempt 4 started: %v", at(138.818))
	}
}

// TestSparkAttemptReadTwice: an attempt's .inprogress copy beside its
// final log is one run, the finished one, whichever is read first.
func TestSparkAttemptReadTwice(t *testing.T) {
	o := ingestJobs(t, "spark-eventlog", []string{"../testdata/jobs/spark-variants/application_1457600942802_0093.lz4.inprogress", sparkDir + "drelephant_event_log_1.jsonl"}, DefaultOptions())
	if len(o.runs) != 1 || !reflect.DeepEqual(o.runs[0], drelephantRun) || !reflect.DeepEqual(o.sky, drelephantSky) {
		t.Errorf("runs %+v\nskyline %+v", o.runs, o.sky)
	}
	if !hasNoteLike(o.res.Files[0].Notes, "its run is written once, from there") {
		t.Errorf("notes %q", o.res.Files[0].Notes)
	}
}
