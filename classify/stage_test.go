package classify

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/datasettest"
)

func period(s float64) *float64 { return &s }

// Profile: a class's period is the one most of its periodic tenants have,
// the shorter on a tie; weights are divided by the top rank so they lie in
// [0,1]; tenants are sorted by name.
func TestResultProfile(t *testing.T) {
	r := &Result{StepS: 120, Warnings: []string{"w"}, Tenants: []Tenant{
		{Tenant: "z", Class: "p1", Pattern: Periodic, PeriodS: period(3600)},
		{Tenant: "y", Class: "p1", Pattern: Periodic, PeriodS: period(86400)},
		{Tenant: "x", Class: "p1", Pattern: Periodic, PeriodS: period(86400)},
		{Tenant: "w", Class: "p2", Pattern: Periodic, PeriodS: period(7200)},
		{Tenant: "v", Class: "p2", Pattern: Periodic, PeriodS: period(3600)},
		{Tenant: "u", Class: "c1", Pattern: Constant},
	}, Classes: []Class{
		{Class: "p1", Pattern: Periodic, Weights: Headroom{Short: 2, Medium: 3, Long: 2}},
		{Class: "p2", Pattern: Periodic, Weights: Headroom{Short: 2, Medium: 3, Long: 2}},
		{Class: "c1", Pattern: Constant, Weights: Headroom{Short: 1, Medium: 2, Long: 3}},
	}}
	f := r.Profile()
	got := map[string]*float64{}
	for _, c := range f.Classes {
		got[c.Class] = c.PeriodS
	}
	if *got["p1"] != 86400 || *got["p2"] != 3600 || got["c1"] != nil {
		t.Errorf("class periods p1 %v p2 %v c1 %v; want 86400 (majority), 3600 (shorter of a tie), none", got["p1"], got["p2"], got["c1"])
	}
	if w := f.Classes[2].Weights; w.Short != 1.0/3 || w.Long != 1 {
		t.Errorf("weights %+v, want ranks over 3", w)
	}
	if f.Tenants[0].Tenant != "u" || f.Tenants[5].Tenant != "z" || f.StepS != 120 || !reflect.DeepEqual(f.Warnings, []string{"w"}) {
		t.Errorf("tenants.json %+v", f)
	}
}

// Representatives are the tenants closest to their class's (mean, peak),
// ties broken by name, read back with their series.
func TestRepresentatives(t *testing.T) {
	var series []dataset.Series
	for _, n := range []string{"a", "b", "c", "d"} {
		series = append(series, dataset.Series{Tenant: n, StepS: 60, Values: []float64{0.1, 0.2, 0.3, 0.2}})
	}
	ds, tx := datasettest.Begin(t, filepath.Join(t.TempDir(), "ds"))
	if err := tx.WriteSeries(series); err != nil {
		t.Fatal(err)
	}
	datasettest.Commit(t, tx)
	r := &Result{Tenants: []Tenant{
		{Tenant: "a", Class: "k", Mean: 0.5, Peak: 0.9}, // far
		{Tenant: "b", Class: "k", Mean: 0.2, Peak: 0.3}, // at the centre
		{Tenant: "c", Class: "k", Mean: 0.3, Peak: 0.3}, // 0.1 away
		{Tenant: "d", Class: "k", Mean: 0.1, Peak: 0.3}, // 0.1 away: after c by name
	}, Classes: []Class{{Class: "k", Mean: 0.2, Peak: 0.3}}}
	reps, err := r.Representatives(context.Background(), ds, 3)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range reps {
		names = append(names, p.Series.Tenant)
		if p.Class != "k" || len(p.Series.Values) != 4 || len(p.Power) == 0 || len(p.Power) != len(p.FrequencyHz) {
			t.Errorf("representative %+v", p)
		}
	}
	if !reflect.DeepEqual(names, []string{"b", "c", "d"}) {
		t.Errorf("representatives %v, want b c d", names)
	}
}

// Validate reports every bad option at once, and Load and Run refuse them.
func TestValidate(t *testing.T) {
	o := Options{Step: 10e6, K: -1, MinCoverage: 2}
	err := o.Validate()
	for _, want := range []string{"step 10ms", "k -1", "min-coverage 2"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
	if _, err := Run(context.Background(), Input{}, o); err == nil {
		t.Error("Run accepted bad options")
	}
	if err := (&Options{}).Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
}

// A dataset that cannot be written (read-only file system, no write
// permission) is classified all the same, with a warning that the series
// were not stored; any other write error fails the run (issue 22 item 7).
func TestRunOnReadOnlyDataset(t *testing.T) {
	ds := usageWorld(t)
	want, err := Run(context.Background(), mustLoad(t, ds), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ds = reopen(t, ds) // a fresh handle: as if the series table was never built
	tx, _ := ds.Begin()
	tx.Replace(dataset.SeriesTable.Name)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	defer func() { testHookWriteSeries = nil }()
	testHookWriteSeries = func() error { return &fs.PathError{Op: "open", Path: ds.Dir + "/.lock", Err: syscall.EROFS} }
	got, built, err := classifyDataset(context.Background(), ds, Options{})
	if err != nil || !built {
		t.Fatalf("read-only: built %v, %v", built, err)
	}
	if n := len(got.Warnings); n == 0 || !strings.Contains(got.Warnings[n-1], "the series were not stored (the dataset is read-only") {
		t.Errorf("warnings %q", got.Warnings)
	}
	if len(got.Tenants) != 2 || !reflect.DeepEqual(got.Tenants, want.Tenants) {
		t.Error("the read-only run classified differently")
	}
	testHookWriteSeries = func() error { return errors.New("disk on fire") }
	if _, _, err := classifyDataset(context.Background(), ds, Options{}); err == nil || err.Error() != "disk on fire" {
		t.Errorf("another write error: %v", err)
	}
}

func mustLoad(t *testing.T, ds *dataset.Dataset) Input {
	t.Helper()
	in, err := Load(context.Background(), ds, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return in
}
