package classify

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/datasettest"
)

// staggeredEnd builds the series of one tenant of two machines sampled
// every 60 s for four days (Alibaba 2018 machine_usage's shape: machine,
// time_stamp, cpu_util_percent), each a daily wave and seeded noise, where
// machine m_b reports 150 s longer than m_a, busy at 92% after m_a stopped.
// It returns the series and what each machine averaged in the last slot
// both report.
func staggeredEnd(t *testing.T) (dataset.Series, float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 11))
	b := NewSeriesBuilder(DefaultStep)
	start := time.Date(2018, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	end := start + 4*86400_000 + 60_000 // m_a's last sample: 60 s into a 2-minute slot
	stepMs := DefaultStep.Milliseconds()
	lastBoth := floorDiv(end, stepMs)
	var sum [2]float64
	var n [2]int
	for i, m := range []string{"m_a", "m_b"} {
		level := 0.38 + 0.05*float64(i)
		for ms := start; ms <= end; ms += 60_000 {
			day := float64(ms-start) / 86400e3
			cpu := math.Round((level+0.1*math.Sin(2*math.Pi*day)+0.02*rng.NormFloat64())*100) / 100
			b.Add("alibaba", m, ms, cpu)
			if floorDiv(ms, stepMs) == lastBoth {
				sum[i] += cpu
				n[i]++
			}
		}
	}
	for _, ms := range []int64{end + 60_000, end + 120_000, end + 150_000} {
		b.Add("alibaba", "m_b", ms, 0.92)
	}
	series := b.Series()
	if len(series) != 1 {
		t.Fatalf("%d series", len(series))
	}
	return series[0], (sum[0]/float64(n[0]) + sum[1]/float64(n[1])) / 2
}

// Harvest's short-job headroom is 1 − the current utilisation of the
// average server (Zhang et al., OSDI'16 §4.1: "the current utilization"),
// not of the servers that happen to report last. The last slot of the
// series holds m_b alone at 0.92; the current is the last slot both
// machines report, the average of their own averages there.
func TestCurrentLeavesOutThinTail(t *testing.T) {
	s, both := staggeredEnd(t)
	if s.ThinTail != 1 || s.Values[len(s.Values)-1] != 0.92 {
		t.Fatalf("thin tail %d, last value %g; want 1 slot of m_b alone at 0.92", s.ThinTail, s.Values[len(s.Values)-1])
	}
	res, err := Run(context.Background(), Input{Series: []dataset.Series{s}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Classes) != 1 {
		t.Fatalf("classes %+v", res.Classes)
	}
	c := res.Classes[0]
	if math.Abs(c.Current-both) > 1e-6 || math.Abs(c.Headroom.Short-(1-both)) > 1e-6 {
		t.Errorf("current %g, short headroom %g; want %g and %g (both machines' last common slot), not the late machine's 0.92",
			c.Current, c.Headroom.Short, both, 1-both)
	}
	if c.Current > c.Peak {
		t.Errorf("current %g above the peak %g", c.Current, c.Peak)
	}
	if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, "fewer than half their servers still reported") {
		t.Errorf("warnings %q do not say the last slot was left out", w)
	}
}

// The series table keeps ThinTail: a classification of stored series gives
// the same current.
func TestThinTailStored(t *testing.T) {
	s, _ := staggeredEnd(t)
	ds, tx := datasettest.Begin(t, filepath.Join(t.TempDir(), "ds"))
	if err := tx.WriteSeries([]dataset.Series{s}); err != nil {
		t.Fatal(err)
	}
	datasettest.Commit(t, tx)
	back, err := dataset.ReadSeries(context.Background(), ds)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != 1 || back[0].ThinTail != s.ThinTail {
		t.Fatalf("read back %d series, thin tail %v; want %d", len(back), back, s.ThinTail)
	}
}

// A tenant whose data ends ten years before the others' (the demo mixes
// NAB's 2014 CloudWatch series with 2024 ones) has no current utilisation
// at the later end: its class's current is its mean, with a warning, not
// its 2014 value presented as current.
func TestCurrentOfAnotherEra(t *testing.T) {
	day := int64(86400_000)
	step := DefaultStep.Milliseconds()
	mk := func(name string, start int64, level func(i int) float64) dataset.Series {
		v := make([]float64, 4*int(day/step))
		for i := range v {
			v[i] = level(i)
		}
		return dataset.Series{Tenant: name, StartMs: start, StepS: DefaultStep.Seconds(), Values: v, Servers: 1}
	}
	rng := rand.New(rand.NewPCG(3, 5))
	walk := 0.5
	old := mk("cloudwatch2014", time.Date(2014, 3, 1, 0, 0, 0, 0, time.UTC).UnixMilli(), func(i int) float64 {
		if i == 4*int(day/step)-1 {
			return 0.9 // its last value, not its level
		}
		return 0.2
	})
	recent := mk("fleet2024", time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC).UnixMilli(), func(int) float64 {
		walk = min(1, max(0, walk+0.03*rng.NormFloat64()))
		return walk
	})
	res, err := Run(context.Background(), Input{Series: []dataset.Series{old, recent}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var oldClass *Class
	for _, tn := range res.Tenants {
		for i := range res.Classes {
			if tn.Tenant == old.Tenant && res.Classes[i].Class == tn.Class {
				oldClass = &res.Classes[i]
			}
		}
	}
	if oldClass == nil || oldClass.Tenants != 1 {
		t.Fatalf("the 2014 tenant's class %+v (tenants %+v)", oldClass, res.Tenants)
	}
	if oldClass.Current != oldClass.Mean {
		t.Errorf("2014 class current %g, want its mean %g (its last value 0.9 is not current in 2024)", oldClass.Current, oldClass.Mean)
	}
	if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, "inputs of different eras") || !strings.Contains(w, "2014-03-04") {
		t.Errorf("warnings %q do not point at the other era", w)
	}
}
