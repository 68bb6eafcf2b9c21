package main

import "github.com/spf13/cobra"

func newExportCmd(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "export",
		Short:   "Export results for other systems (YARN reservations)",
		Long:    "Export results in the formats other systems load.\n" + exitStatusHelp,
		Example: "  wlprof export yarn-reservation --job etl-daily --queue dedicated",
		Args:    args(cobra.NoArgs),
	}
	yarn := &cobra.Command{
		Use:     "yarn-reservation",
		Short:   "Print a YARN ReservationSubmissionRequest for a job's skyline",
		Long:    "Print the ReservationSubmissionRequest JSON of the ResourceManager REST API for a job's fitted skyline.\n" + exitStatusHelp,
		Example: "  wlprof export yarn-reservation --job etl-daily --queue dedicated",
		Args:    args(cobra.NoArgs),
		RunE:    notBuilt(5),
	}
	yarn.Flags().String("job", "", "job id")
	yarn.Flags().String("queue", "", "reservation queue")
	cmd.AddCommand(yarn)
	return cmd
}
