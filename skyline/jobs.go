package skyline

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"sort"
	"sync"

	"github.com/wlprof/wlprof/dataset"
)

// loadJobs reads the skylines table into jobs, sorted by job and run; only
// the named job when job is not "". Each job is JobFromRows of its runs'
// rows in the table's order.
func loadJobs(ctx context.Context, ds *dataset.Dataset, job string) ([]Job, error) {
	byJob := map[string]map[string][]Sample{}
	err := dataset.Scan(ctx, ds, dataset.SkylinesTable, func(s *dataset.SkylineSample) error {
		if job != "" && s.Job != job {
			return nil
		}
		runs := byJob[s.Job]
		if runs == nil {
			runs = map[string][]Sample{}
			byJob[s.Job] = runs
		}
		runs[s.Run] = append(runs[s.Run], Sample{OffsetS: s.OffsetS, Containers: s.Containers})
		return nil
	})
	if err != nil {
		return nil, err
	}
	jobs := make([]Job, 0, len(byJob))
	for id, runs := range byJob {
		rows := make([]JobRun, 0, len(runs))
		for rid, samples := range runs {
			rows = append(rows, JobRun{ID: rid, Samples: samples})
		}
		jobs = append(jobs, JobFromRows(id, rows))
	}
	sort.Slice(jobs, func(a, b int) bool { return jobs[a].ID < jobs[b].ID })
	return jobs, nil
}

// JobFromRows builds one job as Load does, from each run's rows of the
// skylines table in the table's order (one JobRun per run id, runs in any
// order); the runs come out sorted by id. It is Load's per-job core, and
// what a distributed runner calls once it has grouped a job's rows.
//
// A run's rows are one step function whose offsets increase (each ingest
// writes them so). When the same run was ingested twice, its rows hold a
// second sequence starting again from the beginning: an identical copy is
// dropped, and different sequences of one run (Hadoop's estimator sums the
// skylines of the jobs of one pipeline run) are added as step functions.
// Either is said in the job's warnings.
func JobFromRows(id string, runs []JobRun) Job {
	j := Job{ID: id}
	for _, r := range runs {
		var seqs [][]Sample
		for q, s := range r.Samples {
			if q == 0 || s.OffsetS <= r.Samples[q-1].OffsetS {
				seqs = append(seqs, nil)
			}
			seqs[len(seqs)-1] = append(seqs[len(seqs)-1], s)
		}
		if len(seqs) == 0 {
			j.Runs = append(j.Runs, JobRun{ID: r.ID})
			continue
		}
		samples, note := combine(seqs)
		if note != "" {
			j.Warnings = append(j.Warnings, fmt.Sprintf("run %s: %s", r.ID, note))
		}
		j.Runs = append(j.Runs, JobRun{ID: r.ID, Samples: samples})
	}
	sort.Slice(j.Runs, func(a, b int) bool { return j.Runs[a].ID < j.Runs[b].ID })
	sort.Strings(j.Warnings)
	return j
}

// combine turns the sample sequences of one run into one step function:
// identical copies count once, different ones are added.
func combine(seqs [][]Sample) ([]Sample, string) {
	if len(seqs) == 1 {
		return seqs[0], ""
	}
	var distinct [][]Sample
	for _, s := range seqs {
		dup := false
		for _, d := range distinct {
			if reflect.DeepEqual(s, d) {
				dup = true
				break
			}
		}
		if !dup {
			distinct = append(distinct, s)
		}
	}
	if len(distinct) == 1 {
		return distinct[0], fmt.Sprintf("ingested %d times; one copy used", len(seqs))
	}
	// Sum the step functions at the union of their change points.
	var times []float64
	for _, s := range distinct {
		for _, x := range s {
			times = append(times, x.OffsetS)
		}
	}
	sort.Float64s(times)
	var out []Sample
	pos := make([]int, len(distinct))
	for q, t := range times {
		if q > 0 && t == times[q-1] {
			continue
		}
		total := 0.0
		for i, s := range distinct {
			for pos[i]+1 < len(s) && s[pos[i]+1].OffsetS <= t {
				pos[i]++
			}
			if s[pos[i]].OffsetS <= t {
				total += s[pos[i]].Containers
			}
		}
		out = append(out, Sample{OffsetS: t, Containers: total})
	}
	return out, fmt.Sprintf("%d different skylines under one run id; added up", len(distinct))
}

// Skipped is a job that was not fitted because it has too few runs.
type Skipped struct {
	Job    string `json:"job"`
	Runs   int    `json:"runs"`
	Reason string `json:"reason"`
	// Err is why the job's runs could not be fitted; nil when it had
	// too few runs.
	Err error `json:"-"`
}

// SweepPoint is one α of a trade-off sweep (Morpheus Fig. 9b/9c).
type SweepPoint struct {
	Alpha             float64 `json:"alpha"`
	Beta              float64 `json:"beta"`
	Objective         float64 `json:"objective"`
	OverAllocation    float64 `json:"over_allocation"`
	UnderAllocation   float64 `json:"under_allocation"`
	ProvisioningRatio float64 `json:"provisioning_ratio"`
	PeakReservation   int64   `json:"peak_reservation"`
}

