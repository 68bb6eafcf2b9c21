package elasticity

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/wlprof/wlprof/internal/table"
)

// maxTextCurve is how many curve points the text shows of a model at most;
// -o json and -o csv give them all.
const maxTextCurve = 20

func mibText(b int64) string { return strconv.FormatFloat(float64(b)/(1<<20), 'f', 0, 64) }

func pctText(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) + "%" }

// valText is a validation as the summary shows it: the median absolute
// error and over how many runs, "-" without any.
func valText(v Validation) string {
	if v.Runs == 0 {
		return "-"
	}
	return fmt.Sprintf("%s median of %d", pctText(v.MedianAbsError), v.Runs)
}

func lsqText(l *LeastSquares) string {
	if l == nil {
		return "-"
	}
	return valText(l.Validation)
}

// WriteText writes a summary table, then each model's curve (thinned to
// maxTextCurve points, the last always shown) and notes, then the groups
// not modelled, as wlprof elasticity prints them.
func (d Document) WriteText(out io.Writer) error {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "JOB\tTASK\tFRAMEWORK\tSLOTS\tKIND\tRUNS\tIDEAL_MIB\tIDEAL_S\tDISK_RATE_MIB_S\tMAX_SLOWDOWN\tVALIDATION\tLSQ_VALIDATION\tBASELINE_VALIDATION")
	for _, m := range d.Models {
		rate := "-"
		if r, ok := m.Params["disk_rate_bytes_per_s"]; ok {
			rate = strconv.FormatFloat(r/(1<<20), 'f', 1, 64)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%s\t%d\t%s\t%.3f\t%s\t%.2fx\t%s\t%s\t%s\n", m.Job, m.Task, m.Framework, m.Slots, m.Kind, m.Runs,
			mibText(m.IdealMemoryBytes), m.IdealRuntimeS, rate, m.MaxSlowdown(), valText(m.Validation), lsqText(m.LeastSquares), valText(m.Baseline.Validation))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	for _, m := range d.Models {
		fmt.Fprintf(out, "\n%s / %s (%s, %s simulation): curve\n", m.Job, m.Task, m.Kind, m.Simulator)
		w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
		fmt.Fprintln(w, "  MEMORY_MIB\tOF_IDEAL\tRUNTIME_S\tSLOWDOWN\tSPILLED_MIB\tDISK_MIB_S")
		step := (len(m.Curve) + maxTextCurve - 1) / maxTextCurve
		for i, p := range m.Curve {
			if i%step != 0 && i != len(m.Curve)-1 {
				continue
			}
			fmt.Fprintf(w, "  %s\t%s\t%.3f\t%.3fx\t%s\t%.1f\n", mibText(p.MemoryBytes), pctText(float64(p.MemoryBytes)/float64(m.IdealMemoryBytes)),
				p.RuntimeS, p.Slowdown, mibText(p.SpilledBytes), p.DiskBytesPS/(1<<20))
		}
		if err := w.Flush(); err != nil {
			return err
		}
		if step > 1 {
			fmt.Fprintf(out, "  (one point in %d of %d shown; -o json or -o csv for all)\n", step, len(m.Curve))
		}
		for _, s := range m.Warnings {
			fmt.Fprintf(out, "  note: %s\n", s)
		}
	}
	if len(d.Skipped) > 0 {
		fmt.Fprintln(out, "\nnot modelled:")
		for _, s := range d.Skipped {
			fmt.Fprintf(out, "  %s / %s (%s, %d slots, %d runs): %s\n", s.Job, s.Task, s.Framework, s.Slots, s.Runs, s.Reason)
		}
	}
	return nil
}

// WriteCSV writes every model's curve, one row per point.
func (d Document) WriteCSV(w io.Writer) error {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	return table.CSV(w, []string{"job", "task", "framework", "slots", "kind", "ideal_memory_bytes", "ideal_runtime_s", "memory_bytes", "runtime_s", "penalty", "spilled_bytes", "disk_bytes_per_s", "slowdown"}, func(row func(...string)) {
		for _, m := range d.Models {
			for _, p := range m.Curve {
				row(m.Job, m.Task, m.Framework, strconv.Itoa(int(m.Slots)), m.Kind, strconv.FormatInt(m.IdealMemoryBytes, 10),
					f(m.IdealRuntimeS), strconv.FormatInt(p.MemoryBytes, 10), f(p.RuntimeS), f(p.Penalty), strconv.FormatInt(p.SpilledBytes, 10), f(p.DiskBytesPS), f(p.Slowdown))
			}
		}
	})
}
