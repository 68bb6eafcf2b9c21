package main

import (
	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/classify"
)

func newClassifyCmd(g *globalOptions) *cobra.Command {
	cmd, _ := stageCommand(g, classify.Contract, &cobra.Command{
		Use:   "classify",
		Short: "Classify tenants as periodic, constant or unpredictable; classes and headroom",
		Long: `Build each tenant's average-server utilisation series on a fixed grid,
classify it with the FFT as periodic, constant or unpredictable, cluster the
tenants of each pattern into classes with K-Means, and compute each class's
headroom for short, medium and long jobs (Zhang et al., OSDI'16 §3, §4.1).

The series are built from the usage table and stored in the series table;
later runs reuse them until more usage is ingested or --step changes.
A tenant sampled more coarsely than the grid is analysed on its own step
(the grid's times its typical gap between samples, at most an hour): STEP
with --tenants, step_s in -o json and csv. Tenants with less than 3 days of
history, or samples in less than half of their slots, are "insufficient"
with the reason.
` + timesHelp + exitStatusHelp,
		Example: "  wlprof classify -d ds\n  wlprof classify -d ds --step 5m -o json\n  wlprof classify -d ds --k 3 --at 2024-01-14T12:00:00Z",
	})
	return cmd
}
