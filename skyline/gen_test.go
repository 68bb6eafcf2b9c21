package skyline

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// genJob makes n runs of a recurring job about k steps long (stepS seconds
// each) with the shape production jobs have: a ramp up, a plateau with
// noise, stages that shrink, a tail; lengths and heights vary by run.
func genJob(seed uint64, n, k int, stepS float64) Job {
	rng := rand.New(rand.NewPCG(seed, 0x5c71e))
	job := Job{ID: fmt.Sprintf("job-%d", seed)}
	for i := 0; i < n; i++ {
		length := int(float64(k) * (0.8 + 0.2*rng.Float64()))
		if length < 1 {
			length = 1
		}
		height := 50 + 150*rng.Float64()
		run := JobRun{ID: fmt.Sprintf("run-%02d", i)}
		for t := 0; t < length; t++ {
			f := float64(t) / float64(length)
			var v float64
			switch {
			case f < 0.1:
				v = height * f / 0.1
			case f < 0.6:
				v = height
			case f < 0.9:
				v = height * 0.5
			default:
				v = height * 0.1
			}
			v *= 1 + 0.15*rng.NormFloat64()
			v = math.Max(0, math.Round(v))
			run.Samples = append(run.Samples, Sample{OffsetS: float64(t) * stepS, Containers: v})
		}
		run.Samples = append(run.Samples, Sample{OffsetS: float64(length) * stepS, Containers: 0})
		job.Runs = append(job.Runs, run)
	}
	return job
}
