package main

import (
	"context"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/wlprof/wlprof/constraints"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/estimate"
	"github.com/wlprof/wlprof/harvest"
	"github.com/wlprof/wlprof/internal/gcfloor"
	"github.com/wlprof/wlprof/internal/stage"
	"github.com/wlprof/wlprof/internal/timeflag"
	"github.com/wlprof/wlprof/pipeline"
	"github.com/wlprof/wlprof/placement"
	"github.com/wlprof/wlprof/reports"
	"github.com/wlprof/wlprof/simulate"
	"github.com/wlprof/wlprof/skyline"
	"github.com/wlprof/wlprof/slo"
)

type reportOptions struct {
	g       *globalOptions
	fit     skyline.Options
	Out     string
	Title   string
	Inline  int
	Workers int
	AllPNG  bool
	// YARNQueue, when set, writes reservations/<job>.json.
	YARNQueue string
	// slo holds --overrides, the slo stage's own flag (user sign-offs).
	slo            slo.Options
	MaxPeriodicity time.Duration
	// Sim are the simulate section's options (its workload and cluster),
	// their flags the stage's own under --simulate-; SimHistory replays
	// the dataset's job history instead of --simulate-trace.
	Sim        simulate.Options
	SimHistory bool
	// Estimate adds the estimate section, with Est (the stage's flags
	// under --estimate-).
	Estimate bool
	Est      estimate.Options
	// JobTypes adds each job's length type to its profile; Harvest the
	// harvest section, with Harv (the stage's flags under --harvest-).
	JobTypes bool
	Harvest  bool
	Harv     harvest.Options
	// Placement adds the replica-placement section, with Place (the
	// stage's flags that matter most, under --placement-).
	Placement bool
	Place     placement.Options
	// flags tells which section flags were given: one implies its section.
	flags *pflag.FlagSet
	// Constraints adds the constraints section, with Cons (the stage's
	// flags under --constraints-).
	Constraints bool
	Cons        constraints.Options
	// The answers' options: the sizing's target, cores per server and
	// the cluster's capacity in containers.
	TargetMakespan     time.Duration
	ServerCores        int
	CapacityContainers int64
}

// newReportOptions are the report's defaults: the skyline stage's fit,
// with each job's α trade-off drawn at four α.
func newReportOptions(g *globalOptions) reportOptions {
	fit := skyline.DefaultOptions()
	fit.AlphaSweep = []float64{0.01, 0.1, 0.5, 0.9}
	return reportOptions{g: g, fit: fit}
}

func newReportCmd(g *globalOptions) *cobra.Command {
	ro := newReportOptions(g)
	o := &ro
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Write profile files, plots and the HTML report",
		Long: `Run the analysis stages on the dataset and write, into DIR:

  profiles/<job>.json  one profile per recurring job (format and JSON Schema:
                       package github.com/wlprof/wlprof/profile)
  tenants.json         tenant classes, headroom and ranking weights
  plots/               every figure as SVG; as PNG too for the summary figures
                       and the --inline-jobs jobs (all with --all-png)
  index.html           the report: self-contained, no network fetches
  index.json           the index of what was written (what -o json prints)
  reservations/        with --yarn-queue: a YARN ReservationSubmissionRequest
                       per fitted job (as wlprof export yarn-reservation)

The report is written to a temporary directory next to DIR and then
replaces DIR as a whole: readers see the old report or the new one, never a
mix. DIR must be missing, empty or an earlier report.

Stages that have no results in the dataset are shown as "not computed"
with the reason. Skylines are fitted here with the
flags of wlprof skyline; --alpha-sweep draws each job's over- against
under-allocation trade-off ("" to skip it).
` + timesHelp + exitStatusHelp,
		Example: `  wlprof report -d ds --out report
  wlprof report -d ds --out report --step 5s -o json
  wlprof report -d ds --out report --alpha-sweep "" --inline-jobs 10
  wlprof report -d ds --out report --yarn-queue dedicated
  wlprof report -d ds --out report --placement --placement-stability-window 2d`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runReport(cmd.Context(), o) },
	}
	cmd.Flags().StringVar(&o.Out, "out", "", "report directory (required)")
	o.bindReportFlags(cmd)
	return cmd
}

