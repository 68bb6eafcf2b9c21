package pq

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// appendHybridOracle is the encoder AppendHybrid replaced, kept as the
// oracle of its bytes: it compares every value with its neighbour to find
// the runs, and packs a value at a time through a 64-bit word.
func appendHybridOracle(b []byte, vals []int32, width int) []byte {
	lit := 0
	for i := 0; i < len(vals); {
		j := i + 1
		for j < len(vals) && vals[j] == vals[i] {
			j++
		}
		if j-i < hybridRun {
			i = j
			continue
		}
		k := i + (8-(i-lit)%8)%8
		b = appendPackedOracle(b, vals[lit:k], width)
		b = AppendRun(b, uint32(vals[i]), j-k, width)
		lit, i = j, j
	}
	return appendPackedOracle(b, vals[lit:], width)
}

func appendPackedOracle(b []byte, vals []int32, width int) []byte {
	if len(vals) == 0 {
		return b
	}
	groups := (len(vals) + 7) / 8
	b = binary.AppendUvarint(b, uint64(groups)<<1|1)
	n := len(b)
	b = slices.Grow(b, groups*width+4)[:n+groups*width+4]
	le := binary.LittleEndian
	var acc uint64
	nb, at := 0, n
	for _, v := range vals {
		acc |= uint64(uint32(v)) << nb
		nb += width
		if nb >= 32 {
			le.PutUint32(b[at:], uint32(acc))
			at += 4
			acc >>= 32
			nb -= 32
		}
	}
	clear(b[at:])
	le.PutUint32(b[at:], uint32(acc))
	return b[:n+groups*width]
}

// hybridCase makes n values below 1<<width whose runs follow one of the
// shapes that decide where the encoder switches between RLE and packing:
// runs of random length, runs of exactly 15/16/17 around the threshold,
// values repeating with a period of 8 (v[p] = v[p+8] without a run),
// dictionary ids of time-ordered rows (short runs), and one long run.
func hybridCase(r *rand.Rand, shape, n, width int) []int32 {
	mask := uint32(1)<<width - 1
	if width == 32 {
		mask = math.MaxInt32 // ids are not negative
	}
	val := func() int32 { return int32(r.Uint32() & mask) }
	vals := make([]int32, 0, n)
	switch shape {
	case 0: // runs of 1..40
		for len(vals) < n {
			v := val()
			for k := 1 + r.IntN(40); k > 0 && len(vals) < n; k-- {
				vals = append(vals, v)
			}
		}
	case 1: // runs at the threshold, in any alignment
		for len(vals) < n {
			v := val()
			for k := 15 + r.IntN(3) - 8*r.IntN(2); k > 0 && len(vals) < n; k-- {
				vals = append(vals, v)
			}
		}
	case 2: // a period of 8, with long runs now and then
		var period [8]int32
		for i := range period {
			period[i] = val()
		}
		for len(vals) < n {
			if r.IntN(20) == 0 {
				v := val()
				for k := 10 + r.IntN(30); k > 0 && len(vals) < n; k-- {
					vals = append(vals, v)
				}
				continue
			}
			vals = append(vals, period[len(vals)%8])
		}
	case 3: // mostly runs of 1 and 2 of few values (time-ordered rows)
		for len(vals) < n {
			v := val() & 3
			for k := 1 + r.IntN(2); k > 0 && len(vals) < n; k-- {
				vals = append(vals, v)
			}
		}
	default: // one value, with a few others at random places
		v := val()
		for len(vals) < n {
			if r.IntN(50) == 0 {
				vals = append(vals, val())
			} else {
				vals = append(vals, v)
			}
		}
	}
	return vals
}

// AppendHybrid writes the bytes of the encoder it replaced, for every
// width, for run shapes that put runs and packed groups at every
// alignment, into fresh and dirty buffers with something before them.
func TestAppendHybridMatchesOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(38, 3))
	dirty := make([]byte, 0, 1<<16)
	for width := 0; width <= 32; width++ {
		for trial := 0; trial < 200; trial++ {
			n := r.IntN(600)
			if trial%50 == 0 {
				n = r.IntN(20)
			}
			vals := hybridCase(r, trial%5, n, width)
			prefix := []byte{byte(width)}
			want := appendHybridOracle(slices.Clone(prefix), vals, width)
			got := AppendHybrid(slices.Clone(prefix), vals, width)
			if !bytes.Equal(got, want) {
				t.Fatalf("width %d trial %d shape %d, %d values %v:\n got %x\nwant %x", width, trial, trial%5, n, vals, got, want)
			}
			dirty = dirty[:cap(dirty)]
			for i := range dirty {
				dirty[i] = 0xa5
			}
			if again := AppendHybrid(append(dirty[:0], prefix...), vals, width); !bytes.Equal(again, want) {
				t.Fatalf("width %d trial %d: a reused buffer's bytes leak into the output", width, trial)
			}
			dec := make([]int32, len(vals))
			if !UnpackHybrid(got[1:], width, dec) || !slices.Equal(dec, vals) {
				t.Fatalf("width %d trial %d: does not round-trip", width, trial)
			}
		}
	}
}

// idColumn is one column of dictionary ids and its bit width.
type idColumn struct {
	name  string
	vals  []int32
	width int
}

// usageIDs are the three id columns of the usage table as ingest writes
// them, one page of time-ordered rows (as ingest's benchmark CSV has
// them): tenant ids in runs of 1 to 4 (a tenant's servers), server ids
// all different, cpu dictionary ids of sampled utilisation.
func usageIDs(r *rand.Rand, n int) []idColumn {
	var tenant, server, cpu []int32
	for t := 0; len(tenant) < n; t = (t + 1) % 1000 {
		for k := 1 + r.IntN(4); k > 0 && len(tenant) < n; k-- {
			tenant = append(tenant, int32(t))
			server = append(server, int32(len(server)%2531))
			cpu = append(cpu, int32(r.IntN(5000)))
		}
	}
	return []idColumn{{"tenant", tenant, 10}, {"server", server, 12}, {"cpu", cpu, 13}}
}

// BenchmarkAppendHybrid: the encoder against the one it replaced (the
// oracle above), in the same run, on one page (2^20 rows) of each usage
// id column; ns/op is per page.
func BenchmarkAppendHybrid(b *testing.B) {
	for _, c := range usageIDs(rand.New(rand.NewPCG(1, 2)), 1<<20) {
		for _, impl := range []struct {
			name string
			fn   func([]byte, []int32, int) []byte
		}{{"old", appendHybridOracle}, {"new", AppendHybrid}} {
			b.Run(fmt.Sprintf("%s/%s", c.name, impl.name), func(b *testing.B) {
				buf := impl.fn(nil, c.vals, c.width)
				b.SetBytes(int64(4 * len(c.vals)))
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					buf = impl.fn(buf[:0], c.vals, c.width)
				}
			})
		}
	}
}
