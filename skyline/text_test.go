package skyline

import (
	"strings"
	"testing"

	"github.com/wlprof/wlprof/internal/table"
)

// A job's α trade-off and warnings follow the table, the skipped jobs
// close the text; the CSV is the skyline in long form.
func TestDocumentText(t *testing.T) {
	f := &Fit{Job: "q", Runs: 3, StepS: 5, Containers: []float64{1.5, 2}, Reservation: []int64{2, 2}, Objective: 0.25,
		AlphaSweep: []SweepPoint{{Alpha: 0.5, PeakReservation: 2}}, Warnings: []string{"short runs"}}
	d := (&Result{Jobs: []*Fit{f}, Skipped: []Skipped{{Job: "r", Runs: 1, Reason: "1 run"}}}).Document()
	got, err := table.String(d.WriteText)
	for _, want := range []string{"job  runs  steps  step_s  peak  objective", "\n    q     3      2       5     2       0.25 ",
		"\nq: alpha trade-off (over- against under-allocation, container·steps)\n", "warning: q: short runs\nskipped: r: 1 run\n"} {
		if err != nil || !strings.Contains(got, want) {
			t.Errorf("text (%v) lacks %q:\n%s", err, want, got)
		}
	}
	want := "job,step,offset_s,containers,reservation\nq,0,0,1.5,2\nq,1,5,2,2\n"
	if got, err := table.String(d.WriteCSV); err != nil || got != want {
		t.Errorf("csv %q (%v), want %q", got, err, want)
	}
}
