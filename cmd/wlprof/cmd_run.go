package main

import "github.com/spf13/cobra"

func newRunCmd(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "run --out DIR PATH...",
		Short:   "Run the whole pipeline: detect formats, ingest, every stage, report",
		Long:    "Detect each input's format, ingest into a dataset (default inside DIR), run every stage that has inputs and write the report.\n" + exitStatusHelp,
		Example: "  wlprof run --out report traces/ logs/",
		Args:    args(cobra.MinimumNArgs(1)),
		RunE:    notBuilt(8),
	}
	cmd.Flags().String("out", "", "report directory")
	return cmd
}
