package elasticity

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/wlprof/wlprof/dataset"
)

// Whatever the runs (any framework, odd configurations, zero or huge
// sizes, repeated or missing settings), Build returns finite numbers, a
// curve from 10% to 100% of ideal memory, and for every group either a
// model or a reason.
func TestBuildHostileRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 7))
	frameworks := []string{"mapreduce", "spark", "tez", "sandbox", "flink"}
	tasks := []string{"map", "reduce", "stage 3: join"}
	confs := []string{"", "{}", "not json", `{"mapreduce.reduce.input.buffer.percent":"1.0","mapreduce.job.maps":"3"}`,
		`{"mapreduce.reduce.shuffle.merge.percent":"0.1","mapreduce.reduce.shuffle.memory.limit.percent":"0.9"}`,
		`{"spark.memory.fraction":"nan","spark.shuffle.memoryFraction":"0.5"}`, `{"wlprof.local.fetch.fraction":"1"}`,
		`{"mapreduce.task.io.sort.factor":"1","mapreduce.map.java.opts":"-Xmx200m","mapreduce.task.io.sort.mb":"5000"}`}
	for trial := 0; trial < 200; trial++ {
		var runs []dataset.ProfRun
		n := 1 + rng.IntN(12)
		fw, task, conf := frameworks[rng.IntN(len(frameworks))], tasks[rng.IntN(len(tasks))], confs[rng.IntN(len(confs))]
		input := []int64{0, 1, 1 << 20, 3 << 30, 1 << 45}[rng.IntN(5)]
		for i := 0; i < n; i++ {
			mem := int64(1+rng.IntN(64)) << (10 + rng.IntN(25))
			runs = append(runs, dataset.ProfRun{Job: "j", Task: task, Framework: fw, MemoryBytes: mem, Slots: int32(rng.IntN(3)),
				InputBytes: input, RuntimeS: 0.001 + 1000*rng.Float64(), SpilledBytes: int64(rng.IntN(3)) * input / 2,
				MemorySpilledBytes: int64(rng.IntN(2)) * input, OutputBytes: input, OutputRecords: input / 100,
				ExitCode: int32(rng.IntN(8) / 7), Config: conf})
		}
		res, err := build(runs, Options{GridBytes: int64(1+rng.IntN(200)) << 20})
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		for _, s := range res.Skipped {
			if s.Reason == "" {
				t.Fatalf("trial %d: skipped without a reason: %+v", trial, s)
			}
		}
		for _, m := range res.Models {
			assertFinite(t, m)
			if len(m.Curve) == 0 || m.Curve[len(m.Curve)-1].MemoryBytes != m.IdealMemoryBytes {
				t.Fatalf("trial %d: curve %+v, ideal %d", trial, m.Curve, m.IdealMemoryBytes)
			}
			if len(m.Curve) > 100000 {
				t.Fatalf("trial %d: %d curve points", trial, len(m.Curve))
			}
			for _, p := range m.Curve {
				if p.RuntimeS < 0 || p.Penalty < 0 || p.Slowdown < 1 || math.Abs(p.Slowdown-1-p.Penalty) > 1e-12 || math.IsNaN(p.RuntimeS) {
					t.Fatalf("trial %d: point %+v", trial, p)
				}
			}
		}
	}
}

func BenchmarkBuild(b *testing.B) {
	rng := rand.New(rand.NewPCG(2017, 4))
	runs := bundledRuns(rng)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := build(runs, DefaultOptions()); err != nil {
			b.Fatal(err)
		}
	}
}
