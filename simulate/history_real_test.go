package simulate

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/ingest"
)

// TestReplayRealRuns is the history replay's bar: a real run replayed
// on a cluster shaped like the one it ran on (one node per executor, of
// the executor's cores and its container's memory) lands within 30% of
// its observed JCT, for every real Spark log that says how it ran
// (executors, cores, memory). The observed JCT is the log's own: its last
// SparkListenerTaskEnd "Finish Time" − its first "Launch Time" (read with
// jq over the decompressed logs; the values below). The shapes are the
// logs' SparkListenerEnvironmentUpdate and ExecutorAdded events, the most
// executors alive at once counted in time order:
//
//   - tasks_executors_fail: 8 executors of Total Cores 4,
//     spark.executor.memory 10G (container 11 GiB), spark.task.cpus 4;
//     tasks 1623285410168 → 1623285426843: 16.675 s;
//   - 4nodes_8cores_dynamic_alloc: at most 7 executors of 4 cores, 20g +
//     8g overhead (28 GiB); 1727966096099 → 1727966166064: 69.965 s;
//   - multiple_attempts (four attempts, one run): at most 10 executors of
//     3 cores, 9397M (11 GiB); 1724884541155 → 1724884713966: 172.811 s;
//   - eventlog_v2_local-1623876083964 (local[*]): the driver, 12 cores,
//     spark.driver.memory 30g; 1623876092910 → 1623876212115: 119.205 s;
//   - drelephant (Spark 1.5 on YARN): 2 executors of 2 cores, 1g (2 GiB);
//     1458126398712 → 1458126409598: 10.886 s;
//   - sparklens (local): the driver, 4 cores, Spark's default 1g;
//     1532512561948 → 1532512563460: 1.512 s.
//
// And the one real MapReduce history that says how it ran, hraven's Sleep
// job (10 maps, 1 reduce): every attempt's hostname is localhost, its
// _conf.xml gives yarn.nodemanager.resource.memory-mb 8192 and 512 MB map
// and reduce containers, and Hadoop 0.23 scheduled memory only (16 cores
// leave memory the one limit); attempts 1329348450485 → 1329348468600:
// 18.115 s. (Only 7 maps ran at once in the log, which room for 15 does
// not explain: the replay runs all 10 in one wave, 29% short.) The other
// histories say nothing of their cluster (the ERROR job has one attempt,
// the cut one none that finished, the Hadoop 1 one a task tracker but not
// its slots).
func TestReplayRealRuns(t *testing.T) {
	const gib = 1 << 30
	for _, c := range []struct {
		path            string
		observedS       float64
		nodes, cores    int
		nodeMemoryBytes int64
	}{
		{"spark-real/rapids_tasks_executors_fail_compressed_eventlog.zstd", 16.675, 8, 4, 11 * gib},
		{"spark-real/rapids_eventlog_4nodes_8cores_dynamic_alloc.zstd", 69.965, 7, 4, 28 * gib},
		{"spark-real/rapids_multiple_attempts", 172.811, 10, 3, 11 * gib},
		{"spark-real/eventlog_v2_local-1623876083964", 119.205, 1, 12, 30 * gib},
		{"spark/drelephant_event_log_1.jsonl", 10.886, 2, 2, 2 * gib},
		{"spark/sparklens_local-1532512550423.jsonl", 1.512, 1, 4, 1 * gib},
		{"jhist-real/job_1329348432655_0001-1329348443227-user-Sleep+job-1329348468601-10-1-SUCCEEDED-default.jhist", 18.115, 1, 16, 8 * gib},
	} {
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			ctx := context.Background()
			paths := []string{"../testdata/jobs/" + c.path}
			if strings.HasSuffix(c.path, ".jhist") {
				paths = append(paths, "../testdata/jobs/jhist-real/job_1329348432655_0001_conf.xml")
			}
			res, ds, err := ingest.Into(ctx, filepath.Join(t.TempDir(), "ds"), "auto", paths, ingest.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if res.Rejected != 0 {
				t.Errorf("%d rejects", res.Rejected)
			}
			jobs, _, warns, err := FromHistory(ctx, ds)
			if err != nil {
				t.Fatal(err)
			}
			if len(jobs) != 1 {
				t.Fatalf("%d jobs, want 1", len(jobs))
			}
			if math.Abs(jobs[0].ObservedS-c.observedS) > 1e-9 {
				t.Errorf("observed JCT %v s, want the log's %v s", jobs[0].ObservedS, c.observedS)
			}
			// A task is charged its share of its executor, never more than
			// the container it ran in.
			for _, p := range jobs[0].Phases {
				if p.MemoryBytes > c.nodeMemoryBytes {
					t.Fatalf("phase %s charged %d bytes, more than its executor's container %d", p.Task, p.MemoryBytes, c.nodeMemoryBytes)
				}
			}
			opts := DefaultOptions()
			opts.Nodes, opts.NodeMemoryBytes, opts.NodeCores = []int{c.nodes}, []int64{c.nodeMemoryBytes}, c.cores
			out, err := Run(ctx, Input{Jobs: jobs}, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, j := range out.Jobs {
				if j.Policy != YARN {
					continue
				}
				if e := j.JCTS/c.observedS - 1; math.Abs(e) > 0.30 {
					t.Errorf("simulated JCT %.3f s, observed %.3f s: %+.0f%% (warnings %s)", j.JCTS, c.observedS, 100*e, strings.Join(warns, "; "))
				} else {
					t.Logf("simulated JCT %.3f s, observed %.3f s: %+.1f%%", j.JCTS, c.observedS, 100*e)
				}
				return
			}
			t.Errorf("the run was not simulated: %+v", out.Unschedulable)
		})
	}
}
