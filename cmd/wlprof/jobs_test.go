package main

import (
	"fmt"
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
		if _, errs, code := wlprof(t, append(append([]string{"ingest"}, in...), "-d", ds, "-q")...); code != 0 {
			t.Fatalf("ingest %v: exit %d: %s", in, code, errs)
		}
	}
	var b strings.Builder
	for _, argv := range [][]string{
		{"slo", "--job", "daily_sales_3 <date>"},
		{"slo", "--job", "daily_sales_01"},
		{"skyline", "--job", "tpch_q1"},
		{"skyline", "--job", "TPCH_Q12"},
		{"plan", "--job", "tpch_q1"},
		{"export", "yarn-reservation", "--queue", "q", "--job", "tpch-q12"},
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
