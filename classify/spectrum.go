package classify

import "math"

// Spectrum returns the periodogram of a series on a grid of stepS seconds,
// for plotting: the power |X_k|² of the mean-removed series (NaN gaps
// filled by interpolation) at the frequencies k / (n·stepS) Hz, k ≥ 1. The
// series is trimmed to the longest length whose prime factors are small, as
// classification does, so the FFT stays fast.
func Spectrum(values []float64, stepS float64) (freqHz, power []float64) {
	lo, hi := 0, len(values)
	for lo < hi && math.IsNaN(values[lo]) {
		lo++
	}
	for hi > lo && math.IsNaN(values[hi-1]) {
		hi--
	}
	x := append([]float64(nil), values[lo:hi]...)
	fillGaps(x, len(x))
	n := smoothLen(len(x))
	if n < 4 || !(stepS > 0) {
		return nil, nil
	}
	x = x[len(x)-n:]
	mean := 0.0
	for _, v := range x {
		mean += v
	}
	mean /= float64(n)
	for i := range x {
		x[i] -= mean
	}
	p := newWorkspace().periodogram(x)
	for k := 1; k < len(p); k++ {
		freqHz = append(freqHz, float64(k)/(float64(n)*stepS))
		power = append(power, p[k])
	}
	return freqHz, power
}
