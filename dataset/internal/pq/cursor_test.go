package pq

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// slices cuts n into pieces of random lengths (some 0, some under 8, some
// long), as a reader's slices may fall anywhere in a run.
func randomCuts(r *rand.Rand, n int) []int {
	var cuts []int
	for n > 0 {
		var k int
		switch r.IntN(4) {
		case 0:
			k = r.IntN(9)
		case 1:
			k = 8 * r.IntN(40)
		default:
			k = r.IntN(3000)
		}
		k = min(k, n)
		cuts = append(cuts, k)
		n -= k
	}
	return cuts
}

// IDCursor over random slices gives DecodeIDs' ids, on pages of runs of
// one id, bit-packed runs and both, at every width up to 32, and fails
// where the page ends before the ids asked for.
func TestIDCursorMatchesDecodeIDs(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	for trial := 0; trial < 400; trial++ {
		width := r.IntN(33)
		n := r.IntN(5000)
		ids := make([]int32, n)
		maxID := int64(1)<<width - 1
		if width == 32 {
			maxID = 1<<31 - 1
		}
		for i := range ids {
			switch {
			case i > 0 && r.IntN(3) == 0:
				ids[i] = ids[i-1] // runs for AppendHybrid to find
			default:
				ids[i] = int32(r.Int64N(maxID + 1))
			}
		}
		page := AppendHybrid([]byte{byte(width)}, ids, width)
		want := make([]int32, n)
		if !DecodeIDs(page, want, int(maxID)+1) {
			t.Fatalf("trial %d: DecodeIDs failed", trial)
		}
		if !slices.Equal(want, ids) {
			t.Fatalf("trial %d: DecodeIDs does not read back what AppendHybrid wrote", trial)
		}
		var c IDCursor
		if !c.Reset(page) {
			t.Fatalf("trial %d: Reset failed", trial)
		}
		got := make([]int32, 0, n)
		for _, k := range randomCuts(r, n) {
			dst := make([]int32, k)
			hi, ok := c.Next(dst)
			if !ok {
				t.Fatalf("trial %d (width %d): Next(%d) failed at %d", trial, width, k, len(got))
			}
			if k > 0 && hi != uint32(slices.Max(dst)) {
				t.Fatalf("trial %d: Next's greatest %d, the slice's %d", trial, hi, slices.Max(dst))
			}
			got = append(got, dst...)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d (width %d, %d ids): the slices differ from DecodeIDs", trial, width, n)
		}
		// Past the end: more ids than the page has (a bit-packed run's
		// padding aside) fail.
		if _, ok := c.Next(make([]int32, 9)); ok {
			t.Fatalf("trial %d: Next past the page's end succeeded", trial)
		}
	}
}

// DeltaCursor over random slices gives DecodeDeltaFast's values, on pages
// of wide, narrow and constant deltas (miniblocks of width 0), and
// refuses a count the page does not declare and slices past its end.
func TestDeltaCursorMatchesDecodeDelta(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 1))
	for trial := 0; trial < 400; trial++ {
		n := r.IntN(6000)
		vals := make([]int64, n)
		v := r.Int64()
		for i := range vals {
			switch r.IntN(3) {
			case 0:
				v += 120_000
			case 1:
				v += int64(r.IntN(1 << r.IntN(40)))
			default:
				v = r.Int64() // the widest deltas
			}
			vals[i] = v
		}
		page, _, _ := AppendDeltaRange(nil, vals)
		want := make([]int64, n)
		if !DecodeDeltaFast(page, want) || !slices.Equal(want, vals) {
			t.Fatalf("trial %d: DecodeDeltaFast does not read back what AppendDeltaRange wrote", trial)
		}
		var c DeltaCursor
		if c.Reset(page, n+1) {
			t.Fatalf("trial %d: Reset took a count the page does not declare", trial)
		}
		if !c.Reset(page, n) {
			t.Fatalf("trial %d: Reset failed", trial)
		}
		got := make([]int64, 0, n)
		for _, k := range randomCuts(r, n) {
			dst := make([]int64, k)
			if !c.Next(dst) {
				t.Fatalf("trial %d: Next(%d) failed at %d", trial, k, len(got))
			}
			got = append(got, dst...)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d (%d values): the slices differ from DecodeDeltaFast", trial, n)
		}
		if c.Next(make([]int64, 1)) {
			t.Fatalf("trial %d: Next past the page's end succeeded", trial)
		}
	}
}
