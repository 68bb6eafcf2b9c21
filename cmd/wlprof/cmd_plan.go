package main

import (
	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/plan"
)

func newPlanCmd(g *globalOptions) *cobra.Command {
	cmd, _ := stageCommand(g, plan.Contract, &cobra.Command{
		Use:   "plan",
		Short: "Pack the recurring jobs' reservations (LowCost) and replay held-out runs against them",
		Long: `What the fitted skylines buy (Jyothi et al., OSDI'16 §6, §7, §9): every recurring job with
skylines and a window — an actionable SLO from the slo stage, or period_s,
arrival_s and deadline_s in --overrides — is fitted on the first runs (the
latest --holdout share is held out) and its reservation packed with LowCost
over the LCM of the periods (at most --lcm-cap): stages in reverse order,
containers one at a time (a minimum parallelism of one) on the cheapest
step, the allocation contiguous and inside the window, every instance of a
job at the same offset. The footprint (the peak of the packed load) is
shown beside the naive plan (each skyline at its arrival) and a lower
bound; a job whose packing would raise the footprint above naive keeps its
naive placement.

With --capacity the cost of a step is its largest share of a resource the
capacity names (§6: c(t) = max over resources of load/capacity): containers,
memory, cores. A container's memory and vcores in each step of a skyline
are the largest per container among the training runs' samples in that
step (the skylines table's memory_bytes and vcores). LowCost then minimises
the peak share, and the footprint, naive plan and lower bound are also given
as shares of the capacity, with the memory and vcores peaks.

The held-out runs are then replayed against the reservation alone (no
opportunistic capacity, §9's worst case): a run misses its deadline when
work is left at it, with and without dynamic reprovisioning (DRA: up to
2 × the last 2 minutes' largest allocation when the run's usage and debt
exceed the reservation, up to the deadline: past the reservation's end it
stretches it, capped by its last 2 minutes). The α trade-off refits every job at several α and
replays the held-out runs against each skyline at its arrival.

Offsets and windows are seconds from the start of the job's period;
allocations are containers per --step.
` + timesHelp + exitStatusHelp,
		Example: `  wlprof plan -d ds
  wlprof plan -d ds --overrides slo.yaml --holdout 0.3 -o json
  wlprof plan -d ds --step 5s --lcm-cap 1h
  wlprof plan -d ds --capacity containers=5000,memory=20T,cores=10000`,
	})
	completeModel(cmd)
	completeJob(cmd, g, dataset.SkylinesTable.Name)
	return cmd
}
