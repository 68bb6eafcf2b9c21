package elasticity

import (
	"math"
	"testing"
)

// Hand-worked MergeManagerImpl cases: memoryLimit 1000 bytes, single
// shuffle limit 250, merge threshold 500, factor 10, map outputs of 200.
// Outputs 1–3 reach 600 ≥ 500 and are merged to disk; what is left at the
// end is written out down to reduce.input.buffer.percent × memoryLimit,
// smallest first.
func TestMergeManagerHandWorked(t *testing.T) {
	for _, c := range []struct {
		input, reduceIn float64
		segments        int
		want            float64
		why             string
	}{
		{1200, 0, 6, 1200, "two merges of 600 at the threshold, nothing left"},
		{1000, 0, 5, 1000, "600 merged, the last 400 written before the reduce (reduce.input.buffer.percent 0)"},
		{1000, 0.5, 5, 600, "600 merged, 400 ≤ 500 kept in memory for the reduce"},
		{1000, 0.3, 5, 800, "600 merged, one 200 written to get down to 300"},
		{400, 0.5, 2, 0, "never reaches the threshold and fits: well-sized"},
		{1000, 1, 2, 1000, "outputs of 500 > 250 go straight to disk"},
	} {
		r := &reduceMerge{inputBytes: c.input, segments: c.segments, heapFraction: 1, inBufPct: 1, limitPct: 0.25, mergePct: 0.5,
			reduceInPct: c.reduceIn, factor: 10}
		if got := r.spilled(1000); got != c.want {
			t.Errorf("input %g, reduce.input.buffer.percent %g: spilled %g, want %g (%s)", c.input, c.reduceIn, got, c.want, c.why)
		}
	}
}

// Merger's first pass brings (segments − 1) to a multiple of (factor − 1):
// with 41 segments and factor 10 it merges 5, then 10, 10 and 10 (the
// example worked in Merger.getPassFactor's comments), leaving 10 for the
// final pass. With unit segments the passes write 5 + 10 + 10 + 10.
func TestMergerPassFactor(t *testing.T) {
	segs := make([]float64, 41)
	for i := range segs {
		segs[i] = 1
	}
	w, passes := mergePasses(nil, segs, 10)
	if w != 35 || passes != 4 {
		t.Errorf("41 unit segments, factor 10: wrote %g in %d passes, want 35 in 4", w, passes)
	}
	if w, passes := mergePasses(nil, segs[:10], 10); w != 0 || passes != 0 {
		t.Errorf("10 segments, factor 10: wrote %g in %d passes, want none", w, passes)
	}
	// In-memory segments join the first pass without counting against it.
	if w, passes := mergePasses([]float64{7, 7}, segs[:10], 10); w != 0 || passes != 0 {
		t.Errorf("2 in memory + 10 on disk: wrote %g in %d passes, want none", w, passes)
	}
}

// The sort buffer: 16 bytes of metadata per record; one spill is the
// output itself, more spills write it twice (spills, then the merge).
func TestSortBuffer(t *testing.T) {
	const M = 1 << 20
	m := &mapSort{outputBytes: 800 * M, outputRecords: 10 * M, heapFraction: 1, sortFraction: 1, spillPct: 0.8, factor: 10}
	// 800 MiB + 16 × 10 Mi = 960 MiB of buffer: fits 0.8 × 1200 MiB, not 0.8 × 1199 MiB.
	if got := m.spilled(1200 * M); got != 800*M {
		t.Errorf("at 1200 MiB: %g, want 800 MiB (one spill, no merge)", got)
	}
	if got := m.spilled(1199 * M); got != 1600*M {
		t.Errorf("at 1199 MiB: %g, want 1600 MiB (two spills and their merge)", got)
	}
	s := &spillSim{spilled: m.spilled}
	if ideal, floor, ok := s.idealMemory(); !ok || floor != 800*M || math.Abs(ideal-1200*M) > 8192 {
		t.Errorf("ideal %g floor %g ok %v, want 1200 MiB and 800 MiB", ideal, floor, ok)
	}
}

// Tez local fetch: outputs on the reducer's node bypass shuffle memory, so
// ideal memory shrinks by that share and they are never spilled.
func TestTezLocalFetch(t *testing.T) {
	base := reduceMerge{inputBytes: 1 << 30, segments: 100, heapFraction: 0.8, inBufPct: 0.9, limitPct: 0.25, mergePct: 0.9, reduceInPct: 1, factor: 100}
	local := base
	local.localFrac = 0.25
	ideal := func(r *reduceMerge) float64 {
		i, _, ok := (&spillSim{spilled: r.spilled}).idealMemory()
		if !ok {
			t.Fatal("no ideal memory")
		}
		return i
	}
	a, b := ideal(&base), ideal(&local)
	if rel := math.Abs(b/a - 0.75); rel > 0.01 {
		t.Errorf("ideal memory %g with a quarter of outputs local, %g without: ratio %g, want 0.75", b, a, b/a)
	}
	var sa, sb float64
	for f := 0.1; f < 1; f += 0.05 {
		sa += base.spilled(f * a)
		sb += local.spilled(f * a)
	}
	if sb >= sa {
		t.Errorf("from 10%% to 95%% of ideal: %g spilled without local fetch, %g with: want less with", sa, sb)
	}
}
