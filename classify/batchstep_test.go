package classify

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/quantile"
)

// stepSampler is the plain statement of the step rule, a map from each
// server to its last time, kept as the reference batchGap is checked
// against (and used by the fixture tests on single-series files).
type stepSampler[K comparable] struct {
	last map[K]int64
	gaps []int64
}

func (s *stepSampler[K]) add(key K, timeMs int64) {
	if s.last == nil {
		s.last = map[K]int64{}
	}
	if prev, ok := s.last[key]; ok {
		if d := timeMs - prev; d > 0 {
			s.gaps = append(s.gaps, d)
		} else if d < 0 {
			s.gaps = append(s.gaps, -d)
		}
	}
	s.last[key] = timeMs
}

// median is the upper median of the gaps, 0 with fewer than 8.
func (s *stepSampler[K]) median() int64 {
	if len(s.gaps) < 8 {
		return 0
	}
	return quantile.UpperMedian(s.gaps)
}

// batchGap gives the reference's gap on batches with everything the
// usage table can hold: server ids shared by tenants (Google's machines),
// unknown times, repeated and out-of-order times, several sampling
// intervals, and batches too small to say.
func TestBatchGapMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(38, 1))
	for c := 0; c < 400; c++ {
		tenants, servers := 1+rng.IntN(6), 1+rng.IntN(9)
		n := rng.IntN(400)
		if c%50 == 0 {
			n = rng.IntN(10) // around the 8-gap threshold
		}
		ub := &dataset.UsageBatch{Len: n}
		for k := 0; k < tenants; k++ {
			ub.Tenants = append(ub.Tenants, fmt.Sprintf("t%d", k))
		}
		for k := 0; k < servers; k++ {
			ub.Servers = append(ub.Servers, fmt.Sprintf("s%d", k))
		}
		steps := []int64{60_000, 120_000, 300_000, 1_000}
		clock := make(map[[2]int32]int64)
		var ref stepSampler[[2]int32]
		for i := 0; i < n; i++ {
			ti, si := int32(rng.IntN(tenants)), int32(rng.IntN(servers))
			if c%3 == 0 {
				si = ti % int32(servers) // servers of one tenant each, the common case
			}
			key := [2]int32{ti, si}
			ms := clock[key]
			switch r := rng.IntN(20); {
			case r == 0:
				ms = dataset.NoTime
			case r == 1: // a repeated time
			case r == 2: // back in time
				ms -= steps[rng.IntN(len(steps))]
			default:
				ms += steps[(int(ti)+c)%len(steps)] + int64(rng.IntN(3))*1000
			}
			if ms != dataset.NoTime {
				clock[key] = ms
				ref.add(key, ms)
			}
			ub.TenantIdx = append(ub.TenantIdx, ti)
			ub.ServerIdx = append(ub.ServerIdx, si)
			ub.TimeMs = append(ub.TimeMs, ms)
			ub.CPU = append(ub.CPU, 0.5)
		}
		if got, want := batchGap(ub), ref.median(); got != want {
			t.Fatalf("case %d (%d rows, %d tenants, %d servers): batchGap %d, reference %d", c, n, tenants, servers, got, want)
		}
		wantStep := DefaultStep
		if d := time.Duration(ref.median()) * time.Millisecond; d > wantStep {
			wantStep = d.Round(time.Second)
		}
		if got := BatchStep(ub, 0); got != wantStep {
			t.Fatalf("case %d: BatchStep %v, want %v", c, got, wantStep)
		}
	}
}

// BenchmarkBatchStep times the step choice on a first batch of the
// 1,000-tenant world's shape: a million rows, one or two servers a
// tenant, every two minutes; it runs before any worker starts.
func BenchmarkBatchStep(b *testing.B) {
	const rows = 1 << 20
	ub := &dataset.UsageBatch{Len: rows}
	for k := 0; k < 1000; k++ {
		ub.Tenants = append(ub.Tenants, fmt.Sprintf("t%04d", k))
		ub.Servers = append(ub.Servers, fmt.Sprintf("t%04ds0", k), fmt.Sprintf("t%04ds1", k))
	}
	for i := 0; i < rows; i++ {
		tn := int32(i % 1000)
		ub.TenantIdx = append(ub.TenantIdx, tn)
		ub.ServerIdx = append(ub.ServerIdx, 2*tn+int32(i/1000%2))
		ub.TimeMs = append(ub.TimeMs, int64(i/2000)*120_000)
		ub.CPU = append(ub.CPU, 0.5)
	}
	b.Run("batchGap", func(b *testing.B) {
		for b.Loop() {
			batchGap(ub)
		}
	})
	b.Run("reference", func(b *testing.B) {
		for b.Loop() {
			var ss stepSampler[[2]int32]
			for i := 0; i < ub.Len; i++ {
				ss.add([2]int32{ub.TenantIdx[i], ub.ServerIdx[i]}, ub.TimeMs[i])
			}
			ss.median()
		}
	})
}
