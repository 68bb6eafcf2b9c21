package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/wlprof/wlprof/classify"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/elasticity"
	"github.com/wlprof/wlprof/plan"
	"github.com/wlprof/wlprof/profile"
	"github.com/wlprof/wlprof/profiler"
	"github.com/wlprof/wlprof/reports"
	"github.com/wlprof/wlprof/skyline"
	"github.com/wlprof/wlprof/slo"
)

// reportInput is the report being assembled.
type reportInput struct {
	in      *reports.Input
	jobs    profile.Jobs
	extra   map[string]*reports.Job // figure data by job id
	anchors map[string]skyline.Anchor
	around  func(stage string, run func() error) error
	// What the planner's answers take from the stages (planner.go).
	classDays     map[string][]float64
	harvestRuns   []reports.HarvestOutcome
	harvestWindow string
}

func (r *reportInput) note(stage, s string) { r.in.Notes[stage] = append(r.in.Notes[stage], s) }

func (r *reportInput) job(id string) *reports.Job {
	j := r.extra[id]
	if j == nil {
		j = &reports.Job{}
		r.extra[id] = j
	}
	return j
}

// Report runs every stage that has input in ds, as the commands do, and
// assembles what the report shows: the job profiles, tenants.json, the
// figures' data, and with o.YARNQueue each fitted job's YARN reservation.
// A stage without inputs leaves a note that says what would compute it.
func Report(ctx context.Context, ds *dataset.Dataset, o Options) (*reports.Input, error) {
	r := &reportInput{in: &reports.Input{Title: o.Title, Notes: map[string][]string{}, Absent: map[string]string{}},
		jobs: profile.Jobs{}, extra: map[string]*reports.Job{}, anchors: map[string]skyline.Anchor{}, around: o.around}
	if r.in.Title == "" {
		r.in.Title = "wlprof report of " + ds.Dir
	}
	if err := r.addInputs(ctx, ds); err != nil {
		return nil, err
	}
	if err := r.addClassify(ctx, ds); err != nil {
		return nil, err
	}
	if err := r.addSLO(ctx, ds, o.SLOOverrides); err != nil {
		return nil, err
	}
	fits, err := r.addSkyline(ctx, ds, o)
	if err != nil {
		return nil, err
	}
	if len(fits) > 0 {
		if err := r.addPlan(ctx, ds, o); err != nil {
			return nil, err
		}
	} else {
		r.note(reports.StagePlan, "No fitted skyline to plan: the plan needs jobs with skylines and a window (an actionable SLO, or period_s, arrival_s and deadline_s in the overrides).")
	}
	profruns, err := dataset.ReadAll(ctx, ds, dataset.ProfRunsTable)
	if err != nil {
		return nil, err
	}
	if err := r.addElasticity(ctx, profruns); err != nil {
		return nil, err
	}
	if err := r.addProfiler(ctx, ds, profruns); err != nil {
		return nil, err
	}
	if err := r.addSimulate(ctx, ds, o); err != nil {
		return nil, err
	}
	if err := r.addEstimate(ctx, ds, o); err != nil {
		return nil, err
	}
	if err := r.addJobTypes(ctx, ds, o); err != nil {
		return nil, err
	}
	if err := r.addHarvest(ctx, ds, o); err != nil {
		return nil, err
	}
	if err := r.addPlacement(ctx, ds, o); err != nil {
		return nil, err
	}
	if err := r.addConstraints(ctx, ds, o); err != nil {
		return nil, err
	}
	if err := slo.Identify(ctx, ds, r.jobs); err != nil {
		return nil, err
	}
	if err := profiler.Identify(ctx, ds, r.jobs); err != nil {
		return nil, err
	}
	if o.YARNQueue != "" {
		if err := r.addReservations(ctx, ds, o, fits); err != nil {
			return nil, err
		}
	}
	if err := r.addPlanner(ctx, ds, o); err != nil {
		return nil, err
	}
	for _, id := range r.jobs.IDs() {
		j := r.job(id)
		j.Profile = r.jobs[id]
		r.in.Jobs = append(r.in.Jobs, *j)
	}
	return r.in, nil
}

