package slo

import (
	"math"

	"github.com/wlprof/wlprof/internal/quantile"
)

// The stage's medians are type-7 50th percentiles (quantile.Percentile),
// as numpy.percentile gives them, not quantile.Median: the two differ in
// the last bit, and the SLOs are pinned by golden files.

// mad is the median absolute deviation from the median (unscaled, as in
// Jyothi et al., OSDI'16: CV = MAD / median).
func mad(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	m := quantile.Percentile(xs, 50)
	d := make([]float64, len(xs))
	for i, x := range xs {
		d[i] = math.Abs(x - m)
	}
	return quantile.Percentile(d, 50)
}

// robustCV is MAD / |median|; +Inf when the median is 0 and the spread is not.
func robustCV(xs []float64) float64 {
	m := quantile.Percentile(xs, 50)
	d := mad(xs)
	if m == 0 {
		if d == 0 {
			return 0
		}
		return math.Inf(1)
	}
	return d / math.Abs(m)
}
