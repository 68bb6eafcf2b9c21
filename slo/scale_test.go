package slo_test

import (
	"context"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
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
// and WLPROF_SLO_BENCH_DAYS make it smaller for a quick pass. The log (4.4
// GiB at full size) is written under the system temp directory and removed
// afterwards unless WLPROF_SLO_BENCH_KEEP is set, in which case the next
// run of the same size reuses it.

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// benchNoise is the moderate level with the metadata chatter of a busy
// NameNode (getfileinfo and listStatus are most of a real audit log).
var benchNoise = func() noise { n := noiseLevels[1]; n.ChatterLines = 60; return n }()

// scaleMetrics is what one child phase reports.
type scaleMetrics struct {
	Lines        int64   `json:"lines"`
	Jobs         int     `json:"jobs"`
	Actionable   int     `json:"actionable"`
	WallS        float64 `json:"wall_s"`
	CPUS         float64 `json:"cpu_s"` // user + system: the machine may be shared
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

// runChild runs one phase (ingest or infer) in a fresh process.
func runChild(b *testing.B, dir, phase string) scaleMetrics {
	cmd := exec.Command(os.Args[0], "-test.run=^TestSLOScaleChild$", "-test.v")
	cmd.Env = append(os.Environ(), "WLPROF_SLO_SCALE_DIR="+dir, "WLPROF_SLO_SCALE_PHASE="+phase)
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("child %s: %v\n%s", phase, err, out)
	}
	for _, l := range splitLines(string(out)) {
		var m scaleMetrics
		if len(l) > 0 && l[0] == '{' && json.Unmarshal([]byte(l), &m) == nil {
			return m
		}
	}
	b.Fatalf("child %s printed no metrics:\n%s", phase, out)
	return scaleMetrics{}
}

func BenchmarkSLOScale(b *testing.B) {
	jobs, days := envInt("WLPROF_SLO_BENCH_JOBS", 1000), envInt("WLPROF_SLO_BENCH_DAYS", 30)
	groups := jobs * 7 / 10 // a group adds 1.4 jobs on average
	dir, lines := scaleFiles(b, groups, days)
	if os.Getenv("WLPROF_SLO_BENCH_KEEP") == "" {
		b.Cleanup(func() { os.RemoveAll(dir) })
	}
	b.ResetTimer()
	var in, inf scaleMetrics
	for i := 0; i < b.N; i++ {
		in = runChild(b, dir, "ingest")
		if in.Lines != lines {
			b.Fatalf("child ingested %d lines, the log has %d", in.Lines, lines)
		}
		inf = runChild(b, dir, "infer")
	}
	b.StopTimer()
	// Score the inferred SLOs against the world's truth, regenerated from
	// the same seed (the log is not needed again).
	var jobsOut []slo.Job
	if data, err := os.ReadFile(filepath.Join(dir, "result.json")); err == nil {
		json.Unmarshal(data, &jobsOut)
	}
	w := genWorld(99, groups, days, benchNoise, time.UTC, io.Discard)
	s := scoreWorld(b, w, &slo.Result{Jobs: jobsOut})
	b.ReportMetric(s.precision(), "precision")
	b.ReportMetric(s.recall(), "recall")
	b.ReportMetric(s.withinFrac(), "within-1m")
	b.ReportMetric(float64(lines), "lines")
	b.ReportMetric(float64(inf.Jobs), "jobs")
	b.ReportMetric(float64(inf.Actionable), "actionable")
	b.ReportMetric(float64(in.InputBytes)/(1<<20), "log-MiB")
	b.ReportMetric(float64(lines)/in.WallS, "ingest-lines/s")
	b.ReportMetric(float64(lines)/in.CPUS, "ingest-lines/cpu-s")
	b.ReportMetric(float64(in.PeakRSSBytes)/(1<<20), "ingest-peak-RSS-MiB")
	b.ReportMetric(float64(lines)/inf.WallS, "infer-lines/s")
	b.ReportMetric(float64(lines)/inf.CPUS, "infer-lines/cpu-s")
	b.ReportMetric(float64(inf.PeakRSSBytes)/(1<<20), "infer-peak-RSS-MiB")
	b.ReportMetric(float64(in.DatasetBytes)/(1<<20), "dataset-MiB")
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

func cpuSeconds() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

func peakRSS() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Maxrss * 1024
}

// TestSLOScaleChild is the benchmark's child process; it does nothing
// unless the benchmark started it. Phase ingest builds dir/ds from the log
// and the runs; phase infer reads it.
func TestSLOScaleChild(t *testing.T) {
	dir := os.Getenv("WLPROF_SLO_SCALE_DIR")
	if dir == "" {
		return // only run as the benchmark's child
	}
	ctx := context.Background()
	dsDir := filepath.Join(dir, "ds")
	var m scaleMetrics
	t0, c0 := time.Now(), cpuSeconds()
	switch os.Getenv("WLPROF_SLO_SCALE_PHASE") {
	case "ingest":
		var runs []dataset.Run
		rf, err := os.Open(filepath.Join(dir, "runs.gob"))
		if err != nil {
			t.Fatal(err)
		}
		if err := gob.NewDecoder(rf).Decode(&runs); err != nil {
			t.Fatal(err)
		}
		rf.Close()
		os.RemoveAll(dsDir)
		ds, err := dataset.OpenOrCreate(dsDir)
		if err != nil {
			t.Fatal(err)
		}
		logPath := filepath.Join(dir, "hdfs-audit.log")
		st, _ := os.Stat(logPath)
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
		m.Lines, m.InputBytes = res.Accepted+res.Rejected, st.Size()
		filepath.Walk(dsDir, func(_ string, info os.FileInfo, err error) error {
			if err == nil && !info.IsDir() {
				m.DatasetBytes += info.Size()
			}
			return nil
		})
	case "infer":
		ds, err := dataset.Open(dsDir)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := dataset.ReadAll(ctx, ds, dataset.RunsTable)
		if err != nil {
			t.Fatal(err)
		}
		// WLPROF_SLO_HEAP=FILE writes a heap profile near the end of the
		// second pass, to see what inference keeps.
		var seen int64
		heapAt := 2*ds.Rows(dataset.ProvenanceTable.Name) - 1000
		out, err := slo.Run(ctx, slo.Input{Runs: rows, Provenance: func(fn func(*dataset.Provenance) error) error {
			return dataset.Scan(ctx, ds, dataset.ProvenanceTable, func(p *dataset.Provenance) error {
				if seen++; seen == heapAt && os.Getenv("WLPROF_SLO_HEAP") != "" {
					f, _ := os.Create(os.Getenv("WLPROF_SLO_HEAP"))
					runtime.GC()
					pprof.WriteHeapProfile(f)
					f.Close()
				}
				return fn(p)
			})
		}}, slo.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		m.Jobs, m.Lines = len(out.Jobs), out.Graph.Events
		data, _ := json.Marshal(out.Jobs)
		if err := os.WriteFile(filepath.Join(dir, "result.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, j := range out.Jobs {
			if j.Actionable {
				m.Actionable++
			}
		}
	default:
		t.Fatal("WLPROF_SLO_SCALE_PHASE: want ingest or infer")
	}
	m.WallS, m.CPUS, m.PeakRSSBytes = time.Since(t0).Seconds(), cpuSeconds()-c0, peakRSS()
	b, _ := json.Marshal(m)
	fmt.Println(string(b))
}
