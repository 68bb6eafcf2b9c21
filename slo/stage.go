package slo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/profile"
)

// SortRows is the largest provenance table Load sorts by time (about 200 MB
// of rows); larger ones stream in ingest order.
const SortRows = 1 << 21

// Load reads the slo stage's input from a dataset: every run, and the
// provenance table as a stream. Inputs ingested out of time order (lineage
// events one file each, several NameNodes) are sorted when they fit
// comfortably in memory (SortRows); larger tables stream in ingest order,
// which for audit logs is time order, and out-of-order rows are counted in
// the result.
func Load(ctx context.Context, ds *dataset.Dataset, opts Options) (Input, error) {
	if err := opts.Validate(); err != nil {
		return Input{}, err
	}
	var ov *Overrides
	if opts.OverridesFile != "" && opts.Overrides == nil {
		var err error
		if ov, err = LoadOverrides(opts.OverridesFile); err != nil {
			return Input{}, err
		}
	}
	runs, err := dataset.ReadAll(ctx, ds, dataset.RunsTable)
	if err != nil {
		return Input{}, err
	}
	in := Input{Dataset: ds.Dir, Overrides: ov, Runs: runs, Provenance: func(fn func(*dataset.Provenance) error) error {
		return dataset.Scan(ctx, ds, dataset.ProvenanceTable, fn)
	}}
	if n := ds.Rows(dataset.ProvenanceTable.Name); n > 0 && n <= SortRows {
		rows, err := dataset.ReadAll(ctx, ds, dataset.ProvenanceTable)
		if err != nil {
			return Input{}, err
		}
		sort.SliceStable(rows, func(a, b int) bool { return rows[a].TimeMs < rows[b].TimeMs })
		in.Provenance = func(fn func(*dataset.Provenance) error) error {
			for i := range rows {
				if err := fn(&rows[i]); err != nil {
					return err
				}
			}
			return nil
		}
	}
	return in, nil
}

// Validate reports every option out of range at once.
func (o *Options) Validate() error {
	var errs []error
	if o.MinRuns < 2 {
		errs = append(errs, fmt.Errorf("slo: min-runs %d: want at least 2", o.MinRuns))
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"max-period-cv", o.MaxPeriodCV}, {"snap", o.SnapTolerance}, {"max-read-cv", o.MaxReadCV},
		{"max-read-spread", o.MaxReadSpread}, {"min-slack", o.MinSlack}, {"window-grace", o.WindowGraceS}, {"horizon", o.HorizonS}} {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			errs = append(errs, fmt.Errorf("slo: %s %g: want a number ≥ 0", f.name, f.v))
		}
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"arrival percentile", o.ArrivalPercentile}, {"deadline percentile", o.DeadlinePercentile}} {
		if !(f.v >= 0 && f.v <= 100) {
			errs = append(errs, fmt.Errorf("slo: %s %g: want a percentile in [0,100]", f.name, f.v))
		}
	}
	return errors.Join(errs...)
}

// Profile sets every job's period and SLO section, each number with where
// it came from: inferred (and how), or the overrides file.
func (r *Result) Profile(jobs profile.Jobs) error {
	o := r.opts
	file := ""
	if o.Overrides != nil {
		file = o.Overrides.Path
	}
	for _, sj := range r.Jobs {
		p := jobs.Get(sj.Job)
		ov := sj.Override
		number := func(v float64, set bool, inferred string) *profile.Number {
			if set {
				return &profile.Number{Value: v, Source: profile.SourceOverride, Detail: "overrides file " + file}
			}
			return &profile.Number{Value: v, Source: profile.SourceInferred, Detail: inferred}
		}
		if sj.PeriodS != nil {
			detail := fmt.Sprintf("median spacing of %d submissions", sj.Runs)
			if sj.PeriodSnapped {
				detail += ", snapped to a natural period"
			}
			p.PeriodS = number(*sj.PeriodS, ov != nil && ov.PeriodS != nil, detail)
		}
		s := &profile.SLO{Actionable: sj.Actionable, Reason: sj.Reason, Runs: sj.Runs, SlackRatio: sj.SlackRatio,
			Override: profile.Override{Fields: []string{}}, Warnings: append([]string{}, sj.Warnings...)}
		if ov != nil {
			s.Override = profile.Override{Applies: true, File: file, Fields: ov.fields()}
		}
		if sj.ArrivalS != nil {
			detail := fmt.Sprintf("p%g of T_inAvail (last write of an input) over %d runs", o.ArrivalPercentile, sj.ArrivalRuns)
			if sj.ArrivalFrom == "submit" {
				detail = fmt.Sprintf("p%g of the submission offset in the period over %d runs (no input write seen)", 100-o.ArrivalPercentile, sj.ArrivalRuns)
			}
			s.ArrivalS = number(*sj.ArrivalS, ov != nil && ov.ArrivalS != nil, detail)
		}
		if sj.DeadlineS != nil {
			detail := fmt.Sprintf("p%g of T_outRead (first read of an output) over %d runs", o.DeadlinePercentile, sj.RunsMeasured)
			s.DeadlineS = number(*sj.DeadlineS, ov != nil && ov.DeadlineS != nil, detail)
		}
		p.SLO = s
		// The runs the SLO was inferred from are runs of the job, whether
		// or not Identify finds their starts.
		if sj.Runs > 0 {
			p.Identity.Runs = max(p.Identity.Runs, sj.Runs)
			p.Identity.Sources = append(p.Identity.Sources, dataset.RunsTable.Name)
		}
	}
	return nil
}

