package main

import (
	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/harvest"
)

func newHarvestCmd(g *globalOptions) *cobra.Command {
	cmd, _ := stageCommand(g, harvest.Contract, &cobra.Command{
		Use:   "harvest",
		Short: "Replay a batch workload harvesting the primary tenants' spare cores, with and without their history",
		Long: `What history buys a harvesting scheduler (Zhang et al., OSDI'16 §4, §5, §6):
the primary tenants' real usage (each server's own samples in the usage
table, else their average servers as wlprof classify builds them) is
replayed with a batch workload on their servers, keeping --reserve of
every server's --cores for the primary tenant; when a server's primary
takes cores batch containers hold there, that server kills its youngest
first (NM-H). Killed tasks wait in the queue again with those no core was
free for, first come first served, and every job runs to its end (after
the data ends, every server keeps its last usage).

Three policies run the same jobs. history: Algorithm 1 picks a class for
each job by the headroom its type leaves there (short: 1 − current, medium:
1 − max(mean, current), long: 1 − max(peak, current)) × the ranking
weights, probabilistically, spanning several classes when one cannot hold
the job; classes are recomputed every --reclassify from the data before
it. blind (§6's YARN-PT): any tenant with free cores now. stock (§6's
YARN-Stock): unaware of the primaries, every core of a server, nothing
killed. Each puts a container on a tenant, and a server of it, with
probability proportional to its free cores. The output compares the jobs'
execution times, completed and wasted core-hours, containers killed (per
pattern and per job type), the cores stock took from the primaries, and
states its assumptions.

A job's type (short, medium, long) comes from its run that finished last
before its submission, against
two thresholds: --short-below and --long-above, or derived from the run
durations and the capacity of each type's preferred classes (harvest/
doc.go); a job never seen is medium.

The workload is the dataset's runs table (--workload runs: each run
--containers containers for its duration, or, where the dataset has the
run's stage DAG, the most containers it asks for at once as wlprof dag
gives it), or a synthetic Poisson stream
(--workload poisson, --seed). The same --seed gives the same numbers.
` + timesHelp + exitStatusHelp,
		Example: `  wlprof harvest -d ds
  wlprof harvest -d ds --workload poisson --seed 7 --mean-interarrival 60s
  wlprof harvest -d ds --short-below 173s --long-above 433s --reserve 0.25 -o json`,
	})
	return cmd
}
