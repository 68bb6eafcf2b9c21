package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/stage"
	"github.com/wlprof/wlprof/internal/timeflag"
	"github.com/wlprof/wlprof/plan"
	"github.com/wlprof/wlprof/skyline"
	"github.com/wlprof/wlprof/slo"
)

type planOptions struct {
	g         *globalOptions
	fit       skyline.Options
	Holdout   float64
	LCMCap    time.Duration
	Overrides string
	EndPoints int
	Capacity  string
}

func newPlanCmd(g *globalOptions) *cobra.Command {
	o := &planOptions{g: g, fit: skyline.DefaultOptions()}
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "Pack the recurring jobs' reservations (LowCost) and replay held-out runs against them",
		Long: `What the fitted skylines buy (Jyothi et al., OSDI'16 §6, §7, §9): every recurring job with
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

With --capacity the cost of a step is its largest share of a resource the
capacity names (§6: c(t) = max over resources of load/capacity): containers,
memory, cores. A container's memory and vcores in each step of a skyline
are the largest per container among the training runs' samples in that
step (the skylines table's memory_bytes and vcores). LowCost then minimises
the peak share, and the footprint, naive plan and lower bound are also given
as shares of the capacity, with the memory and vcores peaks.

The held-out runs are then replayed against the reservation alone (no
opportunistic capacity, §9's worst case): a run misses its deadline when
work is left at it, with and without dynamic reprovisioning (DRA: up to
2 × the last 2 minutes' largest allocation when the run's usage and debt
exceed the reservation, up to the deadline: past the reservation's end it
stretches it, capped by its last 2 minutes). The α trade-off refits every job at several α and
replays the held-out runs against each skyline at its arrival.

Offsets and windows are seconds from the start of the job's period;
allocations are containers per --step.
` + timesHelp + exitStatusHelp,
		Example: `  wlprof plan -d ds
  wlprof plan -d ds --overrides slo.yaml --holdout 0.3 -o json
  wlprof plan -d ds --step 5s --lcm-cap 1h
  wlprof plan -d ds --capacity containers=5000,memory=20T,cores=10000`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runPlan(cmd.Context(), o) },
	}
	f := cmd.Flags()
	stage.AddOnly(f, o.fit.AddFlags, slices.Concat(skyline.FitFlags, []string{"job"})...)
	f.Lookup("job").Usage = "plan only this job"
	completeModel(cmd)
	f.Float64Var(&o.Holdout, "holdout", 0.3, "share of each job's runs, the latest, held out of the fit and replayed")
	f.Var(timeflag.NewDuration(&o.LCMCap, 24*time.Hour), "lcm-cap", "largest LCM of the periods; a period that does not divide it gets one reservation per instance")
	f.StringVar(&o.Overrides, "overrides", "", "the slo stage's overrides file (JSON or YAML), as wlprof slo --overrides")
	f.IntVar(&o.EndPoints, "end-points", 64, "end points LowCost tries per job")
	f.StringVar(&o.Capacity, "capacity", "", "cost a step by its largest share of this cluster: containers=N,memory=SIZE,cores=N (any of them; default: the load in containers)")
	completeJob(cmd, g, dataset.SkylinesTable.Name)
	return cmd
}

func runPlan(ctx context.Context, o *planOptions) error {
	g := o.g
	sk := o.fit
	opts := plan.DefaultOptions()
	sk.SkipBadJobs = true
	opts.Skyline, opts.Holdout, opts.LCMCap, opts.EndPoints, opts.Job = sk, o.Holdout, o.LCMCap, o.EndPoints, o.fit.Job
	errs := plan.Flags{Capacity: o.Capacity}.Apply(&opts)
	if err := opts.Validate(); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return usageError{errors.Join(errs...)}
	}
	if o.Overrides != "" {
		var err error
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
			return ds.UnknownJob(ctx, dataset.SkylinesTable.Name, o.fit.Job)
		}
		return fmt.Errorf("%s has no skylines to plan: ingest job runs (yarn-rm, spark-eventlog, re-native, skyline-csv) first", g.Dataset)
	}
	res, err := plan.Run(ctx, in, opts)
	if err != nil {
		return err
	}
	return printDoc(g, res, res.WriteCSV, res.WriteText)
}
