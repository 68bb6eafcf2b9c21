package estimate

import (
	"context"
	"math/rand/v2"
	"testing"
)

// Not run by the test suite (go test -bench SFit ./estimate). The bar of
// issue 20 is the whole stage for 10,000 jobs in ≤ 5 s; Alg. 2 as
// written visits every visited job in every window (O(J²)), SFit leaves
// finished jobs out and stops a window when it is full.
func benchJobs(n int) ([]FitJob, *Availability) {
	r := rand.New(rand.NewPCG(10000, 20))
	jobs := make([]FitJob, n)
	for j := range jobs {
		jobs[j] = FitJob{GoalS: float64(r.IntN(7 * 86400)),
			Phases: []FitPhase{{Pending: 1 + r.IntN(500), MuS: float64(10 + r.IntN(600))}, {Pending: r.IntN(50), MuS: float64(30 + r.IntN(900))}}}
	}
	starts := make([]float64, 24)
	slots := make([]float64, 24)
	for i := range starts {
		starts[i], slots[i] = float64(i*3600), float64(200+r.IntN(800))
	}
	av, _ := NewAvailability(starts, slots, 86400)
	return jobs, av
}

func BenchmarkSFit10k(b *testing.B) {
	jobs, av := benchJobs(10000)
	for b.Loop() {
		SFit(0, 30, jobs, av)
	}
}

func BenchmarkSFitBaseline10k(b *testing.B) {
	jobs, av := benchJobs(10000)
	for b.Loop() {
		sfitBaseline(0, 30, jobs, av)
	}
}

// BenchmarkRun10k is the bar of issue 20: the stage (s_req per phase,
// s_fit over all jobs, the utility curves) for 10,000 jobs in ≤ 5 s.
// BenchmarkRun10kBaseline times Alg. 2 as written (sfitBaseline) on the
// same jobs: the part of the stage SFit replaces.
func BenchmarkRun10k(b *testing.B) { benchRun(b, false) }

func BenchmarkRun10kBaseline(b *testing.B) { benchRun(b, true) }

func benchRun(b *testing.B, baseline bool) {
	fj, av := benchJobs(10000)
	in := Input{AtS: 0, Availability: av, Jobs: make([]JobInput, len(fj))}
	for i, j := range fj {
		in.Jobs[i] = JobInput{Job: "job" + string(rune('a'+i%26)) + string(rune('0'+i%10)), GoalS: j.GoalS}
		for k, p := range j.Phases {
			in.Jobs[i].Phases = append(in.Jobs[i].Phases, Phase{Name: []string{"map", "reduce"}[k], Tasks: p.Pending, Pending: p.Pending, MuS: p.MuS})
		}
	}
	opts := DefaultOptions()
	for b.Loop() {
		if baseline {
			sfitBaseline(in.AtS, 30, fj, av)
			continue
		}
		if _, err := Run(context.Background(), in, opts); err != nil {
			b.Fatal(err)
		}
	}
}
