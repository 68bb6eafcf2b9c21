package simulate

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// benchJobs is the benchmark workload at nJobs jobs: a map phase
// of 1–139 tasks (2 min at most, 0.5–4 GiB, step:1.3) and a reduce phase
// after it of 1–59 tasks (0.5–5 min, 1–8 GiB, a reducer's curve), about
// 100 tasks a job; submissions uniform over 2 s a job, which keeps a
// cluster of nJobs/10 nodes of 10 GiB busy (the work is about 2.25 GiB·s
// per task-second of capacity).
func benchJobs(nJobs int) []Job {
	rng := rand.New(rand.NewPCG(18, 18))
	step := StepModel{Slowdown: 1.3}
	curve := CurveModel{Points: []CurvePoint{{0.1, 2.2}, {0.3, 1.7}, {0.6, 1.3}}}
	jobs := make([]Job, nJobs)
	for i := range jobs {
		jobs[i] = Job{ID: fmt.Sprintf("job%05d", i), SubmitS: float64(rng.IntN(2*nJobs*10)) / 10, Phases: []Phase{
			{Task: "map", Tasks: 1 + rng.IntN(139), RuntimeS: float64(10 + rng.IntN(111)), MemoryBytes: int64(512+rng.IntN(3585)) << 20,
				Cores: 1, Model: step, modelSet: true},
			{Task: "reduce", Tasks: 1 + rng.IntN(59), RuntimeS: float64(30 + rng.IntN(271)), MemoryBytes: int64(1024+rng.IntN(7169)) << 20,
				Cores: 1, After: "map", Model: curve, modelSet: true},
		}}
	}
	SortJobs(jobs)
	return jobs
}

func benchN() int {
	if s := os.Getenv("WLPROF_SIM_BENCH_JOBS"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			return n
		}
	}
	return 10_000
}

// peakHeap samples the live heap every millisecond until stop is closed.
func peakHeap(stop <-chan struct{}, peak *atomic.Uint64) {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	for {
		metrics.Read(s)
		if v := s[0].Value.Uint64(); v > peak.Load() {
			peak.Store(v)
		}
		select {
		case <-stop:
			return
		case <-t.C:
		}
	}
}

func maxRSSMiB() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Maxrss) / 1024 // KiB on Linux
}

// BenchmarkSimulate is the simulator's speed bar: 10,000 jobs, about a million
// tasks, on 1,000 nodes of 10 GiB and 16 cores, under each policy; it
// reports task events (starts and ends) per second, the peak live heap
// while simulating and the process's peak RSS. WLPROF_SIM_BENCH_JOBS
// scales it (nodes = jobs / 10).
func BenchmarkSimulate(b *testing.B) {
	n := benchN()
	jobs := benchJobs(n)
	tasks := 0
	for _, j := range jobs {
		for _, p := range j.Phases {
			tasks += p.Tasks
		}
	}
	c := Cluster{Nodes: max(1, n/10), NodeMemoryBytes: 10 << 30, NodeCores: 16}
	o := DefaultOptions()
	b.Logf("%d jobs, %d tasks, %d nodes", len(jobs), tasks, c.Nodes)
	for _, p := range []Policy{YARN, YARNME} {
		b.Run(string(p), func(b *testing.B) {
			runtime.GC()
			var peak atomic.Uint64
			stop := make(chan struct{})
			done := make(chan struct{})
			go func() { peakHeap(stop, &peak); close(done) }()
			var out *Outcome
			var events int64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				var err error
				if out, _, err = Simulate(context.Background(), jobs, c, p, o); err != nil {
					b.Fatal(err)
				}
				events += out.TaskEvents
			}
			b.StopTimer()
			close(stop)
			<-done
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "task-events/s")
			b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
			b.ReportMetric(maxRSSMiB(), "peak-RSS-MiB")
			b.ReportMetric(out.MakespanS, "makespan-s")
			var el int64
			for _, e := range out.ElasticTasks {
				el += int64(e)
			}
			b.ReportMetric(float64(el), "elastic-tasks")
		})
	}
}
