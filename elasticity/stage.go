package elasticity

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/profile"
)

// Input is what Run models: profiling runs, as the profruns table holds
// them (Load), from any mix of jobs, tasks and frameworks.
type Input struct {
	Runs []dataset.ProfRun
}

// Load reads the profruns table. A job (opts.Job) with no run in a table
// that has runs is an error naming the closest ones (dataset.ErrUnknownJob);
// Run models only that job's runs.
func Load(ctx context.Context, ds *dataset.Dataset, opts Options) (Input, error) {
	if err := opts.Validate(); err != nil {
		return Input{}, err
	}
	runs, err := dataset.ReadAll(ctx, ds, dataset.ProfRunsTable)
	if err != nil {
		return Input{}, err
	}
	if opts.Job != "" && len(runs) > 0 && !slices.ContainsFunc(runs, func(r dataset.ProfRun) bool { return r.Job == opts.Job }) {
		return Input{}, ds.UnknownJob(ctx, dataset.ProfRunsTable.Name, opts.Job)
	}
	return Input{Runs: runs}, nil
}

// Run fits a model per job, task, framework and slot count (only opts.Job
// when set); groups that give no model are listed in Result.Skipped with
// the reason. ErrNoRuns when no run matches. Run is a plain function of the
// runs; its per-group core is ModelGroup, which a distributed runner calls
// on one group's runs, and Collect puts the groups' outcomes together.
func Run(ctx context.Context, in Input, opts Options) (*Result, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(in.Runs) == 0 {
		return nil, ErrNoRuns
	}
	return build(in.Runs, opts)
}

// Validate reports every option out of range at once.
func (o *Options) Validate() error {
	var errs []error
	if o.GridBytes <= 0 {
		errs = append(errs, fmt.Errorf("elasticity: grid %d bytes: want more than 0", o.GridBytes))
	}
	if o.InputBytes < 0 {
		errs = append(errs, fmt.Errorf("elasticity: input-bytes %d: want 0 (as profiled) or more", o.InputBytes))
	}
	switch o.Fit {
	case "", FitPair, FitLeastSquares:
	default:
		errs = append(errs, fmt.Errorf("elasticity: fit %q: want %s (two settings, the default) or %s (every run)", o.Fit, FitPair, FitLeastSquares))
	}
	for k := range o.Overrides {
		if k == "" {
			errs = append(errs, fmt.Errorf("elasticity: an override has an empty key"))
		}
	}
	return errors.Join(errs...)
}

// Profile adds every model to its job's profile (penalty = runtime /
// ideal runtime − 1 and slowdown = runtime / ideal runtime, as the
// model's curve), with the model's warnings among the job's.
func (r *Result) Profile(jobs profile.Jobs) error {
	for _, m := range r.Models {
		p := jobs.Get(m.Job)
		em := profile.ElasticityModel{Task: m.Task, Framework: m.Framework, Kind: m.Kind, Slots: int(m.Slots), InputBytes: float64(m.InputBytes),
			IdealMemoryBytes: float64(m.IdealMemoryBytes), IdealRuntimeS: m.IdealRuntimeS, DiskBandwidthBytesPerS: m.DiskBandwidthBytesPerS,
			Params: m.Params, Curve: []profile.CurvePoint{}, Warnings: append([]string{}, m.Warnings...)}
		if em.Params == nil {
			em.Params = map[string]float64{}
		}
		for _, pt := range m.Curve {
			em.Curve = append(em.Curve, profile.CurvePoint{MemoryBytes: float64(pt.MemoryBytes), RuntimeS: pt.RuntimeS, Penalty: pt.Penalty,
				Slowdown: pt.Slowdown, SpilledBytes: float64(pt.SpilledBytes), DiskBytesPerS: pt.DiskBytesPS})
		}
		if m.Validation.Runs > 0 {
			em.Validation = &profile.Validation{Runs: m.Validation.Runs, MeanAbsError: m.Validation.MeanAbsError, MaxAbsError: m.Validation.MaxAbsError}
		}
		p.Elasticity = append(p.Elasticity, em)
		for _, w := range m.Warnings {
			p.Warnings = append(p.Warnings, "elasticity "+m.Task+": "+w)
		}
	}
	return nil
}

// Describe says which runs a skipped group was and why it gave no model.
func (s Skipped) Describe() string {
	return fmt.Sprintf("task %s (%s, %d slots, %d runs): %s", s.Task, s.Framework, s.Slots, s.Runs, s.Reason)
}
