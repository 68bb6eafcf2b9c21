package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// wlprof plan on tpch_q12 (13 runs from Hadoop's ResourceEstimator
// tests), which has no provenance: without a window it is not planned and
// says how to give one; with an override window it is fitted on its first
// 10 runs, packed, and its last 3 replayed. The text, JSON and CSV outputs
// are golden; the JSON's footprint equals the peak of its placement.
func TestPlanGolden(t *testing.T) {
	ds := skylineDataset(t)
	out, stderr, code := wlprof(t, "plan", "-d", ds, "--step", "5s")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden(t, "plan-no-window.txt", out)
	ov := filepath.Join(t.TempDir(), "ov.yaml")
	os.WriteFile(ov, []byte("version: 1\njobs:\n  - job: tpch_q12\n    period_s: 3600\n    arrival_s: 600\n    deadline_s: 1800\n"), 0o644)
	for _, f := range []string{"text", "json", "csv"} {
		out, stderr, code := wlprof(t, "plan", "-d", ds, "--step", "5s", "--overrides", ov, "-o", f)
		if code != 0 {
			t.Fatalf("-o %s: exit %d: %s", f, code, stderr)
		}
		golden(t, "plan-tpch_q12."+map[string]string{"text": "txt", "json": "json", "csv": "csv"}[f], out)
		if f != "json" {
			continue
		}
		var doc struct {
			Footprint  int64 `json:"footprint_containers"`
			Placements []struct {
				Allocation []int64 `json:"allocation"`
			} `json:"placements"`
			Replay []struct {
				TestRuns int `json:"test_runs"`
			} `json:"replay"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Placements) != 1 || len(doc.Replay) != 1 {
			t.Fatalf("bad document (%v): %.300s", err, out)
		}
		var pk int64
		for _, v := range doc.Placements[0].Allocation {
			pk = max(pk, v)
		}
		if pk != doc.Footprint || doc.Replay[0].TestRuns != 3 {
			t.Errorf("footprint %d, placement peak %d; held-out runs %d (want 3)", doc.Footprint, pk, doc.Replay[0].TestRuns)
		}
	}
	for _, c := range []struct {
		argv []string
		code int
		msg  string
	}{
		{[]string{"plan", "-d", ds, "--holdout", "1"}, 2, "holdout 1"},
		{[]string{"plan", "-d", ds, "--lcm-cap", "0s"}, 2, "lcm-cap"},
		{[]string{"plan", "-d", ds, "--job", "nope"}, 1, `job "nope" has no skylines`},
	} {
		_, stderr, code := wlprof(t, c.argv...)
		if code != c.code || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d, %q; want %d with %q", c.argv, code, stderr, c.code, c.msg)
		}
	}
}
