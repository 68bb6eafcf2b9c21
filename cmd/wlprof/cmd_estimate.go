package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/estimate"
	"github.com/wlprof/wlprof/internal/timeflag"
)

type estimateOptions struct {
	g            *globalOptions
	Job          string
	AtMs         int64
	at           *timeflag.Instant
	SlotCPU      float64
	SlotMemory   float64
	Reserve      float64
	Step         time.Duration
	Cycle        time.Duration
	Availability string
	Jobs         string
	Overrides    string
}

func newEstimateCmd(g *globalOptions) *cobra.Command {
	o := &estimateOptions{g: g}
	def := estimate.DefaultOptions()
	cmd := &cobra.Command{
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
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runEstimate(cmd.Context(), o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.Job, "job", "", "show only this job (s_fit is still computed over every job)")
	o.at = timeflag.NewInstant(&o.AtMs)
	f.Var(o.at, "at", "instant of the estimate (default: the latest submit, start or end in the runs table)")
	f.Float64Var(&o.SlotCPU, "slot-cpu", def.SlotCPU, "a slot's CPU, as a share of a server")
	f.Float64Var(&o.SlotMemory, "slot-memory", def.SlotMemory, "a slot's memory, as a share of a server (0: memory does not bound the slots)")
	f.Float64Var(&o.Reserve, "reserve", def.Reserve, "share of every server kept from batch work")
	f.Var(timeflag.NewDuration(&o.Step, def.AvailabilityStep), "availability-step", "bin of the daily availability profile; divides a day")
	f.Var(timeflag.NewDuration(&o.Cycle, def.PlacementCycle), "placement-cycle", "period of the scheduler's placement cycle: s_fit is what must start in the current one (Polo, PhD thesis, UPC 2014, §4.2.2: tens of seconds)")
	f.StringVar(&o.Availability, "availability", "", "the daily availability instead of the periodic tenants': CSV start_s,slots")
	f.StringVar(&o.Jobs, "jobs", "", "deadlines, phases and progress the data lack (JSON or YAML; see estimate/jobsfile.go)")
	f.StringVar(&o.Overrides, "overrides", "", "the slo stage's overrides file (JSON or YAML), as wlprof slo --overrides")
	completeJob(cmd, g, dataset.RunsTable.Name)
	return cmd
}

func runEstimate(ctx context.Context, o *estimateOptions) error {
	g := o.g
	opts := estimate.DefaultOptions()
	opts.Job, opts.AtMs, opts.SlotCPU, opts.SlotMemory, opts.Reserve, opts.AvailabilityStep, opts.AvailabilityFile =
		o.Job, o.AtMs, o.SlotCPU, o.SlotMemory, o.Reserve, o.Step, o.Availability
	opts.PlacementCycle = o.Cycle
	opts.AtSet = o.at != nil && o.at.Given // --at 1970-01-01T00:00:00Z is the epoch, not "no --at"
	var errs []error
	if err := opts.Validate(); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return usageError{errors.Join(errs...)}
	}
	if errs := (estimate.Flags{Jobs: o.Jobs, Overrides: o.Overrides}).Apply(&opts); len(errs) > 0 {
		return errors.Join(errs...)
	}
	ds, err := dataset.Open(g.Dataset)
	if errors.Is(err, dataset.ErrNoDataset) && o.Jobs != "" {
		g.progressf("note: no dataset at %s: deadlines and phases from --jobs only\n", g.Dataset)
		ds, err = nil, nil
	}
	if err != nil {
		return err
	}
	in, err := estimate.Load(ctx, ds, opts)
	if err != nil {
		return err
	}
	if o.Job != "" && !known(in, o.Job) {
		if ds != nil {
			return ds.UnknownJob(ctx, dataset.RunsTable.Name, o.Job)
		}
		return fmt.Errorf("job %q is not in --jobs", o.Job)
	}
	if len(in.Jobs) == 0 && len(in.NotEstimated) == 0 {
		return fmt.Errorf("%s has no jobs to estimate: ingest job runs and task history (jhist, spark-eventlog), or give --jobs", g.Dataset)
	}
	res, err := estimate.Run(ctx, in, opts)
	if err != nil {
		return err
	}
	return printDoc(g, res, res.WriteCSV, res.WriteText)
}

func known(in estimate.Input, job string) bool {
	for _, j := range in.Jobs {
		if j.Job == job {
			return true
		}
	}
	for _, j := range in.NotEstimated {
		if j.Job == job {
			return true
		}
	}
	return false
}
