package skyline

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/profile"
)

// Input is what Run fits: the runs of every recurring job, as Load reads
// them from the skylines table.
type Input struct {
	Jobs []Job
}

// Load reads the skylines table into jobs, sorted by job and run (only
// opts.Job when it is set: a job with no skylines is then an error naming
// the closest ones, dataset.ErrUnknownJob); see JobFromRows for how a run
// ingested twice is combined.
func Load(ctx context.Context, ds *dataset.Dataset, opts Options) (Input, error) {
	if err := opts.Validate(); err != nil {
		return Input{}, err
	}
	jobs, err := loadJobs(ctx, ds, opts.Job)
	if err != nil {
		return Input{}, err
	}
	if opts.Job != "" && len(jobs) == 0 {
		return Input{}, ds.UnknownJob(ctx, dataset.SkylinesTable.Name, opts.Job)
	}
	return Input{Jobs: jobs}, nil
}

// Run fits every job of in with at least opts.MinRuns runs, in parallel
// (opts.Workers), and refits each at every α of opts.AlphaSweep. Jobs with
// too few runs are skipped with the reason, and so are jobs whose runs
// cannot be fitted (ErrEmptyRun, ErrBadSample, ErrInfeasible, ErrTimeLimit)
// when opts.SkipBadJobs is set (DefaultOptions sets it);
// any other failure fails the whole call with every job's error (no partial
// result). The per-job core is FitJob, a plain function of one job's runs
// (Solve and the sweep), and Collect puts the jobs' outcomes together.
//
// With opts.Job set, that job having fewer than opts.MinRuns runs is an
// error (ErrTooFewRuns), not a skip: it was asked for by name. Unless
// opts.AllowNoFit, an Input without jobs is ErrNoSkylines and a call that
// fitted no job while some failed on their data fails with their errors
// (see AllowNoFit).
func Run(ctx context.Context, in Input, opts Options) (*Result, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if len(in.Jobs) == 0 && !opts.AllowNoFit {
		return nil, ErrNoSkylines
	}
	if opts.Job != "" && len(in.Jobs) == 1 && len(in.Jobs[0].Runs) < opts.MinRuns {
		return nil, fmt.Errorf("job %s: %w: %d, need %d (--min-runs)", opts.Job, ErrTooFewRuns, len(in.Jobs[0].Runs), opts.MinRuns)
	}
	res, err := fitAll(ctx, in.Jobs, opts)
	if err != nil {
		return nil, err
	}
	if !opts.AllowNoFit {
		if err := res.nothingFitted(); err != nil {
			return nil, err
		}
	}
	res.input = make(map[string]Job, len(in.Jobs))
	for _, j := range in.Jobs {
		res.input[j.ID] = j
	}
	return res, nil
}

// nothingFitted is the error of a fit in which no job could be fitted and
// some job failed on its data (a step too fine, a time limit): the
// options, not one job, are then at fault. Jobs skipped only for having
// too few runs are a result, listed as such.
func (r *Result) nothingFitted() error {
	if len(r.Jobs) > 0 {
		return nil
	}
	var errs []error
	for _, s := range r.Skipped {
		if s.Err != nil {
			errs = append(errs, s.Err)
		}
	}
	return errors.Join(errs...)
}

// NothingFitted is nothingFitted on a document read back from JSON, where
// the skip errors are their reasons and a job skipped with at least minRuns
// runs failed on its data: what a distributed runner, which gets the
// document, checks as Run does.
func (d Document) NothingFitted(minRuns int) error {
	if d.Result == nil || len(d.Jobs) > 0 {
		return nil
	}
	var errs []error
	for _, s := range d.Skipped {
		if s.Runs >= minRuns {
			errs = append(errs, errors.New(s.Reason))
		}
	}
	return errors.Join(errs...)
}

// RunSteps returns the runs of a fitted job as the fit saw them: run ids
// and containers per step of the fit's step, aligned at each run's start.
func (r *Result) RunSteps(f *Fit) ([]string, [][]float64, error) {
	job := r.input[f.Job]
	c, err := Quantise(job.Runs, f.StepS)
	if err != nil {
		return nil, nil, fmt.Errorf("job %s: %w", f.Job, err)
	}
	ids := make([]string, len(job.Runs))
	for i, run := range job.Runs {
		ids[i] = run.ID
	}
	return ids, c, nil
}

// Profile sets the skyline section of every fitted job's profile (and a
// warning on every skipped one), and counts the skylines table among the
// job's sources.
func (r *Result) Profile(jobs profile.Jobs) error {
	for _, f := range r.Jobs {
		p := jobs.Get(f.Job)
		p.Skyline = f.section()
		p.Warnings = append(p.Warnings, f.Warnings...)
		p.Identity.Sources = append(p.Identity.Sources, "skylines")
		p.Identity.Runs = max(p.Identity.Runs, f.Runs)
	}
	for _, s := range r.Skipped {
		p := jobs.Get(s.Job)
		p.Warnings = append(p.Warnings, "skyline not fitted: "+s.Reason)
		p.Identity.Sources = append(p.Identity.Sources, "skylines")
		p.Identity.Runs = max(p.Identity.Runs, s.Runs)
	}
	return nil
}

// section is the profile's skyline section of a fit.
func (f *Fit) section() *profile.Skyline {
	used := f.UsedAreaContainerS
	sk := &profile.Skyline{Runs: f.Runs, StepS: f.StepS, Alpha: f.Alpha, Beta: f.Beta, Model: string(f.Model),
		Containers: f.Containers, Reservation: f.Reservation, Objective: f.Objective,
		OverAllocation: f.OverAllocation, UnderAllocation: f.UnderAllocation,
		UsedAreaContainerS: used, ProvisioningRatio: f.ProvisioningRatio, Warnings: f.Warnings}
	for _, r := range f.Reservation {
		sk.PeakReservation = max(sk.PeakReservation, r)
		sk.ReservedAreaContainerS += float64(r) * f.StepS
	}
	for _, st := range Stages(f.Reservation, f.StepS) {
		sk.Stages = append(sk.Stages, profile.Stage{OffsetS: st.OffsetS, DurationS: st.DurationS, Containers: st.Containers})
	}
	for _, p := range f.AlphaSweep {
		sk.AlphaSweep = append(sk.AlphaSweep, profile.SweepPoint{Alpha: p.Alpha, OverAllocation: p.OverAllocation,
			UnderAllocation: p.UnderAllocation, ProvisioningRatio: p.ProvisioningRatio, PeakReservation: p.PeakReservation})
	}
	return sk
}

// Stage is a run of steps of one reservation: Containers from OffsetS
// (seconds from the run's start) for DurationS.
type Stage struct {
	OffsetS, DurationS float64
	Containers         int64
}

// Stages turns a reservation per step of stepS seconds into its stages:
// consecutive steps of the same number of containers make one stage;
// steps reserving nothing are gaps between stages.
func Stages(reservation []int64, stepS float64) []Stage {
	var out []Stage
	for k, r := range reservation {
		if r == 0 {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Containers == r &&
			math.Abs(out[n-1].OffsetS+out[n-1].DurationS-float64(k)*stepS) < 1e-9 {
			out[n-1].DurationS += stepS
			continue
		}
		out = append(out, Stage{OffsetS: float64(k) * stepS, DurationS: stepS, Containers: r})
	}
	return out
}
