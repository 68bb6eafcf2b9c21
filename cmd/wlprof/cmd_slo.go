package main

import "github.com/spf13/cobra"

func newSLOCmd(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "slo",
		Short: "Infer deadlines (SLOs) of recurring jobs from data provenance",
		Long: `Build the provenance graph of jobs and files, find recurring jobs and their
period, and infer each job's arrival and deadline from when its inputs appear
and when consumers read its outputs (Morpheus, seed 001 §4).
` + exitStatusHelp,
		Example: "  wlprof slo -d ds\n  wlprof slo -d ds --percentiles 95,50 -o json",
		Args:    args(cobra.NoArgs),
		RunE:    notBuilt(4),
	}
	cmd.Flags().String("percentiles", "95,50", "arrival and deadline percentiles")
	cmd.Flags().String("overrides", "", "YAML or JSON file of user sign-offs and overrides")
	return cmd
}
