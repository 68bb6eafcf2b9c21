package pq

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// checkDelta holds DecodeDeltaFast to DecodeDelta on b decoded as n values.
func checkDelta(t *testing.T, b []byte, n int) {
	t.Helper()
	want := make([]int64, n)
	wantOK := DecodeDelta(b, want)
	got := make([]int64, n)
	for i := range got {
		got[i] = -77
	}
	if ok := DecodeDeltaFast(b, got); ok != wantOK || ok && !slices.Equal(got, want) {
		t.Fatalf("%d values: DecodeDeltaFast says %v, DecodeDelta %v (% x)", n, ok, wantOK, b[:min(len(b), 40)])
	}
}

// Times as the usage table has them (the rows of a step share a time,
// steps a few minutes apart), and arbitrary ones; cut short, bytes flipped,
// other counts.
func TestDecodeDeltaFastMatchesDecodeDelta(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 38))
	for trial := 0; trial < 400; trial++ {
		n := r.IntN(5000)
		vals := make([]int64, n)
		cur := r.Int64()
		step := 1 + r.IntN(200)
		for i := range vals {
			switch {
			case trial%3 == 0:
				cur = r.Int64() >> r.IntN(64)
			case i%step == 0:
				cur += int64(r.IntN(600_000))
			}
			vals[i] = cur
		}
		b := AppendDelta(nil, vals)
		checkDelta(t, b, n)
		checkDelta(t, b, n+1)
		checkDelta(t, b[:r.IntN(len(b)+1)], n)
		bad := slices.Clone(b)
		bad[r.IntN(len(bad))] ^= byte(1 << r.IntN(8))
		checkDelta(t, bad, n)
	}
}

func FuzzDeltaDecodeFast(f *testing.F) {
	f.Add(AppendDelta(nil, []int64{5, 7, 100, -3}), uint16(4))
	f.Add(AppendDelta(nil, make([]int64, 300)), uint16(300))
	f.Add([]byte{0x80, 0x01, 0x04, 0x02, 0x00}, uint16(2))
	f.Fuzz(func(t *testing.T, b []byte, n uint16) {
		checkDelta(t, b, int(n))
	})
}

// DecodeDelta against DecodeDeltaFast on a page of the usage table's
// times: 2^20 rows, 10,000 to a time step, steps 5 minutes apart.
func BenchmarkDeltaDecode(b *testing.B) {
	const n = 1 << 20
	vals := make([]int64, n)
	for i := range vals {
		vals[i] = 1_700_000_000_000 + int64(i/10000)*300_000
	}
	page := AppendDelta(nil, vals)
	dst := make([]int64, n)
	for _, c := range []struct {
		name   string
		decode func([]byte, []int64) bool
	}{{"old", DecodeDelta}, {"new", DecodeDeltaFast}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(n * 8)
			for b.Loop() {
				if !c.decode(page, dst) {
					b.Fatal("refused")
				}
			}
		})
	}
}
