package classify

import "math"

// A tenant sampled more coarsely than the grid (NYC taxi's 30 minutes
// next to 5-minute series) holds a sample in one slot of several: on the
// grid it would be "insufficient" however regular its samples. Each
// tenant is analysed on its own step instead: the grid's step times its
// typical gap between samples (medianGap), at most an hour, on slots
// that are blocks of grid slots aligned at the epoch (regrid). A tenant
// that samples (nearly) every slot keeps the grid's step.

// medianGap is a tenant's sampling interval in grid slots: the median
// gap between consecutive slots holding a sample (the lower of the two
// middle values, so a tenant with a sample in two slots of three keeps the
// grid), at most maxK, from the counts of those gaps (gaps[g] of g slots,
// gaps[maxK+1] of more: above the cap, only that the median is there
// matters) among observed samples. scan counts them.
func medianGap(gaps []int, observed, maxK int) int {
	rank := (observed - 2) / 2 // of the lower median among observed−1 gaps
	seen := 0
	for g, c := range gaps {
		if seen += c; seen > rank {
			return min(max(g, 1), maxK)
		}
	}
	return 1
}

// regrid averages v, whose first value is grid slot a0 (slots since the
// epoch), over blocks of k slots aligned at the epoch: block b holds slots
// b·k to b·k+k−1, its value the mean of their samples, NaN when none. It
// returns the blocks from the one holding v[0] to the one holding v's last
// value, and how many hold a sample. The result is w.reg.
func regrid(v []float64, a0 int64, k int, w *workspace) ([]float64, int) {
	kk := int64(k)
	b0 := floorDiv(a0, kk)
	n := int(floorDiv(a0+int64(len(v))-1, kk) - b0 + 1)
	w.reg = growF(w.reg, n)
	w.regN = growI(w.regN, n)
	clear(w.reg)
	clear(w.regN)
	for i, x := range v {
		if !math.IsNaN(x) {
			b := floorDiv(a0+int64(i), kk) - b0
			w.reg[b] += x
			w.regN[b]++
		}
	}
	observed := 0
	for b, c := range w.regN {
		if c == 0 {
			w.reg[b] = math.NaN()
			continue
		}
		w.reg[b] /= float64(c)
		observed++
	}
	return w.reg, observed
}

func growI(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n)
	}
	return s[:n]
}
