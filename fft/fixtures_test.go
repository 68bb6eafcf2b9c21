package fft

import (
	"context"
	"encoding/csv"
	"fmt"
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