// Result is the fit of many jobs.
type Result struct {
	Jobs    []*Fit    `json:"jobs"`
	Skipped []Skipped `json:"skipped"`
	// input is every job Run was given, by id: the runs behind each fit,
	// for Profile and RunSteps.
	input map[string]Job
}

// Document is the versioned JSON document of wlprof skyline -o json.
type Document struct {
	Version int `json:"version"`
	*Result
}

// Document returns the result as wlprof skyline -o json writes it.
func (r *Result) Document() Document { return Document{Version: 1, Result: r} }

// fitAll fits every job with at least opts.MinRuns runs, in parallel on
// opts.Workers goroutines (GOMAXPROCS when ≤ 0): FitJob on each job, then
// Collect of their outcomes in the jobs' order.
func fitAll(ctx context.Context, jobs []Job, opts Options) (*Result, error) {
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	out := make([]Outcome, len(jobs))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cells := 0
			for q := range next {
				out[q] = FitJob(ctx, jobs[q], opts)
				// lanl/clp frees CLP's memory in finalizers only: collect
				// after every quarter million cells so RSS stays flat.
				if f := out[q].Fit; f != nil {
					cells += f.Runs * len(f.Containers) * (1 + len(opts.AlphaSweep))
				}
				if cells > 1<<18 {
					runtime.GC()
					cells = 0
				}
			}
		}()
	}
feed:
	for q := range jobs {
		select {
		case next <- q:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return Collect(out)
}

// Outcome is what became of one job: its fit, or why it was skipped, or
// the error that fails the whole result.
type Outcome struct {
	Fit     *Fit
	Skipped *Skipped
	Err     error
}

// FitJob is Run's per-job core, and what a distributed runner calls on
// each job: a job with fewer than opts.MinRuns runs is skipped with the
// reason; otherwise Solve, then a refit at every α of opts.AlphaSweep.
// With opts.SkipBadJobs, a job whose runs cannot be fitted (ErrEmptyRun,
// ErrBadSample, ErrInfeasible, ErrTimeLimit) is skipped with the error as
// its reason; any other error is the outcome's Err. opts is not validated here (Run does it once).
func FitJob(ctx context.Context, j Job, opts Options) Outcome {
	if len(j.Runs) < max(opts.MinRuns, 1) {
		runs := "runs"
		if len(j.Runs) == 1 {
			runs = "run"
		}
		return Outcome{Skipped: &Skipped{Job: j.ID, Runs: len(j.Runs),
			Reason: fmt.Sprintf("%d %s, fewer than --min-runs %d", len(j.Runs), runs, max(opts.MinRuns, 1))}}
	}
	f, err := fitOne(ctx, j, opts)
	if err != nil && opts.SkipBadJobs && jobFault(err) {
		return Outcome{Skipped: &Skipped{Job: j.ID, Runs: len(j.Runs), Reason: err.Error(), Err: err}}
	}
	if err != nil {
		return Outcome{Err: err}
	}
	return Outcome{Fit: f}
}

// jobFault tells the errors that come from one job's data (or its time
// budget) from the tool's own failures.
func jobFault(err error) bool {
	for _, e := range []error{ErrEmptyRun, ErrBadSample, ErrInfeasible, ErrTimeLimit} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// Collect makes Run's result of the jobs' outcomes: the fits in the
// outcomes' order, the skipped jobs sorted by job (stably). Any Err fails
// the whole result with every job's error, joined in the outcomes' order
// (no partial result).
func Collect(outcomes []Outcome) (*Result, error) {
	res := &Result{Jobs: []*Fit{}, Skipped: []Skipped{}}
	var errs []error
	for _, o := range outcomes {
		switch {
		case o.Err != nil:
			errs = append(errs, o.Err)
		case o.Skipped != nil:
			res.Skipped = append(res.Skipped, *o.Skipped)
		case o.Fit != nil:
			res.Jobs = append(res.Jobs, o.Fit)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	sort.SliceStable(res.Skipped, func(a, b int) bool { return res.Skipped[a].Job < res.Skipped[b].Job })
	return res, nil
}

func fitOne(ctx context.Context, j Job, opts Options) (*Fit, error) {
	f, err := Solve(ctx, j, opts)
	if err != nil {
		return nil, err
	}
	for _, a := range opts.AlphaSweep {
		o := opts
		o.Alpha = a
		g, err := Solve(ctx, j, o)
		if err != nil {
			return nil, fmt.Errorf("alpha %g: %w", a, err)
		}
		f.AlphaSweep = append(f.AlphaSweep, SweepPoint{Alpha: a, Beta: g.Beta, Objective: g.Objective, OverAllocation: g.OverAllocation,
			UnderAllocation: g.UnderAllocation, ProvisioningRatio: g.ProvisioningRatio, PeakReservation: g.Peak()})
	}
	return f, nil
}
