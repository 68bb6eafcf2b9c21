// Package quantile holds the medians and quantiles the stages compute, one
// function per definition, so that each stage says which one it uses.
// Definitions that look interchangeable are not: the type-7 50th
// percentile (a + (b−a)/2) and the median (a+b)/2 differ in the last bit
// for about one even-length input in eight, and the stages' JSON outputs
// are pinned by golden files, so each caller keeps the one it had.
//
// Median and Percentile leave their input as it is. The selection
// functions (Select, NearestRank, UpperMedian) reorder theirs: they run in
// linear time without allocating, which is why classify uses them on every
// tenant's series.
//
// NaN: Median and Percentile order values as sort.Float64s does, NaN
// before every number, so a NaN counts as the smallest value; callers
// that can hold NaN drop it first. The selection functions need inputs
// without NaN (their result is otherwise unspecified).
package quantile

import (
	"cmp"
	"fmt"
	"math"
	"sort"
)

// Median is the middle of x in sorted order, the mean (a+b)/2 of the two
// middle values when len(x) is even (numpy.median, R's median). NaN when
// x is empty. x is not modified.
func Median(x []float64) float64 {
	n := len(x)
	if n == 0 {
		return math.NaN()
	}
	y := sorted(x)
	if n%2 == 1 {
		return y[n/2]
	}
	return (y[n/2-1] + y[n/2]) / 2
}

// Percentile is the p-th percentile (p in [0, 100]) of x by linear
// interpolation between order statistics: Hyndman & Fan type 7, what
// numpy.percentile and R's quantile give by default. With h = (n−1)p/100,
// it is x₍⌊h⌋₎ + (h−⌊h⌋)(x₍⌊h⌋+1₎ − x₍⌊h⌋₎) over the sorted x. NaN when x is
// empty. x is not modified. Percentile(x, 50) is not Median(x) to the
// last bit (see the package comment).
//
// It panics when p is outside [0, 100]: callers validate percentiles
// where they are read.
func Percentile(x []float64, p float64) float64 {
	if !(p >= 0 && p <= 100) {
		panic(fmt.Sprintf("quantile: percentile %g outside [0, 100]", p))
	}
	if len(x) == 0 {
		return math.NaN()
	}
	y := sorted(x)
	h := (float64(len(y)) - 1) * p / 100
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= len(y) {
		return y[len(y)-1]
	}
	return y[i] + (h-lo)*(y[i+1]-y[i])
}

// NearestRank is the q-quantile (q in [0, 1]) of v by the nearest-rank
// definition (Hyndman & Fan type 1): the ⌈qn⌉-th smallest value, the
// smallest for q = 0. It is always one of v's values. NaN when v is empty.
// v is reordered (see Select).
func NearestRank(v []float64, q float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	k := min(max(int(math.Ceil(q*float64(len(v))))-1, 0), len(v)-1)
	return Select(v, k)
}

// UpperMedian is the upper of the two middle values of x (the middle one
// when len(x) is odd): the element at len(x)/2 in sorted order, numpy's
// "higher" method at 50%. Unlike Median it is one of x's values, which is
// what a step or a length measured in whole units needs. The zero value
// when x is empty. x is reordered (see Select).
func UpperMedian[T cmp.Ordered](x []T) T {
	if len(x) == 0 {
		var zero T
		return zero
	}
	return Select(x, len(x)/2)
}

// Select returns the k-th smallest (0-based) element of v, reordering v:
// Hoare's selection, linear time on average and no allocation (sorting
// 21,600 slots per tenant was a third of the classify stage's time). It panics
// when k is outside [0, len(v)).
func Select[T cmp.Ordered](v []T, k int) T {
	if k < 0 || k >= len(v) {
		panic(fmt.Sprintf("quantile: Select(%d) of %d values", k, len(v)))
	}
	lo, hi := 0, len(v)-1
	for lo < hi {
		pivot := v[lo+(hi-lo)/2]
		i, j := lo, hi
		for i <= j {
			for v[i] < pivot {
				i++
			}
			for v[j] > pivot {
				j--
			}
			if i <= j {
				v[i], v[j] = v[j], v[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return v[k]
		}
	}
	return v[k]
}

// sorted returns a sorted copy of x.
func sorted(x []float64) []float64 {
	y := append([]float64(nil), x...)
	sort.Float64s(y)
	return y
}
