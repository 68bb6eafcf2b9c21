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
// model in CLP and, in the same run, solves the same job with the whole
// reduced model (every segment a column, a link row per step: how every fit
// was solved before the segments were generated) and the textbook LP with
// HiGHS; it reports the three times, the speed-ups over both and the
// objectives' relative differences (which must stay within 1e-6). The
// issue's sizes: N=30, K=1440 and 360.
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
			wObj, wS := wholeModel(b, c, opts.Alpha, opts.Beta)
			hObj, hS := highs(b, c, opts.Alpha, opts.Beta)
			rel := math.Abs(f.Objective-hObj) / math.Abs(hObj)
			wRel := math.Abs(f.Objective-wObj) / math.Abs(wObj)
			if rel > 1e-6 || wRel > 1e-6 {
				b.Fatalf("objective %.10g, HiGHS %.10g, whole model %.10g: relative differences %.2g, %.2g", f.Objective, hObj, wObj, rel, wRel)
			}
			b.ReportMetric(f.SolveS, "clp_s")
			b.ReportMetric(wS, "whole_s")
			b.ReportMetric(hS, "highs_s")
			b.ReportMetric(hS/f.SolveS, "speedup")
			b.ReportMetric(wS/f.SolveS, "speedup_vs_whole")
			b.ReportMetric(rel, "obj_reldiff")
			b.ReportMetric(wRel, "obj_reldiff_whole")
			b.ReportMetric(float64(f.Rounds), "rounds")
		})
	}
}

// wholeModel solves the reduced model whole (every segment a column, a
// link row per step) and returns its objective, recomputed from the
// definition, and the seconds it took.
func wholeModel(b *testing.B, c [][]float64, alpha, beta float64) (obj, solveS float64) {
	p := &problem{c: c, total: make([]float64, len(c)), alpha: alpha, beta: beta}
	for i, ci := range c {
		for _, v := range ci {
			p.total[i] += v
		}
	}
	t0 := time.Now()
	r := newReduced(p)
	r.window, r.block = 0, 1
	res, err := r.solveCtx(context.Background(), time.Time{})
	if err != nil {
		b.Fatal(err)
	}
	solveS = time.Since(t0).Seconds()
	obj, _, _, _ = p.cost(res.x)
	return obj, solveS
}

// BenchmarkSkylineWeek fits a week of one-minute steps (K = 10,080) with 30
// and 100 runs: how the default path grows with K and N. Neither baseline
// runs here: the textbook LP has 0.9 and 3 million rows, and the whole
// reduced model took about 230 s at N = 30 (TestWindowsMatchTextbook holds the
// optimum to the textbook's). It reports the solve time and the model's
// last size.
func BenchmarkSkylineWeek(b *testing.B) {
	for _, n := range []int{30, 100} {
		b.Run(fmt.Sprintf("N%dxK10080", n), func(b *testing.B) {
			job := genJob(44, n, 10080, 60)
			var f *Fit
			var err error
			for i := 0; i < b.N; i++ {
				if f, err = Solve(context.Background(), job, DefaultOptions()); err != nil {
					b.Fatal(err)
				}
			}
			for _, w := range f.Warnings {
				if strings.Contains(w, "differs") {
					b.Fatal(w)
				}
			}
			b.ReportMetric(f.SolveS, "clp_s")
			b.ReportMetric(float64(f.Rounds), "rounds")
			b.ReportMetric(float64(f.Rows), "rows")
			b.ReportMetric(float64(f.Cols), "cols")
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
