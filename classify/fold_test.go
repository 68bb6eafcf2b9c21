package classify

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/wlprof/wlprof/dataset"
)

// The fast forms of delevel and boxSmooth (interior windows by one
// multiplication) and of the fold (Σy² less Σ S²/c in one pass) agree with
// their definitions, computed naively, on seeded random series of every
// small length.
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
			sm := boxSmooth(y, win, w)
			for i := range y {
				a, b := max(0, i-half), min(n, i-half+win)
				var s float64
				for _, v := range y[a:b] {
					s += v
				}
				if want := s / float64(b-a); math.Abs(sm[i]-want) > 1e-12 {
					t.Fatalf("boxSmooth n %d win %d i %d: %g, want %g", n, win, i, sm[i], want)
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

// One workspace carried from tenant to tenant (buffers of the same length
// at the same address, delevel's cached running sums) classifies every
// tenant as a fresh workspace does. Weak cycles (a spectral line whose
// autocorrelation then fails) leave the detection series' sums cached
// when the next tenant starts, the case a stale cache would get wrong.
func TestWorkspaceReuseMatchesFresh(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	o := Options{}.withDefaults()
	shared := newWorkspace()
	climbedAndFailed := 0
	for i := 0; i < 16; i++ {
		v := make([]float64, 7*720)
		period := []float64{720, 360, 180}[i%3]
		amp, noise := 0.2, 0.03
		if i%2 == 1 {
			amp, noise = 0.04, 0.15
		}
		for j := range v {
			v[j] = 0.4 + 0.01*float64(i) + amp*math.Sin(2*math.Pi*float64(j)/period) + noise*r.NormFloat64()
			if i%5 == 4 {
				v[j] = 0.3 + 0.2*r.Float64()
			}
			if r.IntN(100) == 0 {
				v[j] = math.NaN()
			}
		}
		s := dataset.Series{Tenant: fmt.Sprint("t", i), StepS: 120, Values: v, Servers: 1}
		got, want := analyse(&s, &o, shared), analyse(&s, &o, newWorkspace())
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("tenant %d: shared workspace %+v, fresh %+v", i, got, want)
		}
		if got.Pattern == Unpredictable && got.Strength > 0 {
			climbedAndFailed++
		}
	}
	if climbedAndFailed < 3 {
		t.Fatalf("only %d tenants had a rejected candidate: the test no longer covers a cached detection series", climbedAndFailed)
	}
}
