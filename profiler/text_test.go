package profiler

import (
	"strings"
	"testing"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/table"
)

// The text names a setting without memory "-" and lists its outcomes by
// name; the task that failed has no profile; the CSV has a row per run.
func TestReportText(t *testing.T) {
	if MemText(0) != "-" || MemText(256<<20) != "256M" {
		t.Errorf("MemText: %q, %q", MemText(0), MemText(256<<20))
	}
	if got := outcomesText(map[string]int{"ok": 2, "failed": 1}); got != "failed:1,ok:2" {
		t.Errorf("outcomes %q", got)
	}
	runs, ss := knownSweep()
	runs = append(runs, dataset.ProfRun{Job: "j", Task: "reduce", Slots: 1, Repetition: 1, RuntimeS: 4, Outcome: "failed", ExitCode: 1, RunID: "red"})
	rep := NewReport("j", runs, ss)
	text, err := table.String(rep.WriteText)
	for _, want := range []string{"job j: 11 run(s) in 4 setting(s);", "\nreduce  -     1      1     0 ", "note: map at 256M, 2 slot(s): 1 of 4 run(s) OOM-killed", "failed:1\n", "\nprofile of map (Polo, PhD thesis, UPC 2014 Table 4.2): fastest at "} {
		if err != nil || !strings.Contains(text, want) {
			t.Errorf("text (%v) lacks %q:\n%s", err, want, text)
		}
	}
	if strings.Contains(text, "profile of reduce") {
		t.Errorf("a profile of the failed task:\n%s", text)
	}
	csv, err := table.String(rep.WriteCSV)
	if rows := strings.Split(strings.TrimSuffix(csv, "\n"), "\n"); err != nil || len(rows) != 1+len(runs) || !strings.HasPrefix(rows[len(rows)-1], "j,reduce,red,0,1,1,4.000,") {
		t.Errorf("csv (%v):\n%s", err, csv)
	}
}
