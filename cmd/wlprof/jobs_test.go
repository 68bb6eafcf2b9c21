package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An unknown --job exits 1 in every command that takes one, and the
// message names the closest jobs of the table the command reads (issue 22).
func TestUnknownJob(t *testing.T) {
	ds := filepath.Join(t.TempDir(), "ds")
	for _, in := range [][]string{
		{"auto", "../../testdata/provenance/world"},
		{"re-native", "../../testdata/resourceestimator/tpch_q12.txt"},
		{"profruns-csv", "../../testdata/elasticity/profruns.csv"},
	} {
		mustRun(t, append(append([]string{"ingest"}, in...), "-d", ds, "-q")...)
	}
	var b strings.Builder
	for _, argv := range [][]string{
		{"slo", "--job", "daily_sales_3 <date>"},
		{"slo", "--job", "daily_sales_01"},
		{"skyline", "--job", "tpch_q1"},
		{"skyline", "--job", "TPCH_Q12"},
		{"plan", "--job", "tpch_q1"},
		{"export", "yarn-reservation", "--queue", "q", "--reservation-id", "reservation_1462166141572_0001", "--job", "tpch-q12"},
		{"elasticity", "--job", "wordcont"},
		{"profile", "show", "--job", "pagernk"},
		{"profile", "show", "--job", "wordcount", "--task", "shuffle"},
		{"profile", "show", "--job", "zzzzzzzzzzzzzzz"},
	} {
		out, errs, code := wlprof(t, append(argv, "-d", ds)...)
		if code != 1 || out != "" {
			t.Errorf("wlprof %s: exit %d, stdout %q; want exit 1 and nothing on stdout", strings.Join(argv, " "), code, out)
		}
		fmt.Fprintf(&b, "$ wlprof %s\n%s", strings.Join(argv, " "), strings.ReplaceAll(errs, ds, "$DS"))
	}
	golden(t, "unknown-job.txt", b.String())
}

// A job name with a bidirectional override is shown escaped in text
// output and in messages, and kept as it is in JSON (issue 22).
func TestInvisibleCharactersEscaped(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile("../../testdata/resourceestimator/tpch_q12.txt")
	if err != nil {
		t.Fatal(err)
	}
	name := "tpch\u202e21q"
	in := filepath.Join(dir, "re.txt")
	os.WriteFile(in, bytes.ReplaceAll(b, []byte("tpch_q12"), []byte(name)), 0o644)
	ds := filepath.Join(dir, "ds")
	mustRun(t, "ingest", "re-native", in, "-d", ds, "-q")
	out, errs, code := wlprof(t, "skyline", "-d", ds)
	if code != 0 || !strings.Contains(out, `tpch\u202e21q`) || strings.ContainsRune(out+errs, '\u202e') {
		t.Errorf("skyline text: exit %d, stdout %q, stderr %q: want the name escaped", code, out, errs)
	}
	out, _, _ = wlprof(t, "skyline", "-d", ds, "-o", "json")
	if !strings.Contains(out, "tpch\u202e21q") {
		t.Errorf("skyline json does not keep the name: %q", out)
	}
	_, errs, code = wlprof(t, "skyline", "-d", ds, "--job", "tpch\u202e2")
	if code != 1 || !strings.Contains(errs, `"tpch\u202e2"`) || !strings.Contains(errs, `closest: "tpch\u202e21q"`) || strings.ContainsRune(errs, '\u202e') {
		t.Errorf("unknown job: exit %d, stderr %q", code, errs)
	}
}

// --job completes from the dataset's jobs of the table the command reads
// (-d or $WLPROF_DATASET), with no file completion (issue 22).
func TestJobCompletion(t *testing.T) {
	ds := filepath.Join(t.TempDir(), "ds")
	for _, in := range [][]string{
		{"re-native", "../../testdata/resourceestimator/tpch_q12.txt"},
		{"profruns-csv", "../../testdata/elasticity/profruns.csv"},
	} {
		mustRun(t, append(append([]string{"ingest"}, in...), "-d", ds, "-q")...)
	}
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"__complete", "skyline", "-d", ds, "--job", "tp"}, "tpch_q12\n:4\n"},
		{[]string{"__complete", "plan", "-d", ds, "--job", ""}, "tpch_q12\n:4\n"},
		{[]string{"__complete", "elasticity", "-d", ds, "--job", "word"}, "wordcount\n:4\n"},
		{[]string{"__complete", "profile", "show", "-d", ds, "--job", "pager"}, "pagerank\n:4\n"},
		{[]string{"__complete", "skyline", "-d", ds, "--job", "zz"}, ":4\n"},
		{[]string{"__complete", "skyline", "-d", filepath.Join(ds, "nope"), "--job", ""}, ":4\n"},
	} {
		out, _, code := wlprof(t, c.argv...)
		if code != 0 || out != c.want {
			t.Errorf("wlprof %s: exit %d, %q; want %q", strings.Join(c.argv, " "), code, out, c.want)
		}
	}
	t.Setenv("WLPROF_DATASET", ds)
	if out, _, _ := wlprof(t, "__complete", "export", "yarn-reservation", "--job", "t"); out != "tpch_q12\n:4\n" {
		t.Errorf("with WLPROF_DATASET: %q", out)
	}
}
