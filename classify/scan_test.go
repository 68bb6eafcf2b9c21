package classify

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/wlprof/wlprof/internal/quantile"
)

// The functions below are what analyse ran, one pass each, before scan
// fused them; they are the oracle scan must match bit for bit.

// scanOracle is analyse's sequence before scan: count the samples,
// meanPeak, nativeFactor, and a copy with its gaps filled.
func scanOracle(v []float64, maxK, maxGap int, w *workspace) (s scanned, x []float64) {
	for _, u := range v {
		if !math.IsNaN(u) {
			s.observed++
		}
	}
	s.mean, s.peak = meanPeakOracle(v, s.observed, w)
	s.native = nativeFactorOracle(v, s.observed, maxK, w)
	x = append([]float64(nil), v...)
	if s.observed < len(v) {
		s.long, s.longest = fillGaps(x, maxGap)
	}
	return s, x
}

// meanPeakOracle is the mean and the 99th percentile (nearest rank) of the
// observed (non-NaN) values of v. The percentile is the m-th largest value
// (m ≈ 1% of observed). A strided sample gives a threshold that about 2m
// values exceed; those are gathered in the pass that sums the mean (in
// four interleaved parts, NaN as 0), and the m-th largest of
// them selected; when fewer than m exceed it (an unlucky sample) the
// threshold is dropped and every observed value is selected from. Either
// way the result is exact. (A heap of the top m cost more: on a rising
// series most values enter it.)
func meanPeakOracle(v []float64, observed int, w *workspace) (mean, peak float64) {
	if observed == 0 {
		return 0, 0
	}
	k := min(max(int(math.Ceil(0.99*float64(observed)))-1, 0), observed-1)
	m := observed - k // the peak is the m-th largest
	thr := math.Inf(-1)
	if stride := len(v) / 512; stride >= 4 && m >= 8 {
		w.obs = w.obs[:0]
		for i := 0; i < len(v); i += stride {
			if x := v[i]; x == x {
				w.obs = append(w.obs, x)
			}
		}
		// The sample's value with about 2m/observed of the sample above it.
		if ns := len(w.obs); ns >= 64 {
			above := max(1, int(math.Ceil(2*float64(m)*float64(ns)/float64(observed))))
			if above < ns {
				thr = quantile.NearestRank(w.obs, 1-float64(above)/float64(ns))
			}
		}
	}
	// One pass: the values above the threshold (all of them without one),
	// and the sum in four interleaved parts (NaN counts as 0).
	w.obs = w.obs[:0]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(v); i += 4 {
		a, b, c, d := v[i], v[i+1], v[i+2], v[i+3]
		if a > thr { // false for NaN
			w.obs = append(w.obs, a)
		}
		if b > thr {
			w.obs = append(w.obs, b)
		}
		if c > thr {
			w.obs = append(w.obs, c)
		}
		if d > thr {
			w.obs = append(w.obs, d)
		}
		s0 += nanZero(a)
		s1 += nanZero(b)
		s2 += nanZero(c)
		s3 += nanZero(d)
	}
	for ; i < len(v); i++ {
		if x := v[i]; x > thr {
			w.obs = append(w.obs, x)
		}
		s0 += nanZero(v[i])
	}
	mean = ((s0 + s1) + (s2 + s3)) / float64(observed)
	if len(w.obs) < m { // too few above the threshold: all of them
		w.obs = w.obs[:0]
		for _, x := range v {
			if x == x {
				w.obs = append(w.obs, x)
			}
		}
	}
	// The m-th largest of what was gathered: its (n−m+1)-th smallest.
	n := len(w.obs)
	return mean, quantile.Select(w.obs, n-m)
}

// nanZero is x, or 0 for NaN.
func nanZero(x float64) float64 {
	if x != x {
		return 0
	}
	return x
}

// nativeFactorOracle is a tenant's sampling interval in grid slots: the median
// gap between consecutive slots of v holding a sample (the lower of the
// two middle values, so a tenant with a sample in two slots of three keeps
// the grid), at most maxK; 1 when v has no gap. observed is the number of
// non-NaN values of v.
func nativeFactorOracle(v []float64, observed, maxK int, w *workspace) int {
	if observed == len(v) || observed < 2 || maxK < 2 {
		return 1
	}
	// Gaps of maxK+1 slots or more count together: above the cap, only
	// that the median is there matters.
	w.gaps = growI(w.gaps, maxK+2)
	clear(w.gaps)
	prev := -1
	for i, x := range v {
		if !math.IsNaN(x) {
			if prev >= 0 {
				w.gaps[min(i-prev, maxK+1)]++
			}
			prev = i
		}
	}
	rank := (observed - 2) / 2 // of the lower median among observed−1 gaps
	seen := 0
	for g, c := range w.gaps {
		if seen += c; seen > rank {
			return min(max(g, 1), maxK)
		}
	}
	return 1
}

// trimNaN is v from its first sample to its last, as analyse passes it to
// scan.
func trimNaN(v []float64) []float64 {
	lo, hi := 0, len(v)
	for lo < hi && math.IsNaN(v[lo]) {
		lo++
	}
	for hi > lo && math.IsNaN(v[hi-1]) {
		hi--
	}
	return v[lo:hi]
}

