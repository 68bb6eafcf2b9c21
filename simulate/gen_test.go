package simulate

import (
	"fmt"
	"math/rand/v2"
)

// genJobs is a random small workload for property and cross-checks:
// nJobs jobs submitted within spanS, one to three phases each (a later
// phase sometimes waits for an earlier one), memory up to maxMem, and a
// spec model per phase (none, step or curve, some with disk rates).
// Runtimes and submissions are whole or half seconds so that ties (many
// events at one instant) are common.
func genJobs(rng *rand.Rand, nJobs int, spanS float64, maxMem int64) []Job {
	var jobs []Job
	for j := 0; j < nJobs; j++ {
		job := Job{ID: fmt.Sprintf("j%02d", rng.IntN(nJobs*3)), SubmitS: float64(rng.IntN(int(2*spanS)+1)) / 2}
		for dup := true; dup; {
			dup = false
			for _, o := range jobs {
				if o.ID == job.ID {
					job.ID += "x"
					dup = true
				}
			}
		}
		np := 1 + rng.IntN(3)
		for p := 0; p < np; p++ {
			ph := Phase{Task: fmt.Sprintf("t%d", p), Tasks: 1 + rng.IntN(8), RuntimeS: float64(1+rng.IntN(40)) / 2,
				MemoryBytes: 1 + rng.Int64N(maxMem), modelSet: true, ModelSource: "trace"}
			if rng.IntN(4) == 0 {
				ph.Cores = 2
			} else {
				ph.Cores = 1
			}
			if p > 0 && rng.IntN(3) > 0 {
				ph.After = fmt.Sprintf("t%d", rng.IntN(p))
			}
			var disk int64
			if rng.IntN(3) == 0 {
				disk = int64(1+rng.IntN(4)) * 50 << 20
			}
			switch rng.IntN(4) {
			case 0:
				ph.Model = nil
			case 1:
				ph.Model = StepModel{Slowdown: 1 + float64(rng.IntN(8))/4, DiskBytesPerS: disk}
			case 2:
				ph.Model = StepModel{Slowdown: 1.5, DiskBytesPerS: disk}
			default:
				m := CurveModel{DiskBytesPerS: disk}
				for _, f := range []float64{0.1, 0.25, 0.5, 0.75} {
					if rng.IntN(2) == 0 {
						m.Points = append(m.Points, CurvePoint{Fraction: f, Slowdown: 1 + float64(rng.IntN(12))/4})
					}
				}
				if len(m.Points) == 0 {
					m.Points = []CurvePoint{{Fraction: 0.3, Slowdown: 2}}
				}
				ph.Model = m
			}
			job.Phases = append(job.Phases, ph)
		}
		jobs = append(jobs, job)
	}
	SortJobs(jobs)
	return jobs
}
