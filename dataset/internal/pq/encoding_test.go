package pq

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// AppendDelta and DecodeDelta are inverses, and AppendDeltaRange finds
// the values' range, for seeded values of every kind: sorted, equal, random over the whole range, extremes; every
// length around the block and miniblock sizes.
func TestDeltaRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 400; trial++ {
		n := r.IntN(300)
		vals := make([]int64, n)
		for i := range vals {
			switch trial % 4 {
			case 0:
				vals[i] = 1_700_000_000_000 + int64(i/7)*120_000
			case 1:
				vals[i] = r.Int64() - r.Int64()
			case 2:
				vals[i] = []int64{math.MaxInt64, math.MinInt64, 0, -1, 1}[r.IntN(5)]
			default:
				vals[i] = int64(r.IntN(1 << uint(r.IntN(63))))
			}
		}
		enc := AppendDelta(nil, vals)
		enc2, lo, hi := AppendDeltaRange(nil, vals)
		wantLo, wantHi := int64(math.MaxInt64), int64(math.MinInt64)
		if n > 0 {
			wantLo, wantHi = slices.Min(vals), slices.Max(vals)
		}
		if !bytes.Equal(enc2, enc) || lo != wantLo || hi != wantHi {
			t.Fatalf("trial %d: AppendDeltaRange gives [%d, %d], want [%d, %d] (same bytes: %v)", trial, lo, hi, wantLo, wantHi, bytes.Equal(enc2, enc))
		}
		got := make([]int64, n)
		if !DecodeDelta(enc, got) || !slices.Equal(got, vals) {
			t.Fatalf("trial %d: %d values do not round-trip", trial, n)
		}
		if DecodeDelta(enc, make([]int64, n+1)) {
			t.Fatalf("trial %d: decoded as %d values", trial, n+1)
		}
	}
}

// AppendHybrid and UnpackHybrid are inverses for every width, with runs
// long and short.
func TestHybridRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	for width := 0; width <= 32; width++ {
		for trial := 0; trial < 20; trial++ {
			var vals []int32
			for len(vals) < 500 {
				v := int32(r.Uint32() & (1<<width - 1) & math.MaxInt32) // ids are not negative
				for k := 1 + r.IntN(3)*r.IntN(40); k > 0; k-- {
					vals = append(vals, v)
				}
			}
			enc := AppendHybrid(nil, vals, width)
			got := make([]int32, len(vals))
			if !UnpackHybrid(enc, width, got) || !slices.Equal(got, vals) {
				t.Fatalf("width %d trial %d: does not round-trip", width, trial)
			}
			// Into a reused buffer full of ones: the same bytes (padding
			// is zeros whatever the buffer held).
			dirty := make([]byte, 2*len(enc)+64)
			for i := range dirty {
				dirty[i] = 0xff
			}
			k := len(vals) - r.IntN(8)
			if again := AppendHybrid(dirty[:0], vals[:k], width); !bytes.Equal(again, AppendHybrid(nil, vals[:k], width)) {
				t.Fatalf("width %d trial %d: a reused buffer's bytes leak into the padding", width, trial)
			}
		}
	}
}

// UnpackBits against a bit-by-bit reading of the same bytes, for every
// width and counts that end inside and at the end of the input.
func TestUnpackBits(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for w := 0; w <= 64; w++ {
		for _, n := range []int{1, 7, 8, 9, 33, 100} {
			src := make([]byte, (n*w+7)/8)
			for i := range src {
				src[i] = byte(r.Uint32())
			}
			got := make([]uint64, n)
			UnpackBits(src, w, got)
			for j := 0; j < n; j++ {
				var want uint64
				for k := 0; k < w; k++ {
					bit := j*w + k
					want |= uint64(src[bit/8]>>(bit%8)&1) << k
				}
				if got[j] != want {
					t.Fatalf("width %d n %d value %d: %x, want %x", w, n, j, got[j], want)
				}
			}
			if w <= 32 {
				got32 := make([]int32, n)
				UnpackBits(src, w, got32)
				for j := range got32 {
					if uint32(got32[j]) != uint32(got[j]) {
						t.Fatalf("int32 width %d value %d: %x, want %x", w, j, got32[j], got[j])
					}
				}
			}
		}
	}
}

