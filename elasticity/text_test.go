package elasticity

import (
	"strings"
	"testing"

	"github.com/wlprof/wlprof/internal/table"
)

// A long curve is thinned in the text to one point in step, its last
// point always shown and the thinning said; validations read as a median
// error over runs, "-" without any; groups not modelled close the text.
func TestDocumentText(t *testing.T) {
	m := &Model{Job: "j", Task: "reduce", Framework: "hadoop", Slots: 1, Kind: "spill-rate", Runs: 4, Simulator: "hadoop",
		IdealMemoryBytes: 45 << 20, IdealRuntimeS: 10, Validation: Validation{Runs: 2, MedianAbsError: 0.0525}}
	for i := 1; i <= 45; i++ {
		m.Curve = append(m.Curve, Point{MemoryBytes: int64(i) << 20, RuntimeS: 10 + float64(45-i), Slowdown: 1 + float64(45-i)/10})
	}
	d := (&Result{Models: []*Model{m}, Skipped: []Skipped{{Job: "k", Task: "map", Framework: "spark", Slots: 2, Runs: 1, Reason: "one run"}}}).Document()
	text, err := table.String(d.WriteText)
	for _, want := range []string{"  5.40x         5.2% median of 2  -  ", "\n  1  ", "\n  4  ", "\n  45 ", "(one point in 3 of 45 shown; -o json or -o csv for all)",
		"\nnot modelled:\n  k / map (spark, 2 slots, 1 runs): one run\n"} {
		if err != nil || !strings.Contains(text, want) {
			t.Errorf("text (%v) lacks %q:\n%s", err, want, text)
		}
	}
	if strings.Contains(text, "\n  2  ") || strings.Contains(text, "\n  44 ") {
		t.Errorf("the curve is not thinned:\n%s", text)
	}
	csv, err := table.String(d.WriteCSV)
	if rows := strings.Split(strings.TrimSuffix(csv, "\n"), "\n"); err != nil || len(rows) != 46 || rows[45] != "j,reduce,hadoop,1,spill-rate,47185920,10,47185920,10,0,0,0,1" {
		t.Errorf("csv: %d rows, last %q", len(rows), rows[len(rows)-1])
	}
}
