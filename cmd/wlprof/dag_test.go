package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// wlprof dag on the Alibaba batch_task fixture: the table (golden), the
// JSON contract, and --job for a job that is not there.
func TestDAGCommand(t *testing.T) {
	ds := filepath.Join(t.TempDir(), "ds")
	_, stderr, code := wlprof(t, "ingest", "-d", ds, "alibaba2018-batch-task", "../../testdata/dag/batch_task_schema_sample.csv")
	if code != 3 || !strings.Contains(stderr, "waits for itself") {
		t.Fatalf("ingest: exit %d (want 3: three rejects): %s", code, stderr)
	}
	out, stderr, code := wlprof(t, "dag", "-d", ds)
	if code != 0 {
		t.Fatalf("dag: exit %d: %s", code, stderr)
	}
	golden(t, "dag-alibaba.txt", out)
	out, _, code = wlprof(t, "dag", "-d", ds, "--job", "j_1", "-o", "json")
	var doc struct {
		Version int    `json:"version"`
		Rule    string `json:"rule"`
		Jobs    []struct {
			Job           string `json:"job"`
			MaxContainers int64  `json:"max_containers"`
			MaxLevel      int    `json:"max_level"`
			Levels        []struct {
				Stages []string `json:"stages"`
				Tasks  int64    `json:"tasks"`
			} `json:"levels"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 0 {
		t.Fatalf("exit %d, %v: %s", code, err, out)
	}
	if doc.Version != 1 || len(doc.Jobs) != 1 || doc.Jobs[0].MaxContainers != 10 || len(doc.Jobs[0].Levels) != 4 || doc.Rule == "" {
		t.Errorf("document %s", out)
	}
	_, stderr, code = wlprof(t, "dag", "-d", ds, "--job", "j_7")
	if code != 1 || !strings.Contains(stderr, `closest: "j_1"`) {
		t.Errorf("unknown job: exit %d: %s", code, stderr)
	}
	// With batch_instance: j_1's observed peak of instances running at
	// once, 2 (ins_1 and ins_2 over [100, 130); dag's
	// TestStageAlibabaInstances counts it), beside its level maximum.
	if _, stderr, code := wlprof(t, "ingest", "-d", ds, "alibaba2018-batch-instance", "../../testdata/dag/batch_instance_schema_sample.csv"); code != 3 {
		t.Fatalf("ingest batch_instance: exit %d (want 3: three rejects): %s", code, stderr)
	}
	out, _, code = wlprof(t, "dag", "-d", ds, "--job", "j_1", "-o", "csv")
	if code != 0 || !strings.HasSuffix(strings.Split(out, "\n")[0], ",observed_peak_instances,observed_instances") || !strings.HasSuffix(strings.Split(out, "\n")[1], ",2,5") {
		t.Errorf("dag -o csv with instances: exit %d:\n%s", code, out)
	}
}

// wlprof dag on a real multi-job Spark log: each job's stages after the
// jobs that ended before it (15 groups of 20 jobs; the counts are in
// dag's TestSparkJobsInSequence), its maximum beside the task slots the
// run had.
func TestDAGSparkJobs(t *testing.T) {
	ds := filepath.Join(t.TempDir(), "ds")
	mustRun(t, "ingest", "-d", ds, "spark-eventlog", "../../testdata/jobs/spark-real/rapids_eventlog_4nodes_8cores_dynamic_alloc.zstd")
	out := mustRun(t, "dag", "-d", ds)
	golden(t, "dag-spark-jobs.txt", out)
}
