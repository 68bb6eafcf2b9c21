package classify

import "math"

// band is what one detection searches: the step of its series and the
// longest period it may report.
type band struct {
	stepS  float64 // seconds per sample of the searched series
	maxLag int     // longest period, in samples; 0: only MinCycles bounds it
}

// naturalPeriods are the periods people and schedulers set: whole minutes
// that divide an hour, whole hours that divide a day, a day and a week.
var naturalPeriods = func() []float64 {
	var p []float64
	for _, m := range []float64{1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30} {
		p = append(p, 60*m)
	}
	for _, h := range []float64{1, 2, 3, 4, 6, 8, 12, 24} {
		p = append(p, 3600*h)
	}
	return append(p, 7*86400)
}()

// naturalPeriod says whether periodS is within max(1%, slack) of a
// natural period.
func naturalPeriod(periodS, slack float64) bool {
	_, ok := nearestNatural(periodS, slack)
	return ok
}

// nearestNatural is the natural period within max(1%, slack) of periodS,
// if any.
func nearestNatural(periodS, slack float64) (float64, bool) {
	best, bd := 0.0, math.Inf(1)
	for _, q := range naturalPeriods {
		if d := math.Abs(periodS - q); d <= math.Max(0.01*q, slack) && d < bd {
			best, bd = q, d
		}
	}
	return best, bd < math.Inf(1)
}

// supported says whether a confirmed period of lag samples of y (step
// stepS) is one a person would accept. Red noise, regime switches and
// irregular bursts put a chance coincidence or two at some lag, of a
// strength that passes MinStrength over the whole window when it holds
// few cycles; the search tries dozens of lags. So:
//
//   - a period that is not natural must be seen at least MinCyclesFree
//     times: over C cycles a coincidence's autocorrelation scatters by
//     about 1/√C, so it passes MinStrength in a few cycles and fails it
//     in many. A natural period (a dozen values fixed in advance) needs
//     only MinCycles;
//   - it must show in each half of the window on its own (the de-levelled
//     autocorrelation at the period at least SplitStrength in the weaker
//     half), each half at least two cycles long (so they overlap when the
//     window holds fewer than four): a coincidence lifts the whole
//     window's autocorrelation, not both halves';
//   - seen fewer than 2·MinCycles times, its halves are a pair of cycles
//     or two, which one coincidence can match: its strength must reach
//     FewCyclesStrength (of 300 random walks of 21 days, 6 matched
//     themselves a week on at 0.32–0.49; weekly tenants seen three or
//     four times reach 0.8–0.99).
func (w *workspace) supported(y []float64, lag int, stepS float64, o *Options) bool {
	n := len(y)
	nat := naturalPeriod(float64(lag)*stepS, stepS)
	m := max(n/2, 2*lag)
	ok := m <= n && (nat || n >= o.MinCyclesFree*lag)
	if ok {
		r1 := acf(w.delevel(y[:m], lag), lag)
		r2 := acf(w.delevel(y[n-m:], lag), lag)
		ok = math.Min(r1, r2) >= o.SplitStrength
	}
	if ok && n < 2*o.MinCycles*lag {
		ok = acf(w.delevel(y, lag), lag) >= o.FewCyclesStrength
	}
	return ok
}

// cycleSD is the standard deviation of the part of x that repeats at
// lag: the autocovariance at lag of x less its moving average over lag.
// Noise does not repeat, so it adds nothing (a fold's profile would keep
// some of it); and unlike a fold, a period a fraction of a slot off the
// true one costs almost nothing (a fold over hundreds of cycles of a
// 7.7-slot period at 8 slots drifts through every phase and comes out
// flat).
func (w *workspace) cycleSD(x []float64, lag int) float64 {
	n := len(x)
	if lag < 1 || lag >= n {
		return 0
	}
	e := w.delevel(x, lag)
	return math.Sqrt(math.Max(dot4(e[:n-lag], e[lag:])/float64(n-lag), 0))
}
