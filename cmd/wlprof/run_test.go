package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/pipeline"
)

// TestRunPipeline: wlprof run detects formats (leaving out what no format
// reads), ingests into DIR/dataset, writes DIR/report and exits 3 when
// records were rejected; a second run replaces the dataset instead of
// adding to it; a failed run leaves the previous dataset and report as
// they were.
func TestRunPipeline(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	if err := os.MkdirAll(in, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"../../testdata/resourceestimator/tpch_q12.txt", "../../testdata/usage_with_rejects.csv", "../../testdata/resourceestimator/SOURCES.md"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(in, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "out")
	run := func(extra ...string) (pipeline.RunReport, string, int) {
		stdout, stderr, code := wlprof(t, append([]string{"run", "--out", out, "--step", "5s", "-o", "json", "-q", in}, extra...)...)
		var rep pipeline.RunReport
		if code == 0 || code == 3 {
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
				t.Fatalf("bad JSON (%v): %s", err, stdout)
			}
		}
		return rep, stderr, code
	}
	rep, stderr, code := run()
	if code != 3 {
		t.Fatalf("exit %d, want 3 (rejected rows): %s", code, stderr)
	}
	if len(rep.Undetected) != 1 || !strings.HasSuffix(rep.Undetected[0].Path, "SOURCES.md") {
		t.Errorf("undetected %+v, want SOURCES.md", rep.Undetected)
	}
	if rep.Accepted != 13+6 || rep.Rejected != 5 || len(rep.Files) != 2 {
		t.Errorf("accepted %d rejected %d files %d; want 19, 5, 2", rep.Accepted, rep.Rejected, len(rep.Files))
	}
	if _, err := os.Stat(filepath.Join(out, "report", "index.html")); err != nil {
		t.Fatal(err)
	}
	if rep.Report == nil || len(rep.Report.Profiles) != 1 {
		t.Fatalf("report index %+v, want one profile (tpch_q12)", rep.Report)
	}
	manifest := func() string {
		b, err := os.ReadFile(filepath.Join(out, "dataset", "manifest.json"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	rep, _, code = run()
	if code != 3 || rep.Accepted != 19 || strings.Count(manifest(), `"format": "re-native"`) != 1 {
		t.Errorf("second run: exit %d, accepted %d; the dataset must be rebuilt, not appended to", code, rep.Accepted)
	}
	before := manifest()
	if _, stderr, code := run("--max-rejects", "0"); code != 1 || !strings.Contains(stderr, "too many rejected") {
		t.Fatalf("--max-rejects 0: exit %d, %s", code, stderr)
	}
	if manifest() != before {
		t.Errorf("a failed run changed the dataset")
	}
	if _, err := os.Stat(filepath.Join(out, ".dataset-new")); !os.IsNotExist(err) {
		t.Errorf("a failed run left its staging dataset behind")
	}

	// The report flags and outputs are wlprof report's: -o csv lists what
	// was written, --inline-jobs 0 leaves the job's figures SVG only unless
	// --all-png, and --inline-jobs is checked as there.
	png := filepath.Join(out, "report", "plots", "skyline-tpch_q12.png")
	stdout, _, code := wlprof(t, "run", "--out", out, "--step", "5s", "-o", "csv", "-q", "--inline-jobs", "0", in)
	if code != 3 || !strings.Contains(stdout, "profile,,tpch_q12,profiles/tpch_q12.json") || strings.Contains(stdout, "dataset:") {
		t.Errorf("-o csv: exit %d\n%s", code, stdout)
	}
	if _, err := os.Stat(png); !os.IsNotExist(err) {
		t.Errorf("--inline-jobs 0: the job's PNG was written (%v)", err)
	}
	if _, _, code := wlprof(t, "run", "--out", out, "--step", "5s", "-q", "--inline-jobs", "0", "--all-png", in); code != 3 {
		t.Errorf("--all-png: exit %d", code)
	}
	if _, err := os.Stat(png); err != nil {
		t.Errorf("--all-png: %v", err)
	}
	if _, stderr, code := wlprof(t, "run", "--out", out, "--inline-jobs", "-1", in); code != 2 || !strings.Contains(stderr, "--inline-jobs") {
		t.Errorf("--inline-jobs -1: exit %d, %s", code, stderr)
	}
}

// wlprof run reads a byte-identical input once, as wlprof ingest does,
// and says which it skipped and why; --allow-duplicate reads both. The
// demo's inputs hold six series twice (testdata/timeseries and
// testdata/traces/timeseries), which the data-quality section counted
// twice.
func TestRunSkipsDuplicateContent(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	os.MkdirAll(in, 0o755)
	b, err := os.ReadFile("../../testdata/resourceestimator/tpch_q12.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a.txt", "b.txt"} {
		os.WriteFile(filepath.Join(in, name), b, 0o644)
	}
	for _, c := range []struct {
		extra   []string
		read    int
		skipped int
	}{{nil, 1, 1}, {[]string{"--allow-duplicate"}, 2, 0}} {
		out := filepath.Join(dir, "out"+strings.Join(c.extra, ""))
		stdout := mustRun(t, append([]string{"run", "--out", out, "--step", "5s", "-q", in}, c.extra...)...)
		first := strings.SplitN(stdout, "\n", 2)[0]
		want := map[int]string{1: "(1 file, 13 records, 0 rejected; 1 file skipped: the same content as another input)", 2: "(2 files, 26 records, 0 rejected)"}[c.read]
		if !strings.Contains(first, want) {
			t.Errorf("%v: %q, want %q", c.extra, first, want)
		}
		if c.skipped > 0 && !strings.Contains(stdout, "b.txt: skipped: the same content") {
			t.Errorf("%v: the skip is not shown: %s", c.extra, stdout)
		}
	}
}
