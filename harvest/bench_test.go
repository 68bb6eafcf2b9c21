package harvest

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

// benchWorld is the speed bar's size: 10,000 tenants × 30 days (10-minute
// steps: 43 million samples), and a Poisson workload of about a million
// containers (mean 8.5 per job, one job every 22 s).
func benchWorld() ([]dataset.Series, Options) {
	rng := rand.New(rand.NewPCG(1, 2))
	const stepS, days, tenants = 600, 30, 10_000
	n := days * 86400 / stepS
	start := time.Date(2025, 3, 3, 0, 0, 0, 0, time.UTC).UnixMilli()
	series := make([]dataset.Series, tenants)
	for i := range series {
		v := make([]float64, n)
		level, amp, phase := 0.1+0.4*rng.Float64(), 0.3*rng.Float64()*float64(i%3&1), 2*math.Pi*rng.Float64()
		for j := range v {
			v[j] = math.Min(1, math.Max(0, level+amp*math.Sin(2*math.Pi*float64(j*stepS)/86400+phase)+0.02*rng.NormFloat64()))
		}
		series[i] = dataset.Series{Tenant: fmt.Sprintf("t%05d", i), StartMs: start, StepS: stepS, Values: v, Servers: int32(1 + rng.IntN(20))}
	}
	o := DefaultOptions()
	o.Workload = WorkloadPoisson
	o.MeanInterarrival = 22 * time.Second
	o.Window = 0 // the whole month, as the bar says
	return series, o
}

// BenchmarkRun is the whole stage: a classification per day and both
// replays. The speed bar: at most 60 s.
func BenchmarkRun(b *testing.B) {
	series, o := benchWorld()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := Run(context.Background(), Input{Series: series}, o)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(res.Policies[0].Containers), "containers")
	}
}

// BenchmarkReplay times both policies on one world (classes from one
// classification, in force for the whole month), each placing containers
// by draws (spread) and by the straightforward baseline, one pass over
// every candidate tenant per job (scan).
func BenchmarkReplay(b *testing.B) {
	series, o := benchWorld()
	w := &World{StepMs: 600_000, EndMs: series[0].StartMs + int64(len(series[0].Values))*600_000}
	var members [3][]int
	for i, s := range series {
		w.Tenants = append(w.Tenants, WorldTenant{Name: s.Tenant, Servers: int(s.Servers), StartMs: s.StartMs, Values: s.Values})
		members[i%3] = append(members[i%3], i)
	}
	w.Epochs = []Epoch{{FromMs: series[0].StartMs, Classes: []WorldClass{
		{Name: "constant-1", Pattern: "constant", Mean: 0.3, Peak: 0.35, Weights: [3]float64{1, 2, 3}, Members: members[0]},
		{Name: "periodic-1", Pattern: "periodic", Mean: 0.3, Peak: 0.6, Weights: [3]float64{2, 3, 2}, Members: members[1]},
		{Name: "unpredictable-1", Pattern: "unpredictable", Mean: 0.3, Peak: 0.5, Weights: [3]float64{3, 1, 1}, Members: members[2]},
	}}}
	th := Thresholds{ShortBelowS: PaperShortBelowS, LongAboveS: PaperLongAboveS}
	for _, r := range poisson(w.Epochs[0].FromMs, w.EndMs, &o) {
		w.Jobs = append(w.Jobs, Job{ID: r.job, Type: th.Classify(float64(r.durMs) / 1000), SubmitMs: r.startMs, DurationMs: r.durMs, Containers: r.containers})
	}
	for _, pol := range []Policy{History, Blind} {
		for _, linear := range []bool{false, true} {
			name := string(pol) + "/draws"
			if linear {
				name = string(pol) + "/linear-scan"
			}
			b.Run(name, func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					o := Replay(w, Params{Cores: 12, ReserveCores: 4, Seed: 1, linear: linear}, pol, false)
					b.ReportMetric(float64(o.Containers), "containers")
				}
			})
		}
	}
}
