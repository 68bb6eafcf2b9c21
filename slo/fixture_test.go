package slo_test

import (
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

// TestWriteCLIFixture regenerates testdata/provenance/world/ (the bundled
// input of the wlprof slo golden tests and the demo) when
// WLPROF_WRITE_SLO_FIXTURE=1: a small world's audit log, and its runs as
// OpenLineage START/COMPLETE events (so that the repository alone can
// build a runs table before the yarn-rm format is merged).
func TestWriteCLIFixture(t *testing.T) {
	if os.Getenv("WLPROF_WRITE_SLO_FIXTURE") == "" {
		return
	}
	dir := filepath.Join("..", "testdata", "provenance", "world")
	os.MkdirAll(dir, 0o755)
	f, err := os.Create(filepath.Join(dir, "hdfs-audit.log.gz"))
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	nz := noiseLevels[0]
	nz.ChatterLines = 1
	w := genWorld(11, 9, 6, nz, time.UTC, zw)
	zw.Close()
	f.Close()
	rf, err := os.Create(filepath.Join(dir, "runs.openlineage.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	rz := gzip.NewWriter(rf)
	enc := json.NewEncoder(rz)
	ts := func(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z") }
	for _, r := range w.runs {
		run := map[string]any{"runId": r.Run, "facets": map[string]any{"nominalTime": map[string]any{"nominalStartTime": ts(r.SubmitMs)}}}
		job := map[string]any{"namespace": "", "name": r.Name}
		enc.Encode(map[string]any{"eventType": "START", "eventTime": ts(r.StartMs), "run": run, "job": job})
		if r.EndMs != dataset.NoTime {
			typ := "COMPLETE"
			if r.Status != "FINISHED" {
				typ = "FAIL"
			}
			enc.Encode(map[string]any{"eventType": typ, "eventTime": ts(r.EndMs), "run": map[string]any{"runId": r.Run}, "job": job})
		}
	}
	rz.Close()
	rf.Close()
	t.Logf("%d audit lines, %d runs", w.lines, len(w.runs))
}
