package main

import (
	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/skyline"
)

func newSkylineCmd(g *globalOptions) *cobra.Command {
	cmd, _ := stageCommand(g, skyline.Contract, &cobra.Command{
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
	})
	completeModel(cmd)
	completeJob(cmd, g, dataset.SkylinesTable.Name)
	return cmd
}

// completeModel completes --model with the LP formulations.
func completeModel(cmd *cobra.Command) {
	_ = cmd.RegisterFlagCompletionFunc("model", cobra.FixedCompletions([]string{string(skyline.Reduced), string(skyline.Textbook)}, cobra.ShellCompDirectiveNoFileComp))
}
