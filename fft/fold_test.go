package fft

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The fast forms of delevel (interior windows by one multiplication) and
// of the fold (Σy² less Σ S²/c in one pass) agree with their definitions,
// computed naively, on seeded random series of every small length.
func TestDelevelAndFoldMatchDefinitions(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	w := newWorkspace()
	for _, n := range []int{1, 2, 3, 5, 10, 37, 100} {
		y := make([]float64, n)
		for i := range y {
			y[i] = r.Float64()
		}
		for win := 1; win <= n+3; win++ {
			e := w.delevel(y, win)
			half := win / 2
			for i := range y {
				a, b := max(0, i-half), min(n, i-half+win)
				var s float64
				for _, v := range y[a:b] {
					s += v
				}
				if want := y[i] - s/float64(b-a); math.Abs(e[i]-want) > 1e-12 {
					t.Fatalf("delevel n %d win %d i %d: %g, want %g", n, win, i, e[i], want)
				}
			}
		}
		for lag := 1; lag < n-1; lag++ {
			prof := make([]float64, lag)
			cnt := make([]float64, lag)
			var mean float64
			for i, v := range y {
				prof[i%lag] += v
				cnt[i%lag]++
				mean += v
			}
			mean /= float64(n)
			var ssr, sst float64
			for i, v := range y {
				d := v - prof[i%lag]/cnt[i%lag]
				ssr += d * d
				sst += (v - mean) * (v - mean)
			}
			want := 1 - (ssr/float64(n-lag))/(sst/float64(n-1))
			if got := w.foldR2(y, lag); math.Abs(got-want) > 1e-9 {
				t.Fatalf("foldR2 n %d lag %d: %g, want %g", n, lag, got, want)
			}
		}
	}
}
