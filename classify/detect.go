package classify

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/dsp/fourier"
)

// workspace holds what one worker reuses from tenant to tenant: one FFT
// plan per length (creating one costs up to milliseconds) and scratch
// slices.
type workspace struct {
	plans  map[int]*realFFT // nil: a length realFFT does not take
	ffts   map[int]*fourier.FFT
	coef   []complex128
	power  []float64
	shuf   []float64
	e      []float64
	prefix []float64
	prof   []float64
	smooth []float64
	spec   []float64        // the series' own periodogram, kept while shuffles reuse power
	obs    []float64        // peak's scratch: sampled values, values above the threshold
	x, y   []float64        // analyse's filled series and detection series
	reg    []float64        // a tenant's series on its own step (regrid)
	regN   []int            // samples per block of reg
	gaps   []int            // scan's counts of gaps between samples (medianGap)
	tried  map[[3]int]tried // detect's searches of the current series

	// prefixOf is the series whose running sums prefix holds (nil: none).
	// delevel reuses them for every window on that series; whoever
	// changes a series in place, or reuses its buffer for the next
	// tenant, calls forget.
	prefixOf []float64
	// eWin: e holds the prefixOf series de-levelled over eWin samples
	// (0: e holds nothing reusable).
	eWin int
	sums []float64 // boxSmooth's running sums
	sq   []float64 // climb's running squares of the de-levelled series
}

// tried is the outcome of one period search in detect.
type tried struct {
	lag       int
	period    float64 // in samples: lag, or between slots (fracPeak)
	r, f      float64
	confirmed bool
}

func newWorkspace() *workspace {
	return &workspace{plans: map[int]*realFFT{}, ffts: map[int]*fourier.FFT{}, tried: map[[3]int]tried{}}
}

func (w *workspace) fft(n int) *fourier.FFT {
	f, ok := w.ffts[n]
	if !ok {
		f = fourier.NewFFT(n)
		w.ffts[n] = f
	}
	return f
}

// periodogram writes |X_k|² for k = 0..n/2 of x into w.power: with the
// workspace's own plan (rfft.go) where n's prime factors are 2, 3 and 5,
// else (smoothLen also admits 7) with gonum.
func (w *workspace) periodogram(x []float64) []float64 {
	n := len(x)
	p, ok := w.plans[n]
	if !ok {
		p = newRealFFT(n)
		w.plans[n] = p
	}
	if p != nil {
		w.power = p.power(w.power, x)
		return w.power
	}
	w.coef = grow(w.coef, n/2+1)
	w.coef = w.fft(n).Coefficients(w.coef, x)
	w.power = growF(w.power, len(w.coef))
	for k, c := range w.coef {
		w.power[k] = real(c)*real(c) + imag(c)*imag(c)
	}
	return w.power
}

func grow(s []complex128, n int) []complex128 {
	if cap(s) < n {
		return make([]complex128, n)
	}
	return s[:n]
}

