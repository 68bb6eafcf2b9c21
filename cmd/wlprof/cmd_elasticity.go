package main

import (
	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/elasticity"
)

func newElasticityCmd(g *globalOptions) *cobra.Command {
	cmd, _ := stageCommand(g, elasticity.Contract, &cobra.Command{
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
	})
	completeJob(cmd, g, dataset.ProfRunsTable.Name)
	return cmd
}
