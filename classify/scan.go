package classify

import (
	"math"

	"github.com/wlprof/wlprof/internal/quantile"
)

// scanned is what analyse learns from its one pass over a tenant's values
// before the period search.
type scanned struct {
	observed   int     // values that are not NaN
	mean, peak float64 // meanPeak's
	native     int     // nativeFactor's
	// long and longest are fillGaps' counts on the grid's own step; w.x
	// holds the values with their gaps filled.
	long, longest int
}

// scan is, in one pass over v (which starts and ends with a sample), what
// analyse did in five: the count of samples, meanPeak, nativeFactor (maxK
// as there), and a copy of v into w.x with its gaps filled as fillGaps
// fills them (maxGap slots as there). Each pass over a month at 2 minutes
// costs as much as the arithmetic of all of them: the values come from
// memory once instead of five times.
//
// Every figure has the bits of the separate functions (scan_test.go keeps
// them as the oracle): the mean is summed in the same four interleaved
// parts (a NaN added nothing there: adding +0 to a sum that starts at +0
// changes no bit), the gaps are filled with the same expression, and the
// peak is the same exact selection. Only the threshold that picks the
// values the peak is selected from may differ, since the number of samples
// is known at the end of the pass, not before it: it is estimated from the
// strided sample, and a threshold that leaves too few values above it is
// dropped as in meanPeak, so the selection stays exact either way.
func (w *workspace) scan(v []float64, maxK, maxGap int) scanned {
	n := len(v)
	thr := w.peakThreshold(v)
	w.x = growF(w.x, n)
	x := w.x[:n]
	hist := maxK >= 2 // nativeFactor's gaps are counted
	if hist {
		w.gaps = growI(w.gaps, maxK+2)
		clear(w.gaps)
	}
	gaps := w.gaps
	obs := w.obs[:0]
	var s0, s1, s2, s3 float64
	var nan, long, longest int
	// gap handles v[p], a NaN: at the first NaN of a run it fills the run
	// in x and counts it; later ones were filled with it. The run ends
	// before the last value, which is a sample.
	gap := func(p int) {
		nan++
		if v[p-1] != v[p-1] {
			return
		}
		j := p + 1
		for v[j] != v[j] {
			j++
		}
		a, b := x[p-1], v[j]
		for k := p; k < j; k++ {
			x[k] = a + (b-a)*float64(k-p+1)/float64(j-p+1)
		}
		if j-p > maxGap {
			long++
		}
		longest = max(longest, j-p)
		if hist {
			gaps[min(j-p+1, maxK+1)]++ // from the sample before the run to the one after it
		}
	}
	i := 0
	for ; i+4 <= n; i += 4 {
		u := v[i : i+4 : i+4] // one bounds check for four
		a, b, c, d := u[0], u[1], u[2], u[3]
		if a == a && b == b && c == c && d == d {
			xs := x[i : i+4 : i+4]
			xs[0], xs[1], xs[2], xs[3] = a, b, c, d
			s0 += a
			s1 += b
			s2 += c
			s3 += d
			if a > thr {
				obs = append(obs, a)
			}
			if b > thr {
				obs = append(obs, b)
			}
			if c > thr {
				obs = append(obs, c)
			}
			if d > thr {
				obs = append(obs, d)
			}
			continue
		}
		if a == a {
			x[i] = a
			s0 += a
			if a > thr {
				obs = append(obs, a)
			}
		} else {
			gap(i)
		}
		if b == b {
			x[i+1] = b
			s1 += b
			if b > thr {
				obs = append(obs, b)
			}
		} else {
			gap(i + 1)
		}
		if c == c {
			x[i+2] = c
			s2 += c
			if c > thr {
				obs = append(obs, c)
			}
		} else {
			gap(i + 2)
		}
		if d == d {
			x[i+3] = d
			s3 += d
			if d > thr {
				obs = append(obs, d)
			}
		} else {
			gap(i + 3)
		}
	}
	for ; i < n; i++ { // the tail goes into the first part, as in meanPeak
		if a := v[i]; a == a {
			x[i] = a
			s0 += a
			if a > thr {
				obs = append(obs, a)
			}
		} else {
			gap(i)
		}
	}
	res := scanned{observed: n - nan, native: 1, long: long, longest: longest}
	if res.observed == 0 {
		w.obs = obs
		return res
	}
	res.mean = ((s0 + s1) + (s2 + s3)) / float64(res.observed)
	k := min(max(int(math.Ceil(0.99*float64(res.observed)))-1, 0), res.observed-1)
	m := res.observed - k // the peak is the m-th largest
	if len(obs) < m {     // too few above the threshold: all of them
		obs = obs[:0]
		for _, u := range v {
			if u == u {
				obs = append(obs, u)
			}
		}
	}
	res.peak = quantile.Select(obs, len(obs)-m) // the m-th largest: the (len−m+1)-th smallest
	w.obs = obs
	if hist && res.observed < n && res.observed >= 2 {
		// Gaps of one slot were not counted: they are the rest.
		rest := res.observed - 1
		for _, c := range gaps[2:] {
			rest -= c
		}
		gaps[1] = rest
		res.native = medianGap(gaps, res.observed, maxK)
	}
	return res
}

// peakThreshold is meanPeak's threshold, from the same strided sample, with
// the number of samples estimated as the sampled share of v's length.
func (w *workspace) peakThreshold(v []float64) float64 {
	thr := math.Inf(-1)
	stride := len(v) / 512
	if stride < 4 {
		return thr
	}
	w.obs = w.obs[:0]
	np := 0
	for i := 0; i < len(v); i += stride {
		np++
		if x := v[i]; x == x {
			w.obs = append(w.obs, x)
		}
	}
	ns := len(w.obs)
	est := int(int64(len(v)) * int64(ns) / int64(np))
	if est < 1 || ns < 64 {
		return thr
	}
	k := min(max(int(math.Ceil(0.99*float64(est)))-1, 0), est-1)
	m := est - k
	if m < 8 {
		return thr
	}
	// The sample's value with about 2m/est of the sample above it.
	above := max(1, int(math.Ceil(2*float64(m)*float64(ns)/float64(est))))
	if above < ns {
		thr = quantile.NearestRank(w.obs, 1-float64(above)/float64(ns))
	}
	return thr
}
