package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

var update = flag.Bool("update", false, "rewrite golden files")

// wlprof runs the CLI in-process and returns stdout, stderr and exit code.
func wlprof(t *testing.T, argv ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), argv, &streams{In: strings.NewReader(""), Out: &out, Err: &errb})
	return out.String(), errb.String(), code
}

// checkExit runs wlprof with argv and reports an exit code other than
// code, or a stderr that does not say each of want; it returns stdout and
// stderr.
func checkExit(t *testing.T, argv []string, code int, want ...string) (string, string) {
	t.Helper()
	out, stderr, got := wlprof(t, argv...)
	if got != code {
		t.Errorf("%v: exit %d, want %d: %s", argv, got, code, stderr)
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Errorf("%v: stderr %q lacks %q", argv, stderr, w)
		}
	}
	return out, stderr
}

// golden compares got with testdata/golden/NAME, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/wlprof -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from golden (go test ./cmd/wlprof -update rewrites it):\n%s", name, diff(string(want), got))
	}
}

// diff is a small line diff: enough to see what changed.
func diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			b.WriteString("- " + wl + "\n+ " + gl + "\n")
		}
	}
	return b.String()
}

// commands lists every command of the tree, depth first.
func commands(c *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{c}
	for _, s := range c.Commands() {
		if s.Name() == "help" {
			continue
		}
		out = append(out, commands(s)...)
	}
	return out
}

func TestHelpGolden(t *testing.T) {
	root := newRootCmd(&streams{})
	for _, c := range commands(root) {
		path := strings.Fields(c.CommandPath())[1:]
		out, errs, code := wlprof(t, append(path, "--help")...)
		if code != 0 || errs != "" {
			t.Fatalf("%s --help: exit %d, stderr %q", c.CommandPath(), code, errs)
		}
		golden(t, "help-"+strings.Join(append([]string{"wlprof"}, path...), "-")+".txt", out)
	}
}

func TestEveryCommandHasExamplesAndExitStatus(t *testing.T) {
	for _, c := range commands(newRootCmd(&streams{})) {
		if !c.IsAvailableCommand() && !c.HasSubCommands() && c != c.Root() {
			continue // a help topic
		}
		if strings.TrimSpace(c.Example) == "" {
			t.Errorf("%s: no examples in its help", c.CommandPath())
		}
		if !strings.Contains(c.Long, "\nExit status: ") || !strings.Contains(c.Long, "'wlprof help exit-status'") {
			t.Errorf("%s: no exit status line in its help", c.CommandPath())
		}
		// Exit 3 is for commands that read raw input records.
		if can := c.CommandPath() == "wlprof ingest" || c.CommandPath() == "wlprof run"; strings.Contains(c.Long, " 3 done") != can {
			t.Errorf("%s: exit status 3 in its help: %v, want %v", c.CommandPath(), !can, can)
		}
	}
}

// The blocks every command's help used to repeat are help topics.
func TestHelpTopics(t *testing.T) {
	for topic, want := range map[string]string{"exit-status": "130  interrupted", "times": "RFC 3339"} {
		out, errs, code := wlprof(t, "help", topic)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("wlprof help %s: exit %d, %q %q", topic, code, out, errs)
		}
	}
	if out, _, _ := wlprof(t, "--help"); !strings.Contains(out, "Additional help topics") || !strings.Contains(out, "exit-status") {
		t.Errorf("wlprof --help lists no help topics:\n%s", out)
	}
}

func TestRootListsEveryStage(t *testing.T) {
	out, _, _ := wlprof(t, "--help")
	for _, stage := range []string{"ingest", "classify", "slo", "skyline", "elasticity", "profile", "report", "export", "run", "version", "completion"} {
		if !strings.Contains(out, "\n  "+stage+" ") {
			t.Errorf("wlprof --help does not list %q", stage)
		}
	}
}

// WLPROF_DATASET sets the default -d; -d wins (issue 22).
func TestDatasetFromEnvironment(t *testing.T) {
	dir := t.TempDir()
	env, flag := filepath.Join(dir, "env"), filepath.Join(dir, "flag")
	t.Setenv("WLPROF_DATASET", env)
	if _, errs, code := wlprof(t, "ingest", "csv", "../../testdata/usage_with_rejects.csv"); code != 3 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(env, "manifest.json")); err != nil {
		t.Errorf("no dataset at $WLPROF_DATASET: %v", err)
	}
	if _, errs, code := wlprof(t, "ingest", "csv", "../../testdata/usage_with_rejects.csv", "-d", flag); code != 3 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(flag, "manifest.json")); err != nil {
		t.Errorf("-d did not win over $WLPROF_DATASET: %v", err)
	}
}

