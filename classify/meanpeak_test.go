package classify

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/wlprof/wlprof/internal/quantile"
)

// scan's peak (a threshold from a strided sample, then selection) gives the
// same 99th percentile as a selection over every value, and the same mean
// (to rounding),
// on seeded inputs up to a month at 2 minutes with ties, NaN gaps, sorted
// and reversed runs, and spikes placed exactly where the sample looks (so
// its threshold is too high and the fallback is taken).
func TestMeanPeakMatchesQuantile(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	w := newWorkspace()
	for trial := 0; trial < 400; trial++ {
		n := 1 + rng.IntN(3000)
		if trial%2 == 0 {
			n = 1 + rng.IntN(30000)
		}
		v := make([]float64, n)
		stride := max(1, n/512)
		for i := range v {
			switch trial % 4 {
			case 0:
				v[i] = float64(rng.IntN(50)) / 50
			case 1:
				v[i] = float64(i)
			case 2:
				v[i] = float64(rng.IntN(1000)) / 1000
				if i%stride == 0 {
					v[i] = 2 + rng.Float64()
				}
			default:
				v[i] = float64(n - i)
			}
			if rng.IntN(10) == 0 {
				v[i] = math.NaN()
			}
		}
		var obs []float64
		var mean float64
		for _, x := range v {
			if !math.IsNaN(x) {
				obs = append(obs, x)
				mean += x
			}
		}
		if len(obs) == 0 {
			continue
		}
		mean /= float64(len(obs))
		want := quantile.NearestRank(obs, 0.99)
		sc := w.scan(trimNaN(v), 30, 30)
		gotMean, got := sc.mean, sc.peak
		if got != want || math.Abs(gotMean-mean) > 1e-12*math.Max(1, math.Abs(mean)) { // the mean is summed in four parts when nothing is missing
			t.Fatalf("trial %d n=%d: got (%g, %g), want (%g, %g)", trial, n, gotMean, got, mean, want)
		}
	}
}
