package skyline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/wlprof/wlprof/internal/quantile"
	"github.com/wlprof/wlprof/internal/timeflag"
)

// Model names the LP formulation a fit solves.
type Model string

const (
	// Reduced is the rewritten model with lazily added suffix rows (the
	// default): the same optimum, about K rows instead of 3·N·K.
	Reduced Model = "reduced"
	// Textbook is the LP as Jyothi et al., OSDI'16 §5 and Hadoop's LpSolver state it.
	Textbook Model = "textbook"
)

// Options of a fit. Start from DefaultOptions.
type Options struct {
	// Alpha in [0,1] weighs over-allocation against under-allocation debt
	// (1: only over-allocation counts). Default 0.1, as Hadoop's estimator.
	Alpha float64
	// Beta ≥ 0 weighs the regularisation ε. Default 0.1, as Hadoop's
	// estimator; ignored when BetaAuto.
	Beta float64
	// BetaAuto solves once without β·ε and then sets β = 0.1·V, V being
	// that optimum, as the seed does.
	BetaAuto bool
	// StepS is the quantisation step in seconds. Default 60.
	StepS float64
	// MinRuns is the fewest runs a fit accepts. Default 2.
	MinRuns int
	// Timeout bounds the whole fit (both solves with BetaAuto); 0: none.
	Timeout time.Duration
	// Model is the LP formulation: Reduced (default) or Textbook.
	Model Model
	// MPS, when set, is a file the textbook model is written to (for an
	// independent solver); only with Model Textbook.
	MPS string
	// SkipBadJobs makes Run list jobs whose runs cannot be fitted (a run
	// with no resources, a bad sample, an infeasible LP, a fit past
	// Timeout) as skipped with the reason instead of failing: one broken
	// job must not hide the rest. DefaultOptions sets it; a solver fault
	// still fails the call, since it is the tool's failure, not the job's.
	SkipBadJobs bool
	// Job, when set, restricts Load to that job (an unknown job is an
	// error), and Run fails when it has fewer than MinRuns runs.
	Job string
	// AlphaSweep: Run also refits every job at each of these α (the
	// over- against under-allocation trade-off, Morpheus Fig. 9b/9c).
	AlphaSweep []float64
	// Workers: jobs fitted at once by Run; 0 means GOMAXPROCS.
	Workers int
	// AllowNoFit makes Run return a result without any fit when every job
	// was skipped and some failed on their data (a step too fine, a time
	// limit): a report lists them as its caveats. Unset, as in wlprof
	// skyline, Run fails with those jobs' errors then: the options, not
	// one job, are at fault, and the document would be empty.
	AllowNoFit bool
	// Previous, when set, is an earlier fit of the same job (say, before a
	// new run arrived): the suffix rows that bound then seed this fit, so
	// the refit starts warm. It never changes the optimum.
	Previous *Fit
}

// DefaultOptions are Hadoop ResourceEstimator's defaults with a one-minute
// step (Morpheus' granularity), skipping jobs that cannot be fitted.
func DefaultOptions() Options {
	return Options{Alpha: 0.1, Beta: 0.1, StepS: 60, MinRuns: 2, Model: Reduced, SkipBadJobs: true}
}

// Fit is the skyline fitted to one recurring job.
type Fit struct {
	Job   string  `json:"job"`
	Runs  int     `json:"runs"`
	StepS float64 `json:"step_s"`
	Alpha float64 `json:"alpha"`
	Beta  float64 `json:"beta"`
	// Containers is the LP solution per step (the skyline).
	Containers []float64 `json:"containers"`
	// Reservation is the integer number of containers to reserve per step:
	// the skyline rounded up (within 1e-6, to absorb solver round-off).
	Reservation []int64 `json:"reservation"`
	// Objective is α·A_o + (1−α)·A_u + β·ε at the solution.
	Objective float64 `json:"objective"`
	// OverAllocation (A_o) and UnderAllocation (A_u) are the means over runs,
	// in container·steps; Epsilon is the mean normalised instantaneous
	// under-allocation (a fraction of the run's total).
	OverAllocation  float64  `json:"over_allocation"`
	UnderAllocation float64  `json:"under_allocation"`
	Epsilon         float64  `json:"epsilon"`
	PerRun          []RunFit `json:"per_run"`
	// ProvisioningRatio is the mean over runs of reserved area / used
	// area, the used area being the run's own samples (UsedArea), not
	// their quantised steps.
	ProvisioningRatio float64 `json:"provisioning_ratio"`
	// UsedAreaContainerS is the mean over runs of UsedArea.
	UsedAreaContainerS float64  `json:"used_area_container_s"`
	SolveS             float64  `json:"solve_s"`
	Model              Model    `json:"model"`
	Rounds             int      `json:"lp_rounds"`
	Rows               int      `json:"lp_rows"`
	Cols               int      `json:"lp_cols"`
	Warnings           []string `json:"warnings"`
	// AlphaSweep is the over- against under-allocation trade-off, one fit
	// per α, when one was asked for.
	AlphaSweep []SweepPoint `json:"alpha_sweep,omitempty"`

	cuts []runCut // the reduced model's suffix rows, for a warm refit
}

