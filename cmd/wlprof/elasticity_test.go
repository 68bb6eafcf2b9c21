package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// ingestedDataset ingests paths in format into a fresh dataset.
func ingestedDataset(t *testing.T, format string, paths ...string) string {
	t.Helper()
	ds := filepath.Join(t.TempDir(), "ds")
	argv := append([]string{"ingest", format}, paths...)
	mustRun(t, append(argv, "-d", ds, "-q")...)
	return ds
}

func TestElasticityGolden(t *testing.T) {
	ds := ingestedDataset(t, "profruns-csv", "../../testdata/elasticity/profruns.csv")
	out, stderr, code := wlprof(t, "elasticity", "-d", ds, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden(t, "elasticity-profruns.json", out)
	var doc struct {
		Version int `json:"version"`
		Models  []struct {
			Job, Task, Framework, Kind string
			IdealMemoryBytes           int64 `json:"ideal_memory_bytes"`
			Curve                      []struct {
				MemoryBytes int64   `json:"memory_bytes"`
				RuntimeS    float64 `json:"runtime_s"`
				Penalty     float64 `json:"penalty"`
				Slowdown    float64 `json:"slowdown"`
			} `json:"curve"`
			Validation struct {
				Runs int `json:"runs"`
			} `json:"validation"`
		} `json:"models"`
		Skipped []struct {
			Job, Reason string
		} `json:"skipped"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Version != 1 || len(doc.Models) == 0 {
		t.Fatalf("bad document (%v): %.400s", err, out)
	}
	for _, m := range doc.Models {
		if len(m.Curve) == 0 {
			t.Errorf("%s/%s: empty curve", m.Job, m.Task)
			continue
		}
		first, last := m.Curve[0], m.Curve[len(m.Curve)-1]
		if last.MemoryBytes != m.IdealMemoryBytes || float64(first.MemoryBytes) < 0.1*float64(m.IdealMemoryBytes)-1 {
			t.Errorf("%s/%s: curve %d..%d bytes, ideal %d: want 10%%..100%% of ideal", m.Job, m.Task, first.MemoryBytes, last.MemoryBytes, m.IdealMemoryBytes)
		}
		if last.Penalty != 0 || last.Slowdown != 1 {
			t.Errorf("%s/%s: penalty %g, slowdown %g at ideal memory, want 0 and 1", m.Job, m.Task, last.Penalty, last.Slowdown)
		}
		for _, p := range m.Curve {
			if p.Penalty < 0 || math.Abs(p.Slowdown-1-p.Penalty) > 1e-12 {
				t.Errorf("%s/%s: penalty %g, slowdown %g at %d bytes: want penalty = slowdown − 1 ≥ 0", m.Job, m.Task, p.Penalty, p.Slowdown, p.MemoryBytes)
			}
		}
	}
	out, _, code = wlprof(t, "elasticity", "-d", ds)
	if code != 0 {
		t.Fatalf("text: exit %d", code)
	}
	golden(t, "elasticity-profruns.txt", out)
	out = mustRun(t, "elasticity", "-d", ds, "--job", "spillsort-sim", "-o", "csv")
	golden(t, "elasticity-spillsort.csv", out)
}

// History alone: the job history and Spark event logs give a model or a
// clear "not enough information" with the reason.
func TestElasticityFromHistory(t *testing.T) {
	ds := ingestedDataset(t, "jhist", "../../testdata/elasticity/hadoop")
	out := mustRun(t, "elasticity", "-d", ds, "-o", "json")
	var doc struct {
		Models  []json.RawMessage `json:"models"`
		Skipped []struct {
			Task   string `json:"task"`
			Reason string `json:"reason"`
		} `json:"skipped"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	// QuasiMonteCarlo ran one map and one reduce attempt, both at 1024 MB.
	if len(doc.Models) != 0 || len(doc.Skipped) != 2 {
		t.Fatalf("want two groups skipped, got %s", out)
	}
	for _, s := range doc.Skipped {
		if !strings.Contains(s.Reason, "not enough information") || !strings.Contains(s.Reason, "one memory setting (1 GiB)") {
			t.Errorf("%s: reason %q", s.Task, s.Reason)
		}
	}
	golden(t, "elasticity-jhist.txt", mustRun(t, "elasticity", "-d", ds))
}

func mustRun(t *testing.T, argv ...string) string {
	t.Helper()
	out, stderr, code := wlprof(t, argv...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", argv, code, stderr)
	}
	return out
}

func TestElasticityErrors(t *testing.T) {
	ds := ingestedDataset(t, "profruns-csv", "../../testdata/elasticity/profruns.csv")
	for _, c := range []struct {
		argv []string
		code int
		msg  string
	}{
		{[]string{"elasticity", "--grid", "0"}, 2, "--grid"},
		{[]string{"elasticity", "--grid", "lots"}, 2, "--grid"},
		{[]string{"elasticity", "--set", "novalue"}, 2, "KEY=VALUE"},
		{[]string{"elasticity", "--job", "nope"}, 1, "no profiling runs"},
	} {
		if out, _ := checkExit(t, append(c.argv, "-d", ds), c.code, c.msg); out != "" {
			t.Errorf("%v: stdout %d bytes, want none", c.argv, len(out))
		}
	}
}
