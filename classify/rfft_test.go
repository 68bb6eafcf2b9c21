package classify

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/dsp/fourier"
)

// smooth235 reports whether n ≥ 1 has no prime factor other than 2, 3, 5.
func smooth235(n int) bool {
	if n < 1 {
		return false
	}
	for _, f := range []int{2, 3, 5} {
		for n%f == 0 {
			n /= f
		}
	}
	return n == 1
}

// rfftInputs returns the test signals of length n: uniform noise, a
// sinusoid plus noise (one dominant bin, the rest small: checks that
// errors are relative to the largest bin, not hidden by it), a constant
// (all power in bin 0, the rest should be ~0) and all zeros.
func rfftInputs(n int, rng *rand.Rand) map[string][]float64 {
	uni := make([]float64, n)
	sine := make([]float64, n)
	cst := make([]float64, n)
	for i := range uni {
		uni[i] = rng.Float64()*2 - 1
		sine[i] = 3*math.Sin(2*math.Pi*float64(i)*7.3/float64(n)+0.4) + 0.1*rng.NormFloat64()
		cst[i] = 0.73
	}
	return map[string][]float64{"uniform": uni, "sine": sine, "constant": cst, "zeros": make([]float64, n)}
}

// gonumPower is the reference: gonum's Coefficients, squared magnitudes.
func gonumPower(f *fourier.FFT, coef []complex128, dst, x []float64) ([]complex128, []float64) {
	coef = f.Coefficients(coef, x)
	dst = dst[:0]
	for _, c := range coef {
		dst = append(dst, real(c)*real(c)+imag(c)*imag(c))
	}
	return coef, dst
}

// maxRelErr returns max_k |got_k − want_k| / max(1, max_k want_k).
func maxRelErr(got, want []float64) float64 {
	scale := 1.0
	for _, v := range want {
		scale = math.Max(scale, v)
	}
	var e float64
	for k := range want {
		e = math.Max(e, math.Abs(got[k]-want[k])/scale)
	}
	return e
}

func TestRealFFTMatchesGonum(t *testing.T) {
	ns := []int{21600, 43200}
	for n := 2; n <= 4096; n++ {
		if smooth235(n) {
			ns = append(ns, n)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var worst float64
	worstAt := ""
	for _, n := range ns {
		p := newRealFFT(n)
		if p == nil {
			t.Fatalf("newRealFFT(%d) = nil, want a plan", n)
		}
		g := fourier.NewFFT(n)
		var coef []complex128
		var want, got []float64
		for name, x := range rfftInputs(n, rng) {
			coef, want = gonumPower(g, coef, want, x)
			got = p.power(got, x)
			if len(got) != n/2+1 {
				t.Fatalf("n=%d %s: len(power) = %d, want %d", n, name, len(got), n/2+1)
			}
			e := maxRelErr(got, want)
			if e > worst {
				worst, worstAt = e, fmt.Sprintf("n=%d %s", n, name)
			}
			if !(e <= 1e-12) { // also catches NaN
				t.Errorf("n=%d %s: max |ours−gonum| / max(1, max power) = %.3g, want ≤ 1e-12", n, name, e)
			}
		}
	}
	t.Logf("%d lengths; worst relative error vs gonum %.3g (%s)", len(ns), worst, worstAt)
}

// TestRealFFTMatchesDFT checks against the definition directly, so the
// routine is not merely agreeing with gonum.
func TestRealFFTMatchesDFT(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var worst float64
	for n := 2; n <= 64; n++ {
		if !smooth235(n) {
			continue
		}
		p := newRealFFT(n)
		var got []float64
		for name, x := range rfftInputs(n, rng) {
			want := make([]float64, n/2+1)
			for k := range want {
				var s complex128
				for j, v := range x {
					// Exact angle from jk mod n, as the oracle should not
					// share the plan's rounding.
					s += complex(v, 0) * cmplx.Rect(1, -2*math.Pi*float64(j*k%n)/float64(n))
				}
				want[k] = real(s)*real(s) + imag(s)*imag(s)
			}
			got = p.power(got, x)
			e := maxRelErr(got, want)
			worst = math.Max(worst, e)
			if !(e <= 1e-12) {
				t.Errorf("n=%d %s: max |ours−DFT| / max(1, max power) = %.3g, want ≤ 1e-12\ngot  %v\nwant %v", n, name, e, got, want)
			}
		}
	}
	t.Logf("worst relative error vs direct DFT %.3g", worst)
}

func TestRealFFTUnsupported(t *testing.T) {
	for _, n := range []int{-4, 0, 1, 7, 14, 49, 2161, 2 * 2161, 4322 * 7} {
		if p := newRealFFT(n); p != nil {
			t.Errorf("newRealFFT(%d) = plan, want nil", n)
		}
	}
	for _, n := range []int{2, 3, 5, 2160, 21600} {
		if p := newRealFFT(n); p == nil {
			t.Errorf("newRealFFT(%d) = nil, want a plan", n)
		}
	}
}

func TestRealFFTNoAllocs(t *testing.T) {
	for _, n := range []int{2160, 2025} { // even (packed) and odd paths
		p := newRealFFT(n)
		x := rfftInputs(n, rand.New(rand.NewPCG(5, 6)))["uniform"]
		dst := p.power(nil, x)
		if a := testing.AllocsPerRun(100, func() { dst = p.power(dst, x) }); a != 0 {
			t.Errorf("n=%d: %v allocations per call after the first, want 0", n, a)
		}
	}
}

func TestRealFFTKeepsInput(t *testing.T) {
	for _, n := range []int{2, 3, 2160, 2025} {
		x := rfftInputs(n, rand.New(rand.NewPCG(7, 8)))["uniform"]
		orig := slices.Clone(x)
		newRealFFT(n).power(nil, x)
		if !slices.Equal(x, orig) {
			t.Errorf("n=%d: power modified its input", n)
		}
	}
}

// TestRealFFTReusesDst checks that dst is reused when large enough and
// grown when not, and that a plan gives the same answer when reused.
func TestRealFFTReusesDst(t *testing.T) {
	n := 2160
	p := newRealFFT(n)
	x := rfftInputs(n, rand.New(rand.NewPCG(9, 10)))["sine"]
	first := p.power(make([]float64, 3), x)
	big := make([]float64, 5000)
	second := p.power(big, x)
	if &second[0] != &big[0] {
		t.Errorf("power did not reuse a large enough dst")
	}
	if !slices.Equal(first, second) {
		t.Errorf("a reused plan gave a different spectrum")
	}
}

// BenchmarkPowerSpectrum compares this package's realFFT with gonum's
// Coefficients plus the squared-magnitude loop that periodogram runs.
func BenchmarkPowerSpectrum(b *testing.B) {
	for _, n := range []int{2160, 21600} {
		x := rfftInputs(n, rand.New(rand.NewPCG(11, 12)))["uniform"]
		b.Run(fmt.Sprintf("n=%d/realFFT", n), func(b *testing.B) {
			p := newRealFFT(n)
			dst := p.power(nil, x)
			b.ReportAllocs()
			for b.Loop() {
				dst = p.power(dst, x)
			}
		})
		b.Run(fmt.Sprintf("n=%d/gonum", n), func(b *testing.B) {
			g := fourier.NewFFT(n)
			coef, dst := gonumPower(g, nil, nil, x)
			b.ReportAllocs()
			for b.Loop() {
				coef, dst = gonumPower(g, coef, dst, x)
			}
		})
	}
}