// runCut is a suffix row of the reduced model by run ID.
type runCut struct {
	run  string
	step int
}

// RunFit is how the skyline serves one run.
type RunFit struct {
	Run string `json:"run"`
	// OverAllocation is Σ_k (x_k − c_k)⁺ and UnderAllocation the final debt
	// D_K, both in container·steps.
	OverAllocation  float64 `json:"over_allocation"`
	UnderAllocation float64 `json:"under_allocation"`
	// ProvisioningRatio is reserved area (Σ reservation · step) / used
	// area (UsedAreaContainerS).
	ProvisioningRatio float64 `json:"provisioning_ratio"`
	Steps             int     `json:"steps"`
	// UsedAreaContainerS is what the run used (UsedArea), in
	// container·seconds.
	UsedAreaContainerS float64 `json:"used_area_container_s"`
}

// Solve fits the skyline of one job. Errors: ErrTooFewRuns, ErrEmptyRun,
// ErrBadSample (bad input, all problems at once), ErrTimeLimit,
// ErrInfeasible, ErrSolverFault (the solve), or the context's error.
func Solve(ctx context.Context, job Job, opts Options) (*Fit, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if len(job.Runs) < opts.MinRuns || len(job.Runs) == 0 {
		return nil, fmt.Errorf("job %s: %w: %d, need %d (--min-runs)", job.ID, ErrTooFewRuns, len(job.Runs), max(opts.MinRuns, 1))
	}
	c, err := Quantise(job.Runs, opts.StepS)
	if err != nil {
		return nil, fmt.Errorf("job %s: %w", job.ID, err)
	}
	start := time.Now()
	var deadline time.Time
	if opts.Timeout > 0 {
		deadline = start.Add(opts.Timeout)
	}
	if d, ok := ctx.Deadline(); ok && (deadline.IsZero() || d.Before(deadline)) {
		deadline = d
	}
	p := &problem{c: c, total: make([]float64, len(c)), alpha: opts.Alpha, beta: opts.Beta}
	for _, r := range job.Runs {
		p.ids = append(p.ids, r.ID)
	}
	for i, ci := range c {
		for _, v := range ci {
			p.total[i] += v
		}
	}
	warnings := append(append([]string(nil), job.Warnings...), lengthWarnings(job, c)...)
	warnings = append(warnings, stepWarnings(job, opts.StepS)...)
	if opts.BetaAuto {
		p.beta = 0
		first, err := p.solve(ctx, opts, deadline)
		if err != nil {
			return nil, fmt.Errorf("job %s: %w", job.ID, err)
		}
		p.beta = 0.1 * first.objective
		if opts.Previous == nil { // the rows that bound without β seed the second solve
			opts.Previous = &Fit{cuts: first.cuts}
		}
		if p.beta <= 0 {
			warnings = append(warnings, "beta auto: the fit without regularisation costs nothing, so beta = 0")
		}
	}
	res, err := p.solve(ctx, opts, deadline)
	if err != nil {
		return nil, fmt.Errorf("job %s: %w", job.ID, err)
	}
	f := &Fit{Job: job.ID, Runs: len(c), StepS: opts.StepS, Alpha: p.alpha, Beta: p.beta,
		Containers: res.x, Model: opts.Model, Rounds: res.rounds, Rows: res.rows, Cols: res.cols,
		SolveS: time.Since(start).Seconds(), Warnings: warnings, cuts: res.cuts}
	f.finish(job, p)
	if rel := math.Abs(f.Objective-res.objective) / math.Max(1, math.Abs(f.Objective)); rel > 1e-6 {
		// The model's optimum and the objective recomputed from its
		// definition must agree; anything else is a bug worth seeing.
		f.Warnings = append(f.Warnings, fmt.Sprintf("solver objective %.9g differs from the recomputed %.9g", res.objective, f.Objective))
	}
	return f, nil
}

// Validate reports every option value out of range at once.
func (o *Options) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if !(o.Alpha >= 0 && o.Alpha <= 1) {
		bad("alpha %g must be in [0,1]", o.Alpha)
	}
	if !o.BetaAuto && !(o.Beta >= 0) || math.IsInf(o.Beta, 0) {
		bad("beta %g must be a number ≥ 0 (or auto)", o.Beta)
	}
	if !(o.StepS > 0) || math.IsInf(o.StepS, 0) {
		bad("step %g s must be positive", o.StepS)
	}
	switch {
	case o.Model != Reduced && o.Model != Textbook:
		bad("unknown model %q (reduced or textbook)", o.Model)
	case o.MPS != "" && o.Model != Textbook:
		bad("an MPS file is written only for the textbook model")
	}
	if o.MinRuns < 1 {
		bad("min-runs %d: want at least 1", o.MinRuns)
	}
	if o.Workers < 0 {
		bad("workers %d: want 0 or more", o.Workers)
	}
	if o.Timeout < 0 {
		bad("timeout %v: want 0 (none) or more", o.Timeout)
	}
	for _, a := range o.AlphaSweep {
		if !(a >= 0 && a <= 1) {
			bad("alpha-sweep: %g is not an alpha in [0,1]", a)
		}
	}
	return errors.Join(errs...)
}

