package classify

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The kernels as they were before their loops were resliced to drop
// bounds checks: the anchor of BenchmarkKernels, and the oracle of
// TestKernelsMatchUnresliced.

func dot4Unresliced(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

func runningSumsUnresliced(p, y []float64) []float64 {
	p = growF(p, len(y)+1)
	p[0] = 0
	var s float64
	for i, v := range y {
		s += v
		p[i+1] = s
	}
	return p
}

// BenchmarkKernels: the hot loops of detect on a month at 2 minutes,
// against their versions with bounds checks.
func BenchmarkKernels(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, 21600)
	for i := range x {
		x[i] = r.Float64()
	}
	var p []float64
	var sink float64
	b.Run("dot4/old", func(b *testing.B) {
		for b.Loop() {
			sink += dot4Unresliced(x[:21600-720], x[720:])
		}
	})
	b.Run("dot4/new", func(b *testing.B) {
		for b.Loop() {
			sink += dot4(x[:21600-720], x[720:])
		}
	})
	b.Run("runningSums/old", func(b *testing.B) {
		for b.Loop() {
			p = runningSumsUnresliced(p, x)
		}
	})
	b.Run("runningSums/new", func(b *testing.B) {
		for b.Loop() {
			p = runningSums(p, x)
		}
	})
	w := newWorkspace()
	b.Run("delevel/new", func(b *testing.B) {
		for b.Loop() {
			w.eWin = 0
			w.delevel(x, 720)
		}
	})
	_ = sink
}

// Reslicing changed no arithmetic: the same bits on seeded inputs of
// every length from 0 to 40 and a month at 2 minutes.
func TestKernelsMatchUnresliced(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 8))
	for _, n := range append([]int{21600, 2160, 2161}, seq(41)...) {
		x := make([]float64, n)
		for i := range x {
			x[i] = r.NormFloat64()
		}
		for _, lag := range []int{0, 1, 3, n / 3} {
			if lag > n {
				continue
			}
			if a, b := dot4(x[:n-lag], x[lag:]), dot4Unresliced(x[:n-lag], x[lag:]); a != b {
				t.Fatalf("n %d lag %d: dot4 %v, before %v", n, lag, a, b)
			}
		}
		p, q := runningSums(nil, x), runningSumsUnresliced(nil, x)
		for i := range q {
			if p[i] != q[i] {
				t.Fatalf("n %d: runningSums[%d] %v, before %v", n, i, p[i], q[i])
			}
		}
	}
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// fractionalDivisorOracle is fractionalDivisor as it was, with i%lag per
// sample.
func fractionalDivisorOracle(y []float64, lag int) (float64, bool) {
	if lag < 6 || lag > len(y)/4 {
		return 0, false
	}
	prof := make([]float64, lag)
	cnt := make([]int, lag)
	for i, v := range y {
		prof[i%lag] += v
		cnt[i%lag]++
	}
	for b := range prof {
		prof[b] /= float64(cnt[b])
	}
	rough := func(at func(m int) float64) float64 {
		var s float64
		for m := 0; m < lag; m++ {
			d := at((m+1)%lag) - at(m)
			s += d * d
		}
		return s
	}
	own := rough(func(m int) float64 { return prof[m] })
	if own == 0 {
		return 0, false
	}
	best, bestRatio := 0, 0.7
	for k := 2; k <= 4 && float64(lag)/float64(k) >= 2; k++ {
		if gcd(k, lag) != 1 {
			continue
		}
		inv := 1 // k⁻¹ mod lag: bin b_m = m·k⁻¹ holds phase m/lag of the shorter cycle
		for (inv*k)%lag != 1 {
			inv++
		}
		ratio := rough(func(m int) float64 { return prof[(m*inv)%lag] }) / own
		if ratio < bestRatio {
			best, bestRatio = k, ratio
		}
	}
	if best == 0 {
		return 0, false
	}
	return float64(lag) / float64(best), true
}

// fractionalDivisor gives its former result, bit for bit, on seeded
// sawtooths, sines and noise whose cycle is lag/k samples for k = 1…4, at
// lags from 6 to a quarter of the series.
func TestFractionalDivisorMatchesModulo(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 38))
	w := newWorkspace()
	found := 0
	for trial := 0; trial < 400; trial++ {
		n := 100 + r.IntN(3000)
		lag := 6 + r.IntN(n/4-5)
		k := 1 + r.IntN(4)
		per := float64(lag) / float64(k)
		y := make([]float64, n)
		for i := range y {
			ph := math.Mod(float64(i), per) / per
			switch trial % 3 {
			case 0:
				y[i] = ph
			case 1:
				y[i] = math.Sin(2 * math.Pi * ph)
			}
			y[i] += 0.05 * r.NormFloat64()
		}
		p, ok := w.fractionalDivisor(y, lag)
		q, okq := fractionalDivisorOracle(y, lag)
		if ok != okq || math.Float64bits(p) != math.Float64bits(q) {
			t.Fatalf("trial %d n %d lag %d: (%v, %v), before (%v, %v)", trial, n, lag, p, ok, q, okq)
		}
		if ok {
			found++
		}
	}
	if found < 50 {
		t.Fatalf("%d of 400 found a shorter period: too few to test", found)
	}
}

// zeroSumSquares answers as the sum it replaced, Σy² == 0, on zeros of
// either sign, values whose squares underflow (all of them, or all but
// one), ordinary values, NaN and infinities.
func TestZeroSumSquaresMatchesSum(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 38))
	zeros := 0
	for trial := 0; trial < 600; trial++ {
		n := r.IntN(300)
		y := make([]float64, n)
		for i := range y {
			switch trial % 6 {
			case 0:
				y[i] = math.Copysign(0, r.NormFloat64())
			case 1:
				y[i] = 1e-170 * r.NormFloat64()
			case 2:
				y[i] = 1e-170 * r.NormFloat64()
				if i == n/2 {
					y[i] = 1e-150 // its square is a subnormal, not 0
				}
			case 3:
				y[i] = r.NormFloat64()
			case 4:
				y[i] = 1e-170
				if i == n/3 {
					y[i] = math.NaN()
				}
			default:
				y[i] = 0
				if i == n/3 {
					y[i] = math.Inf(-1)
				}
			}
		}
		var sst float64
		for _, v := range y {
			sst += v * v
		}
		if got := zeroSumSquares(y); got != (sst == 0) {
			t.Fatalf("trial %d (n %d): zeroSumSquares %v, Σy² = %v", trial, n, got, sst)
		}
		if sst == 0 {
			zeros++
		}
	}
	if zeros < 150 || zeros > 450 {
		t.Fatalf("%d of 600 sums were 0: the cases do not test both answers", zeros)
	}
}
