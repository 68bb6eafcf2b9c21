package main

import "github.com/spf13/cobra"

func newElasticityCmd(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "elasticity",
		Short: "Build step and spill-rate memory elasticity models from profiling runs",
		Long: `Fit memory elasticity models to profiling runs: a step model for mappers and
a spill-rate model for reducers, with a simulation of the framework's spill
logic (seed 004 §2).
` + exitStatusHelp,
		Example: "  wlprof elasticity -d ds\n  wlprof elasticity -d ds --job sort -o json",
		Args:    args(cobra.NoArgs),
		RunE:    notBuilt(7),
	}
	cmd.Flags().String("job", "", "model only this job")
	return cmd
}
