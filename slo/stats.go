package slo

import (
	"math"
	"sort"
)

// quantile is the p-th percentile (p in [0,100]) of xs by linear
// interpolation between order statistics (Hyndman & Fan type 7, what
// numpy.percentile and R's default give). xs is sorted in place.
func quantile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	sort.Float64s(xs)
	h := (float64(len(xs)) - 1) * p / 100
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= len(xs) {
		return xs[len(xs)-1]
	}
	return xs[i] + (h-lo)*(xs[i+1]-xs[i])
}

func median(xs []float64) float64 { return quantile(xs, 50) }

// mad is the median absolute deviation from the median (unscaled, as in
// seed 001: CV = MAD / median).
func mad(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	m := median(append([]float64(nil), xs...))
	d := make([]float64, len(xs))
	for i, x := range xs {
		d[i] = math.Abs(x - m)
	}
	return median(d)
}

// robustCV is MAD / |median|; +Inf when the median is 0 and the spread is not.
func robustCV(xs []float64) float64 {
	m := median(append([]float64(nil), xs...))
	d := mad(xs)
	if m == 0 {
		if d == 0 {
			return 0
		}
		return math.Inf(1)
	}
	return d / math.Abs(m)
}
