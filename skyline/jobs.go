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
// the named job when job is not "".
//
// A run's rows are one step function whose offsets increase (each ingest
// writes them so). When the same run was ingested twice, its rows hold a
// second sequence starting again from the beginning: an identical copy is
// dropped, and different sequences of one run (Hadoop's estimator sums the
// skylines of the jobs of one pipeline run) are added as step functions.
// Either is said in the job's warnings.
func loadJobs(ctx context.Context, ds *dataset.Dataset, job string) ([]Job, error) {
	type runSeqs struct {
		seqs [][]Sample
	}
	byJob := map[string]map[string]*runSeqs{}
	err := dataset.Scan(ctx, ds, dataset.SkylinesTable, func(s *dataset.SkylineSample) error {
		if job != "" && s.Job != job {
			return nil
		}
		runs := byJob[s.Job]
		if runs == nil {
			runs = map[string]*runSeqs{}
			byJob[s.Job] = runs
		}
		r := runs[s.Run]
		if r == nil {
			r = &runSeqs{}
			runs[s.Run] = r
		}
		smp := Sample{OffsetS: s.OffsetS, Containers: s.Containers}
		if n := len(r.seqs); n == 0 || s.OffsetS <= r.seqs[n-1][len(r.seqs[n-1])-1].OffsetS {
			r.seqs = append(r.seqs, []Sample{smp})
		} else {
			r.seqs[n-1] = append(r.seqs[n-1], smp)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	jobs := make([]Job, 0, len(byJob))
	for id, runs := range byJob {
		j := Job{ID: id}
		for rid, r := range runs {
			samples, note := combine(r.seqs)
			if note != "" {
				j.Warnings = append(j.Warnings, fmt.Sprintf("run %s: %s", rid, note))
			}
			j.Runs = append(j.Runs, JobRun{ID: rid, Samples: samples})
		}
		sort.Slice(j.Runs, func(a, b int) bool { return j.Runs[a].ID < j.Runs[b].ID })
		sort.Strings(j.Warnings)
		jobs = append(jobs, j)
	}
	sort.Slice(jobs, func(a, b int) bool { return jobs[a].ID < jobs[b].ID })
	return jobs, nil
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
// opts.Workers goroutines (GOMAXPROCS when ≤ 0), and, when opts.AlphaSweep
// is not empty, refits each at every α of it. Jobs with too few runs are skipped with
// the reason, and so are jobs whose runs cannot be fitted (ErrEmptyRun,
// ErrBadSample) when opts.SkipBadJobs is set; any other failure fails the
// whole call with every job's error (no partial result).
func fitAll(ctx context.Context, jobs []Job, opts Options) (*Result, error) {
	workers := opts.Workers
	res := &Result{Jobs: []*Fit{}, Skipped: []Skipped{}}
	var todo []Job
	for _, j := range jobs {
		if len(j.Runs) < max(opts.MinRuns, 1) {
			res.Skipped = append(res.Skipped, Skipped{Job: j.ID, Runs: len(j.Runs),
				Reason: fmt.Sprintf("%d runs, fewer than --min-runs %d", len(j.Runs), max(opts.MinRuns, 1))})
			continue
		}
		todo = append(todo, j)
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	fits := make([]*Fit, len(todo))
	sweeps := make([][]SweepPoint, len(todo))
	errs := make([]error, len(todo))
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
				fits[q], sweeps[q], errs[q] = fitOne(ctx, todo[q], opts)
				// lanl/clp frees CLP's memory in finalizers only: collect
				// after every quarter million cells so RSS stays flat.
				if fits[q] != nil {
					cells += fits[q].Runs * len(fits[q].Containers) * (1 + len(opts.AlphaSweep))
				}
				if cells > 1<<18 {
					runtime.GC()
					cells = 0
				}
			}
		}()
	}
feed:
	for q := range todo {
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
	var keep []*Fit
	for q, err := range errs {
		if err != nil && opts.SkipBadJobs && (errors.Is(err, ErrEmptyRun) || errors.Is(err, ErrBadSample)) {
			res.Skipped = append(res.Skipped, Skipped{Job: todo[q].ID, Runs: len(todo[q].Runs), Reason: err.Error()})
			errs[q] = nil
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	for q, f := range fits {
		if f != nil {
			f.AlphaSweep = sweeps[q]
			keep = append(keep, f)
		}
	}
	if keep != nil {
		res.Jobs = keep
	}
	sort.SliceStable(res.Skipped, func(a, b int) bool { return res.Skipped[a].Job < res.Skipped[b].Job })
	return res, nil
}

func fitOne(ctx context.Context, j Job, opts Options) (*Fit, []SweepPoint, error) {
	f, err := Solve(ctx, j, opts)
	if err != nil {
		return nil, nil, err
	}
	var pts []SweepPoint
	for _, a := range opts.AlphaSweep {
		o := opts
		o.Alpha = a
		g, err := Solve(ctx, j, o)
		if err != nil {
			return nil, nil, fmt.Errorf("alpha %g: %w", a, err)
		}
		pts = append(pts, SweepPoint{Alpha: a, Beta: g.Beta, Objective: g.Objective, OverAllocation: g.OverAllocation,
			UnderAllocation: g.UnderAllocation, ProvisioningRatio: g.ProvisioningRatio, PeakReservation: g.Peak()})
	}
	return f, pts, nil
}
