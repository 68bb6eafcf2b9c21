package reports

import (
	"fmt"
	"io"
)

// maxRiskText is how many at-risk jobs the text summary lists.
const maxRiskText = 10

// WriteText writes the four answers as wlprof report and wlprof run end
// their summary: one paragraph each, the at-risk jobs and the ranked
// actions with the command that reproduces each.
func (d *Decisions) WriteText(w io.Writer) {
	if d.Warning != "" {
		fmt.Fprintf(w, "warning: %s\n", d.Warning)
	}
	fmt.Fprintln(w, "answers:")
	fmt.Fprintf(w, "  how big:     %s\n", d.Cluster.Answer)
	if len(d.Cluster.Missing) > 0 && d.Cluster.FootprintContainers != nil || len(d.Cluster.Missing) > 0 && len(d.Cluster.Sizes) > 0 {
		for _, m := range d.Cluster.Missing {
			fmt.Fprintf(w, "               to answer fully, pass %s\n", m)
		}
	}
	fmt.Fprintf(w, "  harvest:     %s\n", d.Harvest.Answer)
	fmt.Fprintf(w, "  at risk:     %s\n", d.AtRisk.Answer)
	for i, j := range d.AtRisk.Jobs {
		if i == maxRiskText {
			fmt.Fprintf(w, "               … %d more in index.json (summary.decisions.at_risk)\n", len(d.AtRisk.Jobs)-maxRiskText)
			break
		}
		fmt.Fprintf(w, "               %s:", j.Job)
		for k, e := range j.Evidence {
			sep := " "
			if k > 0 {
				sep = "; "
			}
			fmt.Fprintf(w, "%s%s (%s)", sep, e.Text, e.Section)
		}
		fmt.Fprintln(w)
	}
	if len(d.Actions) == 0 {
		fmt.Fprintln(w, "  what to do:  nothing the data supports yet")
		return
	}
	fmt.Fprintln(w, "  what to do:")
	for _, a := range d.Actions {
		fmt.Fprintf(w, "    %d. %s: %s\n", a.Rank, a.Text, a.Gain)
		if a.Command != "" {
			fmt.Fprintf(w, "       $ %s\n", a.Command)
		}
	}
}
