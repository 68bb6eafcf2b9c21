package skyline

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"sync"

	"github.com/wlprof/wlprof/dataset"
)

// Load reads the skylines table into jobs, sorted by job and run; only the
// named job when job is not "". Samples of a run keep their order.
func Load(ctx context.Context, ds *dataset.Dataset, job string) ([]Job, error) {
	byJob := map[string]map[string]*Run{}
	err := dataset.Scan(ctx, ds, dataset.SkylinesTable, func(s *dataset.SkylineSample) error {
		if job != "" && s.Job != job {
			return nil
		}
		runs := byJob[s.Job]
		if runs == nil {
			runs = map[string]*Run{}
			byJob[s.Job] = runs
		}
		r := runs[s.Run]
		if r == nil {
			r = &Run{ID: s.Run}
			runs[s.Run] = r
		}
		r.Samples = append(r.Samples, Sample{OffsetS: s.OffsetS, Containers: s.Containers})
		return nil
	})
	if err != nil {
		return nil, err
	}
	jobs := make([]Job, 0, len(byJob))
	for id, runs := range byJob {
		j := Job{ID: id}
		for _, r := range runs {
			j.Runs = append(j.Runs, *r)
		}
		sort.Slice(j.Runs, func(a, b int) bool { return j.Runs[a].ID < j.Runs[b].ID })
		jobs = append(jobs, j)
	}
	sort.Slice(jobs, func(a, b int) bool { return jobs[a].ID < jobs[b].ID })
	return jobs, nil
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
}

// FitAll fits every job with at least opts.MinRuns runs, in parallel on
// workers goroutines (GOMAXPROCS when ≤ 0), and, when sweep is not empty,
// refits each at every α of sweep. Jobs with too few runs are skipped with
// the reason; any other failure fails the whole call with every job's error
// (no partial result).
func FitAll(ctx context.Context, jobs []Job, opts Options, sweep []float64, workers int) (*Result, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
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
				fits[q], sweeps[q], errs[q] = fitOne(ctx, todo[q], opts, sweep)
				// lanl/clp frees CLP's memory in finalizers only: collect
				// after every quarter million cells so RSS stays flat.
				if fits[q] != nil {
					cells += fits[q].Runs * len(fits[q].Containers) * (1 + len(sweep))
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
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	for q, f := range fits {
		f.AlphaSweep = sweeps[q]
	}
	res.Jobs = fits
	return res, nil
}

func fitOne(ctx context.Context, j Job, opts Options, sweep []float64) (*Fit, []SweepPoint, error) {
	f, err := Solve(ctx, j, opts)
	if err != nil {
		return nil, nil, err
	}
	var pts []SweepPoint
	for _, a := range sweep {
		o := opts
		o.Alpha = a
		g, err := Solve(ctx, j, o)
		if err != nil {
			return nil, nil, fmt.Errorf("alpha %g: %w", a, err)
		}
		peak := int64(0)
		for _, v := range g.Reservation {
			peak = max(peak, v)
		}
		pts = append(pts, SweepPoint{Alpha: a, Beta: g.Beta, Objective: g.Objective, OverAllocation: g.OverAllocation,
			UnderAllocation: g.UnderAllocation, ProvisioningRatio: g.ProvisioningRatio, PeakReservation: peak})
	}
	return f, pts, nil
}