// Messages speak the user's words (issue 22 item 10): Ctrl-C is
// "interrupted", not "context canceled"; a dataset without utilisation
// data says what to ingest, not "classify: no utilisation series".
func TestMessagesInUsersWords(t *testing.T) {
	dir := t.TempDir()
	ds := filepath.Join(dir, "ds")
	mustRun(t, "ingest", "re-native", "../../testdata/resourceestimator/tpch_q12.txt", "-d", ds)
	_, errs, code := wlprof(t, "classify", "-d", ds)
	if code != 1 || !strings.Contains(errs, ds+": classify: no utilisation data to classify: ingest a trace first") || strings.Contains(errs, "classify: no utilisation series") {
		t.Errorf("classify without usage: exit %d, %q", code, errs)
	}
	// Every stage says so, the skyline stage included (it printed an
	// empty table).
	usage := filepath.Join(dir, "usage")
	mustRun(t, "ingest", "series-csv", "--tenant", "t", "../../testdata/traces/timeseries/nab_ec2_cpu_utilization_53ea38.csv", "-d", usage)
	checkExit(t, []string{"skyline", "-d", usage}, 1, usage+": skyline: no skylines (ingest re-native, yarn-rm, spark-eventlog or skyline-csv inputs first)")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	code = run(ctx, []string{"skyline", "-d", ds}, &streams{In: strings.NewReader(""), Out: &out, Err: &errb})
	if code != 130 || errb.String() != "wlprof: interrupted; what was under way is not written, what finished before is kept\n" {
		t.Errorf("interrupted: exit %d, %q", code, errb.String())
	}
}

// wlprof --version prints the version, as wlprof version does.
func TestVersionFlag(t *testing.T) {
	out, _, code := wlprof(t, "--version")
	if code != 0 || out != "wlprof "+version+"\n" {
		t.Errorf("--version: exit %d, %q", code, out)
	}
}

func TestExitCodes(t *testing.T) {
	ds := filepath.Join(t.TempDir(), "ds")
	cases := []struct {
		argv []string
		code int
		err  string
	}{
		{[]string{"version"}, 0, ""},
		{[]string{"frobnicate"}, 2, "unknown command"},
		{[]string{"version", "--nope"}, 2, "unknown flag"},
		{[]string{"version", "-o", "yaml"}, 2, "--output"},
		{[]string{"ingest", "csv"}, 2, "missing PATH after csv"},
		{[]string{"ingest", "nosuchformat", "x.csv", "-d", ds}, 2, "unknown format"},
		{[]string{"ingest", "csv", "--cpu-unit", "furlongs", "x.csv", "-d", ds}, 2, "cpu unit"},
		{[]string{"ingest", "csv", "does-not-exist.csv", "-d", ds}, 1, "no such file"},
		{[]string{"classify", "-d", ds}, 1, "no wlprof dataset here"},
		{[]string{"classify", "--step", "10ms", "-d", ds}, 2, "step 10ms: want at least 1s"},
		{[]string{"classify", "--at", "yesterday", "-d", ds}, 2, "--at"},
		{[]string{"ingest", "csv", "../../testdata/usage_with_rejects.csv", "-d", ds}, 3, "5 input record(s) rejected"},
		{[]string{"ingest", "csv", "--max-rejects", "2", "--allow-duplicate", "../../testdata/usage_with_rejects.csv", "-d", ds}, 1, "too many rejected records"},
		{[]string{"completion", "bash"}, 0, ""},
		{[]string{"completion", "tcsh"}, 2, "invalid argument"},
		// Unknown subcommands of a group are usage errors naming the
		// closest one, even with the misspelt subcommand's flags.
		{[]string{"export", "bogus"}, 2, `unknown command "bogus" for "wlprof export"`},
		{[]string{"profile", "bogus"}, 2, `unknown command "bogus" for "wlprof profile"`},
		{[]string{"export", "yarn-reservaton", "--job", "x"}, 2, "Did you mean this?\n\tyarn-reservation"},
		{[]string{"-d", ds, "profile", "-o", "json", "shw"}, 2, "Did you mean this?\n\tshow"},
		{[]string{"export"}, 0, ""},
		{[]string{"profile", "--help"}, 0, ""},
		{[]string{"--version"}, 0, ""},
	}
	for _, c := range cases {
		checkExit(t, c.argv, c.code, c.err)
	}
}

