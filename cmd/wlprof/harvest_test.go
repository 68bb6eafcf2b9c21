package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/profile"
)

// weekDataset: a synthetic week of 10 tenants (seed 3; six periodic) and
// the provenance world's job runs (the same week), then the extra ingests
// (each a wlprof ingest argv).
func weekDataset(t *testing.T, extra ...[]string) string {
	t.Helper()
	dir := t.TempDir()
	ds := filepath.Join(dir, "ds")
	mustRun(t, "synth", "--out", filepath.Join(dir, "w"), "--tenants", "10", "--days", "7", "--seed", "3")
	for _, argv := range append([][]string{
		{"ingest", "csv", filepath.Join(dir, "w", "usage.csv")},
		{"ingest", "auto", "../../testdata/provenance/world"},
	}, extra...) {
		mustRun(t, append(argv, "-d", ds, "-q")...)
	}
	return ds
}

// harvestDataset: the week and its job runs.
func harvestDataset(t *testing.T) string { return weekDataset(t) }

// wlprof harvest on the runs table and on a Poisson stream: text and CSV
// are golden, the JSON document has its fields, the same seed gives the
// same bytes, and bad flags are usage errors.
func TestHarvestGolden(t *testing.T) {
	ds := harvestDataset(t)
	pois := []string{"harvest", "-d", ds, "--workload", "poisson", "--seed", "5", "--mean-interarrival", "10m", "--max-containers", "8", "--short-below", "173s", "--long-above", "433s"}
	// The first run builds the series from usage (and stores them), the
	// later ones read the stored table: the same document.
	first, errs, code := wlprof(t, append(pois, "-o", "json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	runs := []string{"harvest", "-d", ds, "--containers", "2"}
	txt, errs, code := wlprof(t, runs...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	golden(t, "harvest-runs.txt", txt)
	out := map[string]string{}
	for _, f := range []string{"text", "csv", "json"} {
		o := mustRun(t, append(pois, "-o", f)...)
		out[f] = o
	}
	golden(t, "harvest-poisson.txt", out["text"])
	golden(t, "harvest-poisson.csv", out["csv"])
	again, _, _ := wlprof(t, append(pois, "-o", "json")...)
	if again != out["json"] || first != again {
		t.Fatal("the same seed gave another document")
	}
	var doc struct {
		Version    int    `json:"version"`
		Workload   string `json:"workload"`
		Seed       uint64 `json:"seed"`
		Thresholds struct {
			ShortBelowS float64 `json:"short_below_s"`
			LongAboveS  float64 `json:"long_above_s"`
			From        string  `json:"from"`
		} `json:"thresholds"`
		Policies []struct {
			Policy         string                    `json:"policy"`
			Containers     int                       `json:"containers"`
			Killed         int                       `json:"killed"`
			HarvestedCoreH float64                   `json:"harvested_core_h"`
			ByPattern      map[string]map[string]any `json:"by_pattern"`
			ByType         map[string]map[string]any `json:"by_type"`
		} `json:"policies"`
		Assumptions []string `json:"assumptions"`
	}
	if err := json.Unmarshal([]byte(out["json"]), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != 1 || doc.Workload != "poisson" || doc.Seed != 5 || doc.Thresholds.ShortBelowS != 173 || doc.Thresholds.LongAboveS != 433 ||
		doc.Thresholds.From != "flags" || len(doc.Policies) != 3 || doc.Policies[0].Policy != "history" || doc.Policies[1].Policy != "blind" || doc.Policies[2].Policy != "stock" ||
		doc.Policies[0].Containers == 0 || len(doc.Assumptions) == 0 {
		t.Fatalf("document: %+v", doc)
	}
	// internal/synth's world (not tuned on): Algorithm 1 kills fewer.
	if h, b := doc.Policies[0], doc.Policies[1]; !(h.Killed < b.Killed) {
		t.Errorf("history killed %d, blind %d", h.Killed, b.Killed)
	}
	for _, bad := range [][]string{
		{"--reserve", "1.5"},
		{"--workload", "trace"},
		{"--short-below", "10m"},
		{"--short-below", "10m", "--long-above", "1m"},
	} {
		if _, _, code := wlprof(t, append([]string{"harvest", "-d", ds}, bad...)...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", bad, code, exitUsage)
		}
	}
}

// wlprof report --job-types: every job of the runs table has its type in
// its profile, and the profile loads.
func TestReportJobTypes(t *testing.T) {
	ds := harvestDataset(t)
	out := filepath.Join(t.TempDir(), "r")
	mustRun(t, "report", "-d", ds, "--out", out, "--job-types", "--alpha-sweep", "", "-q")
	files, err := filepath.Glob(filepath.Join(out, "profiles", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no profiles: %v", err)
	}
	types := map[string]int{}
	for _, f := range files {
		j, err := profile.LoadJob(f)
		if err != nil {
			t.Fatal(err)
		}
		if j.Harvest == nil {
			t.Fatalf("%s has no harvest section", f)
		}
		types[j.Harvest.JobType]++
		if j.Harvest.ThresholdsFrom != "history" {
			t.Errorf("%s: thresholds from %s", f, j.Harvest.ThresholdsFrom)
		}
	}
	t.Logf("%d profiles: %v", len(files), types)
}

// wlprof report --harvest adds the section: computed in index.json, the
// policies' table on the page, and the profiles carry the job types.
func TestReportHarvestSection(t *testing.T) {
	ds := harvestDataset(t)
	out, stdout, idx := sectionReport(t, ds, "--harvest", "--alpha-sweep", "")
	if !idx.stage("harvest").Computed {
		t.Fatalf("harvest not computed: %s", stdout)
	}
	page := readPage(t, out)
	for _, want := range []string{`<section id="harvest">`, "Harvesting what-if", `<td class="t">history</td>`, `<td class="t">blind</td>`, "Assumptions:"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("index.html lacks %q", want)
		}
	}
	if strings.Contains(string(page), "%!") {
		t.Error("a formatting error reached the page")
	}
	j, err := profile.LoadJob(filepath.Join(out, "profiles", profile.FileName("hourly_clicks_00 <date>")))
	if err != nil {
		files, _ := filepath.Glob(filepath.Join(out, "profiles", "*"))
		t.Fatalf("%v (profiles: %v)", err, files)
	}
	if j.Harvest == nil {
		t.Fatal("no job type in the profile")
	}
}
