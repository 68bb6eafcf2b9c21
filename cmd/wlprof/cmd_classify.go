package main

import "github.com/spf13/cobra"

func newClassifyCmd(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "classify",
		Short: "Classify tenants as periodic, constant or unpredictable; classes and headroom",
		Long: `Build each tenant's average-server utilisation series on a fixed grid,
classify it with the FFT as periodic, constant or unpredictable, cluster the
tenants of each pattern into classes with K-Means, and compute each class's
headroom for short, medium and long jobs (seed 000 §3, §4.1).
` + exitStatusHelp,
		Example: "  wlprof classify -d ds\n  wlprof classify -d ds --step 5m -o json",
		Args:    args(cobra.NoArgs),
		RunE:    notBuilt(3),
	}
	cmd.Flags().Duration("step", 0, "grid step (default 2m, coarser when the data is)")
	cmd.Flags().Int("k", 0, "classes per pattern (default: chosen from the data)")
	cmd.Flags().String("at", "", "instant that is \"current\" for headroom (default: the last slot)")
	return cmd
}
