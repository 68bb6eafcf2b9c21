package main

import (
	"context"
	"time"

	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/harvest"
	"github.com/wlprof/wlprof/internal/timeflag"
)

type harvestOptions struct {
	g     *globalOptions
	Opts  harvest.Options
	Step  time.Duration
	Short time.Duration
	Long  time.Duration
}

func newHarvestCmd(g *globalOptions) *cobra.Command {
	o := &harvestOptions{g: g, Opts: harvest.DefaultOptions()}
	def := harvest.DefaultOptions()
	cmd := &cobra.Command{
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
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runHarvest(cmd.Context(), o) },
	}
	f := cmd.Flags()
	f.Uint64Var(&o.Opts.Seed, "seed", def.Seed, "seed of every random draw (placements, the Poisson stream)")
	f.Float64Var(&o.Opts.Reserve, "reserve", def.Reserve, "share of each server's cores kept for the primary tenant")
	f.IntVar(&o.Opts.Cores, "cores", def.Cores, "cores of a server")
	f.StringVar(&o.Opts.Workload, "workload", def.Workload, "batch jobs from the dataset's runs table (runs) or a synthetic Poisson stream (poisson)")
	f.Var(timeflag.NewDuration(&o.Short, 0), "short-below", "jobs whose last run was shorter are short (with --long-above; default: derived)")
	f.Var(timeflag.NewDuration(&o.Long, 0), "long-above", "jobs whose last run was longer are long (with --short-below; default: derived)")
	f.Var(timeflag.NewDuration(&o.Opts.Window, def.Window), "window", "replay this much of the data, up to its end (0: all of it; a classification per --reclassify in it)")
	f.Var(timeflag.NewDuration(&o.Opts.Reclassify, def.Reclassify), "reclassify", "classify the tenants again at every multiple of this, from the data before it")
	f.Var(timeflag.NewDuration(&o.Opts.ClassifyWindow, def.ClassifyWindow), "classify-window", "each classification sees this much of the data before it (the paper's month; 0: all of it)")
	f.IntVar(&o.Opts.Containers, "containers", def.Containers, "containers of each run of the runs table (it records none)")
	f.Var(timeflag.NewDuration(&o.Opts.MeanInterarrival, def.MeanInterarrival), "mean-interarrival", "poisson: mean time between job arrivals")
	f.IntVar(&o.Opts.PoissonJobs, "poisson-jobs", def.PoissonJobs, "poisson: recurring jobs the arrivals are runs of")
	f.Var(timeflag.NewDuration(&o.Opts.MinDuration, def.MinDuration), "min-duration", "poisson: shortest typical job duration")
	f.Var(timeflag.NewDuration(&o.Opts.MaxDuration, def.MaxDuration), "max-duration", "poisson: longest typical job duration")
	f.IntVar(&o.Opts.MaxContainers, "max-containers", def.MaxContainers, "poisson: most containers of a job")
	f.Var(timeflag.NewDuration(&o.Step, 0), "step", "grid step of the tenants' series (as wlprof classify)")
	f.BoolVar(&o.Opts.AverageServers, "average-servers", false, "decide free cores and kills on each tenant's average server, not each server's own usage")
	return cmd
}

func runHarvest(ctx context.Context, o *harvestOptions) error {
	g := o.g
	opts := o.Opts
	opts.ShortBelow, opts.LongAbove, opts.Classify.Step = o.Short, o.Long, o.Step
	if err := opts.Validate(); err != nil {
		return usageError{err}
	}
	ds, err := dataset.Open(g.Dataset)
	if err != nil {
		return err
	}
	in, err := harvest.Load(ctx, ds, opts)
	if err != nil {
		return err
	}
	res, err := harvest.Run(ctx, in, opts)
	if err != nil {
		return err
	}
	return printDoc(g, res, res.WriteCSV, res.WriteText)
}
