package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/timeflag"
	"github.com/wlprof/wlprof/pipeline"
	"github.com/wlprof/wlprof/reports"
	"github.com/wlprof/wlprof/slo"
)

type sloOptions struct {
	g           *globalOptions
	Percentiles string
	Overrides   string
	Job         string
	opts        slo.Options
}

func newSLOCmd(g *globalOptions) *cobra.Command {
	o := &sloOptions{g: g, opts: slo.DefaultOptions()}
	cmd := &cobra.Command{
		Use:   "slo",
		Short: "Infer deadlines (SLOs) of recurring jobs from data provenance",
		Long: `Build the provenance graph of jobs and files, find recurring jobs and their
period, and infer each job's arrival and deadline from when its inputs appear
and when consumers read its outputs (Morpheus, Jyothi et al., OSDI'16 §4).

Reads the runs table (yarn-rm, openlineage) and the provenance table
(hdfs-audit, openlineage). Offsets (arrival, deadline, start, end) are from
the start of the job's period: UTC midnight for daily jobs, the top of the
hour for hourly ones. A job is actionable when its output is read at a
stable time (CV = MAD/median of T_outRead ≤ --max-read-cv) with enough slack
(median (T_outRead − T_end)/(T_end − T_start) ≥ --min-slack); the reason
says why not otherwise. An overrides file (JSON, or YAML by extension) signs
off, corrects or rejects inferred SLOs; see the slo package documentation.
` + exitStatusHelp,
		Example: "  wlprof slo -d ds\n  wlprof slo -d ds --percentiles 95,50 -o json\n  wlprof slo -d ds --overrides signoff.yaml --job 'daily_sales <date>'",
		Args:    args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runSLO(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Percentiles, "percentiles", "95,50", "arrival and deadline percentiles (of T_inAvail and T_outRead)")
	f.StringVar(&o.Overrides, "overrides", "", "YAML or JSON file of user sign-offs and overrides")
	f.StringVar(&o.Job, "job", "", "only this job (normalised name, as listed)")
	f.IntVar(&o.opts.MinRuns, "min-runs", o.opts.MinRuns, "fewest runs for an SLO")
	f.Float64Var(&o.opts.MaxPeriodCV, "max-period-cv", o.opts.MaxPeriodCV, "submission spacing CV (MAD/median) above which a job is irregular")
	f.Float64Var(&o.opts.SnapTolerance, "snap", o.opts.SnapTolerance, "relative distance within which a period snaps to a natural one (hour, day, ...)")
	f.Float64Var(&o.opts.MaxReadCV, "max-read-cv", o.opts.MaxReadCV, "CV (MAD/median) of T_outRead above which reads are unstable")
	f.Float64Var(&o.opts.MaxReadSpread, "max-read-spread", o.opts.MaxReadSpread, "MAD of T_outRead, as a fraction of the period, above which reads are unstable")
	f.Float64Var(&o.opts.MinSlack, "min-slack", o.opts.MinSlack, "median slack ratio below which a deadline is not actionable")
	f.Var(timeflag.NewSeconds(&o.opts.WindowGraceS, o.opts.WindowGraceS), "window-grace", "slack around a run's [start, end] for user-window attribution (a duration, or seconds)")
	return cmd
}

func runSLO(ctx context.Context, o *sloOptions) error {
	var err error
	if o.opts.ArrivalPercentile, o.opts.DeadlinePercentile, err = slo.ParsePercentiles(o.Percentiles); err != nil {
		return usageError{err}
	}
	if err := o.opts.Validate(); err != nil {
		return usageError{err}
	}
	ds, err := dataset.Open(o.g.Dataset)
	if err != nil {
		return err
	}
	var res *slo.Result
	err = o.g.stage(reports.StageSLO, func() (err error) {
		res, err = pipeline.SLO(ctx, ds, o.opts, o.Overrides)
		return err
	})
	if errors.Is(err, slo.ErrNoRuns) {
		return fmt.Errorf("%s: %w", o.g.Dataset, err)
	}
	if err != nil {
		return err
	}
	if o.Job != "" && !res.Only(o.Job) {
		names := make([]string, len(res.Jobs))
		for i, j := range res.Jobs {
			names[i] = j.Job
		}
		return dataset.NewUnknownJob(o.g.Dataset, "SLO", o.Job, names)
	}
	if !o.g.Quiet {
		for _, w := range res.Warnings {
			fmt.Fprintf(o.g.io.Err, "warning: %s\n", w)
		}
	}
	doc := res.Document()
	return printDoc(o.g, doc, doc.WriteCSV, doc.WriteText)
}