// The level, id and delta decoders on arbitrary bytes: no panic, and when
// they accept, every value is set (dst is filled with a marker first)
// and dictionary ids are inside the dictionary.
func TestPageDecodersNeverPanic(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	accepted := 0
	for i := 0; i < 50_000; i++ {
		b := make([]byte, r.IntN(48))
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		if r.IntN(2) == 0 && len(b) > 0 { // small run headers are likelier to parse
			b[0] = byte(r.IntN(16))
		}
		n := r.IntN(40)
		ids := make([]int32, n)
		for j := range ids {
			ids[j] = -7
		}
		if UnpackHybrid(b, r.IntN(34), ids) {
			accepted++
			for _, v := range ids {
				if v < 0 {
					t.Fatalf("input %x: accepted with a value unset or negative: %v", b, ids)
				}
			}
		}
		size := r.IntN(5)
		if DictIDs(b, ids, size) {
			for _, v := range ids {
				if v < 0 || int(v) >= size {
					t.Fatalf("input %x: id %d outside a dictionary of %d", b, v, size)
				}
			}
		}
		DecodeDelta(b, make([]int64, n))
	}
	if accepted == 0 {
		t.Fatal("no random input decoded: the test does not reach the decoders' bodies")
	}
}

// A width-0 bit-packed run (a one-entry dictionary, fewer than 16 ids in
// a page) takes no bytes and decodes.
func TestUnpackHybridWidthZero(t *testing.T) {
	ids := make([]int32, 8)
	if !UnpackHybrid([]byte{0x03}, 0, ids) { // one bit-packed group of width 0
		t.Fatal("a width-0 bit-packed run refused")
	}
}

// For seeded chunks of sizes up to one past MaxFloatDict distinct values
// (NaN payloads, −0 and +0 among them), interned whole by Encode and a
// page at a time by AppendNonNaN with one FloatDict reused throughout,
// every id reads back its value's bits, the dictionary holds each value
// once, and both ways give the same ids.
func TestFloatDictChunks(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	var whole, paged FloatDict
	for _, distinct := range []int{0, 1, 511, 512, 513, 4097, 10_001, MaxFloatDict, MaxFloatDict + 1} {
		pool := make([]float64, distinct)
		for i := range pool {
			pool[i] = float64(i) / 1e4
		}
		if distinct > 3 {
			pool[0], pool[1], pool[2] = math.Copysign(0, -1), math.Float64frombits(0x7ff8000000000001), math.Float64frombits(0x7ff8000000000002)
		}
		vals := slices.Clone(pool)
		for i := 0; i < 2*distinct; i++ {
			vals = append(vals, pool[r.IntN(distinct)])
		}
		r.Shuffle(len(vals), func(i, j int) { vals[i], vals[j] = vals[j], vals[i] })
		ids, dict, ok := whole.Encode(vals, nil)
		if ok != (distinct <= MaxFloatDict) {
			t.Fatalf("%d distinct: Encode ok=%v", distinct, ok)
		}
		if !ok {
			continue
		}
		if len(dict) != distinct {
			t.Fatalf("%d distinct: a dictionary of %d", distinct, len(dict))
		}
		for i, v := range vals {
			if math.Float64bits(dict[ids[i]]) != math.Float64bits(v) {
				t.Fatalf("%d distinct: value %d (%v) reads back as %v", distinct, i, v, dict[ids[i]])
			}
		}
		// A page at a time; NaN values are skipped, so compare on the
		// values that are not NaN.
		paged.Reset()
		var pids []int32
		var want []int32
		for lo := 0; lo < len(vals); {
			hi := min(len(vals), lo+1+r.IntN(3000))
			if pids, ok = paged.AppendNonNaN(pids, vals[lo:hi]); !ok {
				t.Fatalf("%d distinct: AppendNonNaN refused", distinct)
			}
			lo = hi
		}
		at := map[uint64]int32{}
		for i, w := range paged.Dict() {
			at[math.Float64bits(w)] = int32(i)
		}
		if len(at) != len(paged.Dict()) {
			t.Fatalf("%d distinct: a value twice in AppendNonNaN's dictionary", distinct)
		}
		for _, v := range vals {
			if v == v {
				want = append(want, at[math.Float64bits(v)])
			}
		}
		if !slices.Equal(pids, want) {
			t.Fatalf("%d distinct: AppendNonNaN's ids are not the dictionary's positions of the values", distinct)
		}
	}
}
