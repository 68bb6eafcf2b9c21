package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// wlprof constraints on the 2011 and 2019 fixtures (written from the
// schemas): text and CSV golden, the JSON document has the contract's
// fields; a dataset without task events is an error that says what to
// ingest.
func TestConstraintsGolden(t *testing.T) {
	for _, c := range []struct{ name, dir string }{
		{"google2011", "../../testdata/constraints/google2011"},
		{"google2019", "../../testdata/constraints/google2019"},
	} {
		ds := filepath.Join(t.TempDir(), "ds")
		args := []string{"ingest", "-d", ds, "auto", c.dir}
		if _, stderr, code := wlprof(t, args...); code != 3 {
			t.Fatalf("%s ingest: exit %d (want 3: the fixtures hold rejects): %s", c.name, code, stderr)
		}
		out := map[string]string{}
		for _, f := range []string{"text", "csv", "json"} {
			o, stderr, code := wlprof(t, "constraints", "-d", ds, "-o", f)
			if code != 0 {
				t.Fatalf("%s -o %s: exit %d: %s", c.name, f, code, stderr)
			}
			out[f] = o
		}
		golden(t, "constraints-"+c.name+".txt", out["text"])
		golden(t, "constraints-"+c.name+".csv", out["csv"])
		var doc struct {
			Version     int              `json:"version"`
			WindowS     float64          `json:"window_s"`
			Constraints []map[string]any `json:"constraints"`
		}
		if err := json.Unmarshal([]byte(out["json"]), &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Version != 1 || doc.WindowS != 3600 || len(doc.Constraints) == 0 {
			t.Fatalf("%s document: %+v", c.name, doc)
		}
		for _, k := range []string{"attribute", "relation", "value", "tasks", "machines", "demand_supply", "predicted_wait_s", "observed_wait_s", "hard", "rho"} {
			if _, ok := doc.Constraints[0][k]; !ok {
				t.Errorf("%s: constraints[0] lacks %q", c.name, k)
			}
		}
	}
	ds := filepath.Join(t.TempDir(), "empty")
	if _, _, code := wlprof(t, "ingest", "-d", ds, "csv", "../../testdata/usage_with_rejects.csv"); code != 3 && code != 0 {
		t.Fatalf("ingest exit %d", code)
	}
	_, stderr, code := wlprof(t, "constraints", "-d", ds)
	if code != 1 || !strings.Contains(stderr, "no task events") {
		t.Errorf("no events: exit %d, %s", code, stderr)
	}
	if _, _, code := wlprof(t, "constraints", "-d", ds, "--window", "0s"); code != 2 {
		t.Errorf("--window 0s: exit %d, want 2", code)
	}
}

// wlprof report --constraints adds the section (computed in index.json,
// the table and both figures on the page).
func TestReportConstraintsSection(t *testing.T) {
	ds := filepath.Join(t.TempDir(), "ds")
	if _, stderr, code := wlprof(t, "ingest", "-d", ds, "auto", "../../testdata/constraints/google2011"); code != 3 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	out, stdout, idx := sectionReport(t, ds, "--constraints", "--constraints-window", "30m")
	if found, plots := idx.stage("constraints").Computed, idx.plotsNamed("constraints-"); !found || plots != 2 {
		t.Fatalf("constraints computed %v, %d plots: %s", found, plots, stdout)
	}
	page := readPage(t, out)
	for _, want := range []string{`<section id="constraints">`, `<td class="t">GK</td><td class="t">EQUAL</td><td class="t">aaa</td>`, "Rules:"} {
		if !strings.Contains(page, want) {
			t.Errorf("index.html lacks %q", want)
		}
	}
}
