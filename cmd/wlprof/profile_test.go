package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/datasettest"
	"github.com/wlprof/wlprof/profiler"
)

// loadSweep writes testdata/profiler/spillsort-sweep.json (a real sweep,
// see its SOURCES.md) into a fresh dataset.
func loadSweep(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../testdata/profiler/spillsort-sweep.json")
	if err != nil {
		t.Fatal(err)
	}
	var fx struct {
		Runs    []dataset.ProfRun
		Samples []dataset.ProfSample
	}
	if err := json.Unmarshal(b, &fx); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "ds")
	_, tx := datasettest.Begin(t, dir)
	datasettest.Append(t, tx.ProfRuns(), fx.Runs)
	datasettest.Append(t, tx.ProfSamples(), fx.Samples)
	datasettest.Commit(t, tx)
	return dir
}

func TestProfileShowGolden(t *testing.T) {
	ds := loadSweep(t)
	out, errs, code := wlprof(t, "profile", "show", "--job", "spillsort", "-d", ds)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	golden(t, "profile-show-spillsort.txt", out)
	out = mustRun(t, "profile", "show", "--job", "spillsort", "-d", ds, "-o", "json")
	var doc struct {
		Version int              `json:"version"`
		Runs    []map[string]any `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Version != 1 || len(doc.Runs) != 8 {
		t.Fatalf("version %d, %d runs, %v", doc.Version, len(doc.Runs), err)
	}
	for _, k := range []string{"job", "task", "mem_bytes", "slots", "repetition", "wall_s", "cpu_s", "peak_rss_bytes",
		"read_bytes", "write_bytes", "spilled_bytes", "exit_code", "capped"} {
		if _, ok := doc.Runs[0][k]; !ok {
			t.Errorf("runs[0] lacks %q", k)
		}
	}
	golden(t, "profile-show-spillsort.json", out)
}

func TestProfileUsageErrors(t *testing.T) {
	ds := filepath.Join(t.TempDir(), "ds")
	for _, c := range []struct {
		argv []string
		code int
		err  string
	}{
		{[]string{"profile", "run", "-d", ds, "--", "true"}, 2, "--job is required"},
		{[]string{"profile", "run", "-d", ds, "--job", "j", "--mem", "lots", "--", "true"}, 2, `size "lots"`},
		{[]string{"profile", "run", "-d", ds, "--job", "j", "--slots", "0", "--", "true"}, 2, "slots"},
		{[]string{"profile", "run", "-d", ds, "--job", "j", "--cap", "maybe", "--", "true"}, 2, "cap"},
		{[]string{"profile", "run", "-d", ds, "--job", "j", "--phase-regex", "(", "--", "true"}, 2, "--phase-regex"},
		{[]string{"profile", "run", "-d", ds, "--job", "j"}, 2, "missing CMD"},
		{[]string{"profile", "run", "-d", ds, "--job", "j", "--", "true", "{mem}"}, 1, "no --mem"},
		{[]string{"profile", "show", "-d", ds}, 2, "the job is required: wlprof profile show JOB"},
	} {
		checkExit(t, c.argv, c.code, c.err)
	}
}

// profile run end to end through the CLI: runs are committed and show
// reads them back; a command that does not exist is an error.
func TestProfileRunCLI(t *testing.T) {
	dir := t.TempDir()
	ds := filepath.Join(dir, "ds")
	in := filepath.Join(dir, "in.txt")
	os.WriteFile(in, []byte(strings.Repeat("b\na\nc\n", 1000)), 0o644)
	out, errs, code := wlprof(t, "profile", "run", "-d", ds, "-o", "json", "--job", "gsort", "--mem", "1M", "--slots", "1,2",
		"--repeat", "2", "--interval", "20ms", "--cap-overhead", "16M", "--", "sort", "-S", "{mem}", "-T", "{spill_dir}", "-o", "/dev/null", in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.Count(errs, "run ") < 4 {
		t.Errorf("progress lines missing from stderr: %q", errs)
	}
	var doc profiler.Report
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Runs) != 4 || len(doc.Settings) != 2 {
		t.Fatalf("%d runs %d settings %v\n%s", len(doc.Runs), len(doc.Settings), err, out)
	}
	for _, r := range doc.Runs {
		if r.Outcome != "ok" || r.MemBytes != 1<<20 || r.Framework != "sandbox" {
			t.Errorf("run %+v", r)
		}
	}
	shown, _, code := wlprof(t, "profile", "show", "-d", ds, "--job", "gsort", "-o", "csv")
	if code != 0 || strings.Count(shown, "\n") != 5 { // header + 4 runs
		t.Errorf("show -o csv: exit %d\n%s", code, shown)
	}
	m, err := dataset.Open(ds)
	if err != nil || m.Rows("profruns") != 4 || m.Rows("profsamples") < 8 {
		t.Errorf("dataset holds %d runs, %d samples (%v)", m.Rows("profruns"), m.Rows("profsamples"), err)
	}
	_, errs, code = wlprof(t, "profile", "run", "-d", ds, "--job", "x", "--repeat", "1", "--", "/no/such/program")
	if code != 1 || !strings.Contains(errs, "no such file") {
		t.Errorf("missing program: exit %d, %q", code, errs)
	}
}

// Ctrl-C during a sweep: exit 1, the runs finished before are in the
// dataset, the one in progress is not.
func TestProfileRunInterrupted(t *testing.T) {
	ds := filepath.Join(t.TempDir(), "ds")
	// Ctrl-C comes once the first run is committed (polled: a fixed delay
	// was flaky on a loaded machine), or after a minute.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			time.Sleep(50 * time.Millisecond)
			if m, err := dataset.Open(ds); err == nil && m.Rows("profruns") > 0 {
				cancel()
			}
		}
	}()
	var out, errb bytes.Buffer
	code := run(ctx, []string{"profile", "run", "-d", ds, "--job", "nap", "--repeat", "20", "--grace", "200ms", "--", "sleep", "0.3"},
		&streams{In: strings.NewReader(""), Out: &out, Err: &errb})
	if code != 130 || !strings.Contains(errb.String(), "interrupted: the ") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	m, err := dataset.Open(ds)
	if err != nil {
		t.Fatal(err)
	}
	n := m.Rows("profruns")
	if n < 1 || n >= 20 || !strings.Contains(errb.String(), fmt.Sprintf("the %d run(s) finished before are kept", n)) {
		t.Errorf("%d runs kept; stderr %q", n, errb.String())
	}
}

// --io-capacity gives the node's disk bandwidth instead of measuring it,
// and the profile says which it used (issue 16); a bad value is a usage
// error.
func TestProfileRunIOCapacityFlag(t *testing.T) {
	ds := filepath.Join(t.TempDir(), "ds")
	out, errs, code := wlprof(t, "profile", "run", "-d", ds, "-o", "json", "--job", "nap", "--repeat", "1",
		"--io-capacity", "1.5GiB", "--", "sleep", "0.2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Profiles []struct {
			IOCapacity float64 `json:"io_capacity_bytes_per_s"`
			Source     string  `json:"io_capacity_source"`
		} `json:"profiles"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Profiles) != 1 {
		t.Fatalf("%v\n%s", err, out)
	}
	if p := doc.Profiles[0]; p.IOCapacity != 3<<29 || p.Source != "flag" {
		t.Errorf("profile capacity %.0f (%s), want %d (flag)", p.IOCapacity, p.Source, 3<<29)
	}
	_, errs, code = wlprof(t, "profile", "run", "-d", ds, "--job", "nap", "--io-capacity", "fast", "--", "true")
	if code != 2 || !strings.Contains(errs, "--io-capacity") {
		t.Errorf("--io-capacity fast: exit %d, %q; want a usage error", code, errs)
	}
}

