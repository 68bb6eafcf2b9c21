package classify

import (
	"fmt"
	"math/rand"
	"testing"
	"time"
	"unsafe"

	"github.com/wlprof/wlprof/dataset"
)

// BenchmarkSeriesBuilderTimeOrdered folds a month of 1,000 and of 10,000
// tenants with one server each, sampled every 2 minutes and in time order (as the CSVs
// of the classify benchmark and most traces are), from memory: the
// per-row cost of the series build without the usage table's decode, on
// one worker and on two, and of turning the sums into series after it.
func BenchmarkSeriesBuilderTimeOrdered(b *testing.B) {
	for _, tenants := range []int{1000, 10000} {
		b.Run(fmt.Sprint(tenants), func(b *testing.B) { benchTimeOrdered(b, tenants, 1_000_000/tenants) })
	}
}

func benchTimeOrdered(b *testing.B, tenants, perBatch int) {
	ub := &dataset.UsageBatch{Len: tenants * perBatch}
	for t := 0; t < tenants; t++ {
		ub.Tenants = append(ub.Tenants, fmt.Sprintf("t%d", t))
		ub.Servers = append(ub.Servers, fmt.Sprintf("s%d", t))
	}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < ub.Len; i++ {
		ub.TenantIdx = append(ub.TenantIdx, int32(i%tenants))
		ub.ServerIdx = append(ub.ServerIdx, int32(i%tenants))
		ub.TimeMs = append(ub.TimeMs, 0)
		ub.CPU = append(ub.CPU, float64(r.Intn(10000))/10000)
	}
	batches := 21600 / perBatch // a month of 2-minute samples
	for _, parts := range []int{1, 2} {
		b.Run(fmt.Sprint(parts), func(b *testing.B) {
			for n := 0; n < b.N; n++ {
				sb := NewSeriesBuilder(2 * time.Minute)
				sb.parts = parts
				start := time.Now()
				for batch := 0; batch < batches; batch++ {
					for i := range ub.TimeMs {
						ub.TimeMs[i] = int64(batch*perBatch+i/tenants) * 120000
					}
					sb.AddBatch(ub)
				}
				b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(batches*ub.Len), "ns/row")
				start = time.Now()
				sb.Series()
				b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(batches*ub.Len), "series_ns/row")
			}
		})
	}
}

// TestSlabChunksStaggered: chunks from one slab start a cache line apart
// modulo 8 KB, so the slot every tenant is filling does not sit at one
// offset in all of them (the cache-set aliasing the slab exists to avoid).
func TestSlabChunksStaggered(t *testing.T) {
	var s chunkSlab
	seen := map[uintptr]bool{}
	for i := 0; i < slabChunks; i++ {
		c := s.chunk()
		for j := range c {
			if c[j] != 0 {
				t.Fatalf("chunk %d slot %d is %d, want a zeroed chunk", i, j, c[j])
			}
		}
		off := uintptr(unsafe.Pointer(c)) % 8192
		if seen[off] {
			t.Fatalf("chunk %d starts at offset %d mod 8192, as an earlier one does", i, off)
		}
		seen[off] = true
		c[chunkSlots-1] = 1 // the next chunk must not overlap this one
	}
}
