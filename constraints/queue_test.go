package constraints

import (
	"math"
	"math/rand/v2"
	"testing"
)

// simulateFIFO runs a single-server FIFO queue with Poisson arrivals of
// rate lambda and service times from service, and returns the mean wait
// in queue of n customers after a warm-up (Lindley's recursion:
// W_{k+1} = max(0, W_k + S_k − A_{k+1})), and the waits' batch-means
// standard error.
func simulateFIFO(rng *rand.Rand, lambda float64, service func() float64, n int) (mean, se float64) {
	const warm = 10_000
	const batches = 50
	w := 0.0
	per := n / batches
	var bm []float64
	sum := 0.0
	for k := 0; k < warm+n; k++ {
		s := service()
		a := rng.ExpFloat64() / lambda
		if k >= warm {
			sum += w
			if (k-warm+1)%per == 0 {
				bm = append(bm, sum/float64(per))
				sum = 0
			}
		}
		w = math.Max(0, w+s-a)
	}
	var m, v float64
	for _, x := range bm {
		m += x
	}
	m /= float64(len(bm))
	for _, x := range bm {
		v += (x - m) * (x - m)
	}
	v /= float64(len(bm) - 1)
	return m, math.Sqrt(v / float64(len(bm)))
}

// The Pollaczek–Khinchine mean wait matches a simulated FIFO queue within
// sampling error, for exponential (M/M/1), deterministic (M/D/1) and
// hyperexponential (high-variance, like task durations) service.
func TestPollaczekKhinchineAgainstSimulation(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 3))
	cases := []struct {
		name    string
		es, es2 float64
		draw    func() float64
		lambda  float64
	}{
		{"M/M/1 rho=0.5", 2, 8, func() float64 { return 2 * rng.ExpFloat64() }, 0.25},
		{"M/M/1 rho=0.8", 1, 2, func() float64 { return rng.ExpFloat64() }, 0.8},
		{"M/D/1 rho=0.7", 3, 9, func() float64 { return 3 }, 0.7 / 3},
		// H2: 0.9 × exp(mean 0.5) + 0.1 × exp(mean 5.5): E[S] = 1, E[S²] = 2(0.9·0.25 + 0.1·30.25) = 6.5
		{"M/H2/1 rho=0.6", 1, 6.5, func() float64 {
			if rng.Float64() < 0.9 {
				return 0.5 * rng.ExpFloat64()
			}
			return 5.5 * rng.ExpFloat64()
		}, 0.6},
	}
	for _, c := range cases {
		want, rho, ok := PollaczekKhinchine(c.lambda, c.es, c.es2)
		if !ok {
			t.Fatalf("%s: unstable at rho %g", c.name, rho)
		}
		got, se := simulateFIFO(rng, c.lambda, c.draw, 2_000_000)
		t.Logf("%s: P-K W = %.4f, simulated %.4f ± %.4f (rho %.2f)", c.name, want, got, se, rho)
		if math.Abs(got-want) > 4*se+0.01*want {
			t.Errorf("%s: simulated mean wait %.4f ± %.4f, P-K says %.4f", c.name, got, se, want)
		}
	}
}

func TestPollaczekKhinchineUnstable(t *testing.T) {
	if _, rho, ok := PollaczekKhinchine(1, 1, 2); ok || rho != 1 {
		t.Errorf("rho = 1 must be unstable, got ok=%v rho=%g", ok, rho)
	}
	if w, _, ok := PollaczekKhinchine(0.5, 1, 2); !ok || w != 1 {
		t.Errorf("M/M/1 rho 0.5 mean 1: W = rho/(mu-lambda) = 1, got %g", w)
	}
}
