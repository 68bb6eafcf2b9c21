package skyline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

// highs solves the same textbook LP with scipy's HiGHS
// (scripts/skyline_highs.py, Debian's python3-scipy).
func highs(b *testing.B, c [][]float64, alpha, beta float64) (obj, solveS float64) {
	in, err := json.Marshal(map[string]any{"c": c, "alpha": alpha, "beta": beta})
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command("/usr/bin/python3", "../scripts/skyline_highs.py")
	cmd.Stdin = bytes.NewReader(in)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("HiGHS baseline: %v\n%s", err, errb.Bytes())
	}
	var r struct {
		Objective float64 `json:"objective"`
		Status    int     `json:"status"`
		SolveS    float64 `json:"solve_s"`
		BuildS    float64 `json:"build_s"`
	}
	if err := json.Unmarshal(out, &r); err != nil || r.Status != 0 {
		b.Fatalf("HiGHS baseline: %v status %d: %s", err, r.Status, out)
	}
	return r.Objective, r.SolveS
}

// BenchmarkSkylineVsHiGHS fits N runs × K one-minute steps with the reduced
// model in CLP and, in the same run, solves the textbook LP with HiGHS; it
// reports both times, their ratio and the objectives' relative difference
// (which must stay within 1e-6). The sizes: N=30, K=1440 and 360.
func BenchmarkSkylineVsHiGHS(b *testing.B) {
	for _, size := range []struct{ n, k int }{{30, 360}, {30, 1440}} {
		b.Run(fmt.Sprintf("N%dxK%d", size.n, size.k), func(b *testing.B) {
			job := genJob(42, size.n, size.k, 60)
			opts := DefaultOptions()
			c, err := Quantise(job.Runs, opts.StepS)
			if err != nil {
				b.Fatal(err)
			}
			var f *Fit
			for i := 0; i < b.N; i++ {
				if f, err = Solve(context.Background(), job, opts); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			hObj, hS := highs(b, c, opts.Alpha, opts.Beta)
			rel := math.Abs(f.Objective-hObj) / math.Abs(hObj)
			if rel > 1e-6 {
				b.Fatalf("objective %.10g, HiGHS %.10g: relative difference %.2g", f.Objective, hObj, rel)
			}
			b.ReportMetric(f.SolveS, "clp_s")
			b.ReportMetric(hS, "highs_s")
			b.ReportMetric(hS/f.SolveS, "speedup")
			b.ReportMetric(rel, "obj_reldiff")
			b.ReportMetric(float64(f.Rounds), "rounds")
		})
	}
}

// BenchmarkRefit adds a 31st run to a fitted 30-run job (K = 1440) and
// refits, cold and warm (seeded with the earlier fit's rows).
func BenchmarkRefit(b *testing.B) {
	job := genJob(43, 31, 1440, 60)
	before := job
	before.Runs = job.Runs[:30]
	opts := DefaultOptions()
	prev, err := Solve(context.Background(), before, opts)
	if err != nil {
		b.Fatal(err)
	}
	var cold, warm *Fit
	var coldS, warmS float64
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if cold, err = Solve(context.Background(), job, opts); err != nil {
			b.Fatal(err)
		}
		coldS = time.Since(t0).Seconds()
		o := opts
		o.Previous = prev
		t0 = time.Now()
		if warm, err = Solve(context.Background(), job, o); err != nil {
			b.Fatal(err)
		}
		warmS = time.Since(t0).Seconds()
	}
	if math.Abs(warm.Objective-cold.Objective) > 1e-7*math.Abs(cold.Objective) {
		b.Fatalf("warm objective %.10g, cold %.10g", warm.Objective, cold.Objective)
	}
	b.ReportMetric(coldS, "cold_s")
	b.ReportMetric(warmS, "warm_s")
	b.ReportMetric(float64(cold.Rounds), "cold_rounds")
	b.ReportMetric(float64(warm.Rounds), "warm_rounds")
}

// BenchmarkFitManyJobs fits 2,000 jobs of 10 runs × 240 steps through
// Run, as a cluster's month would, and reports the resident memory at
// the end and the part of it that is not Go's heap: lanl/clp frees CLP's
// memory in finalizers only, so without Run's periodic collections that
// part would grow with every job.
func BenchmarkFitManyJobs(b *testing.B) {
	jobs := make([]Job, 2000)
	for i := range jobs {
		jobs[i] = genJob(uint64(1000+i), 10, 240, 60)
	}
	for i := 0; i < b.N; i++ {
		res, err := Run(context.Background(), Input{Jobs: jobs}, DefaultOptions())
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Jobs) != len(jobs) {
			b.Fatalf("%d fits", len(res.Jobs))
		}
	}
	b.ReportMetric(float64(len(jobs))*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	rss := rssMB()
	b.ReportMetric(rss, "rss_MB")
	// What is not Go's is CLP's (and the C allocator's): it must stay flat
	// as jobs go by (measured: ~80 MB after 1,000 and after 2,000 jobs).
	b.ReportMetric(rss-float64(ms.Sys)/(1<<20), "non_go_MB")
}

// rssMB is this process's resident set size now, from /proc/self/status.
func rssMB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return math.NaN()
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			var kb float64
			fmt.Sscanf(strings.TrimPrefix(line, "VmRSS:"), "%g", &kb)
			return kb / 1024
		}
	}
	return math.NaN()
}
