package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/dataset"
)

// wlprof rejects lists what ingest rejected: counts per file and reason,
// then each record with file, line, column and reason (golden), the whole
// list in -o json; --file filters, --limit bounds the list.
func TestRejects(t *testing.T) {
	ds := filepath.Join(t.TempDir(), "ds")
	if _, errs, code := wlprof(t, "ingest", "csv", "../../testdata/usage_with_rejects.csv", "-d", ds); code != 3 || !strings.Contains(errs, "wlprof rejects lists them") {
		t.Fatalf("ingest: exit %d: %s", code, errs)
	}
	out := mustRun(t, "rejects", "-d", ds)
	golden(t, "rejects.txt", out)
	out, _, _ = wlprof(t, "rejects", "-d", ds, "-o", "json")
	var rep dataset.RejectList
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Total != 5 || len(rep.Rejects) != 5 || len(rep.Groups) != 5 || rep.Rejects[0].Line != 5 {
		t.Errorf("json %+v", rep)
	}
	out, _, _ = wlprof(t, "rejects", "-d", ds, "--limit", "2")
	if !strings.Contains(out, "... and 3 more") {
		t.Errorf("--limit 2: %s", out)
	}
	out, _, _ = wlprof(t, "rejects", "-d", ds, "--file", "other.csv")
	if out != "0 rejected record(s) in 0 file(s)\n" {
		t.Errorf("--file other.csv: %q", out)
	}
	if _, _, code := wlprof(t, "rejects", "-d", ds, "--limit", "-2"); code != 2 {
		t.Errorf("--limit -2: exit %d", code)
	}
}