// The default cap leaves GNU sort room at a small setting, and with the
// overhead turned off (--cap-overhead 0: the cap is the setting) the run
// the cap OOM-kills is named as such in the sweep output, text and JSON
// (issue 16).
func TestProfileRunOOMKilledByCapIsSaid(t *testing.T) {
	dir := t.TempDir()
	ds := filepath.Join(dir, "ds")
	in := filepath.Join(dir, "in.txt")
	var b strings.Builder
	for i := 0; b.Len() < 8<<20; i++ {
		fmt.Fprintf(&b, "%08x line %d\n", uint32(i)*2654435761, i)
	}
	os.WriteFile(in, []byte(b.String()), 0o644)
	sortArgv := []string{"--", "sort", "-S", "{mem}", "-T", "{spill_dir}", "-o", "/dev/null", in}
	out, errs, code := wlprof(t, append([]string{"profile", "run", "-d", ds, "--job", "def", "--mem", "4M", "--repeat", "1",
		"--io-capacity", "500M", "-o", "json"}, sortArgv...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc profiler.Report
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Runs) != 1 {
		t.Fatalf("%v\n%s", err, out)
	}
	if r := doc.Runs[0]; !r.Capped {
		t.Skipf("memory is not capped here: %s", r.CapNote)
	} else if r.Outcome != "ok" {
		t.Errorf("sort -S 4M under the default cap: %s (%s), want ok", r.Outcome, r.CapNote)
	}

	out, errs, code = wlprof(t, append([]string{"profile", "run", "-d", ds, "--job", "tight", "--mem", "4M", "--repeat", "1",
		"--io-capacity", "500M", "--cap-overhead", "0"}, sortArgv...)...)
	if code != 1 || !strings.Contains(errs, "no successful run") {
		t.Fatalf("exit %d: %s; want 1, the setting had no successful run", code, errs)
	}
	for _, want := range []string{"oom-killed:1", "note: task at 4M, 1 slot(s): 1 of 1 run(s) OOM-killed by the memory cap, cgroup v"} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errs, "OOM-killed by the memory cap") {
		t.Errorf("stderr does not say the cap killed the run: %q", errs)
	}
	out, _, _ = wlprof(t, "profile", "show", "-d", ds, "--job", "tight", "-o", "json")
	var shown struct {
		Settings []struct {
			OOMKilledByCap int      `json:"oom_killed_by_cap"`
			Notes          []string `json:"notes"`
		} `json:"settings"`
	}
	if err := json.Unmarshal([]byte(out), &shown); err != nil || len(shown.Settings) != 1 {
		t.Fatalf("%v\n%s", err, out)
	}
	if s := shown.Settings[0]; s.OOMKilledByCap != 1 || len(s.Notes) != 1 || !strings.Contains(s.Notes[0], "setting 4M, no overhead") {
		t.Errorf("setting %+v, want 1 run OOM-killed by the cap and a note naming the limit", s)
	}
}