// addInputs lists every ingested input with its rejects per reason, for
// the data-quality section.
func (r *reportInput) addInputs(ctx context.Context, ds *dataset.Dataset) error {
	srcs, err := dataset.RejectsBySource(ctx, ds)
	if err != nil {
		return err
	}
	r.in.Inputs = []reports.DataInput{}
	for _, s := range srcs {
		in := reports.DataInput{File: s.Path, Format: s.Format, Ingest: s.Ingest, Accepted: s.Accepted, Rejected: s.Rejected}
		for _, g := range s.Reasons {
			in.Reasons = append(in.Reasons, reports.RejectReason{Reason: g.Reason, Count: int64(g.Count)})
		}
		r.in.Inputs = append(r.in.Inputs, in)
	}
	return nil
}

// addClassify classifies the tenants as wlprof classify does, and draws
// the tenants closest to each class's centre.
func (r *reportInput) addClassify(ctx context.Context, ds *dataset.Dataset) error {
	if ds.Rows(dataset.UsageTable.Name) == 0 && ds.Rows(dataset.SeriesTable.Name) == 0 {
		r.note(reports.StageClassify, "No utilisation data in the dataset: ingest a trace (csv, series-csv, google2019-usage, azure-cpu, alibaba2018-machine) to classify tenants.")
		return nil
	}
	var res *classify.Result
	err := r.around(reports.StageClassify, func() (err error) {
		res, err = Classify(ctx, ds, classify.Options{})
		return err
	})
	if err != nil {
		return err
	}
	reps, err := res.Representatives(ctx, ds, 2)
	if err != nil {
		return err
	}
	t := &reports.Tenants{File: res.Profile()}
	r.classDays = foldDays(reps)
	for _, p := range reps {
		t.Representatives = append(t.Representatives, reports.Representative{Class: p.Class, Tenant: p.Series.Tenant,
			Series:   reports.Series{Name: p.Series.Tenant, StepS: p.Series.StepS, Values: p.Series.Values},
			Spectrum: reports.Spectrum{FrequencyHz: p.FrequencyHz, Power: p.Power}})
	}
	r.in.Tenants = t
	return nil
}

// addSLO infers every recurring job's period and SLO.
func (r *reportInput) addSLO(ctx context.Context, ds *dataset.Dataset, overrides string) error {
	if ds.Rows(dataset.RunsTable.Name) == 0 {
		r.note(reports.StageSLO, "No job runs in the dataset: ingest YARN ResourceManager logs, OpenLineage events or Spark event logs (and HDFS audit logs for provenance) to infer SLOs.")
		r.in.Absent[reports.StageSLO] = "no job runs in the dataset"
		return nil
	}
	var res *slo.Result
	err := r.around(reports.StageSLO, func() (err error) {
		res, err = SLO(ctx, ds, slo.DefaultOptions(), overrides)
		return err
	})
	if errors.Is(err, slo.ErrNoRuns) {
		r.note(reports.StageSLO, err.Error())
		r.in.Absent[reports.StageSLO] = err.Error()
		return nil
	}
	// Every job of the runs table has an SLO, actionable or not.
	r.in.Absent[reports.StageSLO] = "no runs of this job in the runs table"
	if err != nil {
		return err
	}
	for _, w := range res.Warnings {
		r.note(reports.StageSLO, w)
	}
	res.Profile(r.jobs)
	for _, sj := range res.Jobs {
		if periodMs, anchorMs, ok := sj.Anchor(); ok {
			r.anchors[sj.Job] = skyline.Anchor{PeriodMs: periodMs, AnchorMs: anchorMs}
		}
	}
	return nil
}

