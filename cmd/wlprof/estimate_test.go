package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// estimateDataset: the provenance world (deadlines from the slo stage),
// QuasiMonteCarlo's job history (phases from its task attempts) and a
// synthetic week of tenants (six periodic: the availability).
func estimateDataset(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	ds := filepath.Join(dir, "ds")
	if _, errs, code := wlprof(t, "synth", "--out", filepath.Join(dir, "w"), "--tenants", "10", "--days", "7", "--seed", "3"); code != 0 {
		t.Fatal(errs)
	}
	for _, argv := range [][]string{
		{"ingest", "csv", filepath.Join(dir, "w", "usage.csv")},
		{"ingest", "auto", "../../testdata/provenance/world"},
		{"ingest", "jhist", "../../testdata/elasticity/hadoop"},
	} {
		if _, errs, code := wlprof(t, append(argv, "-d", ds, "-q")...); code != 0 {
			t.Fatalf("%v: %s", argv, errs)
		}
	}
	return ds
}

// wlprof estimate with testdata/estimate/jobs.yaml: text and CSV are
// golden; the JSON document has the contract's fields; --job filters the
// output without changing s_fit; bad input is listed, never a crash.
func TestEstimateGolden(t *testing.T) {
	ds := estimateDataset(t)
	base := []string{"estimate", "-d", ds, "--jobs", "../../testdata/estimate/jobs.yaml", "--at", "2024-01-07T06:00:00Z", "--slot-cpu", "0.5"}
	out := map[string]string{}
	for _, f := range []string{"text", "csv", "json"} {
		o, stderr, code := wlprof(t, append(base, "-o", f)...)
		if code != 0 {
			t.Fatalf("-o %s: exit %d: %s", f, code, stderr)
		}
		out[f] = o
	}
	golden(t, "estimate.txt", out["text"])
	golden(t, "estimate.csv", out["csv"])
	var doc struct {
		Version      int              `json:"version"`
		At           string           `json:"at"`
		Availability []map[string]any `json:"availability"`
		Jobs         []map[string]any `json:"jobs"`
		NotEstimated []struct {
			Job, Reason string
		} `json:"not_estimated"`
	}
	if err := json.Unmarshal([]byte(out["json"]), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != 1 || doc.At != "2024-01-07T06:00:00Z" || len(doc.Availability) == 0 || len(doc.Jobs) != 5 || len(doc.NotEstimated) != 8 {
		t.Fatalf("document: version %d at %s, %d steps, %d jobs, %d not estimated", doc.Version, doc.At, len(doc.Availability), len(doc.Jobs), len(doc.NotEstimated))
	}
	for _, k := range []string{"start_s", "slots"} {
		if _, ok := doc.Availability[0][k]; !ok {
			t.Errorf("availability[0] lacks %q", k)
		}
	}
	sfit := map[string]float64{}
	for _, j := range doc.Jobs {
		for _, k := range []string{"job", "deadline_s", "pending_tasks", "mu_s", "s_req", "s_fit", "meets_goal", "utility"} {
			if _, ok := j[k]; !ok {
				t.Errorf("%v lacks %q", j["job"], k)
			}
		}
		sfit[j["job"].(string)] = j["s_fit"].(float64)
		if u := j["utility"].([]any); len(u) != int(j["pending_tasks"].(float64))+1 {
			t.Errorf("%v: %d utility values for %v pending tasks", j["job"], len(u), j["pending_tasks"])
		}
	}
	for _, n := range doc.NotEstimated {
		if n.Reason == "" {
			t.Errorf("%s: no reason", n.Job)
		}
	}
	// QuasiMonteCarlo's phases come from its jhist; hourly_clicks_06 has
	// no µ.
	if !strings.Contains(out["text"], "QuasiMonteCarlo") || !strings.Contains(out["text"], `hourly_clicks_06 <date>: phase "map" has no µ`) {
		t.Errorf("text output:\n%s", out["text"])
	}
	one, stderr, code := wlprof(t, append(base, "--job", "daily_sales_07 <date>", "-o", "json")...)
	if code != 0 {
		t.Fatalf("--job: exit %d: %s", code, stderr)
	}
	var single struct {
		Jobs []map[string]any `json:"jobs"`
	}
	json.Unmarshal([]byte(one), &single)
	if len(single.Jobs) != 1 || single.Jobs[0]["s_fit"].(float64) != sfit["daily_sales_07 <date>"] {
		t.Errorf("--job: %v, want daily_sales_07 alone with s_fit %g", single.Jobs, sfit["daily_sales_07 <date>"])
	}

	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("version: 1\njobs:\n  - job: x\n    phases: [{phase: map, tasks: 3, mu_s: -1}]\n"), 0o644)
	for _, c := range []struct {
		argv []string
		code int
		msg  string
	}{
		{[]string{"estimate", "-d", ds, "--slot-cpu", "0", "--reserve", "1"}, 2, "reserve 1"},
		{[]string{"estimate", "-d", ds, "--availability-step", "7m"}, 2, "availability-step"},
		{[]string{"estimate", "-d", ds, "--job", "nope"}, 1, `"nope"`},
		{[]string{"estimate", "-d", ds, "--jobs", bad}, 1, "mu_s -1"},
	} {
		_, stderr, code := wlprof(t, c.argv...)
		if code != c.code || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d, %q; want %d with %q", c.argv, code, stderr, c.code, c.msg)
		}
	}
}

// wlprof report --estimate-jobs adds the section (Ω(t) with the
// deadlines, the table) and each estimated job's profile carries its
// inputs and slots.
func TestReportEstimateSection(t *testing.T) {
	ds := estimateDataset(t)
	out := filepath.Join(t.TempDir(), "r")
	stdout, stderr, code := wlprof(t, "report", "-d", ds, "--out", out, "--estimate-jobs", "../../testdata/estimate/jobs.yaml",
		"--estimate-at", "2024-01-07T06:00:00Z", "--estimate-slot-cpu", "0.5", "--alpha-sweep", "", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var idx struct {
		Stages []struct {
			Stage    string `json:"stage"`
			Computed bool   `json:"computed"`
			Jobs     int    `json:"jobs"`
		} `json:"stages"`
	}
	if err := json.Unmarshal([]byte(stdout), &idx); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range idx.Stages {
		if s.Stage == "estimate" {
			found = s.Computed && s.Jobs == 5
		}
	}
	if !found {
		t.Errorf("estimate stage not computed with 5 jobs: %s", stdout)
	}
	if _, err := os.Stat(filepath.Join(out, "plots", "estimate-availability.svg")); err != nil {
		t.Error(err)
	}
	b, err := os.ReadFile(filepath.Join(out, "profiles", "QuasiMonteCarlo.json"))
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Estimate *struct {
			Phases []struct {
				Phase string  `json:"phase"`
				Tasks int     `json:"tasks"`
				MuS   float64 `json:"mu_s"`
			} `json:"phases"`
			DeadlineFrom string `json:"deadline_from"`
		} `json:"estimate"`
	}
	if err := json.Unmarshal(b, &p); err != nil || p.Estimate == nil || len(p.Estimate.Phases) != 2 || p.Estimate.Phases[0].Phase != "map" || p.Estimate.Phases[0].Tasks != 1 {
		t.Errorf("QuasiMonteCarlo's estimate (%v): %s", err, b)
	}
	html, _ := os.ReadFile(filepath.Join(out, "index.html"))
	if !strings.Contains(string(html), `<section id="estimate">`) || !strings.Contains(string(html), "hourly_clicks_06 &lt;date&gt;: phase") {
		t.Error("index.html lacks the estimate section or its jobs not estimated")
	}
}
