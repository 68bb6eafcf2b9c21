package elasticity

import (
	"math"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/quantile"
)

// lsModel is a fitted least-squares model: its prediction and parameters.
type lsModel struct {
	ideal, under, slope float64 // step: ideal, under; spill-rate: ideal + slope·extra
	step                bool
	cut                 float64
	extra               func(float64) float64
}

func (l *lsModel) predict(m float64) float64 {
	if l.step {
		if m >= l.cut {
			return l.ideal
		}
		return l.under
	}
	return l.ideal + l.slope*l.extra(m)
}

// fitLS fits the model to runs; ok is false when they cannot determine it.
func fitLS(kind string, runs []dataset.ProfRun, ideal float64, extra func(float64) float64) (*lsModel, bool) {
	if kind == "step" {
		var w, u, nw, nu float64
		for _, r := range runs {
			if float64(r.MemoryBytes) >= ideal {
				w += r.RuntimeS
				nw++
			} else {
				u += r.RuntimeS
				nu++
			}
		}
		if nw == 0 || nu == 0 {
			return nil, false
		}
		return &lsModel{step: true, ideal: w / nw, under: u / nu, cut: ideal}, true
	}
	// runtime = a + b·extra(m), b ≥ 0. With well-sized runs, a is their
	// median, as the pair's is its well-sized setting's (the model's T is
	// the well-sized runtime, and it was measured), and b is fitted through
	// the origin to the under-sized runs' excess over it. Without, ordinary
	// least squares on one regressor extrapolates a.
	if f, ok := fitLSWellSized(runs, ideal, extra); ok {
		return f, true
	}
	n := float64(len(runs))
	var sx, sy float64
	xs := make([]float64, len(runs))
	distinct := map[float64]bool{}
	for i, r := range runs {
		xs[i] = extra(float64(r.MemoryBytes))
		distinct[xs[i]] = true
		sx += xs[i]
		sy += r.RuntimeS
	}
	if len(distinct) < 2 {
		return nil, false
	}
	mx, my := sx/n, sy/n
	var sxx, sxy float64
	for i, r := range runs {
		dx := xs[i] - mx
		sxx += dx * dx
		sxy += dx * (r.RuntimeS - my)
	}
	b := 0.0
	if sxx > 0 {
		b = sxy / sxx
	}
	if b < 0 || math.IsNaN(b) {
		b = 0
	}
	return &lsModel{ideal: my - b*mx, slope: b, extra: extra}, true
}

// fitLSWellSized is the spill-rate fit with the ideal runtime the median of
// the well-sized runs (memory ≥ ideal) and the slope the least-squares one
// through the origin of the under-sized runs' runtime − ideal on extra(m),
// clamped at 0. A median, not a mean: short runs on a shared host are
// bimodal (spillsort's 0.2 s sample: 0.16–0.20 s when its 37
// MiB fit the host's cache, 0.25–0.28 s when they did not), and a mean
// sits between the modes where no run was; the median is the settings'
// (quantile.Median). ok is false when there is no well-sized run or no
// under-sized run that spills more than at ideal memory.
func fitLSWellSized(runs []dataset.ProfRun, ideal float64, extra func(float64) float64) (*lsModel, bool) {
	var well []float64
	for _, r := range runs {
		if float64(r.MemoryBytes) >= ideal {
			well = append(well, r.RuntimeS)
		}
	}
	if len(well) == 0 {
		return nil, false
	}
	t := quantile.Median(well)
	var sxx, sxy float64
	for _, r := range runs {
		if float64(r.MemoryBytes) >= ideal {
			continue
		}
		x := extra(float64(r.MemoryBytes))
		sxx += x * x
		sxy += x * (r.RuntimeS - t)
	}
	if !(sxx > 0) {
		return nil, false
	}
	b := sxy / sxx
	if b < 0 || math.IsNaN(b) {
		b = 0
	}
	return &lsModel{ideal: t, slope: b, extra: extra}, true
}

// leastSquares fits the model to every run when there are more than two
// memory settings, and validates it by leaving one setting out at a time.
func leastSquares(kind string, runs []dataset.ProfRun, settings []Setting, ideal float64, extra func(float64) float64) *LeastSquares {
	if len(settings) < 3 {
		return nil
	}
	fit, ok := fitLS(kind, runs, ideal, extra)
	if !ok {
		return nil
	}
	ls := &LeastSquares{IdealRuntimeS: finite(fit.ideal)}
	if fit.step {
		ls.UnderRuntimeS = finite(fit.under)
	} else if fit.slope > 0 {
		ls.DiskRateBytesPerS = finite(1 / fit.slope)
	}
	ls.Residuals = validate(runs, fit.predict, func(dataset.ProfRun) bool { return true }).Checks
	ss := 0.0
	for _, c := range ls.Residuals {
		d := c.PredictedS - c.MeasuredS
		ss += d * d
	}
	ls.RMSES = finite(math.Sqrt(ss / float64(len(ls.Residuals))))
	ls.Validation = leaveOneOut(runs, settings, func(train []dataset.ProfRun) (func(float64) float64, bool) {
		f, ok := fitLS(kind, train, ideal, extra)
		if !ok {
			return nil, false
		}
		return f.predict, true
	})
	return ls
}