// The -o json document of ingest is a contract: its golden file pins it.
func TestIngestJSONGolden(t *testing.T) {
	dir := t.TempDir()
	ds := filepath.Join(dir, "ds")
	out, _, code := wlprof(t, "ingest", "csv", "../../testdata/usage_with_rejects.csv", "-d", ds, "-o", "json", "-q")
	if code != 3 {
		t.Fatalf("exit %d, want 3 (rows rejected)", code)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if doc["version"] != float64(1) {
		t.Fatalf("version = %v", doc["version"])
	}
	golden(t, "ingest-usage_with_rejects.json", strings.ReplaceAll(out, dir, "$TMP"))
}

// A failed ingest (too many rejects) leaves the previous dataset byte for byte.
func TestFailedIngestLeavesDatasetUnchanged(t *testing.T) {
	dir := t.TempDir()
	ds := filepath.Join(dir, "ds")
	mustRun(t, "synth", "--out", filepath.Join(dir, "w"), "--tenants", "3", "--days", "1")
	mustRun(t, "ingest", "csv", filepath.Join(dir, "w", "usage.csv"), "-d", ds)
	before := tree(t, ds)
	_, errs, code := wlprof(t, "ingest", "csv", "--max-rejects", "0", "../../testdata/usage_with_rejects.csv", "-d", ds)
	if code != 1 || !strings.Contains(errs, "dataset is unchanged") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	after := tree(t, ds)
	if len(before) != len(after) {
		t.Fatalf("files before %d, after %d", len(before), len(after))
	}
	for p, b := range before {
		if after[p] != b {
			t.Errorf("%s changed", p)
		}
	}
}

// A second ingest of the same content is skipped with a note, leaving the
// dataset's rows as they were; --allow-duplicate ingests it again (issue
// 22 item 11).
func TestIngestSkipsDuplicateContent(t *testing.T) {
	dir := t.TempDir()
	ds := filepath.Join(dir, "ds")
	copyOf := filepath.Join(dir, "renamed.csv")
	b, err := os.ReadFile("../../testdata/usage_with_rejects.csv")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(copyOf, b, 0o644)
	rows := func() float64 {
		m, err := os.ReadFile(filepath.Join(ds, "manifest.json"))
		if err != nil {
			t.Fatal(err)
		}
		var man struct {
			Tables map[string]struct{ Rows float64 }
		}
		json.Unmarshal(m, &man)
		return man.Tables["usage"].Rows
	}
	if _, errs, code := wlprof(t, "ingest", "csv", "../../testdata/usage_with_rejects.csv", "-d", ds); code != 3 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	before := rows()
	out, errs, code := wlprof(t, "ingest", "csv", copyOf, "-d", ds)
	if code != 0 || !strings.Contains(out, "skipped: the same content") || !strings.Contains(out, "--allow-duplicate") {
		t.Fatalf("second ingest: exit %d, %q %q", code, out, errs)
	}
	if after := rows(); after != before || before == 0 {
		t.Errorf("usage rows %v → %v", before, after)
	}
	if _, _, code := wlprof(t, "ingest", "csv", "--allow-duplicate", copyOf, "-d", ds); code != 3 {
		t.Fatalf("--allow-duplicate: exit %d", code)
	}
	if after := rows(); after != 2*before {
		t.Errorf("--allow-duplicate: usage rows %v, want %v", after, 2*before)
	}
}

// A failed first ingest into a new directory leaves no directory behind
// (no .lock, no staging): exit 1 means nothing was changed (issue 22
// item 9). A directory the user made stays, empty.
func TestFailedFirstIngestLeavesNoDirectory(t *testing.T) {
	dir := t.TempDir()
	ds := filepath.Join(dir, "new", "ds")
	_, errs, code := wlprof(t, "ingest", "csv", "--max-rejects", "0", "../../testdata/usage_with_rejects.csv", "-d", ds)
	if code != 1 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if _, err := os.Stat(ds); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the failed ingest left %s behind: %v", ds, tree(t, ds))
	}
	mine := filepath.Join(dir, "mine")
	os.Mkdir(mine, 0o755)
	if _, _, code := wlprof(t, "ingest", "csv", "--max-rejects", "0", "../../testdata/usage_with_rejects.csv", "-d", mine); code != 1 {
		t.Fatalf("exit %d", code)
	}
	if entries, err := os.ReadDir(mine); err != nil || len(entries) > 1 {
		t.Errorf("the user's directory holds %v after a failed ingest, %v", entries, err)
	}
}