// bindReportFlags adds the flags of the report stage (wlprof report and
// wlprof run): the skyline fit's, the title, figures and reservations.
func (o *reportOptions) bindReportFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	stage.AddOnly(f, o.fit.AddFlags, slices.Concat(skyline.FitFlags, []string{"alpha-sweep"})...)
	f.Lookup("alpha-sweep").Usage = "alphas of each job's trade-off figure, comma-separated (\"\": none)"
	completeModel(cmd)
	f.StringVar(&o.Title, "title", "", "title of index.html (default: wlprof report of DATASET)")
	f.IntVar(&o.Inline, "inline-jobs", reports.DefaultOptions().InlineJobs, "jobs whose figures index.html shows inline (largest reservations first)")
	f.StringVar(&o.YARNQueue, "yarn-queue", "", "write each fitted job's YARN reservation request for this queue")
	stage.AddPrefixed(f, "", "(the slo stage's, as wlprof slo --overrides)", o.slo.AddFlags, "overrides")
	f.Var(timeflag.NewDuration(&o.MaxPeriodicity, 24*time.Hour), "max-periodicity", "the RM's reservation-system max-periodicity (with --yarn-queue)")
	f.BoolVar(&o.AllPNG, "all-png", false, "write every job's figures as PNG too (slower: a PNG costs about 3 SVGs)")
	f.IntVar(&o.Workers, "workers", 0, "jobs fitted and figures drawn at once (0: one per core)")
	// The simulate section's flags are wlprof simulate's own, with its
	// defaults: the report's cluster is the stage's default one.
	o.Sim = simulate.DefaultOptions()
	stage.AddPrefixed(f, "simulate-", "(with it, or --simulate-history, the report adds the simulate section: the workload under YARN and YARN-ME, as wlprof simulate)", o.Sim.AddFlags, "trace")
	stage.AddPrefixed(f, "simulate-", "(the simulate section's cluster, as wlprof simulate's; of several, the first)", o.Sim.AddFlags, "nodes", "node-memory", "node-shapes")
	stage.AddPrefixed(f, "simulate-", "(the simulate section, as wlprof simulate's)", o.Sim.AddFlags, "default-model", "alibaba-machine-memory")
	f.BoolVar(&o.SimHistory, "simulate-history", false, "add the simulate section: the dataset's own job history (task attempts of .jhist files and Spark logs) under YARN and YARN-ME (as wlprof simulate without --trace)")
	f.BoolVar(&o.Estimate, "estimate", false, "add the estimate section: s_req, s_fit and the availability Ω(t) per job (as wlprof estimate)")
	o.Est = estimate.DefaultOptions()
	stage.AddPrefixed(f, "estimate-", "(the estimate section's, as wlprof estimate's; implies --estimate)", o.Est.AddFlags, "jobs", "at", "slot-cpu")
	f.BoolVar(&o.JobTypes, "job-types", false, "add each job's length type (short, medium, long: Zhang et al., OSDI'16 §4.1, as wlprof harvest derives them) to its profile")
	f.BoolVar(&o.Harvest, "harvest", false, "add the harvesting what-if section: the job runs replayed on the primary tenants' spare cores, by class history and blind (as wlprof harvest)")
	o.Harv = harvest.DefaultOptions()
	stage.AddPrefixed(f, "harvest-", "(the harvest section's, as wlprof harvest's; implies --harvest)", o.Harv.AddFlags, "workload", "window")
	f.BoolVar(&o.Placement, "placement", false, "add the replica-placement section: the 3 × 3 classes (Zhang et al., OSDI'16 §4.2) of the primary tenants and the durability replay of stock HDFS against Algorithm 2 (as wlprof placement; needs machine events)")
	o.Place = placement.DefaultOptions()
	stage.AddPrefixed(f, "placement-", "(the placement section's, as wlprof placement's; implies --placement)", o.Place.AddFlags, "server-storage", "blocks", "seeds", "stability-window")
	o.flags = f
	f.BoolVar(&o.Constraints, "constraints", false, "add the placement constraints section: constraint table, demand over supply per attribute, M/G/1 waits (as wlprof constraints)")
	o.Cons = constraints.DefaultOptions()
	stage.AddPrefixed(f, "constraints-", "(the constraints section's, as wlprof constraints --window)", o.Cons.AddFlags, "window")
	f.Var(timeflag.NewDuration(&o.TargetMakespan, 0), "target-makespan", "answer how big the cluster must be: the smallest cluster of the simulated node shape that runs the simulate section's workload within this time, under stock YARN and YARN-ME")
	f.IntVar(&o.ServerCores, "server-cores", 0, "cores per server of the primary tenants, for the spare cores (0: harvest's 12, the servers of Zhang et al., OSDI'16 §6)")
	f.Int64Var(&o.CapacityContainers, "capacity-containers", 0, "the cluster's capacity in containers: the reservations' footprint is shown as a share of it (0: unknown)")
}

// asked reports whether a section was asked for: its switch, or any of
// its flags given.
func (o *reportOptions) asked(on bool, prefix string) bool {
	if on {
		return true
	}
	given := false
	o.flags.Visit(func(f *pflag.Flag) { given = given || strings.HasPrefix(f.Name, prefix) })
	return given
}

// estimateOpts is the estimate section's options, nil when not asked for.
func (o *reportOptions) estimateOpts() (*estimate.Options, error) {
	if !o.asked(o.Estimate, "estimate-") {
		return nil, nil
	}
	eo := o.Est
	if err := eo.Validate(); err != nil {
		return nil, usageError{err}
	}
	eo.SLO.OverridesFile = o.slo.OverridesFile
	if err := eo.ReadFiles(); err != nil {
		return nil, err
	}
	return &eo, nil
}