func growF(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// smoothLen returns the largest n' ≤ n whose prime factors are all ≤ 7:
// FFTs are fast at such lengths and hundreds of times slower at large
// primes (periodogram uses realFFT for factors 2, 3 and 5, gonum where a 7
// is among them).
func smoothLen(n int) int {
	for m := n; m > 1; m-- {
		r := m
		for _, p := range []int{2, 3, 5, 7} {
			for r%p == 0 {
				r /= p
			}
		}
		if r == 1 {
			return m
		}
	}
	return n
}

// detrendLinear subtracts the least-squares line from x in place: a trend
// would otherwise put its power at the lowest frequencies.
func detrendLinear(x []float64) {
	n := float64(len(x))
	if n < 2 {
		return
	}
	var st, sx, stt, stx float64
	for i, v := range x {
		t := float64(i)
		st += t
		sx += v
		stt += t * t
		stx += t * v
	}
	den := n*stt - st*st
	b := (n*stx - st*sx) / den
	a := (sx - b*st) / n
	for i := range x {
		x[i] -= a + b*float64(i)
	}
}

// zeroSumSquares says whether Σy² (summed in order) is 0. It is exactly
// when every y² is 0, since a sum of terms ≥ 0 rounds to 0 only then, so
// the first y² that is not 0 answers: the sum was a chain of dependent
// additions over the whole series, twice a tenant.
func zeroSumSquares(y []float64) bool {
	for _, v := range y {
		if v*v != 0 {
			return false
		}
	}
	return true
}

// detectResult is the outcome of the periodicity test on one series.
type detectResult struct {
	periodic bool
	lag      int     // period in samples of the series given to refine
	period   float64 // the same, between samples when over many cycles it falls there
	strength float64 // autocorrelation of the de-levelled series at the period
	// best is the strength of the best candidate even when it was
	// rejected (0 when no spectral peak beat the shuffles).
	best float64
}

// detect decides whether y (gap-free, on a grid) is periodic. y is
// modified (detrended). The rule, after AutoPeriod (Vlachos et al., SDM
// 2005) and Crane's harmonic handling:
//
//  1. candidate frequencies are local maxima of the periodogram with at
//     least MinCycles cycles in the window whose power beats the largest
//     power of every one of opts.Shuffles shuffled copies (a shuffle keeps
//     the values and destroys any order, so its spectrum is what the
//     series' noise alone produces);
//  2. harmonics: for a candidate at bin k, the multiples m·(n/k) whose own
//     fundamental bin k/m also stands out (above FundamentalShare of the
//     shuffle threshold: the family is already known not to be noise, its
//     fundamental only has to be a line) are candidate periods too (a spike
//     train or a weekly+daily mix has its strongest line at a harmonic);
//  3. each candidate period is refined on the autocorrelation of the series
//     minus its moving average over that period (which removes levels,
//     level shifts and trends but not the periodic part), by climbing to the
//     nearest local maximum within the frequency bin's resolution; it is
//     confirmed when that hill reaches opts.MinStrength and the period is
//     one a person would accept (supported: natural or seen
//     MinCyclesFree times, and in each half of the window);
//  4. among confirmed periods the shortest whose folded profile explains
//     (adjusted R²) within HarmonicTolerance of the best is the period:
//     a daily series folded at a week explains no more than at a day, a
//     weekly+daily series explains clearly more at a week.
func detect(y []float64, b band, src *rand.PCG, o *Options, w *workspace) detectResult {
	n := len(y)
	// Bins below kLo are periods longer than the band.
	kLo := max(o.MinCycles, 1)
	if b.maxLag > 0 {
		kLo = max(kLo, (n+b.maxLag-1)/b.maxLag)
	}
	clear(w.tried)
	detrendLinear(y)
	w.forget()
	if zeroSumSquares(y) { // nothing left once the line is removed
		return detectResult{}
	}
	// The series' own spectrum first: once the shuffles' threshold reaches
	// its strongest line no candidate can survive (the threshold only
	// grows), so the remaining shuffles are skipped.
	w.spec = append(w.spec[:0], w.periodogram(y)...)
	p := w.spec
	var top float64
	for k := kLo; k < len(p)-1; k++ {
		if p[k] > top { // not math.Max: powers are never NaN, and this is a hot loop
			top = p[k]
		}
	}
	// Threshold from shuffled copies.
	w.shuf = growF(w.shuf, n)
	var tau float64
	for r := 0; r < o.Shuffles; r++ {
		copy(w.shuf, y)
		shuffle(w.shuf, src)
		ps := w.periodogram(w.shuf)
		for _, v := range ps[1:] {
			if v > tau {
				tau = v
			}
		}
		if tau >= top {
			return detectResult{}
		}
	}
	type cand struct {
		k int
		p float64
	}
	var cands []cand
	for k := kLo; k < len(p)-1; k++ {
		if p[k] > tau && p[k] >= p[k-1] && p[k] >= p[k+1] {
			cands = append(cands, cand{k, p[k]})
		}
	}
	if len(cands) == 0 {
		return detectResult{}
	}
	sort.Slice(cands, func(i, j int) bool {
		return cands[i].p > cands[j].p || cands[i].p == cands[j].p && cands[i].k < cands[j].k
	})
	if len(cands) > o.Candidates {
		cands = cands[:o.Candidates]
	}
	// At least MinCycles cycles, to within the resolution of that bin.
	maxLag := int(float64(n) / (float64(max(o.MinCycles, 2)) - 0.5))
	if b.maxLag > 0 {
		maxLag = min(maxLag, b.maxLag)
	}
	var res detectResult
	for _, c := range cands {
		type per struct {
			lag    int
			period float64
			r, f   float64
		}
		var confirmed []per
		for m := 1; m <= o.MaxHarmonic; m++ {
			if m > 1 {
				// The fundamental of a harmonic family must show in the
				// spectrum itself.
				kf := float64(c.k) / float64(m)
				lo, hi := int(math.Floor(kf)), int(math.Ceil(kf))
				if lo < kLo || math.Max(p[lo], p[hi]) <= o.FundamentalShare*tau {
					continue
				}
			}
			centre := float64(m) * float64(n) / float64(c.k)
			lo := int(math.Floor(float64(m) * float64(n) / (float64(c.k) + 0.5)))
			hi := int(math.Ceil(float64(m) * float64(n) / (float64(c.k) - 0.5)))
			if lo > maxLag {
				break
			}
			lo, hi = max(lo-1, 2), min(hi+1, n/2)
			// Harmonic families overlap (a daily series' lines at 30 and
			// 60 cycles both lead to the day), so the same search recurs:
			// it is a function of (centre, lo, hi) alone, and remembered.
			key := [3]int{int(math.Round(centre)), lo, hi}
			t, seen := w.tried[key]
			if !seen {
				var ok bool
				t.lag, t.r, ok = w.climb(y, key[0], lo, hi)
				if !ok && t.r >= o.MinStrength && lo < hi {
					// The climb ran to a bound of the bin. On a smooth
					// cycle the hill is so flat that noise tilts it (a
					// day of 72 steps seen 22.5 times: the line falls
					// between bins, the climb starts at 74 and ends at
					// 71): the folded profile, sharp where the
					// autocorrelation is flat, says whether the period
					// is inside the bin after all.
					if lag := w.refineOver(w.refineSeries(y, key[0], 1), key[0], lo, hi); lag > lo && lag < hi {
						t.lag, t.r, ok = lag, acf(w.delevel(y, lag), lag), true
					}
				}
				t.confirmed = ok && t.r >= o.MinStrength && t.lag <= maxLag
				if t.confirmed {
					// The autocorrelation's hill is flat for smooth
					// cycles; the folded profile is sharp (a period error
					// drifts the phase over every cycle), so it places the
					// period within the bin.
					// Over many cycles of a short period it is the
					// other way round: a fold at a whole number of
					// samples drifts off a period that is not one (a
					// 4.4-sample cycle folded at 4 over 360 cycles
					// comes out flat), while the autocorrelation's
					// hill is sharp. The fold places the period where
					// a half-sample error drifts less than a quarter
					// of a cycle over the window (lag² ≥ 2n).
					// There the autocorrelation, taken between samples
					// where the period falls between them (fracPeak),
					// also stands in for the fold's adjusted R² when
					// harmonics are compared: a 15-minute cycle on a
					// 2-minute grid is 7.5 slots, and at 7 or 8 its
					// autocorrelation fell 0.18 short of its double's
					// at 15, which won.
					t.period = float64(t.lag)
					if t.lag*t.lag >= 2*n {
						t.lag = w.refine(y, t.lag, max(t.lag-lo, hi-t.lag), 1)
						t.period = float64(t.lag)
						t.f = w.foldR2(y, t.lag)
					} else if t.period, t.f = w.fracPeak(y, t.lag); t.f < t.r {
						t.period, t.f = float64(t.lag), t.r
					}
					t.confirmed = t.lag <= maxLag && w.supported(y, t.lag, b.stepS, o)
				}
				w.tried[key] = t
			}
			res.best = math.Max(res.best, t.r)
			if !t.confirmed {
				continue
			}
			confirmed = append(confirmed, per{t.lag, t.period, t.r, t.f})
		}
		if len(confirmed) == 0 {
			continue
		}
		bestF := math.Inf(-1)
		for _, q := range confirmed {
			bestF = math.Max(bestF, q.f)
		}
		for _, q := range confirmed { // in increasing lag order
			if q.f >= bestF-o.HarmonicTolerance {
				r := q.r
				if q.period != float64(q.lag) {
					r = q.f // the autocorrelation at the period itself
				} else if p, ok := w.fractionalDivisor(y, q.lag); ok {
					return detectResult{periodic: true, lag: int(math.Round(p)), period: p, strength: r, best: math.Max(res.best, r)}
				}
				return detectResult{periodic: true, lag: q.lag, period: q.period, strength: r, best: math.Max(res.best, r)}
			}
		}
	}
	return res
}

// fracPeak places a period of about lag samples between samples: the
// period in [lag−1, lag+1], in eighths of a sample, where the
// autocorrelation of y de-levelled over lag, with the lagged copy
// interpolated linearly between samples, is highest (climbing from lag),
// and that autocorrelation.
func (w *workspace) fracPeak(y []float64, lag int) (period, r float64) {
	e := w.delevel(y, lag)
	period, r = float64(lag), fracACF(e, float64(lag))
	for dir := -1.0; dir <= 1; dir += 2 {
		moved := false
		for {
			next := period + dir/8
			if next < float64(lag)-1 || next > float64(lag)+1 {
				break
			}
			rn := fracACF(e, next)
			if rn <= r {
				break
			}
			period, r, moved = next, rn, true
		}
		if moved {
			break
		}
	}
	return period, r
}

// fracACF is acf at a lag between samples: e against its copy tau
// samples on, interpolated linearly.
func fracACF(e []float64, tau float64) float64 {
	l := int(math.Floor(tau))
	a := tau - float64(l)
	n := len(e)
	if l < 1 || l+1 >= n {
		return 0
	}
	var sxy, sxx, syy float64
	for i := 0; i+l+1 < n; i++ {
		x := e[i]
		y := (1-a)*e[i+l] + a*e[i+l+1]
		sxy += x * y
		sxx += x * x
		syy += y * y
	}
	if sxx == 0 || syy == 0 {
		return 0
	}
	return sxy / math.Sqrt(sxx*syy)
}

// climb finds the local maximum of the de-levelled autocorrelation nearest
// to start within [lo, hi]. The series is de-levelled once, with a moving
// average over start samples. ok is false when the climb ends on a bound
// of the range (no hill inside it) or the range is empty.
func (w *workspace) climb(y []float64, start, lo, hi int) (lag int, r float64, ok bool) {
	if lo > hi || start < 2 || start >= len(y) {
		return 0, 0, false
	}
	start = min(max(start, lo), hi)
	e := w.delevel(y, start)
	w.sq = runningSquares(w.sq, e)
	lag, r = start, acfSq(e, w.sq, start)
	for dir := -1; dir <= 1; dir += 2 {
		for {
			next := lag + dir
			if next < lo || next > hi {
				break
			}
			rn := acfSq(e, w.sq, next)
			if rn <= r {
				break
			}
			lag, r = next, rn
		}
	}
	return lag, r, lag > lo && lag < hi
}

// delevel returns y minus its centred moving average over win samples
// (truncated at the ends). A component with period win averages to a
// constant over the window, so it survives; levels, level shifts and
// trends do not.
func (w *workspace) delevel(y []float64, win int) []float64 {
	n := len(y)
	if len(w.prefixOf) != n || n == 0 || &w.prefixOf[0] != &y[0] {
		w.prefix = runningSums(w.prefix, y)
		w.prefixOf = y
		w.eWin = 0
	}
	if w.eWin == win && len(w.e) == n {
		return w.e // y de-levelled over win already (the final refinement's lag, often)
	}
	w.eWin = 0
	w.e = growF(w.e, n)
	e, p := w.e, w.prefix
	half := win / 2
	// Interior points have the whole window (one multiplication each);
	// only the ends need the truncated one.
	lo, hi := min(half, n), max(min(n, n-win+half+1), min(half, n))
	for i := 0; i < lo; i++ {
		a, b := 0, min(n, i-half+win)
		e[i] = y[i] - (p[b]-p[a])/float64(b-a)
	}
	inv := 1 / float64(win)
	if lo < hi { // resliced to one length: no bounds checks in the loop
		ys := y[lo:hi]
		es, lead, tail := e[lo:hi][:len(ys)], p[lo-half : hi-half][:len(ys)], p[lo-half+win : hi-half+win][:len(ys)]
		for i, v := range ys {
			es[i] = v - (tail[i]-lead[i])*inv
		}
	}
	for i := hi; i < n; i++ {
		a, b := max(0, i-half), n
		e[i] = y[i] - (p[b]-p[a])/float64(b-a)
	}
	w.eWin = win
	return e
}

// forget drops delevel's running sums: the series they belong to is about
// to change.
func (w *workspace) forget() { w.prefixOf, w.eWin = nil, 0 }

// runningSums returns p (grown to len(y)+1) with p[i] = y[0]+…+y[i-1],
// added in order (the sum is kept in a register rather than reloaded).
func runningSums(p, y []float64) []float64 {
	p = growF(p, len(y)+1)
	p[0] = 0
	q := p[1:][:len(y)]
	var s float64
	for i, v := range y {
		s += v
		q[i] = s
	}
	return p
}

// runningSquares returns q (grown to len(e)+1) with q[i] = e[0]²+…+e[i-1]².
func runningSquares(q, e []float64) []float64 {
	q = growF(q, len(e)+1)
	q[0] = 0
	r := q[1:][:len(e)]
	var s float64
	for i, v := range e {
		s += v * v
		r[i] = s
	}
	return q
}

// acfSq is acf with the two sums of squares taken from e's running squares
// q, and the cross products summed in four interleaved parts: climb
// evaluates several lags on one series, and the three dependent sums of
// acf were its cost. It equals acf to rounding.
func acfSq(e, q []float64, lag int) float64 {
	n := len(e)
	if lag <= 0 || lag >= n {
		return 0
	}
	sxx, syy := q[n-lag], q[n]-q[lag]
	if sxx <= 0 || syy <= 0 {
		return 0
	}
	return dot4(e[:n-lag], e[lag:n]) / math.Sqrt(sxx*syy)
}

// dot4 is Σ a[i]·b[i] over a (b at least as long), summed in four
// interleaved parts: one chain of dependent additions is four times
// slower, and the result differs from the sequential sum only in rounding.
func dot4(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		u, v := a[i:i+4:i+4], b[i:i+4:i+4] // one bounds check for four
		s0 += u[0] * v[0]
		s1 += u[1] * v[1]
		s2 += u[2] * v[2]
		s3 += u[3] * v[3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

// acf is the normalised autocorrelation of e at lag over the overlap.
func acf(e []float64, lag int) float64 {
	if lag <= 0 || lag >= len(e) {
		return 0
	}
	var sxy, sxx, syy float64
	a, b := e[:len(e)-lag], e[lag:]
	for i := range a {
		x, y := a[i], b[i]
		sxy += x * y
		sxx += x * x
		syy += y * y
	}
	if sxx == 0 || syy == 0 {
		return 0
	}
	return sxy / math.Sqrt(sxx*syy)
}

// foldR2 is the adjusted R² of the series' mean profile at period lag
// (every phase's mean over all cycles): the share of variance a
// repeating shape explains, corrected for the lag parameters it spends so
// that longer folds do not win by fitting noise.
func (w *workspace) foldR2(y []float64, lag int) float64 {
	n := len(y)
	if lag >= n-1 {
		return math.Inf(-1)
	}
	var sum, sumsq float64
	for _, v := range y {
		sum += v
		sumsq += v * v
	}
	mean := sum / float64(n)
	ssr := math.Max(sumsq-w.foldExplained(y, lag), 0)
	sst := math.Max(sumsq-float64(n)*mean*mean, 0)
	if sst == 0 {
		return 0
	}
	return 1 - (ssr/float64(n-lag))/(sst/float64(n-1))
}

// foldExplained is Σ_phase S²/c over the fold of y at lag, where S is the
// phase's sum over all cycles and c its count: the residual sum of squares
// of the mean profile is Σy² minus this. One pass over y (the counts are
// known: the first n mod lag phases have one cycle more), where the
// residuals themselves would take a second: the refinement folds at up to
// hundreds of lags per tenant.
//
// Four cycles are added into the profile at a time (one load and store
// of the profile per four samples), and the squares are summed in four
// interleaved parts (dot4): the sums differ from cycle-by-cycle ones
// only in rounding.
func (w *workspace) foldExplained(y []float64, lag int) float64 {
	n := len(y)
	w.prof = growF(w.prof, lag)
	prof := w.prof
	clear(prof)
	c := 0
	for ; c+4*lag <= n; c += 4 * lag {
		a := y[c : c+lag]
		b, d, e := y[c+lag:c+2*lag], y[c+2*lag:c+3*lag], y[c+3*lag:c+4*lag]
		p := prof[:len(a)] // same lengths: no bounds checks in the loop
		b, d, e = b[:len(a)], d[:len(a)], e[:len(a)]
		for i := range a {
			p[i] += (a[i] + b[i]) + (d[i] + e[i])
		}
	}
	for ; c+lag <= n; c += lag {
		seg := y[c : c+lag]
		p := prof[:len(seg)]
		for i, v := range seg {
			p[i] += v
		}
	}
	for i, v := range y[c:] {
		prof[i] += v
	}
	full, rem := n/lag, n%lag
	a, b := dot4(prof[:rem], prof[:rem]), dot4(prof[rem:], prof[rem:])
	if full == 0 {
		return a
	}
	return a/float64(full+1) + b/float64(full)
}

// refine returns the lag within ±radius of start whose folded profile
// explains the de-levelled series best. The fold compares every cycle with
// the mean cycle, so a period error shows as a phase drift over all cycles:
// far sharper than the autocorrelation at a single lag, whose peak is flat
// for smooth cycles.
func (w *workspace) refine(x []float64, start, radius, smooth int) int {
	e := w.refineSeries(x, start, smooth)
	return w.refineOver(e, start, max(2, start-radius), min(len(e)-2, start+radius))
}

// refineSeries is what refine folds: x de-levelled over start samples,
// without its truncated ends, box-smoothed over smooth samples.
func (w *workspace) refineSeries(x []float64, start, smooth int) []float64 {
	// Only where the centred moving average had its whole window: its
	// truncated ends distort the first and last half cycle and pull the
	// optimum off the period.
	// The result aliases w.e (or w.smooth): the caller folds it before
	// anything de-levels again.
	e := w.delevel(x, start)
	if h := start / 2; len(e)-2*h >= 4*start { // unless too few cycles would be left
		e = e[h : len(e)-h]
	}
	if smooth > 1 {
		// Box-smooth over the detection step: noise would otherwise be
		// fitted differently at every lag and blur the optimum.
		return boxSmooth(e, smooth, w)
	}
	return e
}

// refineOver returns the lag in [lo, hi] whose fold of e explains most
// (the first, on ties).
func (w *workspace) refineOver(e []float64, start, lo, hi int) int {
	best, bf := start, math.Inf(-1)
	for lag := lo; lag <= hi; lag++ {
		// Plain R² (the residual sum of squares, Σe² less what the
		// profile explains; Σe² is the same at every lag): neighbouring
		// lags spend almost the same parameters, and the adjustment's
		// 1/(n-lag) would favour shorter lags.
		if lag >= len(e)-1 {
			break
		}
		if f := w.foldExplained(e, lag); f > bf {
			best, bf = lag, f
		}
	}
	return best
}

// refineClimb is refine by hill climbing: from start, towards the better
// neighbour, while the fold explains more, within ±radius. It is for the
// last refinement on the full grid, where the window is one detection step
// and the fold's score has a single hill (a period error drifts the phase
// over every cycle, so the score falls away on both sides of the period);
// it folds 3 to 5 times where refine folds at every lag of the window.
func (w *workspace) refineClimb(x []float64, start, radius, smooth, alt int) int {
	e := w.refineSeries(x, start, smooth)
	lo, hi := max(2, start-radius), min(len(e)-2, start+radius)
	if start < lo || start > hi {
		return w.refineOver(e, start, lo, hi)
	}
	score := func(lag int) float64 { return w.foldExplained(e, lag) }
	from, bf := start, score(start)
	// A natural period near the start (alt) is tried too: over many
	// cycles the fold's hill is narrower than a detection step (a 3-hour
	// cron with 37-minute runs seen 95 times: a slot off, the runs
	// drift apart), so a climb from a start a few slots off finds
	// nothing to climb.
	if alt != start && alt >= lo && alt <= hi {
		if f := score(alt); f > bf {
			from, bf = alt, f
		}
	}
	best := from
	for dir := -1; dir <= 1; dir += 2 {
		for {
			next := best + dir
			if next < lo || next > hi {
				break
			}
			f := score(next)
			if f <= bf {
				break
			}
			best, bf = next, f
		}
		if best != from {
			break // climbed one way: the other side is lower
		}
	}
	return best
}

// boxSmooth returns the centred moving average of x over win samples
// (truncated at the ends). As in delevel, interior points, which have the
// whole window, take one multiplication each instead of a division.
func boxSmooth(x []float64, win int, w *workspace) []float64 {
	n := len(x)
	w.sums = runningSums(w.sums, x)
	w.smooth = growF(w.smooth, n)
	out, p := w.smooth, w.sums
	half := win / 2
	lo, hi := min(half, n), max(min(n, n-win+half+1), min(half, n))
	for i := 0; i < lo; i++ {
		a, b := 0, min(n, i-half+win)
		out[i] = (p[b] - p[a]) / float64(b-a)
	}
	inv := 1 / float64(win)
	if lo < hi {
		lead, tail := p[lo-half:hi-half], p[lo-half+win:hi-half+win]
		o := out[lo:hi]
		tail, o = tail[:len(lead)], o[:len(lead)]
		for i := range lead {
			o[i] = (tail[i] - lead[i]) * inv
		}
	}
	for i := hi; i < n; i++ {
		a, b := max(0, i-half), n
		out[i] = (p[b] - p[a]) / float64(b-a)
	}
	return out
}

// fractionalDivisor says whether a period of lag samples is really lag/k
// samples, a period between samples, for k = 2…4 prime to lag: a
// 15-minute sawtooth on a 2-minute grid repeats exactly every 15 samples
// (30 minutes), and at 7 or 8 samples its autocorrelation is far below
// that, since the sawtooth's drop is sharp; interpolating between samples
// (fracPeak) blurs the drop, and the double won by more than
// HarmonicTolerance. The fold at lag tells them apart: its bin b lies at
// phase (b·k mod lag)/lag of the shorter cycle, so a profile that is a
// cycle of lag/k samples is smooth when its bins are put in that order
// and jumps k times as often in their own order. The shorter period is
// taken when the reordered profile's squared steps (cyclic) are under
// 0.7 of the profile's own — about 0.54 for a sawtooth, 0.25 for a sine,
// and far above 1 for a genuine cycle of lag samples, whose reordering
// puts bins of opposite phase side by side. At least 6 samples per
// longer cycle and 2 per shorter one.
func (w *workspace) fractionalDivisor(y []float64, lag int) (float64, bool) {
	if lag < 6 || lag > len(y)/4 {
		return 0, false
	}
	prof := make([]float64, lag)
	cnt := make([]int, lag)
	// The phase counts up and wraps: i%lag per sample, a division, was
	// most of this function's time.
	for i, b := 0, 0; i < len(y); i++ {
		prof[b] += y[i]
		cnt[b]++
		if b++; b == lag {
			b = 0
		}
	}
	for b := range prof {
		prof[b] /= float64(cnt[b])
	}
	rough := func(at func(m int) float64) float64 {
		var s float64
		for m := 0; m < lag; m++ {
			d := at((m+1)%lag) - at(m)
			s += d * d
		}
		return s
	}
	own := rough(func(m int) float64 { return prof[m] })
	if own == 0 {
		return 0, false
	}
	best, bestRatio := 0, 0.7
	for k := 2; k <= 4 && float64(lag)/float64(k) >= 2; k++ {
		if gcd(k, lag) != 1 {
			continue
		}
		inv := 1 // k⁻¹ mod lag: bin b_m = m·k⁻¹ holds phase m/lag of the shorter cycle
		for (inv*k)%lag != 1 {
			inv++
		}
		ratio := rough(func(m int) float64 { return prof[(m*inv)%lag] }) / own
		if ratio < bestRatio {
			best, bestRatio = k, ratio
		}
	}
	if best == 0 {
		return 0, false
	}
	return float64(lag) / float64(best), true
}

// shuffle permutes s as rand.New(src).Shuffle does, from the same draws:
// its loop, with rand.Rand's Uint64N written out on src itself, without
// a call through the Source interface per swap (a tenant's shuffles draw
// thousands). On 32-bit platforms, where Uint64N draws differently, it
// calls Uint64N.
func shuffle(s []float64, src *rand.PCG) {
	if is32bit {
		r := rand.New(src)
		for i := len(s) - 1; i > 0; i-- {
			j := int(r.Uint64N(uint64(i + 1)))
			s[i], s[j] = s[j], s[i]
		}
		return
	}
	for i := len(s) - 1; i > 0; i-- {
		n := uint64(i + 1)
		var j uint64
		if n&(n-1) == 0 { // a power of two: masked
			j = src.Uint64() & (n - 1)
		} else { // Lemire's multiply, with its rejection
			hi, lo := bits.Mul64(src.Uint64(), n)
			if lo < n {
				thresh := -n % n
				for lo < thresh {
					hi, lo = bits.Mul64(src.Uint64(), n)
				}
			}
			j = hi
		}
		s[i], s[j] = s[j], s[i]
	}
}

const is32bit = ^uint(0)>>32 == 0

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