// leaveOneOut predicts each setting's runs from a model built without them.
func leaveOneOut(runs []dataset.ProfRun, settings []Setting, build func([]dataset.ProfRun) (func(float64) float64, bool)) Validation {
	all := Validation{Checks: []Check{}}
	skipped := 0
	for _, s := range settings {
		var train []dataset.ProfRun
		for _, r := range runs {
			if r.MemoryBytes != s.MemoryBytes {
				train = append(train, r)
			}
		}
		pred, ok := build(train)
		if !ok {
			skipped++
			continue
		}
		v := validate(runs, pred, func(r dataset.ProfRun) bool { return r.MemoryBytes == s.MemoryBytes })
		all.Checks = append(all.Checks, v.Checks...)
	}
	summarize(&all)
	if skipped > 0 {
		all.Note = "settings whose removal leaves the model undetermined are not predicted"
	}
	return all
}

// baselineValidation validates the measured curve by leaving one setting out.
func baselineValidation(runs []dataset.ProfRun, settings []Setting) Validation {
	return leaveOneOut(runs, settings, func(train []dataset.ProfRun) (func(float64) float64, bool) {
		s := settingsOf(train)
		if len(s) < 2 {
			return nil, false
		}
		c := measuredCurve(s)
		return c, true
	})
}

// measuredCurve interpolates the settings' median runtimes: first made
// non-increasing in memory (pool adjacent violators, weighted by runs),
// then joined by a monotone cubic (Fritsch–Carlson), flat beyond the ends.
func measuredCurve(s []Setting) func(float64) float64 {
	n := len(s)
	x := make([]float64, n)
	y := isotonicDecreasing(s)
	for i := range s {
		x[i] = float64(s[i].MemoryBytes)
	}
	if n == 1 {
		return func(float64) float64 { return y[0] }
	}
	d := make([]float64, n-1) // secant slopes
	for i := range d {
		d[i] = (y[i+1] - y[i]) / (x[i+1] - x[i])
	}
	t := make([]float64, n) // tangents
	t[0], t[n-1] = d[0], d[n-2]
	for i := 1; i < n-1; i++ {
		if d[i-1]*d[i] <= 0 {
			t[i] = 0
		} else {
			t[i] = (d[i-1] + d[i]) / 2
		}
	}
	for i := range d {
		if d[i] == 0 {
			t[i], t[i+1] = 0, 0
			continue
		}
		a, b := t[i]/d[i], t[i+1]/d[i]
		if h := a*a + b*b; h > 9 {
			k := 3 / math.Sqrt(h)
			t[i], t[i+1] = k*a*d[i], k*b*d[i]
		}
	}
	return func(m float64) float64 {
		if m <= x[0] {
			return y[0]
		}
		if m >= x[n-1] {
			return y[n-1]
		}
		i := 0
		for i < n-2 && m > x[i+1] {
			i++
		}
		h := x[i+1] - x[i]
		u := (m - x[i]) / h
		h00 := (1 + 2*u) * (1 - u) * (1 - u)
		h10 := u * (1 - u) * (1 - u)
		h01 := u * u * (3 - 2*u)
		h11 := u * u * (u - 1)
		return h00*y[i] + h10*h*t[i] + h01*y[i+1] + h11*h*t[i+1]
	}
}

// isotonicDecreasing returns the non-increasing sequence closest (weighted
// least squares) to the settings' median runtimes.
func isotonicDecreasing(s []Setting) []float64 {
	type block struct {
		v, w float64
		n    int
	}
	var st []block
	for _, x := range s {
		st = append(st, block{x.RuntimeS, float64(max(x.Runs, 1)), 1})
		for len(st) > 1 && st[len(st)-2].v < st[len(st)-1].v {
			a, b := st[len(st)-2], st[len(st)-1]
			st = st[:len(st)-2]
			st = append(st, block{(a.v*a.w + b.v*b.w) / (a.w + b.w), a.w + b.w, a.n + b.n})
		}
	}
	out := make([]float64, 0, len(s))
	for _, b := range st {
		for i := 0; i < b.n; i++ {
			out = append(out, b.v)
		}
	}
	return out
}
