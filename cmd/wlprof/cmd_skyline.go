package main

import "github.com/spf13/cobra"

func newSkylineCmd(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "skyline",
		Short: "Fit reservation skylines to recurring jobs' runs with an LP (COIN-OR CLP)",
		Long: `Align the runs of each recurring job at their start and solve the Morpheus
LP (seed 001 §5) for the skyline that balances over- and under-allocation.
` + exitStatusHelp,
		Example: "  wlprof skyline -d ds\n  wlprof skyline -d ds --job etl-daily --alpha 0.1 --beta auto -o json",
		Args:    args(cobra.NoArgs),
		RunE:    notBuilt(5),
	}
	f := cmd.Flags()
	f.Float64("alpha", 0.1, "weight of over-allocation against under-allocation")
	f.String("beta", "0.1", "weight of the regularisation term, or auto")
	f.Duration("step", 60e9, "time step")
	f.Int("min-runs", 2, "fewest runs a job needs")
	f.String("job", "", "fit only this job")
	return cmd
}