// The job may be the argument where --job is required, as people type it.
func TestJobAsArgument(t *testing.T) {
	ds := skylineDataset(t)
	base := []string{"export", "yarn-reservation", "-d", ds, "--queue", "dedicated", "--reservation-id", "reservation_1462166141572_0001", "--step", "5s", "--period", "1h"}
	flag := mustRun(t, append(base, "--job", "tpch_q12")...)
	arg, stderr, code := wlprof(t, append(base, "tpch_q12")...)
	if code != 0 || arg != flag {
		t.Errorf("job as the argument: exit %d (%s), output differs from --job's: %v", code, stderr, arg != flag)
	}
	if _, stderr, code := wlprof(t, append(base, "tpch_q12", "--job", "other")...); code != 2 || !strings.Contains(stderr, "give the job once") {
		t.Errorf("argument and a different --job: exit %d, %q", code, stderr)
	}
	if _, stderr, code := wlprof(t, "profile", "show", "-d", ds, "nosuchjob"); code != 1 || !strings.Contains(stderr, "nosuchjob") {
		t.Errorf("profile show JOB: exit %d, %q; want the job looked up", code, stderr)
	}
}

// profile run records the task's input size, which wlprof elasticity
// needs to model the runs: from --input PATH (its size; {input} in the
// command is PATH) or from --input-bytes with the size syntax of every
// other size flag ("6M"). Without either, the sweep ends by saying that
// elasticity will need it and how to give it.
func TestProfileRunRecordsInputSize(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.txt")
	if err := os.WriteFile(in, []byte(strings.Repeat("b\na\nc\n", 1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	inputBytes := func(out string) []int64 {
		var doc profiler.Report
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		var got []int64
		for _, r := range doc.Runs {
			got = append(got, r.InputBytes)
		}
		return got
	}
	for _, c := range []struct {
		name string
		args []string
		want int64
	}{
		{"--input and {input}", []string{"--input", in, "--", "sort", "-o", "/dev/null", "{input}"}, 6000},
		{"--input-bytes 6M", []string{"--input-bytes", "6M", "--", "true"}, 6 << 20},
	} {
		ds := filepath.Join(t.TempDir(), "ds")
		out, errs, code := wlprof(t, append([]string{"profile", "run", "-d", ds, "-o", "json", "--job", "j", "--repeat", "2"}, c.args...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, errs)
		}
		if got := inputBytes(out); len(got) != 2 || got[0] != c.want || got[1] != c.want {
			t.Errorf("%s: input_bytes %v, want %d in each run", c.name, got, c.want)
		}
		if strings.Contains(errs, "elasticity") {
			t.Errorf("%s: a note about the input size, which was given: %q", c.name, errs)
		}
	}
	ds := filepath.Join(t.TempDir(), "ds")
	_, errs, code := wlprof(t, "profile", "run", "-d", ds, "--job", "j", "--repeat", "1", "--", "true")
	if code != 0 || !strings.Contains(errs, "wlprof elasticity") || !strings.Contains(errs, "--input-bytes") || !strings.Contains(errs, "--input PATH") {
		t.Errorf("no input size: exit %d, stderr %q; want a note that elasticity needs --input PATH or --input-bytes", code, errs)
	}
	// ... and wlprof elasticity, which cannot model those runs, names the fix.
	out, _, _ := wlprof(t, "elasticity", "-d", ds)
	if !strings.Contains(out, "input_bytes is 0") || !strings.Contains(out, "--input-bytes SIZE") {
		t.Errorf("wlprof elasticity on runs without an input size does not name the fix:\n%s", out)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--input-bytes", "lots", "--", "true"}, 2, `--input-bytes: size "lots"`},
		{[]string{"--input", filepath.Join(dir, "missing"), "--", "true"}, 2, "--input"},
		{[]string{"--input", in, "--input-bytes", "6M", "--", "true"}, 2, "not both"},
		{[]string{"--", "cat", "{input}"}, 1, "no --input"},
	} {
		checkExit(t, append([]string{"profile", "run", "-d", ds, "--job", "j", "--repeat", "1"}, c.args...), c.code, c.want)
	}
}

// A setting with no successful run fails the sweep, as hyperfine does
// without --ignore-failure: exit 1 after the table, which prints "-"
// where there is no median, and the error names the setting.
func TestProfileRunFailsWithoutSuccess(t *testing.T) {
	ds := filepath.Join(t.TempDir(), "ds")
	out, errs, code := wlprof(t, "profile", "run", "-d", ds, "--job", "j", "--repeat", "2", "--input-bytes", "1M", "--", "false")
	if code != 1 || !strings.Contains(errs, "task at no memory setting, 1 slot(s): no successful run of 2 (failed:2)") {
		t.Errorf("every run failed: exit %d, stderr %q; want exit 1 naming the setting", code, errs)
	}
	if !strings.Contains(out, "failed:2") || strings.Contains(out, "0.000") {
		t.Errorf("the table prints a median of runs that failed:\n%s", out)
	}
	m, err := dataset.Open(ds)
	if err != nil || m.Rows("profruns") != 2 {
		t.Errorf("the failed runs are not kept: %v", err)
	}
	_, errs, code = wlprof(t, "profile", "run", "-d", ds, "--job", "ok", "--repeat", "1", "--input-bytes", "1M", "--", "true")
	if code != 0 {
		t.Errorf("a successful sweep: exit %d, %q", code, errs)
	}
}
