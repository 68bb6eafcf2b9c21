package fft

import (
	"math/rand/v2"
	"sort"
	"testing"
)

// quantile (selection) agrees with sorting, on seeded random inputs with
// ties.
func TestQuantileMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for trial := 0; trial < 200; trial++ {
		n := 1 + rng.IntN(300)
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(rng.IntN(20)) / 20
		}
		s := append([]float64(nil), v...)
		sort.Float64s(s)
		for _, q := range []float64{0, 0.5, 0.99, 1} {
			want := s[min(max(int(float64(n)*q+0.999999999)-1, 0), n-1)]
			if got := quantile(append([]float64(nil), v...), q); got != want {
				t.Fatalf("n=%d q=%g: got %g, want %g", n, q, got, want)
			}
		}
	}
}
