package skyline

import (
	"strings"
	"testing"
)

// A job's α trade-off and warnings follow the table, the skipped jobs
// close the text; the CSV is the skyline in long form.
func TestDocumentText(t *testing.T) {
	f := &Fit{Job: "q", Runs: 3, StepS: 5, Containers: []float64{1.5, 2}, Reservation: []int64{2, 2}, Objective: 0.25,
		AlphaSweep: []SweepPoint{{Alpha: 0.5, PeakReservation: 2}}, Warnings: []string{"short runs"}}
	d := (&Result{Jobs: []*Fit{f}, Skipped: []Skipped{{Job: "r", Runs: 1, Reason: "1 run"}}}).Document()
	var b strings.Builder
	if err := d.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"job  runs  steps  step_s  peak  objective", "\n    q     3      2       5     2       0.25 ",
		"\nq: alpha trade-off (over- against under-allocation, container·steps)\n", "warning: q: short runs\nskipped: r: 1 run\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := d.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	if want := "job,step,offset_s,containers,reservation\nq,0,0,1.5,2\nq,1,5,2,2\n"; b.String() != want {
		t.Errorf("csv %q, want %q", b.String(), want)
	}
}
