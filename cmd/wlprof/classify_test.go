package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// classifyDataset ingests a small synthetic world (10 tenants, 7 days at
// 2 minutes: every kind of tenant twice) plus one tenant with a single day
// of history, which must come out insufficient.
func classifyDataset(t *testing.T) (dir, ds string) {
	t.Helper()
	dir = t.TempDir()
	ds = filepath.Join(dir, "ds")
	mustRun(t, "synth", "--out", filepath.Join(dir, "w"), "--tenants", "10", "--days", "7", "--seed", "3")
	var short strings.Builder
	short.WriteString("tenant,server,timestamp,cpu\n")
	for i := 0; i < 720; i++ { // one day at 2 minutes
		fmt.Fprintf(&short, "newcomer,newcomer-srv00,%d,0.3\n", 1704067200+i*120)
	}
	if err := os.WriteFile(filepath.Join(dir, "short.csv"), []byte(short.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{filepath.Join(dir, "w", "usage.csv"), filepath.Join(dir, "short.csv")} {
		mustRun(t, "ingest", "csv", f, "-d", ds, "-q")
	}
	return dir, ds
}

// The -o json document of classify is a contract: its golden file pins it,
// and the text table beside it. A second run reads the stored series and
// gives the same classification.
func TestClassifyGolden(t *testing.T) {
	_, ds := classifyDataset(t)
	out := mustRun(t, "classify", "-d", ds, "-o", "json", "-q")
	var doc struct {
		Version      int    `json:"version"`
		SeriesSource string `json:"series_source"`
		Tenants      []struct {
			Tenant, Pattern, Class string
			PeriodS                *float64 `json:"period_s"`
		} `json:"tenants"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if doc.Version != 1 || doc.SeriesSource != "built from usage" || len(doc.Tenants) != 11 {
		t.Fatalf("version %d, source %q, %d tenants", doc.Version, doc.SeriesSource, len(doc.Tenants))
	}
	golden(t, "classify.json", out)

	again := mustRun(t, "classify", "-d", ds, "-o", "json", "-q")
	if want := strings.Replace(out, `"series_source": "built from usage"`, `"series_source": "series table"`, 1); again != want {
		t.Errorf("second run (from the series table) differs:\n%s", diff(want, again))
	}

	text := mustRun(t, "classify", "-d", ds)
	golden(t, "classify.txt", text)

	// --tenants says which tenant is in which class; -o csv carries each
	// tenant's class headroom (issue 22).
	text, _, _ = wlprof(t, "classify", "-d", ds, "--tenants")
	golden(t, "classify-tenants.txt", text)
	csvOut, _, _ := wlprof(t, "classify", "-d", ds, "-o", "csv")
	golden(t, "classify.csv", csvOut)
}

// --k fixes the classes per pattern; --at moves "current" and so the
// short-job headroom.
func TestClassifyFlags(t *testing.T) {
	_, ds := classifyDataset(t)
	out := mustRun(t, "classify", "-d", ds, "-o", "json", "-q", "--k", "1", "--at", "2024-01-06T12:00:00Z")
	var doc struct {
		At      string `json:"at"`
		Classes []struct {
			Class, Pattern string
			Current        float64
			Headroom       struct{ Short, Medium, Long float64 }
			Mean, Peak     float64
		} `json:"classes"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.At != "2024-01-06T12:00:00Z" || len(doc.Classes) != 3 {
		t.Fatalf("at %s, %d classes (want one per pattern)", doc.At, len(doc.Classes))
	}
	for _, c := range doc.Classes {
		// Seed 000 §4.1, exactly.
		near := func(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }
		if !near(c.Headroom.Short, 1-c.Current) || !near(c.Headroom.Medium, 1-max(c.Mean, c.Current)) ||
			!near(c.Headroom.Long, 1-max(c.Peak, c.Current)) {
			t.Errorf("class %s: headroom %+v does not follow seed 000 from current %g, mean %g, peak %g",
				c.Class, c.Headroom, c.Current, c.Mean, c.Peak)
		}
	}
}
