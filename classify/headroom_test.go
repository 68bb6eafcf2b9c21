package classify

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/wlprof/wlprof/dataset"
)

// A class's mean is the server-weighted mean of its tenants' series slot
// by slot: the same bits as summing every tenant's w·v and w into each
// slot in tenant order, then the slots in order, whatever the gaps (single
// NaN slots, runs, a series ending or starting in one) and starts.
func TestClassMeanMatchesSlotSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(38, 2))
	for trial := 0; trial < 20; trial++ {
		var series []dataset.Series
		for i := 0; i < 12; i++ {
			n := 4*720 + rng.IntN(720)
			v := make([]float64, n)
			level := rng.Float64()
			for j := range v {
				v[j] = level + 0.05*rng.NormFloat64()
				switch {
				case rng.IntN(50) == 0:
					v[j] = math.NaN()
				case j > 100 && j < 100+trial*10:
					v[j] = math.NaN()
				}
			}
			if trial%3 == 0 {
				v[0], v[n-1] = math.NaN(), math.NaN()
			}
			series = append(series, dataset.Series{Tenant: fmt.Sprintf("t%02d", i), StartMs: 1704067200000 + int64(rng.IntN(300))*120_000,
				StepS: 120, Values: v, Servers: int32(1 + rng.IntN(4))})
		}
		o := Options{K: 2}.withDefaults()
		res, err := classify(context.Background(), Input{Series: series}, o)
		if err != nil {
			t.Fatal(err)
		}
		lo := int64(math.MaxInt64)
		for _, s := range series {
			lo = min(lo, s.StartMs/120_000)
		}
		for _, c := range res.Classes {
			sum, wt := make([]float64, 2000*720), make([]float64, 2000*720)
			for _, tn := range res.Tenants { // tenant order
				if tn.Class != c.Class {
					continue
				}
				for _, s := range series {
					if s.Tenant != tn.Tenant {
						continue
					}
					w, base := float64(s.Servers), int(s.StartMs/120_000-lo)
					for j, x := range s.Values {
						if !math.IsNaN(x) {
							sum[base+j] += w * x
							wt[base+j] += w
						}
					}
				}
			}
			var tot, totW float64
			for j := range sum {
				if wt[j] > 0 {
					tot += sum[j]
					totW += wt[j]
				}
			}
			if want := tot / totW; math.Float64bits(c.Mean) != math.Float64bits(want) {
				t.Fatalf("trial %d class %s: mean %v, slot by slot %v", trial, c.Class, c.Mean, want)
			}
		}
	}
}
