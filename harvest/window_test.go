package harvest

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

// TestClassifyLastMonth: Zhang et al., OSDI'16 §3: "we compute the average
// of their utilizations in each time slot, and use the utilization of this
// 'average' server for one month to represent the primary tenant", and
// §4.1: the clustering "periodically (e.g., once per day) takes the most
// recent time series". Tenant old-peak ran at 90% for 10 days, then flat
// at 20% for 35; classified at day 45 on all its history its class keeps
// the peak of 0.9 (a long job's headroom 1 − 0.9 = 0.1); on the last 30
// days (the default) it is 0.2 (headroom 0.8).
func TestClassifyLastMonth(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	const stepS = 300
	perDay := 86400 / stepS
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	v := make([]float64, 45*perDay)
	for k := range v {
		v[k] = 0.2 + 0.005*rng.NormFloat64()
		if k < 10*perDay {
			v[k] = 0.9 + 0.005*rng.NormFloat64()
		}
	}
	series := []dataset.Series{{Tenant: "old-peak", StartMs: start, StepS: stepS, Values: v, Servers: 4}}
	at := start + 45*int64(perDay)*stepS*1000
	for _, c := range []struct {
		window   time.Duration
		peak     float64
		headroom float64
	}{{0, 0.9, 0.1}, {DefaultOptions().ClassifyWindow, 0.2, 0.8}} {
		o := DefaultOptions()
		o.ClassifyWindow = c.window
		ep, err := classifyEpoch(context.Background(), series, map[string]int{"old-peak": 0}, at, &o)
		if err != nil {
			t.Fatal(err)
		}
		if len(ep.Classes) != 1 {
			t.Fatalf("window %v: classes %+v", c.window, ep.Classes)
		}
		cl := ep.Classes[0]
		if math.Abs(cl.Peak-c.peak) > 0.03 || math.Abs((1-math.Max(cl.Peak, 0.2))-c.headroom) > 0.03 {
			t.Errorf("window %v: peak %.3f (long headroom %.3f), want %.1f (%.1f)", c.window, cl.Peak, 1-math.Max(cl.Peak, 0.2), c.peak, c.headroom)
		}
	}
}
