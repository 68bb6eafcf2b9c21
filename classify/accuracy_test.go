package classify

import (
	"bufio"
	"bytes"
	"context"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/synth"
)

// synthSeries generates a synthetic world and builds its series the way
// classify does (SeriesBuilder), parsing the generator's CSV.
func synthSeries(t testing.TB, o synth.Options) ([]dataset.Series, []synth.Truth) {
	t.Helper()
	var buf bytes.Buffer
	truth, _, err := synth.Generate(&buf, o)
	if err != nil {
		t.Fatal(err)
	}
	b := NewSeriesBuilder(o.Step)
	sc := bufio.NewScanner(&buf)
	sc.Scan() // header
	for sc.Scan() {
		f := strings.Split(sc.Text(), ",")
		sec, _ := strconv.ParseInt(f[2], 10, 64)
		cpu, _ := strconv.ParseFloat(f[3], 64)
		b.Add(f[0], f[1], sec*1000, cpu)
	}
	return b.Series(), truth
}

// TestSyntheticAccuracy is the accuracy bar: on synthetic worlds
// with ground truth (noise levels, missing samples, level shifts,
// weekly+daily mixes, spike trains), at least 98% of patterns right and
// every period within one grid step of the truth.
func TestSyntheticAccuracy(t *testing.T) {
	worlds := []struct {
		name string
		mod  func(*synth.Options)
	}{
		{"quiet", func(o *synth.Options) { o.Noise = 0.01 }},
		{"default", func(o *synth.Options) {}},
		{"noisy", func(o *synth.Options) { o.Noise = 0.05 }},
		{"very-noisy", func(o *synth.Options) { o.Noise = 0.08; o.MinServers = 2 }},
		{"missing-10pct", func(o *synth.Options) { o.Missing = 0.10 }},
		{"level-shifts", func(o *synth.Options) { o.Shifts = 0.7; o.Noise = 0.03 }},
		{"month-5min", func(o *synth.Options) { o.Days = 30; o.Step = 5 * time.Minute; o.Shifts = 0.3 }},
	}
	var total, right int
	for wi, w := range worlds {
		o := synth.Default()
		// Four weeks, as the paper's one-month windows: with only three
		// weekly cycles (21 days) three of the noisiest weekly+daily
		// tenants came out two grid steps off (604560 s).
		o.Tenants, o.Days, o.Seed = 60, 28, uint64(100+wi)
		w.mod(&o)
		series, truth := synthSeries(t, o)
		res, err := Run(context.Background(), Input{Series: series}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		byName := map[string]Tenant{}
		for _, tn := range res.Tenants {
			byName[tn.Tenant] = tn
		}
		for _, tr := range truth {
			got := byName[tr.Tenant]
			total++
			ok := string(got.Pattern) == tr.Pattern
			if ok && tr.Pattern == synth.Periodic {
				if math.Abs(*got.PeriodS-tr.PeriodS) > series[0].StepS {
					t.Errorf("%s/%s (%s): period %gs, truth %gs", w.name, tr.Tenant, tr.Kind, *got.PeriodS, tr.PeriodS)
					ok = false
				}
			}
			if ok {
				right++
			} else if string(got.Pattern) != tr.Pattern {
				t.Logf("%s/%s (%s, level %.2f): got %s (strength %.2f, spread %.4f), truth %s",
					w.name, tr.Tenant, tr.Kind, tr.Level, got.Pattern, got.Strength, got.Spread, tr.Pattern)
			}
		}
	}
	acc := float64(right) / float64(total)
	t.Logf("accuracy %.4f (%d of %d tenants)", acc, right, total)
	if acc < 0.98 {
		t.Errorf("accuracy %.4f below 0.98", acc)
	}
}
