package constraints

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/wlprof/wlprof/internal/table"
)

func num(v *float64) string {
	return table.OrDash(v, "-", func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) })
}

// short abbreviates obfuscated names for the text table (JSON and CSV keep
// them whole).
func short(s string) string {
	if len(s) > 14 {
		return s[:12] + "…"
	}
	return table.Dash(s)
}

// WriteText writes the profile, the CRV summary and the queue table.
func (r *Result) WriteText(out io.Writer) error {
	fmt.Fprintf(out, "constraints: %d tasks (%d constrained), %d machines with attributes, %d windows of %gs from %s\n",
		r.Tasks, r.ConstrainedTasks, r.Machines, r.Windows, r.WindowS, r.Start)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(out, "\nprofile (Phoenix Table II on obfuscated attributes):")
	fmt.Fprintln(tw, "  ATTRIBUTE\tRELATION\tVALUES\tTASKS\tSHARE")
	for _, p := range r.Profile {
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%.3f\n", short(p.Attribute), p.Relation, p.Constraints, p.Tasks, p.TaskShare)
	}
	tw.Flush()
	fmt.Fprintln(out, "\nCRV: demand/supply per attribute (peak window, mean over windows with supply):")
	fmt.Fprintln(tw, "  ATTRIBUTE\tCONSTRAINTS\tMACHINES\tPEAK\tMEAN")
	for _, a := range r.Attributes {
		peak, mean := ratios(a.DemandSupply)
		fmt.Fprintf(tw, "  %s\t%d\t%d\t%s\t%s\n", short(a.Attribute), a.Constraints, a.MachinesWith, num(peak), num(mean))
	}
	tw.Flush()
	fmt.Fprintln(out, "\nconstraints (M/G/1 per constraint; waits in seconds):")
	fmt.Fprintln(tw, "  ATTRIBUTE\tREL\tVALUE\tTASKS\tHARD\tMACHINES\tRHO\tPREDICTED\tOBSERVED\tFIT")
	for _, c := range r.Constraints {
		hard := "hard"
		if !c.Hard {
			hard = "soft"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%s\t%d\t%s\t%s\t%s\t%s\n", short(c.Attribute), relShort(c.Relation), short(c.Value),
			c.Tasks, hard, c.Machines, num(c.Rho), num(c.PredictedWaitS), num(c.ObservedWaitS), c.Fit)
	}
	if u := r.Unconstrained; u != nil {
		fmt.Fprintf(tw, "  (none)\t\t\t%d\t\t%d\t%s\t%s\t%s\t%s\n", u.Tasks, u.Machines, num(u.Rho), num(u.PredictedWaitS), num(u.ObservedWaitS), u.Fit)
	}
	tw.Flush()
	if len(r.Placement) > 0 {
		fmt.Fprintln(out, "\nplacement constraints (Phoenix §III-A's third class; waits in seconds):")
		fmt.Fprintln(tw, "  KIND\tJOBS\tTASKS\tHARD\tRELAXED\tVIOLATED\tOBSERVED")
		for _, p := range r.Placement {
			hard := "hard"
			if !p.Hard {
				hard = "soft"
			}
			fmt.Fprintf(tw, "  %s\t%d\t%d\t%s\t%d\t%d\t%s\n", p.Kind, p.Jobs, p.Tasks, hard, p.Relaxed, p.Violated, num(p.ObservedWaitS))
		}
		tw.Flush()
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(out, "warning: %s\n", w)
	}
	return nil
}

var relShorts = map[string]string{"EQUAL": "=", "NOT_EQUAL": "!=", "LESS_THAN": "<", "GREATER_THAN": ">",
	"LESS_THAN_EQUAL": "<=", "GREATER_THAN_EQUAL": ">=", "PRESENT": "present", "NOT_PRESENT": "absent"}

func relShort(r string) string {
	if s, ok := relShorts[r]; ok {
		return s
	}
	return r
}

// ratios is a series' peak demand/supply and its mean over windows with
// supply.
func ratios(ws []Window) (peak, mean *float64) {
	var sum float64
	n := 0
	for _, w := range ws {
		if w.Ratio == nil {
			continue
		}
		if peak == nil || *w.Ratio > *peak {
			peak = ptr(*w.Ratio)
		}
		sum += *w.Ratio
		n++
	}
	if n > 0 {
		mean = ptr(round(sum/float64(n), 6))
	}
	return peak, mean
}

// WriteCSV writes one row per constraint; demand and supply are the
// series, values joined by ";".
func (r *Result) WriteCSV(w io.Writer) error {
	f := func(v *float64) string {
		if v == nil {
			return ""
		}
		return strconv.FormatFloat(*v, 'g', -1, 64)
	}
	return table.CSV(w, []string{"attribute", "relation", "value", "tasks", "episodes", "hard", "relaxed", "violated",
		"machines", "machines_mean", "arrival_rate_per_s", "served", "service_mean_s", "service_m2_s2", "rho",
		"predicted_wait_s", "observed_wait_s", "observed_waits", "fit", "demand", "supply"}, func(row func(...string)) {
		for _, c := range r.Constraints {
			dem := make([]string, len(c.DemandSupply))
			sup := make([]string, len(c.DemandSupply))
			for i, x := range c.DemandSupply {
				dem[i], sup[i] = strconv.Itoa(int(x.Demand)), strconv.Itoa(int(x.Supply))
			}
			row(c.Attribute, c.Relation, c.Value, strconv.FormatInt(c.Tasks, 10), strconv.FormatInt(c.Episodes, 10),
				strconv.FormatBool(c.Hard), strconv.FormatInt(c.Relaxed, 10), strconv.FormatInt(c.Violated, 10),
				strconv.Itoa(c.Machines), strconv.FormatFloat(c.MachinesMean, 'g', -1, 64),
				strconv.FormatFloat(c.ArrivalRate, 'g', -1, 64), strconv.FormatInt(c.Served, 10),
				f(c.ServiceMeanS), f(c.ServiceM2S2), f(c.Rho), f(c.PredictedWaitS), f(c.ObservedWaitS),
				strconv.Itoa(c.ObservedWaits), c.Fit, strings.Join(dem, ";"), strings.Join(sup, ";"))
		}
	})
}