// fields names the SLO fields an override sets.
func (ov *Override) fields() []string {
	f := []string{}
	for _, x := range []struct {
		name string
		set  bool
	}{{"period_s", ov.PeriodS != nil}, {"arrival_s", ov.ArrivalS != nil}, {"deadline_s", ov.DeadlineS != nil},
		{"accept", ov.Accept}, {"reject", ov.Reject}} {
		if x.set {
			f = append(f, x.name)
		}
	}
	return f
}

// Anchor returns where the job's periods start (period k starts at
// anchorMs + k·periodMs), when the job has a period.
func (j *Job) Anchor() (periodMs, anchorMs int64, ok bool) {
	if j.PeriodS == nil || j.PeriodAnchorMs == nil {
		return 0, 0, false
	}
	return int64(math.Round(*j.PeriodS * 1000)), *j.PeriodAnchorMs, true
}

// Identify fills in, for the jobs of the profiles, what the runs table
// says of them: up to five raw names, the first and last run start, and
// the number of runs (distinct run ids: a run logged twice, as a Spark
// application's .inprogress and final logs are, counts once). A job that the slo stage gave no period (fewer than
// three submissions, or irregular ones) gets the median spacing of its run
// starts as its period, said so in the detail: the period a reservation
// recurs with, which needs only two runs, where Run's recurrence test
// needs a regular series.
func Identify(ctx context.Context, ds *dataset.Dataset, jobs profile.Jobs) error {
	// One run id counts once: a Spark application's .inprogress log and
	// its final log are two rows of one run.
	runStarts := map[string]map[string]int64{}
	names := map[string]map[string]bool{}
	err := dataset.Scan(ctx, ds, dataset.RunsTable, func(r *dataset.Run) error {
		// The job as the slo stage keys it (RunJob): an OpenLineage run's
		// logged name carries its date, its job's key does not.
		job := RunJob(r)
		if jobs[job] == nil {
			return nil
		}
		if r.StartMs != dataset.NoTime {
			if runStarts[job] == nil {
				runStarts[job] = map[string]int64{}
			}
			id := r.Run
			if id == "" { // no id: every row is a run of its own
				id = fmt.Sprintf("\x00row%d", len(runStarts[job]))
			}
			if st, ok := runStarts[job][id]; !ok || r.StartMs < st {
				runStarts[job][id] = r.StartMs
			}
		}
		if r.Name != "" {
			if names[job] == nil {
				names[job] = map[string]bool{}
			}
			names[job][r.Name] = true
		}
		return nil
	})
	if err != nil {
		return err
	}
	for id, p := range jobs {
		var ns []string
		for n := range names[id] {
			ns = append(ns, n)
		}
		sort.Strings(ns)
		p.Identity.Names = ns[:min(len(ns), 5)]
		s := make([]int64, 0, len(runStarts[id]))
		for _, st := range runStarts[id] {
			s = append(s, st)
		}
		sort.Slice(s, func(a, b int) bool { return s[a] < s[b] })
		if len(s) > 0 {
			p.Identity.FirstStartMs, p.Identity.LastStartMs = &s[0], &s[len(s)-1]
			p.Identity.Sources = append(p.Identity.Sources, "runs")
			p.Identity.Runs = max(p.Identity.Runs, len(s))
		}
		if p.PeriodS == nil && len(s) >= 2 {
			gaps := make([]int64, len(s)-1)
			for i := range gaps {
				gaps[i] = s[i+1] - s[i]
			}
			sort.Slice(gaps, func(a, b int) bool { return gaps[a] < gaps[b] })
			if med := gaps[len(gaps)/2]; med > 0 {
				p.PeriodS = &profile.Number{Value: float64(med) / 1000, Source: profile.SourceInferred,
					Detail: fmt.Sprintf("median spacing of %d run starts (runs table)", len(s))}
			}
		}
		sort.Strings(p.Identity.Sources)
	}
	return nil
}

// ByJob runs the stage on ds and indexes its jobs by name, for the stages
// that take each job's SLO as an input (plan, estimate): empty, not an
// error, when ds has no runs.
func ByJob(ctx context.Context, ds *dataset.Dataset, opts Options) (map[string]*Job, error) {
	jobs := map[string]*Job{}
	if ds == nil || ds.Rows(dataset.RunsTable.Name) == 0 {
		return jobs, nil
	}
	in, err := Load(ctx, ds, opts)
	if errors.Is(err, ErrNoRuns) {
		return jobs, nil
	}
	if err != nil {
		return nil, err
	}
	res, err := Run(ctx, in, opts)
	if errors.Is(err, ErrNoRuns) {
		return jobs, nil
	}
	if err != nil {
		return nil, err
	}
	for i := range res.Jobs {
		jobs[res.Jobs[i].Job] = &res.Jobs[i]
	}
	return jobs, nil
}
