package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/timeflag"
	"github.com/wlprof/wlprof/skyline"
)

type skylineOptions struct {
	g          *globalOptions
	Alpha      float64
	Beta       string
	Step       time.Duration
	MinRuns    int
	Job        string
	AlphaSweep string
	Timeout    time.Duration
	Model      string
	Workers    int
}

func newSkylineCmd(g *globalOptions) *cobra.Command {
	o := &skylineOptions{g: g}
	cmd := &cobra.Command{
		Use:   "skyline",
		Short: "Fit reservation skylines to recurring jobs' runs with an LP (COIN-OR CLP)",
		Long: `Align the runs of each recurring job at their start, quantise them to --step
(the maximum within a step, as Hadoop's ResourceEstimator does; shorter runs
are padded with zeros) and solve the Morpheus LP (Jyothi et al., OSDI'16 §5) with COIN-OR
CLP: minimise alpha·A_o + (1−alpha)·A_u + beta·eps, where A_o is the mean
over-allocation, A_u the mean under-allocation debt left at the end, and eps
bounds the mean normalised instantaneous under-allocation. --beta auto solves
once without the eps term and then uses beta = 0.1·V, V being that optimum.

Runs come from the skylines table (ingest re-native, yarn-rm, spark-eventlog
or skyline-csv). Every job with at least --min-runs runs is fitted, in
parallel; jobs with fewer are listed as skipped. Containers, over- and
under-allocation are in containers and container·steps; the reservation is
the skyline rounded up to whole containers.
` + timesHelp + exitStatusHelp,
		Example: `  wlprof skyline -d ds
  wlprof skyline -d ds --job tpch_q12 --step 5s -o json
  wlprof skyline -d ds --beta auto --alpha-sweep 0.01,0.1,0.5,0.9`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runSkyline(cmd.Context(), o) },
	}
	o.bindFitFlags(cmd)
	f := cmd.Flags()
	f.StringVar(&o.Job, "job", "", "fit only this job (an error if it has too few runs)")
	f.StringVar(&o.AlphaSweep, "alpha-sweep", "", "comma-separated alphas: also report the over/under-allocation trade-off")
	f.IntVar(&o.Workers, "workers", 0, "jobs fitted at once (0: one per core)")
	completeJob(cmd, g, dataset.SkylinesTable.Name)
	return cmd
}

// bindFitFlags declares the flags of one fit, shared with export.
func (o *skylineOptions) bindFitFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.Float64Var(&o.Alpha, "alpha", 0.1, "weight of over-allocation against under-allocation, in [0,1]")
	f.StringVar(&o.Beta, "beta", "0.1", "weight of the regularisation term (≥ 0), or auto")
	f.Var(timeflag.NewDuration(&o.Step, time.Minute), "step", "time step the runs are quantised to")
	f.IntVar(&o.MinRuns, "min-runs", 2, "fewest runs a job needs to be fitted")
	f.Var(timeflag.NewDuration(&o.Timeout, 0), "timeout", "give up on a job's fit after this long (0: no limit)")
	f.StringVar(&o.Model, "model", "reduced", "LP formulation: reduced (fast, same optimum) or textbook")
	_ = cmd.RegisterFlagCompletionFunc("model", cobra.FixedCompletions([]string{"reduced", "textbook"}, cobra.ShellCompDirectiveNoFileComp))
}

// skylineOpts turns the flags into the stage's options, validated: a bad
// value is a usage error.
func (o *skylineOptions) skylineOpts() (skyline.Options, error) {
	opts := skyline.DefaultOptions()
	opts.Alpha, opts.StepS, opts.MinRuns, opts.Timeout = o.Alpha, o.Step.Seconds(), o.MinRuns, o.Timeout
	opts.Model, opts.Job, opts.Workers = skyline.Model(o.Model), o.Job, o.Workers
	if err := opts.ParseBeta(o.Beta); err != nil {
		return opts, usageError{err}
	}
	if err := opts.ParseAlphaSweep(o.AlphaSweep); err != nil {
		return opts, usageError{err}
	}
	if err := opts.Validate(); err != nil {
		return opts, usageError{err}
	}
	return opts, nil
}

// nothingFitted is the error of a fit in which no job could be fitted and
// some job failed on its data (a step too fine, a time limit): the
// options, not one job, are then at fault. Jobs skipped only for having
// too few runs are a result, listed as such.
func nothingFitted(res *skyline.Result) error {
	if len(res.Jobs) > 0 {
		return nil
	}
	var errs []error
	for _, s := range res.Skipped {
		if s.Err != nil {
			errs = append(errs, s.Err)
		}
	}
	return errors.Join(errs...)
}

func runSkyline(ctx context.Context, o *skylineOptions) error {
	opts, err := o.skylineOpts()
	if err != nil {
		return err
	}
	ds, err := dataset.Open(o.g.Dataset)
	if err != nil {
		return err
	}
	in, err := skyline.Load(ctx, ds, opts)
	if err != nil {
		return err
	}
	if o.Job != "" {
		if len(in.Jobs) == 0 {
			return ds.UnknownJob(ctx, dataset.SkylinesTable.Name, o.Job)
		}
		if n := len(in.Jobs[0].Runs); n < o.MinRuns {
			return fmt.Errorf("job %s: %w: %d, need %d (--min-runs)", o.Job, skyline.ErrTooFewRuns, n, o.MinRuns)
		}
	}
	res, err := skyline.Run(ctx, in, opts)
	if err != nil {
		return err
	}
	if err := nothingFitted(res); err != nil {
		return err
	}
	doc := res.Document()
	return printDoc(o.g, doc, doc.WriteCSV, doc.WriteText)
}
