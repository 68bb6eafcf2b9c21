package slo

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/wlprof/wlprof/internal/table"
	"github.com/wlprof/wlprof/internal/timeflag"
)

// WriteText writes a row per job (offsets signed, periods as durations, a
// job an override touched marked so) and a line about the provenance
// graph, as wlprof slo prints them.
func (d Document) WriteText(out io.Writer) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "JOB\tPERIOD\tRUNS\tACTIONABLE\tARRIVAL\tDEADLINE\tSLACK\tREASON")
	var act int
	for _, j := range d.Jobs {
		yes := "no"
		if j.Actionable {
			yes, act = "yes", act+1
		}
		reason := j.Reason
		if j.Override != nil {
			reason = strings.TrimSpace(reason + " [override]")
		}
		// Offsets are signed (+2h5m42s), periods written as durations (1d).
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", j.Job, table.OrDash(j.PeriodS, "-", timeflag.FormatSeconds), j.Runs, yes,
			table.OrDash(j.ArrivalS, "-", timeflag.FormatOffset), table.OrDash(j.DeadlineS, "-", timeflag.FormatOffset),
			table.OrDash(j.SlackRatio, "-", func(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }), table.Dash(reason))
	}
	tw.Flush()
	gr := d.Graph
	_, err := fmt.Fprintf(out, "%d jobs, %d actionable; graph: %d runs, %d files (%d ingress, %d egress), %d job edges, %d events\n",
		len(d.Jobs), act, gr.Runs, gr.Files, gr.IngressFiles, gr.EgressFiles, gr.JobEdges, gr.Events)
	return err
}

// WriteCSV writes one row per job; a number the job lacks is empty.
func (d Document) WriteCSV(w io.Writer) error {
	num := func(v *float64) string {
		return table.OrDash(v, "", func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) })
	}
	return table.CSV(w, []string{"job", "period_s", "runs", "actionable", "arrival_s", "deadline_s", "slack_ratio", "reason"}, func(row func(...string)) {
		for _, j := range d.Jobs {
			row(j.Job, num(j.PeriodS), strconv.Itoa(j.Runs), strconv.FormatBool(j.Actionable),
				num(j.ArrivalS), num(j.DeadlineS), num(j.SlackRatio), j.Reason)
		}
	})
}
