package quantile

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
)

// insertionSorted is the oracles' sort: written out here so that the
// oracles share no code with the package (not even sort.Float64s), with
// NaN first as the package documents.
func insertionSorted(x []float64) []float64 {
	y := append([]float64(nil), x...)
	less := func(a, b float64) bool { return a < b || math.IsNaN(a) && !math.IsNaN(b) }
	for i := 1; i < len(y); i++ {
		for j := i; j > 0 && less(y[j], y[j-1]); j-- {
			y[j], y[j-1] = y[j-1], y[j]
		}
	}
	return y
}

// type7 is the Hyndman & Fan type-7 quantile of sorted y at p percent, in
// exact rational arithmetic, rounded once to float64.
func type7(y []float64, p float64) float64 {
	h := new(big.Rat).Mul(big.NewRat(int64(len(y)-1), 100), new(big.Rat).SetFloat64(p))
	i := new(big.Int).Quo(h.Num(), h.Denom()).Int64()
	if int(i)+1 >= len(y) {
		return y[len(y)-1]
	}
	frac := new(big.Rat).Sub(h, new(big.Rat).SetInt64(i))
	lo, hi := new(big.Rat).SetFloat64(y[i]), new(big.Rat).SetFloat64(y[i+1])
	v, _ := new(big.Rat).Add(lo, frac.Mul(frac, hi.Sub(hi, lo))).Float64()
	return v
}

// randomInput has ties (values on a coarse grid) half the time.
func randomInput(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	ties := rng.IntN(2) == 0
	for i := range x {
		if ties {
			x[i] = float64(rng.IntN(20)) / 20
		} else {
			x[i] = (rng.Float64() - 0.3) * 1e3
		}
	}
	return x
}

func TestMedianEdgeCases(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		x    []float64
		want float64
	}{
		{nil, nan},
		{[]float64{}, nan},
		{[]float64{7}, 7},
		{[]float64{2, 1}, 1.5},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{-1, 1}, 0},
		{[]float64{math.Inf(1), 1, math.Inf(-1)}, 1},
		// NaN sorts first: it counts as the smallest value.
		{[]float64{nan, 5, 3}, 3},
		{[]float64{nan, nan, 5}, nan},
	}
	for _, c := range cases {
		in := append([]float64(nil), c.x...)
		got := Median(in)
		if got != c.want && !(math.IsNaN(got) && math.IsNaN(c.want)) {
			t.Errorf("Median(%v) = %v, want %v", c.x, got, c.want)
		}
		if !slices.EqualFunc(in, c.x, func(a, b float64) bool { return a == b || a != a && b != b }) {
			t.Errorf("Median(%v) modified its input to %v", c.x, in)
		}
	}
}

// Reference values from numpy.percentile (linear, the default):
// np.percentile([1, 2, 3, 4], 95) = 3.85, [.., 50] = 2.5,
// np.percentile([10, 0, 5], 25) = 2.5.
func TestPercentileMatchesNumpy(t *testing.T) {
	cases := []struct {
		x    []float64
		p    float64
		want float64
	}{
		{[]float64{1, 2, 3, 4}, 95, 3.85}, {[]float64{4, 3, 2, 1}, 50, 2.5}, {[]float64{10, 0, 5}, 25, 2.5},
		{[]float64{7}, 95, 7}, {[]float64{1, 2}, 100, 2}, {[]float64{1, 2}, 0, 1},
	}
	for _, c := range cases {
		in := append([]float64(nil), c.x...)
		if got := Percentile(in, c.p); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Percentile(%v, %v) = %v, want %v", c.x, c.p, got, c.want)
		}
		if !slices.Equal(in, c.x) {
			t.Errorf("Percentile(%v, %v) modified its input to %v", c.x, c.p, in)
		}
	}
	if got := Percentile(nil, 50); !math.IsNaN(got) {
		t.Errorf("Percentile(nil, 50) = %v, want NaN", got)
	}
}

