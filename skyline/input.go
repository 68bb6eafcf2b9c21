package skyline

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/wlprof/wlprof/internal/quantile"
)

// Sample is what one run held from OffsetS on, until the next sample: the
// skyline of a run is a step function of its samples.
type Sample struct {
	OffsetS    float64 // seconds since the run's start
	Containers float64 // containers held from OffsetS until the next sample
}

// JobRun is the skyline of one run of a recurring job.
type JobRun struct {
	ID      string
	Samples []Sample // any order; equal offsets are summed
}

// Job is a recurring job and the runs to fit.
type Job struct {
	ID   string
	Runs []JobRun
	// Warnings about the input (duplicated runs, ...), carried into the fit.
	Warnings []string
}

// Data outcomes of a fit, checked with errors.Is.
var (
	ErrTooFewRuns  = errors.New("too few runs")
	ErrEmptyRun    = errors.New("run uses no resources")
	ErrBadSample   = errors.New("bad skyline sample")
	ErrInfeasible  = errors.New("LP infeasible or unbounded")
	ErrTimeLimit   = errors.New("LP solve hit the time limit")
	ErrSolverFault = errors.New("LP solver failed")
)

// maxSteps bounds the number of time steps of one job (a week of one-minute
// steps, or 14 hours of 5-second steps): beyond it the step is too fine for
// the runs' length and the fit would take minutes; say so instead.
const maxSteps = 20160

// Quantise aligns the runs at their start and returns, per run, the
// containers held in each step of length stepS: the maximum of the step
// function over the step, as Apache Hadoop's ResourceEstimator does
// (SolverPreprocessor.getDiscreteSkyline), padded with zeros to the longest
// run. A run lasts until its last sample; a last sample that is not zero is
// taken to hold for one step.
func Quantise(runs []JobRun, stepS float64) ([][]float64, error) {
	if !(stepS > 0) || math.IsInf(stepS, 0) {
		return nil, fmt.Errorf("%w: step %g s must be positive", ErrBadSample, stepS)
	}
	var errs []error
	type seg struct {
		t, v float64
	}
	steps := make([][]seg, len(runs))
	ends := make([]float64, len(runs))
	k := 0
	for i, r := range runs {
		if len(r.Samples) == 0 {
			errs = append(errs, fmt.Errorf("run %s: %w (no samples)", r.ID, ErrEmptyRun))
			continue
		}
		ss := append([]Sample(nil), r.Samples...)
		sort.SliceStable(ss, func(a, b int) bool { return ss[a].OffsetS < ss[b].OffsetS })
		var segs []seg
		bad := false
		for _, s := range ss {
			switch {
			case math.IsNaN(s.OffsetS) || math.IsInf(s.OffsetS, 0) || s.OffsetS < 0:
				errs = append(errs, fmt.Errorf("run %s: %w: offset %g s", r.ID, ErrBadSample, s.OffsetS))
				bad = true
			case math.IsNaN(s.Containers) || math.IsInf(s.Containers, 0) || s.Containers < 0:
				errs = append(errs, fmt.Errorf("run %s: %w: %g containers at %g s", r.ID, ErrBadSample, s.Containers, s.OffsetS))
				bad = true
			}
			if bad {
				break
			}
			if n := len(segs); n > 0 && segs[n-1].t == s.OffsetS {
				segs[n-1].v += s.Containers
				continue
			}
			segs = append(segs, seg{s.OffsetS, s.Containers})
		}
		if bad {
			continue
		}
		end := segs[len(segs)-1].t
		if segs[len(segs)-1].v != 0 {
			end += stepS
		}
		n := int(math.Ceil(end/stepS - 1e-9))
		if n > maxSteps {
			errs = append(errs, fmt.Errorf("run %s: %w: %g s at a %g s step is %d steps, more than %d; use a coarser --step",
				r.ID, ErrBadSample, end, stepS, n, maxSteps))
			continue
		}
		steps[i], ends[i] = segs, end
		if n > k {
			k = n
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	out := make([][]float64, len(runs))
	for i, segs := range steps {
		c := make([]float64, k)
		for j, s := range segs {
			until := ends[i]
			if j+1 < len(segs) {
				until = segs[j+1].t
			}
			first := int(math.Floor(s.t / stepS))
			for q := first; q < k && float64(q)*stepS < until; q++ {
				if s.v > c[q] {
					c[q] = s.v
				}
			}
		}
		total := 0.0
		for _, v := range c {
			total += v
		}
		if total == 0 {
			return nil, fmt.Errorf("run %s: %w (every sample is zero)", runs[i].ID, ErrEmptyRun)
		}
		out[i] = c
	}
	return out, nil
}

// UsedArea is what a run used, in container·seconds: its samples as a
// step function (each sample's containers held until the next sample's
// offset; equal offsets summed), integrated over time, not quantised. The
// last sample, when not zero, is held for the run's median sample interval
// (one step when the run has a single offset): the log does not say when
// it ended. Samples are assumed valid (Quantise checks them).
func UsedArea(r JobRun, stepS float64) float64 {
	if len(r.Samples) == 0 {
		return 0
	}
	ss := append([]Sample(nil), r.Samples...)
	sort.SliceStable(ss, func(a, b int) bool { return ss[a].OffsetS < ss[b].OffsetS })
	var ts, vs []float64
	for _, s := range ss {
		if n := len(ts); n > 0 && ts[n-1] == s.OffsetS {
			vs[n-1] += s.Containers
			continue
		}
		ts, vs = append(ts, s.OffsetS), append(vs, s.Containers)
	}
	area := 0.0
	gaps := make([]float64, 0, len(ts))
	for i := 0; i+1 < len(ts); i++ {
		area += vs[i] * (ts[i+1] - ts[i])
		gaps = append(gaps, ts[i+1]-ts[i])
	}
	if last := vs[len(vs)-1]; last != 0 {
		hold := stepS
		if len(gaps) > 0 {
			hold = quantile.Median(gaps)
		}
		area += last * hold
	}
	return area
}
