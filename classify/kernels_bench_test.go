package classify

import (
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
