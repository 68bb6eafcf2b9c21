package main

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

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
}

func newElasticityCmd(g *globalOptions) *cobra.Command {
	o := &elasticityOptions{g: g}
	cmd := &cobra.Command{
		Use:   "elasticity",
		Short: "Build step and spill-rate memory elasticity models from profiling runs",
		Long: `Fit memory elasticity models (seed 004 §2) to the profiling runs of the
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
	return cmd
}

func runElasticity(ctx context.Context, o *elasticityOptions) error {
	opts := elasticity.DefaultOptions()
	opts.Job = o.Job
	opts.WallTime = o.WallTime
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
	if len(o.Set) > 0 {
		opts.Overrides = elasticity.Conf{}
		for _, kv := range o.Set {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || strings.TrimSpace(k) == "" {
				return usagef("--set %q: want KEY=VALUE", kv)
			}
			opts.Overrides[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
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
	if errors.Is(err, elasticity.ErrNoRuns) {
		return fmt.Errorf("%w in %s (ingest profruns-csv, jhist or spark-eventlog, or run wlprof profile run)", err, o.g.Dataset)
	}
	if err != nil {
		return err
	}
	rep := elasticityReport{Version: 1, Models: res.Models, Skipped: res.Skipped}
	switch o.g.Output {
	case "json":
		return writeJSON(o.g.io.Out, rep)
	case "csv":
		return elasticityCSV(o.g, rep)
	}
	return elasticityText(o.g, rep)
}

type elasticityReport struct {
	Version int                  `json:"version"`
	Models  []*elasticity.Model  `json:"models"`
	Skipped []elasticity.Skipped `json:"skipped"`
}

func mibText(b int64) string { return strconv.FormatFloat(float64(b)/(1<<20), 'f', 0, 64) }

func pctText(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) + "%" }

// maxTextCurve is how many curve points the text output shows at most.
const maxTextCurve = 20

// elasticityText prints a summary table, then each model's curve.
func elasticityText(g *globalOptions, rep elasticityReport) error {
	w := tabwriter.NewWriter(g.io.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "JOB\tTASK\tFRAMEWORK\tSLOTS\tKIND\tRUNS\tIDEAL_MIB\tIDEAL_S\tDISK_RATE_MIB_S\tMAX_SLOWDOWN\tVALIDATION\tLSQ_VALIDATION\tBASELINE_VALIDATION")
	for _, m := range rep.Models {
		maxPen := 0.0
		for _, p := range m.Curve {
			maxPen = max(maxPen, p.Slowdown)
		}
		rate := "-"
		if r, ok := m.Params["disk_rate_bytes_per_s"]; ok {
			rate = strconv.FormatFloat(r/(1<<20), 'f', 1, 64)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%s\t%d\t%s\t%.3f\t%s\t%.2fx\t%s\t%s\t%s\n", m.Job, m.Task, m.Framework, m.Slots, m.Kind, m.Runs,
			mibText(m.IdealMemoryBytes), m.IdealRuntimeS, rate, maxPen, valText(m.Validation), lsqText(m.LeastSquares), valText(m.Baseline.Validation))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	for _, m := range rep.Models {
		fmt.Fprintf(g.io.Out, "\n%s / %s (%s, %s simulation): curve\n", m.Job, m.Task, m.Kind, m.Simulator)
		w := tabwriter.NewWriter(g.io.Out, 0, 0, 2, ' ', 0)
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
			fmt.Fprintf(g.io.Out, "  (one point in %d of %d shown; -o json or -o csv for all)\n", step, len(m.Curve))
		}
		for _, s := range m.Warnings {
			fmt.Fprintf(g.io.Out, "  note: %s\n", s)
		}
	}
	if len(rep.Skipped) > 0 {
		fmt.Fprintln(g.io.Out, "\nnot modelled:")
		for _, s := range rep.Skipped {
			fmt.Fprintf(g.io.Out, "  %s / %s (%s, %d slots, %d runs): %s\n", s.Job, s.Task, s.Framework, s.Slots, s.Runs, s.Reason)
		}
	}
	return nil
}

func valText(v elasticity.Validation) string {
	if v.Runs == 0 {
		return "-"
	}
	return fmt.Sprintf("%s median of %d", pctText(v.MedianAbsError), v.Runs)
}

func lsqText(l *elasticity.LeastSquares) string {
	if l == nil {
		return "-"
	}
	return valText(l.Validation)
}

// elasticityCSV writes every model's curve, one row per point.
func elasticityCSV(g *globalOptions, rep elasticityReport) error {
	w := csv.NewWriter(g.io.Out)
	_ = w.Write([]string{"job", "task", "framework", "slots", "kind", "ideal_memory_bytes", "ideal_runtime_s", "memory_bytes", "runtime_s", "penalty", "spilled_bytes", "disk_bytes_per_s", "slowdown"})
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, m := range rep.Models {
		for _, p := range m.Curve {
			_ = w.Write([]string{m.Job, m.Task, m.Framework, strconv.Itoa(int(m.Slots)), m.Kind, strconv.FormatInt(m.IdealMemoryBytes, 10),
				f(m.IdealRuntimeS), strconv.FormatInt(p.MemoryBytes, 10), f(p.RuntimeS), f(p.Penalty), strconv.FormatInt(p.SpilledBytes, 10), f(p.DiskBytesPS), f(p.Slowdown)})
		}
	}
	w.Flush()
	return w.Error()
}
