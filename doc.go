// Package wlprof is an offline workload analytics and profiling toolkit:
// it turns utilisation traces, job logs, provenance and profiling runs into
// the inputs history-driven schedulers need (tenant classes and headroom,
// inferred SLOs, reservation skylines, memory elasticity models, job
// profiles) and into a report. The command is cmd/wlprof; this package
// holds no code, only this description of how the packages fit together.
//
// # Layout
//
// Arrows point down only:
//
//	cmd/wlprof        flags, opening the dataset, calling stages, printing
//	pipeline          where stages meet: the report, a reservation's window
//	plan simulate estimate harvest dag placement constraints
//	                  what-if stages: what the analysis stages' numbers buy
//	ingest classify slo skyline profiler elasticity reports   the analysis stages
//	kube              an exporter: Kubernetes patches from the dataset and
//	                  the published profile types; imports no stage
//	dataset profile   the store, and the published profile format
//	                  (profile is a module of its own, standard library only)
//
// Analysis stages never import each other; a what-if stage imports the
// analysis stages whose results it replays (plan fits skylines on
// training runs and takes windows from slo; simulate runs elasticity's
// models), never another what-if.
// internal/ holds helpers nobody outside should import.
//
// # The stage surface
//
// Every analysis and what-if stage has the same public surface, stated as
// Go types in internal/stage and checked by the compiler:
//
//	func DefaultOptions() Options
//	func (o *Options) AddFlags(fs *pflag.FlagSet) // every flag, its default from o
//	func (o *Options) Validate() error            // every problem, errors.Join-ed
//	func Load(ctx context.Context, ds *dataset.Dataset, opts Options) (Input, error)
//	func Run(ctx context.Context, in Input, opts Options) (*Result, error)
//	func (r *Result) Document() Document          // -o json; WriteText, WriteCSV
//	func (r *Result) Profile(jobs profile.Jobs) error // stages with per-job numbers
//	var ErrNo... = errors.New("stage: nothing to work on (the remedy)")
//	var Contract = stage.Define("name", DefaultOptions, Load, Run, (*Result).Document, ErrNo...)
//
// Options.Job, where the stage has jobs, keeps one job. Load only reads
// and Run only computes; classify's series table, the one thing a stage
// stores, is built and stored by its explicit step classify.Series, which
// classify.Load calls. Each stage's contract_test.go pins the types and
// runs stagetest.Check; internal/stage's surface test finds every package
// with Load and Run and checks it has the whole surface. cmd/wlprof runs
// every stage command through one function (runStage), and both binaries,
// and the report's sections (stage.AddPrefixed), declare a stage's flags
// through its AddFlags only.
//
// Input is plain data, so a distributed runner can build it for one key
// and call the stage's per-key core: classify.Analyse (one tenant's series,
// built from merged classify.Partials; classify.Combine then does the classes),
// skyline.FitJob (one job's runs, built by skyline.JobFromRows; then
// skyline.Collect), elasticity.ModelGroup (one group's runs; then
// elasticity.Collect). cmd/wlprof-beam calls them on workers. The
// profiler, whose input is a command, has no Load. Process-wide settings
// (GC pace, memory limits) are the program's, never a stage's.
//
// For example, fitting and publishing skylines:
//
//	opts := skyline.DefaultOptions()
//	in, err := skyline.Load(ctx, ds, opts)
//	if err != nil {
//		return err
//	}
//	res, err := skyline.Run(ctx, in, opts)
//	if err != nil {
//		return err
//	}
//	jobs := profile.Jobs{}
//	if err := res.Profile(jobs); err != nil {
//		return err
//	}
//	for _, id := range jobs.IDs() {
//		err := jobs[id].WriteFile(filepath.Join(dir, profile.FileName(id)))
//		...
//	}
package wlprof
