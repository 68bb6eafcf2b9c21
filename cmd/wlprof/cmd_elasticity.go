package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/elasticity"
	"github.com/wlprof/wlprof/internal/bytesize"
)

type elasticityOptions struct {
	g        *globalOptions
	Job      string
	Grid     string
	Set      []string
	WallTime bool
	Input    string
	Fit      string
}

func newElasticityCmd(g *globalOptions) *cobra.Command {
	o := &elasticityOptions{g: g}
	cmd := &cobra.Command{
		Use:   "elasticity",
		Short: "Build step and spill-rate memory elasticity models from profiling runs",
		Long: `Fit memory elasticity models (Iorgulescu et al., ATC'17 §2) to the profiling runs of the
dataset (ingest profruns-csv, jhist or spark-eventlog, or wlprof profile run):
one model per job, task, framework and slot count.

Map tasks get a step model: the well-sized runtime at or above ideal memory,
the under-sized runtime below it. Other tasks get a spill-rate model,
T(m) = T + spilledBytes(m)/diskRate, where spilledBytes(m) comes from a
simulation of the framework's spill logic (Hadoop's MergeManagerImpl and
sort buffer, Spark's execution memory with the expansion factor learnt from
the runs, Tez's local fetch, or for a sandbox program all-or-nothing or,
with wlprof.spill.buffer=true, a buffer spilled whole each time it fills
with the last one merged from memory, as a reducer's shuffle buffer) read
from the runs' configuration, and diskRate from one under-sized run. Both
are fitted on two runs (an under-sized one near half of ideal memory and
the smallest well-sized one) and validated on the others; with more than
two memory settings the same model is also fitted by least squares, and a
measured curve (monotone interpolation) is validated as a baseline.
--fit least-squares makes the least-squares fit the model (validated by
leaving one setting out): steadier when runs are short and noisy, as on a
sample carried to the whole input with --input-bytes.

The simulations read their keys (mapreduce.*, spark.*, tez.*) from the
runs' configuration, with Hadoop's, Spark's and Tez's defaults; wlprof's own
keys fill what history does not record: wlprof.heap.fraction,
wlprof.sort.buffer.fraction, wlprof.map.outputs (Tez),
wlprof.local.fetch.fraction (Tez), wlprof.expansion.factor,
wlprof.spill.buffer (sandbox). --set overrides any of them for every run.
The output lists each value and its source.

Runs of one copy that measured the time their main thread waited for a CPU
(cpu_wait_s, wlprof profile run) are modelled by wall time minus that wait:
their runtime on a core of their own (--wall-time keeps wall time).
Validation reports the errors of single runs and of each memory setting's
median over its repetitions.

The curve runs from 10% to 100% of ideal memory in --grid steps, with the
slowdown (runtime / ideal runtime), the penalty (slowdown − 1) and the disk
bandwidth the task needs. --input-bytes carries every model from the
profiled input (say, a 10% sample) to another size: ideal memory, spilled
bytes and runtimes scale linearly with the input.
Groups that cannot be modelled are listed with the reason.
` + exitStatusHelp,
		Example: `  wlprof elasticity -d ds
  wlprof elasticity -d ds --job sort -o json
  wlprof elasticity -d ds --grid 256M --set mapreduce.job.maps=400 -o csv`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runElasticity(cmd.Context(), o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.Job, "job", "", "model only this job")
	f.StringVar(&o.Grid, "grid", "100M", "memory step of the curve (bytes, or with K, M, G: binary units)")
	f.StringArrayVar(&o.Set, "set", nil, "KEY=VALUE configuration key applied to every run (repeatable)")
	f.StringVar(&o.Input, "input-bytes", "", "carry every model to a task input of this size (e.g. 10G): ideal memory, spill and runtimes scale with it")
	f.BoolVar(&o.WallTime, "wall-time", false, "model wall time even where one-slot runs measured their wait for a CPU (cpu_wait_s)")
	f.StringVar(&o.Fit, "fit", elasticity.FitPair, "how the model is learnt: pair (an under-sized and a well-sized setting, as Iorgulescu et al., ATC'17 §2 do) or least-squares (every run; steadier for --input-bytes)")
	completeJob(cmd, g, dataset.ProfRunsTable.Name)
	return cmd
}

func runElasticity(ctx context.Context, o *elasticityOptions) error {
	opts := elasticity.DefaultOptions()
	opts.Job = o.Job
	opts.WallTime = o.WallTime
	opts.Fit = o.Fit
	grid, err := bytesize.Parse(o.Grid)
	if err != nil {
		return usagef("--grid: %v", err)
	}
	opts.GridBytes = grid
	if o.Input != "" {
		if opts.InputBytes, err = bytesize.Parse(o.Input); err != nil || opts.InputBytes <= 0 {
			return usagef("--input-bytes %q: want a size above 0 (bytes, or with K, M, G)", o.Input)
		}
	}
	if opts.Overrides, err = elasticity.ParseSettings(o.Set); err != nil {
		return usageError{err}
	}
	if err := opts.Validate(); err != nil {
		return usageError{err}
	}
	ds, err := dataset.Open(o.g.Dataset)
	if err != nil {
		return err
	}
	in, err := elasticity.Load(ctx, ds, opts)
	if err != nil {
		return err
	}
	res, err := elasticity.Run(ctx, in, opts)
	if errors.Is(err, elasticity.ErrNoRuns) && o.Job != "" && len(in.Runs) > 0 {
		return ds.UnknownJob(ctx, dataset.ProfRunsTable.Name, o.Job)
	}
	if errors.Is(err, elasticity.ErrNoRuns) {
		return fmt.Errorf("%w in %s (ingest profruns-csv, jhist or spark-eventlog, or run wlprof profile run)", err, o.g.Dataset)
	}
	if err != nil {
		return err
	}
	doc := res.Document()
	return printDoc(o.g, doc, doc.WriteCSV, doc.WriteText)
}
