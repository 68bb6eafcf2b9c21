package main

import (
	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/slo"
)

func newSLOCmd(g *globalOptions) *cobra.Command {
	cmd, _ := stageCommand(g, slo.Contract, &cobra.Command{
		Use:   "slo",
		Short: "Infer deadlines (SLOs) of recurring jobs from data provenance",
		Long: `Build the provenance graph of jobs and files, find recurring jobs and their
period, and infer each job's arrival and deadline from when its inputs appear
and when consumers read its outputs (Morpheus, Jyothi et al., OSDI'16 §4).

Reads the runs table (yarn-rm, openlineage) and the provenance table
(hdfs-audit, openlineage). Offsets (arrival, deadline, start, end) are from
the start of the job's period: UTC midnight for daily jobs, the top of the
hour for hourly ones. A job is actionable when its output is read at a
stable time (CV = MAD/median of T_outRead ≤ --max-read-cv) with enough slack
(median (T_outRead − T_end)/(T_end − T_start) ≥ --min-slack); the reason
says why not otherwise. An overrides file (JSON, or YAML by extension) signs
off, corrects or rejects inferred SLOs; see the slo package documentation.
` + exitStatusHelp,
		Example: "  wlprof slo -d ds\n  wlprof slo -d ds --percentiles 95,50 -o json\n  wlprof slo -d ds --overrides signoff.yaml --job 'daily_sales <date>'",
	})
	return cmd
}
