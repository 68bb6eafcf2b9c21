package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// placementDataset: the bundled placement world (testdata/placement).
func placementDataset(t *testing.T) string {
	t.Helper()
	return ingestedDataset(t, "auto", "../../testdata/placement/usage.csv", "../../testdata/placement/machine_events.json")
}

// wlprof placement on the bundled world: text and CSV are golden, the
// JSON document has its fields and nine classes of which every tenant is
// in exactly one, the output is the same bytes again, and bad flags are
// usage errors (all of them at once).
func TestPlacementGolden(t *testing.T) {
	ds := placementDataset(t)
	out := map[string]string{}
	for _, f := range []string{"text", "csv", "json"} {
		o, errs, code := wlprof(t, "placement", "-d", ds, "--stability-window", "2d", "-o", f)
		if code != 0 {
			t.Fatalf("-o %s: exit %d: %s", f, code, errs)
		}
		out[f] = o
	}
	golden(t, "placement.txt", out["text"])
	golden(t, "placement.csv", out["csv"])
	again, _, _ := wlprof(t, "placement", "-d", ds, "--stability-window", "2d", "-o", "json")
	if again != out["json"] {
		t.Fatal("a second run gave another document")
	}
	var doc struct {
		Version int `json:"version"`
		Classes []struct {
			Class        string   `json:"class"`
			ReimageGroup string   `json:"reimage_group"`
			PeakGroup    string   `json:"peak_group"`
			Tenants      []string `json:"tenants"`
			Servers      int      `json:"servers"`
			StorageBytes float64  `json:"storage_bytes"`
		} `json:"classes"`
		Tenants []struct {
			Tenant string `json:"tenant"`
			Class  string `json:"class"`
		} `json:"tenants"`
		Excluded []struct {
			Tenant, Reason string
		} `json:"excluded"`
		TotalStorageBytes float64 `json:"total_storage_bytes"`
		UnjoinedMachines  int     `json:"unjoined_machines"`
		Stability         struct {
			Windows          int      `json:"windows"`
			MeanSameFraction *float64 `json:"mean_same_fraction"`
		} `json:"stability"`
		Assumptions []string `json:"assumptions"`
		Replay      *struct {
			Blocks   int `json:"blocks"`
			Policies []struct {
				Policy string `json:"policy"`
				Runs   []struct {
					Seed       uint64 `json:"seed"`
					LostBlocks int    `json:"lost_blocks"`
				} `json:"runs"`
			} `json:"policies"`
		} `json:"replay"`
	}
	if err := json.Unmarshal([]byte(out["json"]), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != 1 || len(doc.Classes) != 9 || len(doc.Tenants) != 12 || doc.UnjoinedMachines != 1 ||
		len(doc.Excluded) != 1 || doc.Excluded[0].Tenant != "dev-scratch" || doc.Stability.Windows != 3 || doc.Stability.MeanSameFraction == nil {
		t.Fatalf("document: %s", out["json"])
	}
	if rp := doc.Replay; rp == nil || rp.Blocks != 10000 || len(rp.Policies) != 2 || rp.Policies[0].Policy != "hdfs-stock" ||
		rp.Policies[1].Policy != "algorithm-2" || len(rp.Policies[1].Runs) != 5 {
		t.Errorf("replay: %+v", doc.Replay)
	}
	if o, _, _ := wlprof(t, "placement", "-d", ds, "--blocks", "0", "-o", "json"); !strings.Contains(o, `"replay": null`) {
		t.Error("--blocks 0 still replays")
	}
	seen := map[string]string{}
	sum := 0.0
	for _, c := range doc.Classes {
		if c.Class != c.ReimageGroup+"/"+c.PeakGroup {
			t.Errorf("class %+v", c)
		}
		for _, n := range c.Tenants {
			if seen[n] != "" {
				t.Errorf("%s in %s and %s", n, seen[n], c.Class)
			}
			seen[n] = c.Class
		}
		sum += c.StorageBytes
	}
	for _, tn := range doc.Tenants {
		if seen[tn.Tenant] != tn.Class {
			t.Errorf("tenant %s: class %s, listed in %q", tn.Tenant, tn.Class, seen[tn.Tenant])
		}
	}
	if sum != doc.TotalStorageBytes || !strings.Contains(strings.Join(doc.Assumptions, " "), "REMOVE") {
		t.Errorf("storage %g of %g; assumptions %v", sum, doc.TotalStorageBytes, doc.Assumptions)
	}

	// The default window is a month: the 8-day world is too short.
	txt, _, _ := wlprof(t, "placement", "-d", ds)
	if !strings.Contains(txt, "too short: the trace covers") {
		t.Errorf("default window:\n%s", txt)
	}
	// A size that does not parse is pflag's usage error; values out of
	// range are the stage's, all at once.
	_, errs, code := wlprof(t, "placement", "-d", ds, "--server-storage", "lots")
	if code != 2 || !strings.Contains(errs, `invalid argument "lots" for "--server-storage" flag: size "lots"`) {
		t.Errorf("bad size: exit %d: %s", code, errs)
	}
	_, errs, code = wlprof(t, "placement", "-d", ds, "--seeds", "0", "--stability-window", "1m")
	if code != 2 || !strings.Contains(errs, "seeds 0") || !strings.Contains(errs, "stability window 1m0s") {
		t.Errorf("bad flags: exit %d: %s", code, errs)
	}
}

// A dataset without machine events, or whose machines are no usage
// server: a clear error, exit 1.
func TestPlacementNoHistory(t *testing.T) {
	ds := filepath.Join(t.TempDir(), "ds")
	mustRun(t, "ingest", "auto", "-d", ds, "-q", "../../testdata/placement/usage.csv")
	_, errs, code := wlprof(t, "placement", "-d", ds)
	if code != 1 || !strings.Contains(errs, "no machine events (ingest google2019-machine-events or alibaba2018-machine-meta first)") {
		t.Errorf("exit %d: %s", code, errs)
	}
	if _, errs, code := wlprof(t, "ingest", "auto", "-d", ds, "-q", "../../testdata/traces/alibaba2018/machine_meta_sample.csv"); code != 3 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	_, errs, code = wlprof(t, "placement", "-d", ds)
	if code != 1 || !strings.Contains(errs, "none of the 3 machines with events is a server of the usage table") {
		t.Errorf("exit %d: %s", code, errs)
	}
}

// wlprof report --placement adds the replica-placement section on the
// bundled world: computed in index.json with its tenants, the classes'
// and the replay's tables and the figure on the page; without the flag,
// or without machine events, the section says why it is empty; bad
// --placement-* flags are usage errors before any work.
func TestReportPlacementSection(t *testing.T) {
	ds := placementDataset(t)
	out, stdout, idx := sectionReport(t, ds, "--placement", "--placement-stability-window", "2d", "--placement-seeds", "2")
	if s := idx.stage("placement"); !s.Computed || s.Tenants == nil || *s.Tenants != 12 {
		t.Fatalf("placement not computed with 12 tenants: %s", stdout)
	}
	page := readPage(t, out)
	for _, want := range []string{`<section id="placement">`, "Replica placement", "58 disruptions", "S/9 = 13.3 TiB", "REMOVE event stands in",
		`<td class="t">intermediate/medium</td><td class="n">2</td><td class="n">5</td><td class="n">20 TiB</td><td class="n">16.7%</td>`, "analytics-etl, maps-tiles",
		"over 3 windows", "seeds 1–2", `<td class="t">hdfs-stock</td>`, `<td class="t">algorithm-2</td>`, "placement-shares.svg",
		"--placement-server-storage", "excluded: dev-scratch"} {
		if !strings.Contains(page, want) {
			t.Errorf("index.html lacks %q", want)
		}
	}
	if strings.Contains(page, "%!") {
		t.Error("a formatting error reached the page")
	}

	// Not asked for: a note that names the flag.
	out2 := filepath.Join(t.TempDir(), "r")
	mustRun(t, "report", "-d", ds, "--out", out2, "-q")
	if page := readPage(t, out2); !strings.Contains(page, "Not asked for: --placement clusters") || strings.Contains(page, "<td>hdfs-stock</td>") {
		t.Error("without --placement: no note, or a section")
	}

	// No machine events: a note that says what to ingest.
	bare := filepath.Join(t.TempDir(), "ds")
	mustRun(t, "ingest", "auto", "-d", bare, "-q", "../../testdata/placement/usage.csv")
	out3 := filepath.Join(t.TempDir(), "r")
	mustRun(t, "report", "-d", bare, "--out", out3, "--placement", "-q")
	if page := readPage(t, out3); !strings.Contains(page, "No machine events in the dataset") || !strings.Contains(page, "google2019-machine-events") {
		t.Error("no machine events: no note")
	}
	// Machines that are no usage server: a note, not a failed report.
	if _, errs, code := wlprof(t, "ingest", "auto", "-d", bare, "-q", "../../testdata/traces/alibaba2018/machine_meta_sample.csv"); code != 3 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	out4 := filepath.Join(t.TempDir(), "r")
	mustRun(t, "report", "-d", bare, "--out", out4, "--placement", "-q")
	if page := readPage(t, out4); !strings.Contains(page, "none of the 3 machines with events is a server of the usage table") {
		t.Error("no machine joined: no note")
	}

	for _, bad := range [][]string{{"--placement-server-storage", "lots"}, {"--placement-blocks", "-1"}, {"--placement-seeds", "0"}} {
		_, errs, code := wlprof(t, append([]string{"report", "-d", ds, "--out", filepath.Join(t.TempDir(), "r")}, bad...)...)
		if code != 2 || !strings.Contains(errs, "placement") {
			t.Errorf("%v: exit %d: %s", bad, code, errs)
		}
	}
	if _, errs, code := wlprof(t, "run", "--out", t.TempDir(), "--placement-seeds", "0", "../../testdata/placement/usage.csv"); code != 2 {
		t.Errorf("run --placement-seeds 0: exit %d: %s", code, errs)
	}
}

func readPage(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
