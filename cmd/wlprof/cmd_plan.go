package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/timeflag"
	"github.com/wlprof/wlprof/plan"
	"github.com/wlprof/wlprof/slo"
)

type planOptions struct {
	fit       skylineOptions
	Holdout   float64
	LCMCap    time.Duration
	Overrides string
	EndPoints int
}

func newPlanCmd(g *globalOptions) *cobra.Command {
	o := &planOptions{fit: skylineOptions{g: g}}
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "Pack the recurring jobs' reservations (LowCost) and replay held-out runs against them",
		Long: `What the fitted skylines buy (seed 001 §6, §7, §9): every recurring job with
skylines and a window — an actionable SLO from the slo stage, or period_s,
arrival_s and deadline_s in --overrides — is fitted on the first runs (the
latest --holdout share is held out) and its reservation packed with LowCost
over the LCM of the periods (at most --lcm-cap): stages in reverse order,
containers one at a time (a minimum parallelism of one) on the cheapest
step, the allocation contiguous and inside the window, every instance of a
job at the same offset. The footprint (the peak of the packed load) is
shown beside the naive plan (each skyline at its arrival) and a lower
bound; a job whose packing would raise the footprint above naive keeps its
naive placement.

The held-out runs are then replayed against the reservation alone (no
opportunistic capacity, §9's worst case): a run misses its deadline when
work is left at it, with and without dynamic reprovisioning (DRA: up to
2 × the last 2 minutes' largest allocation when the run's usage and debt
exceed the reservation). The α trade-off refits every job at several α and
replays the held-out runs against each skyline at its arrival.

Offsets and windows are seconds from the start of the job's period;
allocations are containers per --step.
` + timesHelp + exitStatusHelp,
		Example: `  wlprof plan -d ds
  wlprof plan -d ds --overrides slo.yaml --holdout 0.3 -o json
  wlprof plan -d ds --step 5s --lcm-cap 1h`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runPlan(cmd.Context(), o) },
	}
	o.fit.bindFitFlags(cmd)
	f := cmd.Flags()
	f.StringVar(&o.fit.Job, "job", "", "plan only this job")
	f.Float64Var(&o.Holdout, "holdout", 0.3, "share of each job's runs, the latest, held out of the fit and replayed")
	f.Var(timeflag.NewDuration(&o.LCMCap, 24*time.Hour), "lcm-cap", "largest LCM of the periods; a period that does not divide it gets one reservation per instance")
	f.StringVar(&o.Overrides, "overrides", "", "the slo stage's overrides file (JSON or YAML), as wlprof slo --overrides")
	f.IntVar(&o.EndPoints, "end-points", 64, "end points LowCost tries per job")
	return cmd
}

func runPlan(ctx context.Context, o *planOptions) error {
	g := o.fit.g
	sk, err := o.fit.skylineOpts()
	if err != nil {
		return err
	}
	opts := plan.DefaultOptions()
	sk.SkipBadJobs = true
	opts.Skyline, opts.Holdout, opts.LCMCap, opts.EndPoints, opts.Job = sk, o.Holdout, o.LCMCap, o.EndPoints, o.fit.Job
	if err := opts.Validate(); err != nil {
		return usageError{err}
	}
	if o.Overrides != "" {
		if opts.SLO.Overrides, err = slo.LoadOverrides(o.Overrides); err != nil {
			return err
		}
	}
	ds, err := dataset.Open(g.Dataset)
	if err != nil {
		return err
	}
	in, err := plan.Load(ctx, ds, opts)
	if err != nil {
		return err
	}
	if len(in.Jobs) == 0 && len(in.NotPlanned) == 0 {
		if o.fit.Job != "" {
			return fmt.Errorf("job %q has no skylines in %s", o.fit.Job, g.Dataset)
		}
		return fmt.Errorf("%s has no skylines to plan: ingest job runs (yarn-rm, spark-eventlog, re-native, skyline-csv) first", g.Dataset)
	}
	res, err := plan.Run(ctx, in, opts)
	if err != nil {
		return err
	}
	switch g.Output {
	case "json":
		return writeJSON(g.io.Out, res)
	case "csv":
		return planCSV(g, res)
	}
	return planText(g, res)
}

