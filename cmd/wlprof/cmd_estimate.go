package main

import (
	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/estimate"
)

func newEstimateCmd(g *globalOptions) *cobra.Command {
	cmd, _ := stageCommand(g, estimate.Contract, &cobra.Command{
		Use:   "estimate",
		Short: "Slots each job needs to meet its deadline (s_req, s_fit) under the availability the primary tenants leave",
		Long: `The completion-goal estimator of Polo, PhD thesis, UPC 2014 (§3.3–3.4,
§4.2.3, §5.3.4), at the instant --at (default: the latest instant of the
runs table):

  s_req      eq. 1: the slots a job needs in parallel, besides its running
             tasks, to finish its remaining work by its deadline, per phase
             (the time left split among phases by their work), read fluidly;
  s_req_waves
             the fewest slots, besides its running tasks', that finish every
             phase by the deadline when each task holds one slot for µ (in
             waves, §3.4.6): near the deadline it exceeds s_req;
  Ω(t)       the slots left to batch work over the UTC day: the servers of
             the periodic tenants (wlprof classify) less their mean usage in
             each --availability-step bin and --reserve, in slots of
             --slot-cpu (and --slot-memory) of a server; or --availability FILE
             (start_s,slots rows, seconds after midnight);
  s_fit      Alg. 2 over all jobs together: from the last deadline to the
             first, the work that fits between consecutive deadlines in Ω is
             taken off, the earliest job's window running from the next
             placement cycle (--placement-cycle) to its deadline; what is
             left must start in the current cycle;
  late       the tasks that end after the deadline when Ω's slots go to the
             earliest deadline first, one task to a slot for µ; meets_goal
             is no late task (without Ω: some slot count meets the goal);
  utility    eq. 14 with s_fit (eq. 6 with s_req alone) at the allocations
             0…pending tasks, u^M; −∞ (null in JSON) with no slot where one
             is required; utility_reduce is eq. 15's u^R over the reduce
             tasks running and not finished, utility_sum u^M + u^R (eq. 13);
  rank       the placement order of §3.4.1: jobs past their deadline, then
             jobs without data (no µ), then by s_req, largest first.

Deadlines are the next instance of each actionable SLO (wlprof slo, with
--overrides), or deadline_s in --jobs. Task counts and µ per phase come from
the task history ingested from jhist and spark-eventlog (µ: the mean of the
successful attempts), or from --jobs (with µ from the profiling runs when it
gives none: the mean time per task at the published profile's setting); a
phase without µ takes the map's (§3.4.5), with a note. An Alibaba job with
task instances (ingest alibaba2018-batch-instance) takes them as its task
history instead: per task, in the DAG's order, µ is the mean length of its
Terminated instance runs, the task count batch_task's instance_num, and at
--at an instance ended is done and one started and not ended is running
(profile_from and mu_from say so). A job has every task
pending unless a run of it in the task history was in progress at --at (its
attempts then say which tasks are done, running and pending) or --jobs gives
its progress. Jobs without a deadline, a µ in any phase or a task count are
listed as not estimated, with the reason. --job only filters the output.
The rules and the thesis' edge cases are in estimate/doc.go.
` + timesHelp + exitStatusHelp,
		Example: `  wlprof estimate -d ds --jobs jobs.yaml
  wlprof estimate -d ds --at 2024-01-08T06:00:00Z --slot-cpu 0.125 -o json
  wlprof estimate -d ds --availability day.csv --job nightly_etl`,
	})
	completeJob(cmd, g, dataset.RunsTable.Name)
	return cmd
}
