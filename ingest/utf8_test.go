package ingest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/duckdbtest"
)

// TestNonUTF8NamesAreRejects (issue 22 #1): a record whose tenant,
// server, job, run or user is not UTF-8 is a reject that says so, with
// the raw bytes escaped; the valid records around it are ingested; and
// DuckDB, which refuses a Parquet file with one invalid string ("Invalid
// string encoding found in Parquet file"), reads every table.
func TestNonUTF8NamesAreRejects(t *testing.T) {
	dir := t.TempDir()
	// damage copies fixture with old replaced by new, once; the copy's
	// name starts with n.
	n := 0
	damage := func(fixture, old, new string) string {
		b, err := os.ReadFile(fixture)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte(old)) {
			t.Fatalf("%s: no %q", fixture, old)
		}
		n++
		path := filepath.Join(dir, fmt.Sprint(n, "-", filepath.Base(fixture)))
		d := bytes.Replace(b, []byte(old), []byte(new), 1)
		if bytes.Count(bytes.TrimSpace(b), []byte("\n")) == 0 {
			d = append(append(d, '\n'), b...) // a one-line fixture: the damaged line, then the good one
		}
		if err := os.WriteFile(path, d, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// A usage CSV over parallelMinBytes goes through the parallel,
	// columnar path; a bad tenant sits in the middle of it.
	var big bytes.Buffer
	big.WriteString("tenant,server,timestamp,cpu\n")
	for i := 0; big.Len() <= parallelMinBytes+1<<20; i++ {
		tenant := fmt.Sprintf("tenant-%03d", i%300)
		if i == 150_000 {
			tenant = "tenant-\xc3\x28" // an invalid two-byte sequence
		}
		fmt.Fprintf(&big, "%s,server-%d,%d,0.5\n", tenant, i%7, 1_700_000_000+60*(i/300))
	}
	bigPath := filepath.Join(dir, "big.csv")
	if err := os.WriteFile(bigPath, big.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		format, path, want string
	}{
		{"csv", damage("../testdata/usage_with_rejects.csv", "web,web-01", "we\xffb,web-01"), "tenant is not valid UTF-8"},
		{"csv", damage("../testdata/usage_with_rejects.csv", "web,web-02", "web,web-\xfe02"), "server is not valid UTF-8"},
		{"csv", bigPath, "tenant is not valid UTF-8"},
		{"skyline-csv", damage("../testdata/jobs/skyline/offsets.csv", "etl_daily,2024-03-01,0,", "etl\xff_daily,2024-03-01,0,"), "job is not valid UTF-8"},
		{"hdfs-audit", damage("../testdata/provenance/hadoop_dynamometer_audit_trace_direct_audit0.log", "ugi=hdfs\t", "ugi=hd\x80fs\t"), "user is not valid UTF-8"},
		{"re-native", damage("../testdata/resourceestimator/nativeLog.txt", "tpch_q12 50", "tpch_q\xff12 50"), "job and run ids must be UTF-8"},
		{"profruns-csv", damage("../testdata/elasticity/profruns.csv", "\nwordcount,reduce,", "\nword\xffcount,reduce,"), "job is not valid UTF-8"},
	}
	for i, c := range cases {
		ds := filepath.Join(dir, fmt.Sprintf("ds%d", i))
		res, err := ingest(t, context.Background(), ds, c.format, []string{c.path}, Options{MaxRejects: -1})
		if err != nil {
			t.Fatalf("%s %s: %v", c.format, c.path, err)
		}
		rejects, err := dataset.ReadAll(context.Background(), openDataset(t, ds), dataset.RejectsTable)
		if err != nil {
			t.Fatal(err)
		}
		found := 0
		for _, r := range rejects {
			if strings.Contains(r.Reason, c.want) {
				found++
				if !strings.Contains(r.Record+r.Reason, `\x`) || r.Line <= 0 {
					t.Errorf("%s: reject %+v: want the bad bytes escaped and a line", c.format, r)
				}
			}
		}
		if found != 1 || res.Accepted == 0 {
			t.Errorf("%s %s: %d rejects saying %q (want 1), %d accepted; rejects %+v", c.format, filepath.Base(c.path), found, c.want, res.Accepted, rejects)
		}
		// Every table of the dataset, read by DuckDB.
		tables, _ := filepath.Glob(filepath.Join(ds, "*", "*.parquet"))
		var qs []string
		for _, f := range tables {
			qs = append(qs, fmt.Sprintf(`SELECT count(*) AS n FROM read_parquet('%s')`, f))
		}
		if len(qs) < 2 {
			t.Fatalf("%s: tables %v", c.format, tables)
		}
		duckdbtest.Query(t, qs...)
	}
}

func TestEscapeInvalidUTF8(t *testing.T) {
	for in, want := range map[string]string{"abc": "abc", "a\xffb": `a\xffb`, "é\xc3(": `é\xc3(`, `C:\x`: `C:\x`, "\x80\x80": `\x80\x80`} {
		got := dataset.EscapeInvalidUTF8(in)
		if got != want || !utf8.ValidString(got) {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}
