package slo

import (
	"testing"

	"github.com/wlprof/wlprof/internal/table/tabletest"
)

// Offsets are signed and periods durations in the text, "-" where a job
// has none, and an override is marked; the CSV leaves missing numbers
// empty.
func TestDocumentText(t *testing.T) {
	day, arr, dl, slack := 86400.0, 3600.0, -1800.0, 1.5
	d := Document{Version: 1, Result: Result{Jobs: []Job{
		{Job: "etl", PeriodS: &day, Runs: 30, Actionable: true, ArrivalS: &arr, DeadlineS: &dl, SlackRatio: &slack, Override: &Override{}},
		{Job: "adhoc", Runs: 2, Reason: "irregular"},
	}, Graph: Graph{Runs: 32, Files: 5, IngressFiles: 1, EgressFiles: 2, JobEdges: 3, Events: 99}}}
	text := "JOB    PERIOD  RUNS  ACTIONABLE  ARRIVAL  DEADLINE  SLACK  REASON\n" +
		"etl    1d      30    yes         +1h      -30m      1.50   [override]\n" +
		"adhoc  -       2     no          -        -         -      irregular\n" +
		"2 jobs, 1 actionable; graph: 32 runs, 5 files (1 ingress, 2 egress), 3 job edges, 99 events\n"
	csv := "job,period_s,runs,actionable,arrival_s,deadline_s,slack_ratio,reason\netl,86400,30,true,3600,-1800,1.5,\nadhoc,,2,false,,,,irregular\n"
	tabletest.Equal(t, d.WriteText, d.WriteCSV, text, csv)
}
