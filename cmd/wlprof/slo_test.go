package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// sloWorld ingests the bundled provenance world (testdata/provenance/world:
// an HDFS audit log and its runs as OpenLineage events, written by
// slo/fixture_test.go) into a fresh dataset.
func sloWorld(t *testing.T) string {
	t.Helper()
	return ingestedDataset(t, "auto", "../../testdata/provenance/world")
}

// The -o json document of slo is a contract: its golden file pins it, and
// its minimum fields are checked by name.
func TestSLOGolden(t *testing.T) {
	ds := sloWorld(t)
	out := mustRun(t, "slo", "-d", ds, "-o", "json")
	var doc struct {
		Version int              `json:"version"`
		Jobs    []map[string]any `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != 1 || len(doc.Jobs) == 0 {
		t.Fatalf("version %d, %d jobs", doc.Version, len(doc.Jobs))
	}
	for _, f := range []string{"job", "period_s", "runs", "actionable", "arrival_s", "deadline_s", "slack_ratio", "reason"} {
		if _, ok := doc.Jobs[0][f]; !ok {
			t.Errorf("jobs[0] lacks %q", f)
		}
	}
	golden(t, "slo-world.json", out)
	text := mustRun(t, "slo", "-d", ds)
	golden(t, "slo-world.txt", text)
	ov := mustRun(t, "slo", "-d", ds, "--overrides", "../../testdata/provenance/overrides.yaml", "--percentiles", "90,50")
	golden(t, "slo-world-overrides.txt", ov)
	for _, want := range []string{"rejected by override", "+1d2h"} {
		if !strings.Contains(ov, want) {
			t.Errorf("overridden output lacks %q", want)
		}
	}
	one, _, code := wlprof(t, "slo", "-d", ds, "--job", "hourly_clicks_06 <date>", "-o", "csv")
	if code != 0 || strings.Count(one, "\n") != 2 || !strings.Contains(one, "hourly_clicks_06 <date>,3600,144,true,") {
		t.Errorf("--job csv: exit %d\n%s", code, one)
	}
}

func TestSLOErrors(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty")
	mustRun(t, "ingest", "hdfs-audit", "../../testdata/provenance/hadoop_dynamometer_audit_trace_direct_audit0.log", "-d", empty, "-q")
	ds := sloWorld(t)
	for _, c := range []struct {
		argv []string
		code int
		err  string
	}{
		{[]string{"slo", "-d", empty}, 1, "no runs"},
		{[]string{"slo", "-d", ds, "--percentiles", "95"}, 2, "--percentiles"},
		{[]string{"slo", "-d", ds, "--percentiles", "95,101"}, 2, "not a percentile"},
		{[]string{"slo", "-d", ds, "--min-runs", "1"}, 2, "min-runs 1: want at least 2"},
		{[]string{"slo", "-d", ds, "--min-slack", "-1"}, 2, "min-slack -1: want a number ≥ 0"},
		{[]string{"slo", "-d", ds, "--max-read-spread", "-0.1"}, 2, "max-read-spread -0.1: want a number ≥ 0"},
		// Every bad option is reported at once.
		{[]string{"slo", "-d", ds, "--min-runs", "1", "--snap", "-1"}, 2, "min-runs 1: want at least 2\nslo: snap -1: want a number ≥ 0"},
		{[]string{"slo", "-d", ds, "--job", "nosuch"}, 1, `job "nosuch" has no SLO`},
		{[]string{"slo", "-d", ds, "--overrides", "does-not-exist.yaml"}, 1, "no such file"},
		{[]string{"slo", "-d", filepath.Join(t.TempDir(), "nope")}, 1, ""},
	} {
		checkExit(t, c.argv, c.code, c.err)
	}
}
