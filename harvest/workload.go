package harvest

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// poisson is the synthetic workload (§6: Poisson arrivals, mean 300 s, of
// 52 recurring queries) over [startMs, endMs): each arrival is a run of
// one of o.PoissonJobs jobs drawn uniformly; a job has a typical duration
// (log-uniform in [MinDuration, MaxDuration]) that each run varies by
// ±20%, and a fixed number of containers (uniform in 1..MaxContainers).
// Its own stream (seeded by o.Seed) makes it the same for both policies.
func poisson(startMs, endMs int64, o *Options) []jobRun {
	rng := rand.New(rand.NewPCG(o.Seed, 0x5bd1e995))
	type job struct {
		name       string
		durMs      float64
		containers int
	}
	jobs := make([]job, o.PoissonJobs)
	lo, hi := math.Log(float64(o.MinDuration.Milliseconds())), math.Log(float64(o.MaxDuration.Milliseconds()))
	for i := range jobs {
		jobs[i] = job{name: fmt.Sprintf("poisson-%02d", i+1), durMs: math.Exp(lo + rng.Float64()*(hi-lo)),
			containers: 1 + rng.IntN(o.MaxContainers)}
	}
	mean := float64(o.MeanInterarrival.Milliseconds())
	var out []jobRun
	t := float64(startMs)
	for {
		t += rng.ExpFloat64() * mean
		if t >= float64(endMs) {
			break
		}
		j := &jobs[rng.IntN(len(jobs))]
		d := j.durMs * (0.8 + 0.4*rng.Float64())
		out = append(out, jobRun{job: j.name, startMs: int64(t), durMs: max(1000, int64(math.Round(d))), containers: j.containers})
	}
	return out
}
