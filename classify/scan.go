package classify

import (
	"math"

	"github.com/wlprof/wlprof/internal/quantile"
)

// scanned is what analyse learns from its one pass over a tenant's values
// before the period search.
type scanned struct {
	observed   int     // values that are not NaN
	mean, peak float64 // of the samples; peak is the 99th percentile (nearest rank)
	native     int     // the sampling interval in grid slots (medianGap)
	// long and longest are fillGaps' counts on the grid's own step; w.x
	// holds the values with their gaps filled.
	long, longest int
}

// scan is, in one pass over v (which starts and ends with a sample), what
// analyse did in five: the count of samples, the mean (meanPeak's), the
// sampling interval (nativeFactor's; maxK as there), and a copy of v into
// w.x with its gaps filled as fillGaps fills them (maxGap slots as there). Each pass over a month at 2
// minutes costs as much as the arithmetic of all of them: the values come
// from memory once instead of five times. The peak's selection (peak) then
// reads them from the cache.
//
// Every figure has the bits of the separate functions (scan_test.go keeps
// them as the oracle): the mean is summed in the same four interleaved
// parts, in the same order (a NaN added nothing there: adding +0 to a sum
// that starts at +0 changes no bit), and the gaps are filled by the
// same function (interpolate). (signalSpread's squared differences summed in this
// pass too made it slower than their own pass over the cached copy.)
func (w *workspace) scan(v []float64, maxK, maxGap int) scanned {
	n := len(v)
	w.x = growF(w.x, n)
	x := w.x[:n]
	hist := maxK >= 2 // gaps between samples are counted for medianGap
	if hist {
		w.gaps = growI(w.gaps, maxK+2)
		clear(w.gaps)
	}
	gaps := w.gaps
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
		interpolate(x, p, j, x[p-1], v[j])
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
			continue
		}
		if a == a {
			x[i] = a
			s0 += a
		} else {
			gap(i)
		}
		if b == b {
			x[i+1] = b
			s1 += b
		} else {
			gap(i + 1)
		}
		if c == c {
			x[i+2] = c
			s2 += c
		} else {
			gap(i + 2)
		}
		if d == d {
			x[i+3] = d
			s3 += d
		} else {
			gap(i + 3)
		}
	}
	for ; i < n; i++ { // the tail goes into the first part
		if a := v[i]; a == a {
			x[i] = a
			s0 += a
		} else {
			gap(i)
		}
	}
	res := scanned{observed: n - nan, native: 1, long: long, longest: longest}
	if res.observed == 0 {
		return res
	}
	res.mean = ((s0 + s1) + (s2 + s3)) / float64(res.observed)
	res.peak = w.peak(v, res.observed)
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

// peak is the 99th percentile (nearest rank) of the observed values of
// v, of which there are observed (> 0): the m-th largest (m ≈ 1% of
// observed). A strided sample gives a threshold that about 2m values
// exceed; those are gathered and the m-th largest of them selected; when
// fewer than m exceed it (an unlucky sample) the threshold is dropped and
// every observed value is selected from. Either way the result is exact.
// (A heap of the top m cost more: on a rising series most values enter
// it.) scan calls it after its pass, when v is in the cache: a strided
// sample taken before the pass waited for memory at every value.
func (w *workspace) peak(v []float64, observed int) float64 {
	k := min(max(int(math.Ceil(0.99*float64(observed)))-1, 0), observed-1)
	m := observed - k // the peak is the m-th largest
	thr := math.Inf(-1)
	if stride := len(v) / 512; stride >= 4 && m >= 8 {
		w.obs = w.obs[:0]
		for i := 0; i < len(v); i += stride {
			if x := v[i]; x == x {
				w.obs = append(w.obs, x)
			}
		}
		// The sample's value with about 2m/observed of the sample above it.
		if ns := len(w.obs); ns >= 64 {
			above := max(1, int(math.Ceil(2*float64(m)*float64(ns)/float64(observed))))
			if above < ns {
				thr = quantile.NearestRank(w.obs, 1-float64(above)/float64(ns))
			}
		}
	}
	w.obs = w.obs[:0]
	for _, x := range v {
		if x > thr { // false for NaN
			w.obs = append(w.obs, x)
		}
	}
	if len(w.obs) < m { // too few above the threshold: all of them
		w.obs = w.obs[:0]
		for _, x := range v {
			if x == x {
				w.obs = append(w.obs, x)
			}
		}
	}
	// The m-th largest of what was gathered: its (n−m+1)-th smallest.
	return quantile.Select(w.obs, len(w.obs)-m)
}