// Median is bit for bit the mean of the sorted reference's middle values,
// and Percentile within rounding of the exact type-7 value, on seeded
// random inputs with and without ties.
func TestAgainstSortedReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 7))
	for trial := 0; trial < 500; trial++ {
		n := 1 + rng.IntN(60)
		x := randomInput(rng, n)
		y := insertionSorted(x)
		want := y[n/2]
		if n%2 == 0 {
			want = (y[n/2-1] + y[n/2]) / 2
		}
		if got := Median(x); got != want {
			t.Fatalf("Median(%v) = %v, want %v", x, got, want)
		}
		for _, p := range []float64{0, 1, 5, 25, 50, 95, 99, 100, 100 * rng.Float64()} {
			want := type7(y, p)
			got := Percentile(x, p)
			if math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
				t.Fatalf("Percentile(%v, %g) = %v, want %v", x, p, got, want)
			}
			if got < y[0] || got > y[n-1] {
				t.Fatalf("Percentile(%v, %g) = %v outside [min, max]", x, p, got)
			}
		}
	}
}

// The selection functions agree with sorting, on seeded random inputs
// with ties, for every rank.
func TestSelectionMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for trial := 0; trial < 200; trial++ {
		n := 1 + rng.IntN(300)
		v := randomInput(rng, n)
		s := insertionSorted(v)
		for _, q := range []float64{0, 0.01, 0.5, 0.99, 1, rng.Float64()} {
			// The ⌈qn⌉-th smallest, counted from 1.
			want := s[min(max(int(math.Ceil(q*float64(n)))-1, 0), n-1)]
			if got := NearestRank(append([]float64(nil), v...), q); got != want {
				t.Fatalf("n=%d q=%g: NearestRank %g, want %g", n, q, got, want)
			}
		}
		for k := 0; k < n; k++ {
			if got := Select(append([]float64(nil), v...), k); got != s[k] {
				t.Fatalf("n=%d: Select(%d) = %g, want %g", n, k, got, s[k])
			}
		}
		ints := make([]int64, n)
		for i := range ints {
			ints[i] = rng.Int64N(50)
		}
		si := slices.Clone(ints)
		slices.Sort(si)
		if got := UpperMedian(ints); got != si[n/2] {
			t.Fatalf("UpperMedian(%v) = %d, want %d", si, got, si[n/2])
		}
	}
}

func TestSelectionEdgeCases(t *testing.T) {
	if got := NearestRank(nil, 0.5); !math.IsNaN(got) {
		t.Errorf("NearestRank(nil) = %v, want NaN", got)
	}
	if got := NearestRank([]float64{3}, 0.99); got != 3 {
		t.Errorf("NearestRank([3], 0.99) = %v, want 3", got)
	}
	if got := UpperMedian([]int(nil)); got != 0 {
		t.Errorf("UpperMedian(nil) = %v, want 0", got)
	}
	if got := UpperMedian([]int{4, 1, 3, 2}); got != 3 {
		t.Errorf("UpperMedian([4 1 3 2]) = %v, want 3", got)
	}
}

func TestPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"Percentile(-1)":  func() { Percentile([]float64{1}, -1) },
		"Percentile(101)": func() { Percentile([]float64{1}, 101) },
		"Percentile(NaN)": func() { Percentile([]float64{1}, math.NaN()) },
		"Select(-1)":      func() { Select([]float64{1}, -1) },
		"Select(1)":       func() { Select([]float64{1}, 1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", name)
				}
			}()
			f()
		}()
	}
}

// The median and the 50th percentile of the same two values: equal to
// the eye, not to the last bit.
func ExamplePercentile() {
	x := []float64{163.87541502137225, 726.3900707339022}
	fmt.Println(Median(x))
	fmt.Println(Percentile(x, 50))
	// Output:
	// 445.13274287763727
	// 445.1327428776372
}

func BenchmarkNearestRank(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	v := randomInput(rng, 21600)
	w := make([]float64, len(v))
	for b.Loop() {
		copy(w, v)
		NearestRank(w, 0.99)
	}
}