func planText(g *globalOptions, r *plan.Result) error {
	out := g.io.Out
	jobs := map[string]bool{}
	for _, p := range r.Placements {
		jobs[p.Job] = true
	}
	if len(jobs) == 0 {
		fmt.Fprintln(out, "no job could be planned")
	} else {
		fmt.Fprintf(out, "%d %s planned over a %s LCM in %s steps (alpha %g)\n", len(jobs), plural(len(jobs), "job", "jobs"),
			timeflag.FormatSeconds(r.LCMS), timeflag.FormatSeconds(r.StepS), r.Alpha)
		fmt.Fprintf(out, "footprint %d containers: naive %d, lower bound %d", r.Footprint, r.NaiveFootprint, r.LowerBound)
		if r.NaiveFootprint > 0 {
			fmt.Fprintf(out, " (%.0f%% below naive)", 100*(1-float64(r.Footprint)/float64(r.NaiveFootprint)))
		}
		fmt.Fprintln(out)
		replay := map[string]plan.JobReplay{}
		for _, jr := range r.Replay {
			replay[jr.Job] = jr
		}
		fmt.Fprintln(out)
		w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
		fmt.Fprintln(w, "JOB\tPERIOD\tWINDOW\tOFFSET\tSTEPS\tPEAK\tTRAIN\tHELD_OUT\tMISSED\tMISSED_WITH_DRA\tDRA_CONTAINER_H")
		for _, p := range r.Placements {
			var pk int64
			for _, v := range p.Allocation {
				pk = max(pk, v)
			}
			jr := replay[p.Job]
			name := p.Job
			if p.Instance != nil {
				name = fmt.Sprintf("%s#%d", p.Job, *p.Instance)
			}
			if p.Naive {
				name += " (naive)"
			}
			fmt.Fprintf(w, "%s\t%s\t%s–%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%.2f\n", name, timeflag.FormatSeconds(p.PeriodS),
				timeflag.FormatSeconds(p.WindowStartS), timeflag.FormatSeconds(p.WindowEndS), timeflag.FormatSeconds(p.OffsetS),
				len(p.Allocation), pk, jr.TrainRuns, jr.TestRuns, jr.SLOMisses, jr.SLOMissesDRA, jr.DRAAddedContainerS/3600)
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

// planCSV writes one row per placement with its job's replay.
func planCSV(g *globalOptions, r *plan.Result) error {
	w := csv.NewWriter(g.io.Out)
	_ = w.Write([]string{"job", "instance", "period_s", "window_start_s", "window_end_s", "offset_s", "steps", "peak_containers", "naive",
		"train_runs", "test_runs", "slo_misses", "slo_misses_dra", "dra_added_container_s", "over_allocation", "under_allocation"})
	replay := map[string]plan.JobReplay{}
	for _, jr := range r.Replay {
		replay[jr.Job] = jr
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, p := range r.Placements {
		var pk int64
		for _, v := range p.Allocation {
			pk = max(pk, v)
		}
		inst := ""
		if p.Instance != nil {
			inst = strconv.Itoa(*p.Instance)
		}
		jr := replay[p.Job]
		_ = w.Write([]string{p.Job, inst, f(p.PeriodS), f(p.WindowStartS), f(p.WindowEndS), f(p.OffsetS), strconv.Itoa(len(p.Allocation)),
			strconv.FormatInt(pk, 10), strconv.FormatBool(p.Naive), strconv.Itoa(jr.TrainRuns), strconv.Itoa(jr.TestRuns),
			strconv.Itoa(jr.SLOMisses), strconv.Itoa(jr.SLOMissesDRA), f(jr.DRAAddedContainerS), f(jr.OverAllocation), f(jr.UnderAllocation)})
	}
	w.Flush()
	return w.Error()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