// addSkyline fits every job of the skylines table, as wlprof skyline does;
// the figure draws each job's runs as the fit saw them.
func (r *reportInput) addSkyline(ctx context.Context, ds *dataset.Dataset, o Options) ([]*skyline.Fit, error) {
	opts := o.Skyline
	in, err := skyline.Load(ctx, ds, opts)
	if err != nil {
		return nil, err
	}
	if len(in.Jobs) == 0 {
		r.note(reports.StageSkyline, "The dataset has no skylines: ingest re-native, yarn-rm, spark-eventlog or skyline-csv inputs.")
		r.in.Absent[reports.StageSkyline] = "the dataset has no skylines"
		return nil, nil
	}
	// Every job of the skylines table is fitted or skipped with a reason.
	r.in.Absent[reports.StageSkyline] = "no runs of this job in the skylines table"
	// A broken log is a caveat of the report, not its end, even when no
	// job could be fitted.
	opts.SkipBadJobs, opts.AllowNoFit = true, true
	res, err := skyline.Run(ctx, in, opts)
	if err != nil {
		return nil, err
	}
	if err := res.Profile(r.jobs); err != nil {
		return nil, err
	}
	for _, f := range res.Jobs {
		ids, steps, err := res.RunSteps(f)
		if err != nil {
			return nil, err
		}
		j := r.job(f.Job)
		for i, v := range steps {
			j.Runs = append(j.Runs, reports.Series{Name: ids[i], StepS: f.StepS, Values: v})
		}
	}
	for _, s := range res.Skipped {
		r.in.Skipped = append(r.in.Skipped, reports.Skipped{Stage: reports.StageSkyline, Job: s.Job, Reason: s.Reason})
	}
	return res.Jobs, nil
}

// addElasticity models the profiling runs; the figures draw the measured
// runs over each model's curve.
func (r *reportInput) addElasticity(ctx context.Context, runs []dataset.ProfRun) error {
	if len(runs) == 0 {
		r.note(reports.StageElasticity, "No profiling runs in the dataset: run wlprof profile run, or ingest profruns-csv, jhist or Spark event logs.")
		return nil
	}
	res, err := elasticity.Run(ctx, elasticity.Input{Runs: runs}, elasticity.DefaultOptions())
	if errors.Is(err, elasticity.ErrNoRuns) {
		r.note(reports.StageElasticity, err.Error())
		return nil
	}
	if err != nil {
		return err
	}
	if err := res.Profile(r.jobs); err != nil {
		return err
	}
	for _, m := range res.Models {
		j := r.job(m.Job)
		for _, st := range m.Settings {
			j.Measured = append(j.Measured, reports.Measured{Task: m.Task, MemoryBytes: float64(st.MemoryBytes), RuntimeS: st.RuntimeS, Fit: st.UsedToFit})
		}
	}
	for _, sk := range res.Skipped {
		r.in.Skipped = append(r.in.Skipped, reports.Skipped{Stage: reports.StageElasticity, Job: sk.Job, Reason: sk.Describe()})
	}
	return nil
}

// addProfiler adds the sandbox profiler's sweeps and phase profiles.
func (r *reportInput) addProfiler(ctx context.Context, ds *dataset.Dataset, runs []dataset.ProfRun) error {
	samples, err := dataset.ReadAll(ctx, ds, dataset.ProfSamplesTable)
	if err != nil {
		return err
	}
	sbs := profiler.Sandboxes(runs, samples)
	if len(sbs) == 0 {
		r.note(reports.StageProfiler, "No sandbox profiling runs in the dataset: wlprof profile run -- CMD records them.")
	}
	for _, sb := range sbs {
		sb.Profile(r.jobs)
		j := r.job(sb.Job)
		for _, sw := range sb.Sweeps {
			rs := reports.Sweep{Task: sw.Task, Setting: sw.Setting}
			for _, p := range sw.Points {
				rs.Points = append(rs.Points, reports.SweepPoint{Setting: p.Setting, RuntimeS: p.RuntimeS, PeakRSSBytes: p.PeakRSSBytes})
			}
			j.Sweeps = append(j.Sweeps, rs)
		}
	}
	return nil
}

