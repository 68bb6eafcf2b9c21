package main

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// The reservation export asks for the containers a Spark run held: the
// real 4nodes_8cores_dynamic_alloc log's executors have spark.executor.memory
// 20g and spark.executor.memoryOverhead 8g, so YARN allocated 28672 MB
// containers of 4 vcores (Total Cores 4), not the 20480 MB of the executor
// memory alone.
func TestExportSparkContainerMemory(t *testing.T) {
	ds := filepath.Join(t.TempDir(), "ds")
	mustRun(t, "ingest", "-d", ds, "spark-eventlog", "../../testdata/jobs/spark-real/rapids_eventlog_4nodes_8cores_dynamic_alloc.zstd")
	out := mustRun(t, "export", "yarn-reservation", "-d", ds, "--job", "Spark shell", "--queue", "default", "--reservation-id", "reservation_1727966000000_0001", "--min-runs", "1", "--arrival", "2024-10-03T14:00:00Z")
	var doc struct {
		Def struct {
			Requests struct {
				Request []struct {
					Capability struct {
						Memory int64 `json:"memory"`
						VCores int64 `json:"vCores"`
					} `json:"capability"`
				} `json:"reservation-request"`
			} `json:"reservation-requests"`
		} `json:"reservation-definition"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Def.Requests.Request) == 0 {
		t.Fatalf("%v: %s", err, out)
	}
	for _, r := range doc.Def.Requests.Request {
		if r.Capability.Memory != 28672 || r.Capability.VCores != 4 {
			t.Fatalf("capability %+v, want 28672 MB and 4 vcores", r.Capability)
		}
	}
}