func runReport(ctx context.Context, o *reportOptions) error {
	g := o.g
	if o.Out == "" {
		return usagef("--out DIR is required")
	}
	if err := o.checkCounts(); err != nil {
		return err
	}
	// The destination is checked before the work, not after it.
	if err := reports.CheckDir(o.Out); err != nil {
		return err
	}
	po, err := o.pipeline(g)
	if err != nil {
		return err
	}
	ds, err := dataset.Open(g.Dataset)
	if err != nil {
		return err
	}
	in, err := pipeline.Report(ctx, ds, po)
	if err != nil {
		return err
	}
	tenants := 0
	if in.Tenants != nil && in.Tenants.File != nil {
		tenants = len(in.Tenants.File.Tenants)
	}
	g.progressf("report: %d jobs, %d tenants; writing %s\n", len(in.Jobs), tenants, o.Out)
	idx, err := reports.Write(o.Out, in, o.figures())
	if err != nil {
		return err
	}
	return printDoc(g, idx, idx.WriteCSV, idx.WriteText)
}

// checkCounts checks the counts among the report's flags; the fit uses
// the report's workers.
func (o *reportOptions) checkCounts() error {
	if o.Inline < 0 || o.Workers < 0 {
		return usagef("--inline-jobs and --workers must be 0 or more")
	}
	o.fit.Workers = o.Workers
	return nil
}

// pipeline are the options of the stages the report runs.
func (o *reportOptions) pipeline(g *globalOptions) (pipeline.Options, error) {
	fit := o.fit
	if err := fit.Validate(); err != nil {
		return pipeline.Options{}, usageError{err}
	}
	sim, err := pipeline.SimulateSection(o.Sim, o.SimHistory)
	if err != nil {
		return pipeline.Options{}, usageError{err}
	}
	est, err := o.estimateOpts()
	var types *harvest.Options
	if o.JobTypes {
		ho := harvest.DefaultOptions()
		types = &ho
	}
	var harv *harvest.Options
	if o.asked(o.Harvest, "harvest-") {
		ho := o.Harv
		if verr := ho.Validate(); verr != nil && err == nil {
			err = usageError{verr}
		}
		harv = &ho
	}
	place, perr := o.placementOpts()
	if perr != nil && err == nil {
		err = perr
	}
	var cons *constraints.Options
	if o.Constraints {
		co := o.Cons
		if verr := co.Validate(); verr != nil && err == nil {
			err = usageError{verr}
		}
		cons = &co
	}
	if (o.TargetMakespan < 0 || o.ServerCores < 0 || o.CapacityContainers < 0) && err == nil {
		err = usagef("--target-makespan, --server-cores and --capacity-containers must be 0 or more")
	}
	return pipeline.Options{Title: o.Title, Constraints: cons, Planner: pipeline.PlannerOptions{TargetMakespan: o.TargetMakespan, ServerCores: o.ServerCores,
		CapacityContainers: o.CapacityContainers, Dataset: g.Dataset}, Skyline: fit, SLOOverrides: o.slo.OverridesFile,
		YARNQueue: o.YARNQueue, MaxPeriodicity: o.MaxPeriodicity, Around: g.stage, Simulate: sim, Estimate: est, JobTypes: types, Harvest: harv,
		Placement: place}, err
}

// placementOpts is the placement section's options, nil when not asked
// for.
func (o *reportOptions) placementOpts() (*placement.Options, error) {
	if !o.asked(o.Placement, "placement-") {
		return nil, nil
	}
	po := o.Place
	if err := po.Validate(); err != nil {
		return nil, usageError{err}
	}
	return &po, nil
}

// figures are the options the report is written with.
func (o *reportOptions) figures() reports.Options {
	ropts := reports.DefaultOptions()
	ropts.InlineJobs, ropts.Workers, ropts.AllPNG = o.Inline, o.Workers, o.AllPNG
	return ropts
}

// tuneStage runs a stage with the process-wide settings it runs best with.
// classify: when the series are built, the live heap is every tenant's
// series (1.7 GB at 10,000 tenants × 30 days), pointer-free float arrays
// that are cheap to mark, so collecting at 25% growth instead of 100%
// keeps peak memory near the data's size for little CPU; never less than
// 64 MB apart, or a small heap is collected every few megabytes (a
// 1,000-tenant classify: 4 collections instead of 18, 10 ms of collector
// CPU instead of 110-280, and no more memory). slo: most of the
// heap is Arrow read buffers dropped batch after batch; a soft limit makes
// the collector reclaim them before resident memory doubles (the state
// kept across the stream is bounded by the slo stage's horizon). ingest
// allocates batches at a high rate and keeps little alive: the collector
// runs less often (GOGC 400), bounded by a soft memory limit so that
// resident memory stays well under 1 GiB.
func tuneStage(stage string, run func() error) error {
	switch stage {
	case "ingest":
		defer debug.SetGCPercent(debug.SetGCPercent(400))
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(768 << 20))
	case reports.StageClassify:
		defer gcfloor.Set(25, 64<<20)()
	case reports.StageSLO:
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(1 << 30))
	}
	return run()
}
