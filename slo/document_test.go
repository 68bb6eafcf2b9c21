package slo

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParsePercentiles(t *testing.T) {
	for _, c := range []struct {
		in       string
		arr, dl  float64
		errStart string
	}{
		{"95,50", 95, 50, ""},
		{" 90 , 0 ", 90, 0, ""},
		{"100,12.5", 100, 12.5, ""},
		{"95", 0, 0, `--percentiles "95": want ARRIVAL,DEADLINE such as 95,50`},
		{"95,50,5", 0, 0, `--percentiles "95,50,5": want ARRIVAL,DEADLINE`},
		{"95,101", 0, 0, `--percentiles "95,101": "101" is not a percentile in [0,100]`},
		{"-1,50", 0, 0, `--percentiles "-1,50": "-1" is not a percentile in [0,100]`},
		{"NaN,50", 0, 0, `--percentiles "NaN,50": "NaN" is not a percentile`},
		{"x,50", 0, 0, `--percentiles "x,50": "x" is not a percentile`},
	} {
		arr, dl, err := ParsePercentiles(c.in)
		switch {
		case c.errStart == "" && (err != nil || arr != c.arr || dl != c.dl):
			t.Errorf("ParsePercentiles(%q) = %g, %g, %v; want %g, %g", c.in, arr, dl, err, c.arr, c.dl)
		case c.errStart != "" && (err == nil || !strings.HasPrefix(err.Error(), c.errStart)):
			t.Errorf("ParsePercentiles(%q): error %v, want one starting %q", c.in, err, c.errStart)
		}
	}
}

// The document carries the options Run used, the overrides file as it was
// given, and the result's jobs at the top level.
func TestDocument(t *testing.T) {
	o := DefaultOptions()
	o.ArrivalPercentile, o.MinSlack = 90, 0.25
	file := filepath.Join(t.TempDir(), "o.yaml")
	os.WriteFile(file, []byte("version: 1\njobs:\n  - job: \"sales_rollup <date>\"\n    accept: true\n"), 0o644)
	var err error
	if o.Overrides, err = LoadOverrides(file); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), handWorld(), o)
	if err != nil {
		t.Fatal(err)
	}
	d := res.Document()
	want := DocumentOptions{ArrivalPercentile: 90, DeadlinePercentile: 50, MinRuns: o.MinRuns, MaxPeriodCV: o.MaxPeriodCV,
		MaxReadCV: o.MaxReadCV, MaxReadSpread: o.MaxReadSpread, MinSlack: 0.25, SnapTolerance: o.SnapTolerance,
		WindowGraceS: o.WindowGraceS, Overrides: file}
	if d.Version != 1 || d.Options != want || len(d.Jobs) != len(res.Jobs) {
		t.Errorf("document version %d, options %+v, %d jobs; want options %+v", d.Version, d.Options, len(d.Jobs), want)
	}
	var doc map[string]json.RawMessage
	b, _ := json.Marshal(d)
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"version", "jobs", "graph", "warnings", "options"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("document lacks %q: %s", k, b)
		}
	}
	o.Overrides = nil
	if res, err = Run(context.Background(), handWorld(), o); err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(res.Document()); strings.Contains(string(b), `"overrides"`) {
		t.Errorf("no overrides file, but the document names one: %s", b)
	}
}

func TestOnly(t *testing.T) {
	res := &Result{Jobs: []Job{{Job: "a"}, {Job: "b"}, {Job: "c"}}}
	if res.Only("d") || len(res.Jobs) != 3 {
		t.Errorf("Only(d): %d jobs left, want all 3 and false", len(res.Jobs))
	}
	if !res.Only("b") || len(res.Jobs) != 1 || res.Jobs[0].Job != "b" {
		t.Errorf("Only(b): jobs %+v", res.Jobs)
	}
}
