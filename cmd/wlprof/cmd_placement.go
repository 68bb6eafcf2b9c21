package main

import (
	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/placement"
)

func newPlacementCmd(g *globalOptions) *cobra.Command {
	cmd, _ := stageCommand(g, placement.Contract, &cobra.Command{
		Use:   "placement",
		Short: "Cluster the primary tenants into Harvest's (Zhang et al., OSDI'16) 3 × 3 reimage × peak classes of equal storage",
		Long: `The replica-placement classes of Zhang et al., OSDI'16 (§3, §4.2 Algorithm 2): per
primary tenant, the rate of disruptive events per server per month and its
peak CPU utilisation, then nine classes — infrequent / intermediate /
frequent reimages × low / medium / high peak — each holding as close to
S/9 of the harvestable storage as whole tenants allow (one class per
tenant). Algorithm 2 puts a block's replicas in classes of distinct rows
and columns.

The traces record no reimages: a machine's REMOVE event (a REMOVE→ADD
cycle, or a removal never undone) stands in for one. Machines are the
usage table's servers of the same id (ingest google2019-machine-events or
alibaba2018-machine-meta beside the usage); a server belongs to the tenant
with the most CPU on it. The peak is the classify stage's (99th
percentile of the tenant's average server). Every server offers
--server-storage (no trace records disk capacity). The cut rule is in
placement/doc.go; the output states its assumptions.

Group stability (the share of tenants that keep their reimage group from
one --stability-window to the next, §3 Fig. 6) needs two whole windows;
a shorter trace says so.

The replay (§6, Fig. 15/16; --blocks 0 skips it) writes --blocks blocks
of --replicas replicas at the start under stock HDFS placement (writer,
same rack, another rack) and under Algorithm 2 (classes of distinct rows
and columns), replays the machines' removals (a REMOVE destroys the
replicas on it) and the tenants' busy periods (a replica is unavailable
while its tenant's CPU is above --busy), re-replicates a lost replica
--detect after the loss at --blocks-per-hour per source server, and
counts blocks lost and failed accesses, mean and spread over --seeds
seeds from --seed. The same seeds give the same numbers.
` + timesHelp + exitStatusHelp,
		Example: `  wlprof placement -d ds
  wlprof placement -d ds --server-storage 8TB --stability-window 2d -o json
  wlprof placement -d ds --blocks 100000 --seeds 10 --detect 30m`,
	})
	return cmd
}
