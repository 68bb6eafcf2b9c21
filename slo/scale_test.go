package slo_test

import (
	"context"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/ingest"
	"github.com/wlprof/wlprof/slo"
)

// The scale benchmark: 30 days of audit log for about 1,000 recurring jobs
// (the size), ingested and inferred in a child process so that
// its peak RSS is that of ingest + inference alone. WLPROF_SLO_BENCH_JOBS
// and WLPROF_SLO_BENCH_DAYS make it smaller for a quick pass. The log is
// written once per size under the system temp directory and reused.

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// benchNoise is the moderate level with the metadata chatter of a busy
// NameNode (getfileinfo and listStatus are most of a real audit log).
var benchNoise = func() noise { n := noiseLevels[1]; n.ChatterLines = 60; return n }()

type scaleMetrics struct {
	Lines        int64   `json:"lines"`
	Jobs         int     `json:"jobs"`
	Actionable   int     `json:"actionable"`
	IngestS      float64 `json:"ingest_s"`
	InferS       float64 `json:"infer_s"`
	PeakRSSBytes int64   `json:"peak_rss_bytes"`
	InputBytes   int64   `json:"input_bytes"`
	DatasetBytes int64   `json:"dataset_bytes"`
}

func scaleFiles(b *testing.B, groups, days int) (string, int64) {
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("wlprof-slo-bench-%d-%d", groups, days))
	logPath := filepath.Join(dir, "hdfs-audit.log")
	if st, err := os.Stat(filepath.Join(dir, "done")); err == nil && st.Size() > 0 {
		b, _ := os.ReadFile(filepath.Join(dir, "done"))
		n, _ := strconv.ParseInt(string(b), 10, 64)
		return dir, n
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	f, err := os.Create(logPath)
	if err != nil {
		b.Fatal(err)
	}
	w := genWorld(99, groups, days, benchNoise, time.UTC, f)
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	rf, err := os.Create(filepath.Join(dir, "runs.gob"))
	if err != nil {
		b.Fatal(err)
	}
	if err := gob.NewEncoder(rf).Encode(w.runs); err != nil {
		b.Fatal(err)
	}
	rf.Close()
	os.WriteFile(filepath.Join(dir, "done"), []byte(strconv.FormatInt(w.lines, 10)), 0o644)
	return dir, w.lines
}

func BenchmarkSLOScale(b *testing.B) {
	jobs, days := envInt("WLPROF_SLO_BENCH_JOBS", 1000), envInt("WLPROF_SLO_BENCH_DAYS", 30)
	groups := jobs * 7 / 10 // a group adds 1.4 jobs on average
	dir, lines := scaleFiles(b, groups, days)
	b.ResetTimer()
	var m scaleMetrics
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSLOScaleChild$", "-test.v")
		cmd.Env = append(os.Environ(), "WLPROF_SLO_SCALE_DIR="+dir)
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("child: %v\n%s", err, out)
		}
		var found bool
		for _, l := range splitLines(string(out)) {
			if len(l) > 0 && l[0] == '{' && json.Unmarshal([]byte(l), &m) == nil {
				found = true
			}
		}
		if !found {
			b.Fatalf("child printed no metrics:\n%s", out)
		}
		if m.Lines != lines {
			b.Fatalf("child ingested %d lines, the log has %d", m.Lines, lines)
		}
	}
	b.ReportMetric(float64(m.Lines), "lines")
	b.ReportMetric(float64(m.Jobs), "jobs")
	b.ReportMetric(float64(m.Lines)/m.IngestS, "ingest-lines/s")
	b.ReportMetric(float64(m.Lines)/m.InferS, "infer-lines/s")
	b.ReportMetric(float64(m.PeakRSSBytes)/(1<<20), "peak-RSS-MiB")
	b.ReportMetric(float64(m.InputBytes)/(1<<20), "log-MiB")
}

func splitLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != '\n' {
			i++
		}
		out = append(out, s[:i])
		if i < len(s) {
			i++
		}
		s = s[i:]
	}
	return out
}

// TestSLOScaleChild is the benchmark's child process; it does nothing
// unless the benchmark started it.
func TestSLOScaleChild(t *testing.T) {
	dir := os.Getenv("WLPROF_SLO_SCALE_DIR")
	if dir == "" {
		return // only run as the benchmark's child
	}
	var runs []dataset.Run
	rf, err := os.Open(filepath.Join(dir, "runs.gob"))
	if err != nil {
		t.Fatal(err)
	}
	if err := gob.NewDecoder(rf).Decode(&runs); err != nil {
		t.Fatal(err)
	}
	rf.Close()
	dsDir := filepath.Join(t.TempDir(), "ds")
	ds, err := dataset.OpenOrCreate(dsDir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	logPath := filepath.Join(dir, "hdfs-audit.log")
	st, _ := os.Stat(logPath)
	t0 := time.Now()
	tx, err := ds.Begin()
	if err != nil {
		t.Fatal(err)
	}
	res, err := ingest.Run(ctx, tx, "hdfs-audit", []string{logPath}, ingest.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for i := range runs {
		if err := tx.Runs().Append(&runs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	ingestS := time.Since(t0).Seconds()
	runs = nil
	t1 := time.Now()
	rows, err := dataset.ReadAll(ctx, ds, dataset.RunsTable)
	if err != nil {
		t.Fatal(err)
	}
	out, err := slo.Infer(ctx, slo.Input{Runs: rows, Provenance: func(fn func(*dataset.Provenance) error) error {
		return dataset.Scan(ctx, ds, dataset.ProvenanceTable, fn)
	}}, slo.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	inferS := time.Since(t1).Seconds()
	act := 0
	for _, j := range out.Jobs {
		if j.Actionable {
			act++
		}
	}
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	var dsBytes int64
	filepath.Walk(dsDir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			dsBytes += info.Size()
		}
		return nil
	})
	m := scaleMetrics{Lines: res.Accepted + res.Rejected, Jobs: len(out.Jobs), Actionable: act, IngestS: ingestS, InferS: inferS,
		PeakRSSBytes: ru.Maxrss * 1024, InputBytes: st.Size(), DatasetBytes: dsBytes}
	b, _ := json.Marshal(m)
	fmt.Println(string(b))
}
