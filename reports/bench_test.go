package reports

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// BenchmarkReport writes the report of 10,000 tenants and 1,000 jobs: every
// stage's sections; per job a skyline, an α trade-off, an SLO; one job in
// ten profiled (elasticity curve and sweep): 2,221 figures. Goal: under
// 15 s (issue 8) with the default options; all-png also writes every
// figure as PNG, for comparison. WLPROF_BENCH_JOBS and
// WLPROF_BENCH_TENANTS shrink it for a quick pass.
func BenchmarkReport(b *testing.B) {
	tenants, jobs := envInt("WLPROF_BENCH_TENANTS", 10000), envInt("WLPROF_BENCH_JOBS", 1000)
	in := synthInput(tenants, jobs, 42)
	for _, c := range []struct {
		name   string
		allPNG bool
	}{{"default", false}, {"all-png", true}} {
		b.Run(c.name, func(b *testing.B) {
			dir := filepath.Join(b.TempDir(), "report")
			opts := DefaultOptions()
			opts.AllPNG = c.allPNG
			cpu0 := cpuSeconds()
			for i := 0; i < b.N; i++ {
				idx, err := Write(dir, in, opts)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(len(idx.Plots)), "plots")
			}
			b.StopTimer()
			// CPU seconds (user + system) say what the report costs when
			// the machine is shared and wall time is not its own.
			b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu_s/op")
			if fi, err := os.Stat(filepath.Join(dir, "index.html")); err == nil {
				b.ReportMetric(float64(fi.Size())/(1<<20), "html_MiB")
			}
		})
	}
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