func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		m[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// synth is deterministic: same options, same bytes; and its ground truth
// covers every pattern.
func TestSynthDeterministic(t *testing.T) {
	dir := t.TempDir()
	var files [2]string
	for i := range files {
		out := filepath.Join(dir, string(rune('a'+i)))
		mustRun(t, "synth", "--out", out, "--tenants", "10", "--days", "2", "--seed", "5")
		b, err := os.ReadFile(filepath.Join(out, "usage.csv"))
		if err != nil {
			t.Fatal(err)
		}
		files[i] = string(b)
	}
	if files[0] != files[1] {
		t.Fatal("two synth runs with the same seed differ")
	}
	b, _ := os.ReadFile(filepath.Join(dir, "a", "truth.json"))
	for _, p := range []string{`"periodic"`, `"constant"`, `"unpredictable"`, `"weekly+daily"`, `"spikes"`} {
		if !strings.Contains(string(b), p) {
			t.Errorf("truth.json lacks %s", p)
		}
	}
}

// --shifts reaches the generator: a world where every periodic or random
// tenant's level jumps differs from the same world without jumps, and a
// probability outside [0,1] is a usage error.
func TestSynthShifts(t *testing.T) {
	dir := t.TempDir()
	read := func(name string, extra ...string) string {
		out := filepath.Join(dir, name)
		args := append([]string{"synth", "--out", out, "--tenants", "6", "--days", "2", "--seed", "5"}, extra...)
		mustRun(t, args...)
		b, err := os.ReadFile(filepath.Join(out, "usage.csv"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if read("plain") == read("shifted", "--shifts", "1") {
		t.Fatal("--shifts 1 left every series unchanged")
	}
	if read("zero", "--shifts", "0") != read("plain2") {
		t.Fatal("--shifts 0 changed the world")
	}
	if _, _, code := wlprof(t, "synth", "--out", filepath.Join(dir, "bad"), "--shifts", "1.5"); code != 2 {
		t.Fatalf("--shifts 1.5: exit %d, want 2", code)
	}
}

// TestCLIManners: each mistake a new user makes gets a message in the
// command's words, the subcommand's help to run, and the right status.
func TestCLIManners(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "x.csv")
	if err := os.WriteFile(file, []byte("tenant,server,timestamp,cpu\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		argv []string
		code int
		want []string // substrings of stderr
		not  []string
	}{
		{[]string{"ingest", "csv"}, 2, []string{"missing PATH after csv", "Run 'wlprof ingest --help' for usage."}, []string{"arg(s)"}},
		{[]string{"ingest"}, 2, []string{"missing FORMAT and PATH"}, []string{"arg(s)"}},
		{[]string{"run"}, 2, []string{"missing PATH", "Run 'wlprof run --help'"}, []string{"arg(s)"}},
		{[]string{"profile", "run", "--job", "s", "sort", "-S", "1M"}, 2, []string{"Put -- before it", "Run 'wlprof profile run --help'"}, nil},
		{[]string{"run", "--output", filepath.Join(dir, "out"), empty}, 2, []string{"the output directory is --out DIR"}, nil},
		{[]string{"export", "yarn-reservation", "-o", "csv", "--job", "j", "--queue", "q"}, 2, []string{"writes json only"}, nil},
		{[]string{"classify", "-d", file}, 1, []string{"is a file, not a dataset directory"}, []string{"not a directory"}},
		{[]string{"ingest", "csv", empty, "-d", filepath.Join(dir, "ds")}, 1, []string{"no input files in"}, nil},
		{[]string{"synth", "--out", filepath.Join(dir, "w"), "--tenants", "100000000000"}, 2, []string{"rows", "the most wlprof synth writes"}, nil},
	} {
		_, errs := checkExit(t, c.argv, c.code, c.want...)
		for _, n := range c.not {
			if strings.Contains(errs, n) {
				t.Errorf("%v: stderr %q has %q", c.argv, errs, n)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "ds")); !os.IsNotExist(err) {
		t.Errorf("an ingest of no files made a dataset: %v", err)
	}
}