// Peak is the most containers the reservation holds at one step.
func (f *Fit) Peak() int64 {
	peak := int64(0)
	for _, v := range f.Reservation {
		peak = max(peak, v)
	}
	return peak
}

func (p *problem) solve(ctx context.Context, opts Options, deadline time.Time) (*lpResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if opts.Model == Textbook {
		return p.solveTextbook(deadline, opts.MPS)
	}
	r := newReduced(p)
	if opts.Previous != nil {
		index := map[string]int{}
		for i, id := range p.ids {
			index[id] = i
		}
		for _, c := range opts.Previous.cuts {
			if i, ok := index[c.run]; ok && c.step < p.steps() {
				r.addCut(cut{i, c.step})
			}
		}
	}
	res, err := r.solveCtx(ctx, deadline)
	if err != nil {
		return nil, err
	}
	for _, c := range r.order {
		res.cuts = append(res.cuts, runCut{p.ids[c.run], c.step})
	}
	return res, nil
}

// finish fills in the reservation and the per-run and mean measures.
func (f *Fit) finish(job Job, p *problem) {
	x := f.Containers
	for k, v := range x {
		if v < 0 { // solver round-off below the bound
			x[k] = 0
		}
	}
	f.Reservation = make([]int64, len(x))
	reserved := 0.0
	for k, v := range x {
		f.Reservation[k] = int64(math.Ceil(v - 1e-6*math.Max(1, v)))
		reserved += float64(f.Reservation[k])
	}
	f.Objective, f.OverAllocation, f.UnderAllocation, f.Epsilon = p.cost(x)
	f.PerRun = make([]RunFit, len(p.c))
	for i, ci := range p.c {
		o, d := 0.0, 0.0
		last := 0
		for k, v := range ci {
			o += math.Max(x[k]-v, 0)
			d = math.Max(d+v-x[k], 0)
			if v > 0 {
				last = k + 1
			}
		}
		used := UsedArea(job.Runs[i], f.StepS)
		r := RunFit{Run: job.Runs[i].ID, OverAllocation: o, UnderAllocation: d,
			ProvisioningRatio: reserved * f.StepS / used, Steps: last, UsedAreaContainerS: used}
		f.PerRun[i] = r
		f.ProvisioningRatio += r.ProvisioningRatio / float64(len(p.c))
		f.UsedAreaContainerS += used / float64(len(p.c))
	}
}

// stepWarnings notes a step too coarse for the runs: longer than a run, or
// fewer than five steps in the median run, where the per-step maximum
// turns a short burst into a whole step of reservation.
func stepWarnings(job Job, stepS float64) []string {
	durs := make([]float64, 0, len(job.Runs))
	short := 0
	for _, r := range job.Runs {
		d := 0.0 // the run's last event
		for _, s := range r.Samples {
			d = max(d, s.OffsetS)
		}
		durs = append(durs, d)
		if d < stepS {
			short++
		}
	}
	if len(durs) == 0 {
		return nil
	}
	step := timeflag.FormatSeconds(stepS)
	med := quantile.Median(durs)
	switch {
	case short > 0:
		return []string{fmt.Sprintf("%d of %d runs last less than the %s step (median run %s): the reservation rounds each burst up to a whole step; use a shorter --step",
			short, len(durs), step, timeflag.FormatSeconds(med))}
	case med/stepS < 5:
		return []string{fmt.Sprintf("the median run lasts %s, fewer than 5 steps of %s: the reservation rounds each burst up to a whole step; use a shorter --step",
			timeflag.FormatSeconds(med), step)}
	}
	return nil
}

// lengthWarnings notes what makes a fit less trustworthy: a single run, or
// runs whose lengths differ wildly (the longest more than four times the
// median), where the skyline's tail rests on few runs.
func lengthWarnings(job Job, c [][]float64) []string {
	if len(c) == 1 {
		return []string{"a single run: the skyline is that run"}
	}
	lens := make([]int, len(c))
	for i, ci := range c {
		for k, v := range ci {
			if v > 0 {
				lens[i] = k + 1
			}
		}
	}
	med := quantile.UpperMedian(append([]int(nil), lens...)) // a length some run has
	var w []string
	for i, l := range lens {
		if l > 4*med {
			w = append(w, fmt.Sprintf("run %s lasts %d steps, more than four times the median %d: the skyline's tail rests on few runs", job.Runs[i].ID, l, med))
		}
	}
	return w
}
