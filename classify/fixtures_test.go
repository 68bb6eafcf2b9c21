package classify

import (
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

// loadFixture reads one real single-series CSV (NAB `timestamp,value` with
// local time strings, or Azure `offset_seconds,percent`) into a series the
// way classify builds them: through SeriesBuilder, on a step that is the
// default or the data's own interval when coarser. Values are divided by
// scale to become fractions of a server. This is a test-only loader: the
// series-csv ingest format is built elsewhere.
func loadFixture(t *testing.T, name string, scale float64) dataset.Series {
	t.Helper()
	return loadFixtureOn(t, name, scale, 0)
}

// loadFixtureOn is loadFixture on a grid of the given step (0: the
// default, or the data's interval when coarser), as when the fixture is
// ingested next to finer series.
func loadFixtureOn(t *testing.T, name string, scale float64, grid time.Duration) dataset.Series {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "timeseries", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	type sample struct {
		ms  int64
		val float64
	}
	var ss stepSampler[string]
	var samples []sample
	for _, r := range rows[1:] {
		var ms int64
		if sec, err := strconv.ParseFloat(r[0], 64); err == nil { // Azure offsets, some written as 3e+05
			ms = int64(sec * 1000)
		} else {
			ts, err := time.Parse(time.DateTime, r[0])
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			ms = ts.UnixMilli()
		}
		v, err := strconv.ParseFloat(r[1], 64)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ss.add("s", ms)
		samples = append(samples, sample{ms, v / scale})
	}
	step := max(DefaultStep, time.Duration(ss.median())*time.Millisecond)
	if grid > 0 {
		step = grid
	}
	b := NewSeriesBuilder(step)
	for _, s := range samples {
		b.Add(name, "s", s.ms, s.val)
	}
	return b.Series()[0]
}

// TestRealFixtures pins the pattern a person names by looking at each plot.
func TestRealFixtures(t *testing.T) {
	cases := []struct {
		file    string
		scale   float64
		want    Pattern
		periodS float64 // expected period when periodic (± one grid step)
		why     string
	}{
		{"azure_v1_vm942980_avgcpu.csv", 100, Periodic, 86400,
			"Azure VM 942980: 28 days of a clear day/night cycle (8–43% CPU)"},
		{"nab_nyc_taxi.csv", 40000, Periodic, 604800,
			"NYC taxi demand (scaled by 40000 rides into [0,1]): seven months of daily peaks and night troughs whose shape differs on weekends; " +
				"the week is the shortest period that repeats (folded at a week the profile explains more than 0.1 more variance than at a day), " +
				"as for the synthetic weekly+daily tenants"},
		{"azure_v1_vm1061169_avgcpu.csv", 100, Constant, 0,
			"Azure VM 1061169: flat at 15% CPU, p5–p95 within 14.4–15.3%, one lone 34% sample"},
		{"nab_ec2_cpu_utilization_53ea38.csv", 100, Constant, 0,
			"NAB ec2 53ea38: flat around 1.8% CPU, p5–p95 within 1.7–2.0%"},
		{"nab_ec2_cpu_utilization_77c1ca.csv", 100, Unpredictable, 0,
			"NAB ec2 77c1ca: idle at 0.1% with irregular bursts to 90–100% (NAB labels them anomalies), no cycle"},
		{"nab_rds_cpu_utilization_cc0c53.csv", 100, Unpredictable, 0,
			"NAB rds cc0c53: flat around 6% with one level shift to 15%: neither a cycle (the shift must not read as a long period) nor constant"},
	}
	for _, c := range cases {
		s := loadFixture(t, c.file, c.scale)
		res, err := Run(context.Background(), Input{Series: []dataset.Series{s}}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := res.Tenants[0]
		period := "-"
		if got.PeriodS != nil {
			period = fmt.Sprintf("%gs", *got.PeriodS)
		}
		t.Logf("%s: %s strength %.2f spread %.4f mean %.4f period %s", c.file, got.Pattern, got.Strength, got.Spread, got.Mean, period)
		if got.Pattern != c.want {
			t.Errorf("%s: pattern %s, want %s (%s)", c.file, got.Pattern, c.want, c.why)
			continue
		}
		if c.want == Periodic && (*got.PeriodS < c.periodS-s.StepS || *got.PeriodS > c.periodS+s.StepS) {
			t.Errorf("%s: period %gs, want %gs ± %gs (%s)", c.file, *got.PeriodS, c.periodS, s.StepS, c.why)
		}
	}
}

// Issue 16, "one global grid hides tenants": NYC taxi (30-minute samples)
// ingested next to 5-minute series lies on a 5-minute grid, a sample in one
// slot of six. It was "insufficient: samples in 17% of slots"; analysed on
// its own step it is weekly, as alone. A 5-minute tenant beside it keeps
// the grid's step.
func TestCoarseTenantOnFineGrid(t *testing.T) {
	taxi := loadFixtureOn(t, "nab_nyc_taxi.csv", 40000, 5*time.Minute)
	if taxi.StepS != 300 {
		t.Fatalf("grid step %gs, want 300s", taxi.StepS)
	}
	fine := dataset.Series{Tenant: "fine", StartMs: taxi.StartMs, StepS: 300, Servers: 1,
		Values: make([]float64, len(taxi.Values))}
	for i := range fine.Values {
		fine.Values[i] = 0.3 + 0.1*math.Sin(2*math.Pi*float64(i)/288)
	}
	res, err := Run(context.Background(), Input{Series: []dataset.Series{fine, taxi}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tenant         string
		periodS, stepS float64
	}{{"fine", 86400, 300}, {"nab_nyc_taxi.csv", 604800, 1800}} {
		var got *Tenant
		for i := range res.Tenants {
			if res.Tenants[i].Tenant == c.tenant {
				got = &res.Tenants[i]
			}
		}
		if got == nil || got.Pattern != Periodic || math.Abs(*got.PeriodS-c.periodS) > c.stepS || got.StepS != c.stepS {
			t.Errorf("%s: %+v; want periodic at %gs on a %gs step", c.tenant, got, c.periodS, c.stepS)
		}
	}
}

func TestNativeFactor(t *testing.T) {
	nan := math.NaN()
	every := func(n, k int) []float64 { // a sample in every k-th slot
		v := make([]float64, n)
		for i := range v {
			if i%k != 0 {
				v[i] = nan
			}
		}
		return v
	}
	twoOfThree := every(300, 1)
	for i := 2; i < len(twoOfThree); i += 3 {
		twoOfThree[i] = nan
	}
	r := rand.New(rand.NewPCG(3, 4))
	sparse := every(3000, 1) // 60% missing at random
	for i := 1; i < len(sparse)-1; i++ {
		if r.Float64() < 0.6 {
			sparse[i] = nan
		}
	}
	ws := newWorkspace()
	for _, c := range []struct {
		name string
		v    []float64
		maxK int
		want int
	}{
		{"every slot", every(100, 1), 30, 1},
		{"every 6th", every(600, 6), 30, 6},
		{"every 6th, capped", every(600, 6), 4, 4},
		{"two of three", twoOfThree, 30, 1},
		{"60% missing", sparse, 30, 2},
	} {
		if got := ws.scan(trimNaN(c.v), c.maxK, 30).native; got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
	// Blocks are aligned at the epoch: slots 7 to 14 with k = 3 are in
	// blocks 2 (6–8), 3 (9–11) and 4 (12–14).
	v, observed := regrid([]float64{1, nan, 3, 5, nan, nan, nan, nan}, 7, 3, ws)
	if len(v) != 3 || observed != 2 || v[0] != 1 || v[1] != 4 || !math.IsNaN(v[2]) {
		t.Errorf("regrid: %v (%d observed); want [1 4 NaN] (2)", v, observed)
	}
}
