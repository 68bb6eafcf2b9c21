package main

import "github.com/spf13/cobra"

func newReportCmd(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "report",
		Short:   "Write profile files, plots and the HTML report",
		Long:    "Write per-job profile files, tenants.json, plots and a self-contained index.html into DIR.\n" + exitStatusHelp,
		Example: "  wlprof report -d ds --out report\n  wlprof report -d ds --out report -o json",
		Args:    args(cobra.NoArgs),
		RunE:    notBuilt(8),
	}
	cmd.Flags().String("out", "", "report directory")
	return cmd
}