// addReservations adds, for each fitted job, the YARN reservation request
// of wlprof export yarn-reservation, or a warning saying why there is none.
func (r *reportInput) addReservations(ctx context.Context, ds *dataset.Dataset, o Options, fits []*skyline.Fit) error {
	caps, err := skyline.ContainerSizes(ctx, ds)
	if err != nil {
		return err
	}
	now, _, err := DataEnd(ctx, ds)
	if err != nil {
		return err
	}
	for _, f := range fits {
		p := r.jobs.Get(f.Job)
		if p.PeriodS == nil || p.Identity.LastStartMs == nil {
			p.Warnings = append(p.Warnings, "no YARN reservation: the job has no period or run start in the runs table")
			continue
		}
		c, ok := caps[f.Job]
		if !ok {
			c = skyline.DefaultCapability
		}
		spec := skyline.ReservationSpec{Queue: o.YARNQueue, Name: f.Job, MaxPeriodicityMs: o.MaxPeriodicity.Milliseconds(), Capability: c}
		spec.ArrivalMs, spec.DeadlineMs, spec.PeriodMs = skyline.NextWindow(p.PeriodS.Value, *p.Identity.LastStartMs, now, p.SLO, r.anchor(f.Job))
		req, err := skyline.Reservation(f, spec)
		if err != nil {
			p.Warnings = append(p.Warnings, "no YARN reservation: "+err.Error())
			continue
		}
		b, err := json.MarshalIndent(req, "", "  ")
		if err != nil {
			return fmt.Errorf("job %s: %w", f.Job, err)
		}
		r.job(f.Job).Reservation = append(b, '\n')
	}
	return nil
}

// anchor is the slo stage's period start of job, or nil.
func (r *reportInput) anchor(job string) *skyline.Anchor {
	if a, ok := r.anchors[job]; ok {
		return &a
	}
	return nil
}

// addPlan packs the reservations of every job with a window and replays
// its held-out runs, as wlprof plan does with the report's fit options.
func (r *reportInput) addPlan(ctx context.Context, ds *dataset.Dataset, o Options) error {
	opts := plan.DefaultOptions()
	opts.Skyline = o.Skyline
	opts.Skyline.SkipBadJobs = true
	opts.Skyline.AlphaSweep = nil
	opts.SLO.OverridesFile = o.SLOOverrides // read by plan.Load
	var res *plan.Result
	err := r.around(reports.StagePlan, func() error {
		in, err := plan.Load(ctx, ds, opts)
		if err != nil {
			return err
		}
		res, err = plan.Run(ctx, in, opts)
		return err
	})
	if err != nil {
		return err
	}
	if err := res.Profile(r.jobs); err != nil {
		return err
	}
	pl := &reports.Plan{LCMS: res.LCMS, StepS: res.StepS, Footprint: res.Footprint, NaiveFootprint: res.NaiveFootprint,
		LowerBound: res.LowerBound, Load: res.Load, NaiveLoad: res.NaiveLoad}
	replay := res.Replays()
	for _, p := range res.Placements {
		jr := replay[p.Job]
		pl.Rows = append(pl.Rows, reports.PlanRow{Job: p.Job, PeriodS: p.PeriodS, WindowStartS: p.WindowStartS, WindowEndS: p.WindowEndS,
			OffsetS: p.OffsetS, Steps: len(p.Allocation), Peak: p.Peak(), Naive: p.Naive, TrainRuns: jr.TrainRuns, TestRuns: jr.TestRuns,
			Misses: jr.SLOMisses, MissesDRA: jr.SLOMissesDRA, DRAAddedContainerS: jr.DRAAddedContainerS})
	}
	for _, a := range res.AlphaTradeoff {
		pl.Alpha = append(pl.Alpha, reports.PlanAlpha{Alpha: a.Alpha, TestRuns: a.TestRuns, Misses: a.SLOMisses})
	}
	for _, np := range res.NotPlanned {
		pl.NotPlanned = append(pl.NotPlanned, reports.Skipped{Stage: reports.StagePlan, Job: np.Job, Reason: np.Reason})
	}
	r.in.Plan = pl
	if len(pl.Rows) == 0 {
		r.note(reports.StagePlan, fmt.Sprintf("No job could be planned (%d without a window or a fit); give period_s, arrival_s and deadline_s in the overrides to plan a job without provenance.", len(pl.NotPlanned)))
	}
	return nil
}
