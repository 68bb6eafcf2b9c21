package plan

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/wlprof/wlprof/internal/table"
	"github.com/wlprof/wlprof/internal/timeflag"
)

// Peak is the most containers the placement's allocation holds at once.
func (p Placement) Peak() int64 { return peak(p.Allocation) }

// label names the placement in the text table: the job, its instance when
// it was placed instance by instance (job#2), and "(naive)" when it kept
// its arrival.
func (p Placement) label() string {
	name := p.Job
	if p.Instance != nil {
		name = fmt.Sprintf("%s#%d", p.Job, *p.Instance)
	}
	if p.Naive {
		name += " (naive)"
	}
	return name
}

// Replays indexes Replay by job: what the table of placements shows beside
// each placement (every instance of a job shares its job's replay).
func (r *Result) Replays() map[string]JobReplay {
	m := make(map[string]JobReplay, len(r.Replay))
	for _, jr := range r.Replay {
		m[jr.Job] = jr
	}
	return m
}

// WriteText writes the plan as wlprof plan prints it: the footprint
// against naive and the lower bound (and, under a capacity, as shares of
// it with the memory and vcores peaks), a row per placement with its job's
// held-out replay, the α trade-off, then notes, warnings and the jobs not
// planned.
func (r *Result) WriteText(out io.Writer) error {
	jobs := map[string]bool{}
	for _, p := range r.Placements {
		jobs[p.Job] = true
	}
	if len(jobs) == 0 {
		fmt.Fprintln(out, "no job could be planned")
	} else {
		noun := "jobs"
		if len(jobs) == 1 {
			noun = "job"
		}
		fmt.Fprintf(out, "%d %s planned over a %s LCM in %s steps (alpha %g)\n", len(jobs), noun,
			timeflag.FormatSeconds(r.LCMS), timeflag.FormatSeconds(r.StepS), r.Alpha)
		fmt.Fprintf(out, "footprint %d containers: naive %d, lower bound %d", r.Footprint, r.NaiveFootprint, r.LowerBound)
		if r.NaiveFootprint > 0 {
			fmt.Fprintf(out, " (%.0f%% below naive)", 100*(1-float64(r.Footprint)/float64(r.NaiveFootprint)))
		}
		fmt.Fprintln(out)
		r.writeCapacity(out)
		replay := r.Replays()
		fmt.Fprintln(out)
		w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
		fmt.Fprintln(w, "JOB\tPERIOD\tWINDOW\tOFFSET\tSTEPS\tPEAK\tTRAIN\tHELD_OUT\tMISSED\tMISSED_WITH_DRA\tDRA_CONTAINER_H")
		for _, p := range r.Placements {
			jr := replay[p.Job]
			fmt.Fprintf(w, "%s\t%s\t%s–%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%.2f\n", p.label(), timeflag.FormatSeconds(p.PeriodS),
				timeflag.FormatSeconds(p.WindowStartS), timeflag.FormatSeconds(p.WindowEndS), timeflag.FormatSeconds(p.OffsetS),
				len(p.Allocation), p.Peak(), jr.TrainRuns, jr.TestRuns, jr.SLOMisses, jr.SLOMissesDRA, jr.DRAAddedContainerS/3600)
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	if len(r.AlphaTradeoff) > 0 && r.AlphaTradeoff[0].TestRuns > 0 {
		fmt.Fprintln(out, "\nheld-out runs against skylines fitted at each alpha (no DRA):")
		w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
		fmt.Fprintln(w, "  ALPHA\tHELD_OUT\tMISSED\tOVER\tUNDER")
		for _, a := range r.AlphaTradeoff {
			fmt.Fprintf(w, "  %g\t%d\t%d\t%.4g\t%.4g\n", a.Alpha, a.TestRuns, a.SLOMisses, a.OverAllocation, a.UnderAllocation)
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	for _, jr := range r.Replay {
		if jr.Note != "" {
			fmt.Fprintf(out, "note: %s: %s\n", jr.Job, jr.Note)
		}
	}
	for _, s := range r.Warnings {
		fmt.Fprintf(out, "warning: %s\n", s)
	}
	if len(r.FallbackToNaiveJobs) > 0 {
		fmt.Fprintf(out, "kept at their arrival (packing them raised the footprint above naive): %v\n", r.FallbackToNaiveJobs)
	}
	if len(r.NotPlanned) > 0 {
		fmt.Fprintln(out, "\nnot planned:")
		for _, np := range r.NotPlanned {
			fmt.Fprintf(out, "  %s: %s\n", np.Job, np.Reason)
		}
	}
	return nil
}

// writeCapacity writes, under a capacity, the peak shares of the packed,
// naive and lower-bound plans and the memory and vcores peaks.
func (r *Result) writeCapacity(out io.Writer) {
	if r.Capacity == nil || r.FootprintShare == nil || r.NaiveFootprintShare == nil || r.LowerBoundShare == nil {
		return
	}
	pct := func(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) + "%" }
	fs, ns := *r.FootprintShare, *r.NaiveFootprintShare
	fmt.Fprintf(out, "capacity %s: footprint %s of it, naive %s, lower bound %s", r.Capacity, pct(fs), pct(ns), pct(*r.LowerBoundShare))
	if ns > 0 {
		fmt.Fprintf(out, " (%.0f%% below naive)", 100*(1-fs/ns))
	}
	fmt.Fprintln(out)
	var peaks []string
	if r.FootprintMemoryBytes != nil && r.NaiveFootprintMemoryBytes != nil && r.LowerBoundMemoryBytes != nil {
		peaks = append(peaks, fmt.Sprintf("memory %s (naive %s, lower bound %s)", gib(*r.FootprintMemoryBytes),
			gib(*r.NaiveFootprintMemoryBytes), gib(*r.LowerBoundMemoryBytes)))
	}
	if r.FootprintVCores != nil && r.NaiveFootprintVCores != nil && r.LowerBoundVCores != nil {
		peaks = append(peaks, fmt.Sprintf("vcores %g (naive %g, lower bound %g)", *r.FootprintVCores, *r.NaiveFootprintVCores, *r.LowerBoundVCores))
	}
	if len(peaks) > 0 {
		fmt.Fprintf(out, "peak %s\n", strings.Join(peaks, "; "))
	}
}

// gib writes a memory peak for the text table: GiB to a tenth (TiB to a
// hundredth from 1 TiB; MiB below 1 GiB).
func gib(b int64) string {
	switch x := float64(b); {
	case x >= 1<<40:
		return fmt.Sprintf("%.2f TiB", x/(1<<40))
	case x >= 1<<30:
		return fmt.Sprintf("%.1f GiB", x/(1<<30))
	default:
		return fmt.Sprintf("%.0f MiB", x/(1<<20))
	}
}

// WriteCSV writes one row per placement with its job's replay.
func (r *Result) WriteCSV(w io.Writer) error {
	replay := r.Replays()
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	return table.CSV(w, []string{"job", "instance", "period_s", "window_start_s", "window_end_s", "offset_s", "steps", "peak_containers", "naive",
		"train_runs", "test_runs", "slo_misses", "slo_misses_dra", "dra_added_container_s", "over_allocation", "under_allocation"}, func(row func(...string)) {
		for _, p := range r.Placements {
			inst := ""
			if p.Instance != nil {
				inst = strconv.Itoa(*p.Instance)
			}
			jr := replay[p.Job]
			row(p.Job, inst, f(p.PeriodS), f(p.WindowStartS), f(p.WindowEndS), f(p.OffsetS), strconv.Itoa(len(p.Allocation)),
				strconv.FormatInt(p.Peak(), 10), strconv.FormatBool(p.Naive), strconv.Itoa(jr.TrainRuns), strconv.Itoa(jr.TestRuns),
				strconv.Itoa(jr.SLOMisses), strconv.Itoa(jr.SLOMissesDRA), f(jr.DRAAddedContainerS), f(jr.OverAllocation), f(jr.UnderAllocation))
		}
	})
}
