package pq

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// floatDictOracle is what Encode must return, from a map: ids in order of
// first appearance of a value's bits, 0 for nulls, and false past
// MaxFloatDict distinct values.
func floatDictOracle(vals []float64, valid []byte) ([]int32, []float64, bool) {
	seen := map[uint64]int32{}
	ids := make([]int32, len(vals))
	var dict []float64
	for i, v := range vals {
		if valid != nil && valid[i>>3]>>(i&7)&1 == 0 {
			continue
		}
		id, ok := seen[math.Float64bits(v)]
		if !ok {
			if len(dict) == MaxFloatDict {
				return nil, nil, false
			}
			id = int32(len(dict))
			seen[math.Float64bits(v)] = id
			dict = append(dict, v)
		}
		ids[i] = id
	}
	return ids, dict, true
}

// Encode gives the oracle's ids and dictionary, bit for bit, with one
// FloatDict reused across chunks whose number of distinct values rises
// and falls through the table's sizes up to and past MaxFloatDict, with
// NaN payloads, signed zeros and nulls.
func TestFloatDictMatchesOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(38, 17))
	var d FloatDict
	for trial := 0; trial < 60; trial++ {
		distinct := []int{1, 3, 500, 1500, 5000, 40_000, MaxFloatDict, MaxFloatDict + 1, 100_000}[trial%9]
		n := 1 + r.IntN(3*distinct+100)
		if distinct >= MaxFloatDict {
			n = 3 * distinct
		}
		pool := make([]float64, distinct)
		for i := range pool {
			switch r.IntN(8) {
			case 0:
				pool[i] = math.Float64frombits(0x7ff8000000000000 | uint64(r.IntN(1<<20))) // a NaN payload
			case 1:
				pool[i] = math.Copysign(0, float64(r.IntN(2)*2-1))
			default:
				pool[i] = float64(r.IntN(10_000_000)) / 10_000
			}
		}
		vals := make([]float64, n)
		for i := range vals {
			if i < distinct && distinct >= MaxFloatDict {
				vals[i] = float64(i) + 0.5 // every value distinct at least once
				continue
			}
			vals[i] = pool[r.IntN(distinct)]
		}
		var valid []byte
		if trial%3 == 1 {
			valid = make([]byte, (n+7)/8)
			for i := range valid {
				valid[i] = byte(r.Uint32())
			}
		}
		ids, dict, ok := d.Encode(vals, valid)
		wantIDs, wantDict, wantOK := floatDictOracle(vals, valid)
		if ok != wantOK {
			t.Fatalf("trial %d (%d values, %d distinct): ok %v, want %v", trial, n, distinct, ok, wantOK)
		}
		if !ok {
			continue
		}
		bits := func(fs []float64) []uint64 {
			out := make([]uint64, len(fs))
			for i, f := range fs {
				out[i] = math.Float64bits(f)
			}
			return out
		}
		if !slices.Equal(bits(dict), bits(wantDict)) {
			t.Fatalf("trial %d: dictionary of %d values, want %d (or the same in another order)", trial, len(dict), len(wantDict))
		}
		for i := range ids {
			if ids[i] != wantIDs[i] { // 0 for a null
				t.Fatalf("trial %d: value %d has id %d, want %d", trial, i, ids[i], wantIDs[i])
			}
		}
	}
}
