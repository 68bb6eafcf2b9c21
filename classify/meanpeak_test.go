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
// on scan's test series (randomSeries: up to a month at 2 minutes with
// ties, NaN gaps single, in runs or on a coarser sampling, sorted and
// reversed runs, and spikes placed exactly where the sample looks, so its
// threshold is too high and the fallback is taken).
func TestMeanPeakMatchesQuantile(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	w := newWorkspace()
	for trial := 0; trial < 400; trial++ {
		v := randomSeries(rng, trial)
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
			t.Fatalf("trial %d n=%d: got (%g, %g), want (%g, %g)", trial, len(v), gotMean, got, mean, want)
		}
	}
}
