package pq

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// appendDeltaOracle is AppendDeltaRange as it was before it found the
// miniblock widths in the same pass as the deltas, kept as the oracle of
// its bytes.
func appendDeltaOracle(b []byte, vals []int64) (_ []byte, lo, hi int64) {
	lo, hi = math.MaxInt64, math.MinInt64
	b = binary.AppendUvarint(b, deltaBlock)
	b = binary.AppendUvarint(b, deltaMiniblocks)
	b = binary.AppendUvarint(b, uint64(len(vals)))
	if len(vals) == 0 {
		return binary.AppendVarint(b, 0), lo, hi
	}
	b = binary.AppendVarint(b, vals[0])
	const per = deltaBlock / deltaMiniblocks
	var d [deltaBlock]uint64
	prev := vals[0]
	lo, hi = prev, prev
	for i := 1; i < len(vals); i += deltaBlock {
		n := min(deltaBlock, len(vals)-i)
		minD := int64(math.MaxInt64)
		for j := 0; j < n; j++ {
			v := vals[i+j]
			lo, hi = min(lo, v), max(hi, v)
			dj := v - prev // wraps, as the reader's sum does
			prev = v
			d[j] = uint64(dj)
			minD = min(minD, dj)
		}
		b = binary.AppendVarint(b, minD)
		var widths [deltaMiniblocks]int
		for m := 0; m < deltaMiniblocks; m++ {
			var or uint64
			for j := m * per; j < min((m+1)*per, n); j++ {
				d[j] -= uint64(minD)
				or |= d[j]
			}
			widths[m] = bits.Len64(or)
			b = append(b, byte(widths[m]))
		}
		for j := n; j < deltaBlock; j++ {
			d[j] = 0 // padding of the last miniblock
		}
		for m := 0; m*per < n; m++ {
			if widths[m] == 0 {
				// No bits (equal deltas: the rows of one time step of
				// time-ordered usage); 32 calls to put would add none.
				continue
			}
			var bw bitWriter
			bw.b = b
			for _, v := range d[m*per : (m+1)*per] {
				bw.put(v, widths[m])
			}
			b = bw.flush()
		}
	}
	return b, lo, hi
}

// AppendDeltaRange writes the oracle's bytes and range for seeded values
// of the kinds a usage time column has (time steps of equal times, nulls
// left out, out-of-order rows, jumps) and extremes, at every length
// around the block and miniblock sizes.
func TestAppendDeltaMatchesOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(38, 21))
	for trial := 0; trial < 3000; trial++ {
		n := r.IntN(700)
		if trial%10 == 0 {
			n = 128*r.IntN(5) + r.IntN(3) // block edges
		}
		vals := make([]int64, n)
		step := 1 + r.IntN(3000)
		for i := range vals {
			switch trial % 5 {
			case 0: // time-major: a step's rows share a time
				vals[i] = 1_704_067_200_000 + int64(i/step)*120_000
			case 1: // a few out of order
				vals[i] = 1_704_067_200_000 + int64(i)*60_000 - int64(r.IntN(3))*int64(r.IntN(2))*3_600_000
			case 2:
				vals[i] = []int64{math.MaxInt64, math.MinInt64, 0, -1, 1}[r.IntN(5)]
			case 3:
				vals[i] = r.Int64() - r.Int64()
			default:
				vals[i] = int64(r.IntN(1 << uint(r.IntN(63))))
			}
		}
		prefix := []byte{7}
		got, lo, hi := AppendDeltaRange(bytes.Clone(prefix), vals)
		want, wlo, whi := appendDeltaOracle(bytes.Clone(prefix), vals)
		if !bytes.Equal(got, want) || lo != wlo || hi != whi {
			t.Fatalf("trial %d (%d values): %x [%d, %d], want %x [%d, %d]", trial, n, got, lo, hi, want, wlo, whi)
		}
	}
}
