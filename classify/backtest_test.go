package classify

import (
	"context"
	"math"
	"reflect"
	"testing"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/synth"
)

// --at is a backtest: classifying a world as of an instant T gives exactly
// what classifying the world with every sample after T removed gives —
// patterns, periods, tenant and class mean and peak, current and headroom.
// Before, only "current" looked at T; the rest saw the whole history.
func TestAtIsABacktest(t *testing.T) {
	o := synth.Default()
	o.Tenants, o.Days, o.Seed, o.Missing, o.Shifts = 60, 14, 7, 0.02, 0.5
	series, _ := synthSeries(t, o)
	start := series[0].StartMs
	for _, s := range series {
		start = min(start, s.StartMs)
	}
	for _, days := range []float64{6.5, 10} {
		at := start + int64(days*86400e3)
		cut := make([]dataset.Series, len(series))
		for i, s := range series {
			cut[i] = s
			stepMs := int64(math.Round(s.StepS * 1000))
			n := int(floorDiv(at, stepMs) - floorDiv(s.StartMs, stepMs) + 1)
			cut[i].Values = append([]float64(nil), s.Values[:min(max(n, 0), len(s.Values))]...)
		}
		opts := Options{AtMs: at}
		got, err := Run(context.Background(), Input{Series: series}, opts)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Run(context.Background(), Input{Series: cut}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Tenants, want.Tenants) {
			for i := range got.Tenants {
				if !reflect.DeepEqual(got.Tenants[i], want.Tenants[i]) {
					t.Errorf("at day %g: tenant %+v\nwith the future removed %+v", days, got.Tenants[i], want.Tenants[i])
					break
				}
			}
		}
		if !reflect.DeepEqual(got.Classes, want.Classes) || got.AtMs != want.AtMs {
			t.Errorf("at day %g: classes %+v (at %d)\nwith the future removed %+v (at %d)", days, got.Classes, got.AtMs, want.Classes, want.AtMs)
		}
	}
}

// Two tenants with the same daily wave in opposite phase share a class;
// each server of the class really peaks near 0.8, so the class peak is
// the members' own peaks (server-weighted P99 of them), not the P99 of
// their average, which is flat at 0.45 (before: peak ≈ 0.45 and a
// long-job headroom of 0.55 where a server has 0.2).
func TestClassPeakFromMembersPeaks(t *testing.T) {
	const step = 300.0
	n := int(14 * 86400 / step)
	wave := func(phase float64, servers int32, name string) dataset.Series {
		v := make([]float64, n)
		for i := range v {
			v[i] = 0.45 + 0.35*math.Sin(2*math.Pi*(float64(i)*step/86400+phase))
		}
		return dataset.Series{Tenant: name, Servers: servers, StartMs: 1_700_000_000_000 - 1_700_000_000_000%86_400_000, StepS: step, Values: v}
	}
	in := Input{Series: []dataset.Series{wave(0, 3, "a"), wave(0.5, 1, "b")}}
	res, err := Run(context.Background(), in, Options{K: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Classes) != 1 {
		t.Fatalf("classes %+v", res.Classes)
	}
	c := res.Classes[0]
	if c.Peak < 0.79 || c.Peak > 0.8 {
		t.Errorf("class peak %g, want the members' peak ≈ 0.8 (their average is flat at 0.45)", c.Peak)
	}
	if c.Headroom.Long > 0.21 {
		t.Errorf("long-job headroom %g, want ≤ 1 − 0.79", c.Headroom.Long)
	}
	if math.Abs(c.Mean-0.45) > 0.01 {
		t.Errorf("class mean %g, want 0.45", c.Mean)
	}
}
