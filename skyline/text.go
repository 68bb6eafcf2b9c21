package skyline

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/wlprof/wlprof/internal/table"
)

// WriteText writes a row per fitted job, then each job's α trade-off and
// warnings, then the jobs skipped, as wlprof skyline prints them.
func (d Document) WriteText(out io.Writer) error {
	w := tabwriter.NewWriter(out, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "job\truns\tsteps\tstep_s\tpeak\tobjective\tover\tunder\tprovisioning\tsolve_s\t")
	for _, f := range d.Jobs {
		fmt.Fprintf(w, "%s\t%d\t%d\t%g\t%d\t%.6g\t%.6g\t%.6g\t%.3f\t%.3f\t\n", f.Job, f.Runs, len(f.Containers), f.StepS,
			f.Peak(), f.Objective, f.OverAllocation, f.UnderAllocation, f.ProvisioningRatio, f.SolveS)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	for _, f := range d.Jobs {
		if len(f.AlphaSweep) > 0 {
			fmt.Fprintf(out, "\n%s: alpha trade-off (over- against under-allocation, container·steps)\n", f.Job)
			w := tabwriter.NewWriter(out, 2, 4, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(w, "alpha\tover\tunder\tprovisioning\tpeak\tobjective\t")
			for _, p := range f.AlphaSweep {
				fmt.Fprintf(w, "%g\t%.6g\t%.6g\t%.3f\t%d\t%.6g\t\n", p.Alpha, p.OverAllocation, p.UnderAllocation, p.ProvisioningRatio, p.PeakReservation, p.Objective)
			}
			if err := w.Flush(); err != nil {
				return err
			}
		}
		for _, warn := range f.Warnings {
			fmt.Fprintf(out, "warning: %s: %s\n", f.Job, warn)
		}
	}
	for _, s := range d.Skipped {
		fmt.Fprintf(out, "skipped: %s: %s\n", s.Job, s.Reason)
	}
	return nil
}

// WriteCSV writes one row per job and step: the skyline in long form.
func (d Document) WriteCSV(w io.Writer) error {
	return table.CSV(w, []string{"job", "step", "offset_s", "containers", "reservation"}, func(row func(...string)) {
		for _, f := range d.Jobs {
			for k, v := range f.Containers {
				row(f.Job, strconv.Itoa(k), strconv.FormatFloat(float64(k)*f.StepS, 'g', -1, 64),
					strconv.FormatFloat(v, 'g', -1, 64), strconv.FormatInt(f.Reservation[k], 10))
			}
		}
	})
}