// randomSeries is a seeded series for the property tests: levels with
// ties, ramps either way, or noise with spikes where meanPeak's strided
// sample looks (its threshold is then too high and the fallback taken),
// with NaN gaps single or in runs, at random or on a coarser sampling
// interval (every k-th slot, as nativeFactor sees).
func randomSeries(rng *rand.Rand, trial int) []float64 {
	n := 1 + rng.IntN(3000)
	if trial%2 == 0 {
		n = 1 + rng.IntN(30000)
	}
	v := make([]float64, n)
	stride := max(1, n/512)
	for i := range v {
		switch trial % 5 {
		case 0:
			v[i] = float64(rng.IntN(50)) / 50
		case 1:
			v[i] = float64(i)
		case 2:
			v[i] = float64(rng.IntN(1000)) / 1000
			if i%stride == 0 {
				v[i] = 2 + rng.Float64()
			}
		case 3:
			v[i] = float64(n - i)
		default:
			v[i] = rng.NormFloat64()
		}
	}
	// Gaps: none, rare, frequent, runs, or a sample every k-th slot.
	switch (trial / 5) % 6 {
	case 1:
		for i := range v {
			if rng.IntN(1000) == 0 {
				v[i] = math.NaN()
			}
		}
	case 2:
		p := rng.Float64()
		for i := range v {
			if rng.Float64() < p {
				v[i] = math.NaN()
			}
		}
	case 3:
		for r := rng.IntN(20); r > 0; r-- {
			at, l := rng.IntN(n), 1+rng.IntN(200)
			for i := at; i < min(n, at+l); i++ {
				v[i] = math.NaN()
			}
		}
	case 4:
		k, off := 2+rng.IntN(40), rng.IntN(40)
		for i := range v {
			if (i+off)%k != 0 && rng.IntN(20) != 0 {
				v[i] = math.NaN()
			}
		}
	case 5:
		for i := range v {
			if rng.IntN(10) == 0 {
				v[i] = math.NaN()
			}
		}
	}
	return v
}

// scan gives, bit for bit, what the separate passes it replaced gave:
// the count of samples, mean, peak, sampling interval, the filled copy and
// the counts of long gaps, on seeded series with NaN gaps of every kind
// and caps of every size (maxK below 2 turns the interval off, as a step
// of over half an hour does).
func TestScanMatchesSeparatePasses(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 38))
	w, wo := newWorkspace(), newWorkspace()
	checked, coarse, thresholded, fallbacks := 0, 0, 0, 0
	for trial := 0; trial < 1200; trial++ {
		v := trimNaN(randomSeries(rng, trial))
		if len(v) == 0 {
			continue
		}
		maxK, maxGap := rng.IntN(40), rng.IntN(60)
		want, wantX := scanOracle(v, maxK, maxGap, wo)
		got := w.scan(v, maxK, maxGap)
		same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
		if got.observed != want.observed || !same(got.mean, want.mean) || !same(got.peak, want.peak) ||
			got.native != want.native || got.long != want.long || got.longest != want.longest {
			t.Fatalf("trial %d (n=%d maxK=%d maxGap=%d): scan %+v, separate passes %+v", trial, len(v), maxK, maxGap, got, want)
		}
		for i := range wantX {
			if !same(w.x[i], wantX[i]) {
				t.Fatalf("trial %d (n=%d): filled x[%d] = %v, fillGaps gave %v", trial, len(v), i, w.x[i], wantX[i])
			}
		}
		checked++
		if got.native > 1 {
			coarse++
		}
		if m := got.observed - min(max(int(math.Ceil(0.99*float64(got.observed)))-1, 0), got.observed-1); len(v)/512 >= 4 && m >= 8 {
			if len(w.obs) == got.observed {
				fallbacks++ // the threshold left too few: every sample was selected from
			} else {
				thresholded++
			}
		}
	}
	// The cases the test is for did occur.
	if checked < 1100 || coarse < 50 || fallbacks < 20 || thresholded < 200 {
		t.Fatalf("%d series checked, %d on a coarser interval, %d peaks selected above a threshold, %d after dropping it: too few",
			checked, coarse, thresholded, fallbacks)
	}
}

// shuffle gives rand.Rand.Shuffle's permutation from the same seed, and
// leaves the source where Shuffle leaves it, for lengths that include
// powers of two (masked draws) and the detection lengths.
func TestShuffleMatchesRandShuffle(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		for _, n := range []int{0, 1, 2, 3, 4, 7, 8, 64, 100, 1024, 2160, 1 + int(seed)*37} {
			a, b := make([]float64, n), make([]float64, n)
			for i := range a {
				a[i], b[i] = float64(i), float64(i)
			}
			src := rand.NewPCG(seed, seed*7919)
			shuffle(a, src)
			r := rand.New(rand.NewPCG(seed, seed*7919))
			r.Shuffle(n, func(i, j int) { b[i], b[j] = b[j], b[i] })
			for i := range a {
				if a[i] != b[i] {
					t.Fatalf("seed %d n %d: at %d shuffle has %v, rand.Shuffle %v", seed, n, i, a[i], b[i])
				}
			}
			if x, y := src.Uint64(), r.Uint64(); x != y {
				t.Fatalf("seed %d n %d: the sources differ after the shuffle (%d, %d)", seed, n, x, y)
			}
		}
	}
}

// fillGaps, whose interpolation scan shares, against values worked by hand:
// a gap of three slots between 1 and 5 is 2, 3, 4; one of one slot between
// 4 and 3 is 3.5; with maxGap 2 only the first is long.
func TestFillGapsByHand(t *testing.T) {
	nan := math.NaN()
	x := []float64{1, nan, nan, nan, 5, 4, nan, 3}
	long, longest := fillGaps(x, 2)
	want := []float64{1, 2, 3, 4, 5, 4, 3.5, 3}
	if !slices.Equal(x, want) || long != 1 || longest != 3 {
		t.Fatalf("fillGaps: %v, %d long, longest %d; want %v, 1 long, longest 3", x, long, longest, want)
	}
}
