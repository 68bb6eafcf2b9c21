package profiler

import (
	"context"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

func selfCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSampleTick is one sampling tick over a run of three processes
// (a root, its child and grandchild) with a spill directory of 20 files:
// the /proc scan, the per-member reads and the directory walk. At a 100 ms
// interval the tick's cost over 100 ms is its share of one core, reported
// as core_frac_at_100ms (the bar: under 0.01).
func BenchmarkSampleTick(b *testing.B) {
	c := exec.Command(os.Args[0], "400ms")
	c.Env = childEnv("fork", b.TempDir())
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.Start(); err != nil {
		b.Fatal(err)
	}
	defer c.Wait()
	defer syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
	dir := b.TempDir()
	for i := 0; i < 20; i++ {
		os.WriteFile(dir+"/f"+string(rune('a'+i)), make([]byte, 4096), 0o644)
	}
	t := newTree()
	t.addRoot(c.Process.Pid)
	sw := newSpillWatch(dir)
	defer sw.close()
	time.Sleep(50 * time.Millisecond) // let the tree form
	b.ResetTimer()
	start := selfCPU()
	for i := 0; i < b.N; i++ {
		t.update()
		sw.sample()
	}
	b.StopTimer()
	perTick := float64(selfCPU()-start) / float64(b.N)
	b.ReportMetric(perTick/float64(100*time.Millisecond), "core_frac_at_100ms")
	b.ReportMetric(float64(len(t.members)), "procs")
}

// BenchmarkSweepOverhead measures the profiler's own CPU time (its process
// only, not the command's) over whole runs of a command that sleeps 2 s:
// sampled every 100 ms, and with sampling off (an interval longer than the
// run: only the samples at start and exit). self_core_frac is the first as
// a fraction of one core, everything included (fork, exec, pipes, the Go
// runtime); sampling_core_frac is the difference, the cost of sampling
// itself, which the bar (1% of a core) is about. The machine is
// shared, so each op measures three pairs and reports their medians.
func BenchmarkSweepOverhead(b *testing.B) {
	measure := func(interval time.Duration) float64 {
		o := Options{Job: "bench", Repeat: 1, Interval: interval, SpillDir: b.TempDir(),
			Env: childEnv("nap", b.TempDir()), Cap: CapOff}
		c0, w0 := selfCPU(), time.Now()
		if _, err := Sweep(context.Background(), childArgv("2s"), o); err != nil {
			b.Fatal(err)
		}
		return float64(selfCPU()-c0) / float64(time.Since(w0))
	}
	var on, diff []float64
	for i := 0; i < b.N; i++ {
		for k := 0; k < 3; k++ {
			a := measure(100 * time.Millisecond)
			on = append(on, a)
			diff = append(diff, a-measure(time.Hour))
		}
	}
	b.ReportMetric(statOf(on).Median, "self_core_frac")
	b.ReportMetric(statOf(diff).Median, "sampling_core_frac")
}
