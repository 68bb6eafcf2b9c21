package classify

import (
	"math"
	"testing"
)

// TestSpectrumPeak: a daily sine sampled every 2 minutes for 7 days (with a
// gap and leading NaNs) has its largest power at 1/86400 Hz.
func TestSpectrumPeak(t *testing.T) {
	const step = 120.0
	n := 7 * 86400 / int(step)
	x := make([]float64, n)
	for i := range x {
		x[i] = 0.5 + 0.3*math.Sin(2*math.Pi*float64(i)*step/86400)
	}
	x[0], x[1], x[500], x[501] = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	f, p := Spectrum(x, step)
	best := 0
	for k := range p {
		if p[k] > p[best] {
			best = k
		}
	}
	if len(f) == 0 || math.Abs(f[best]-1.0/86400)/(1.0/86400) > 0.01 {
		t.Fatalf("peak at %g Hz, want %g", f[best], 1.0/86400)
	}
	if f, p := Spectrum([]float64{math.NaN(), math.NaN()}, step); f != nil || p != nil {
		t.Errorf("an empty series has no spectrum")
	}
}
