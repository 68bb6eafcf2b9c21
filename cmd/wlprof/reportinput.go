package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"sort"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/elasticity"
	"github.com/wlprof/wlprof/fft"
	"github.com/wlprof/wlprof/profile"
	"github.com/wlprof/wlprof/profiler"
	"github.com/wlprof/wlprof/reports"
	"github.com/wlprof/wlprof/skyline"
	"github.com/wlprof/wlprof/slo"
)

// The report meets every stage here: each stage's result is turned into
// profile sections and plot data (reports.Input), so reports imports no
// stage. One function per stage; a stage without inputs leaves a note that
// says what would compute it.

// reportJobs collects the profiles being built, by job id.
type reportJobs struct {
	byID map[string]*reports.Job
	// anchors: where the slo stage starts each job's periods, which its
	// SLO offsets count from (slo.Job.PeriodAnchorMs).
	anchors map[string]periodAnchor
}

// periodAnchor is a period start of the slo stage's period for a job.
type periodAnchor struct{ periodMs, anchorMs int64 }

func (r *reportJobs) job(id string) *reports.Job {
	j := r.byID[id]
	if j == nil {
		j = &reports.Job{Profile: &profile.Job{Job: id}}
		r.byID[id] = j
	}
	return j
}

func buildReportInput(ctx context.Context, o *reportOptions) (*reports.Input, error) {
	g := o.fit.g
	ds, err := dataset.Open(g.Dataset)
	if err != nil {
		return nil, err
	}
	in := &reports.Input{Title: o.Title, Notes: map[string][]string{}}
	if in.Title == "" {
		in.Title = "wlprof report of " + g.Dataset
	}
	rj := &reportJobs{byID: map[string]*reports.Job{}, anchors: map[string]periodAnchor{}}
	if err := addClassify(ctx, ds, in); err != nil {
		return nil, err
	}
	if err := addSLO(ctx, ds, in, rj, o.SLOOverrides); err != nil {
		return nil, err
	}
	fits, err := addSkyline(ctx, ds, o, in, rj)
	if err != nil {
		return nil, err
	}
	profruns, err := dataset.ReadAll(ctx, ds, dataset.ProfRunsTable)
	if err != nil {
		return nil, err
	}
	if err := addElasticity(in, rj, profruns); err != nil {
		return nil, err
	}
	if err := addProfiler(ctx, ds, in, rj, profruns); err != nil {
		return nil, err
	}
	if err := addIdentity(ctx, ds, rj); err != nil {
		return nil, err
	}
	if o.YARNQueue != "" {
		if err := addReservations(ctx, ds, o, rj, fits); err != nil {
			return nil, err
		}
	}
	ids := make([]string, 0, len(rj.byID))
	for id := range rj.byID {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		in.Jobs = append(in.Jobs, *rj.byID[id])
	}
	return in, nil
}

// addClassify runs the classify stage (package fft) on the series table
// (built from usage when stale) and turns its result into tenants.json and
// the class figures: per class the tenants closest to its centre, with
// their series and spectrum.
func addClassify(ctx context.Context, ds *dataset.Dataset, in *reports.Input) error {
	if ds.Rows(dataset.UsageTable.Name) == 0 && ds.Rows(dataset.SeriesTable.Name) == 0 {
		in.Notes[reports.StageClassify] = append(in.Notes[reports.StageClassify],
			"No utilisation data in the dataset: ingest a trace (csv, series-csv, google2019-usage, azure-cpu, alibaba2018-machine) to classify tenants.")
		return nil
	}
	// As `wlprof classify` does: the series table is classified as it is
	// read (or built first when stale), not held in memory (1.7 GB at
	// 10,000 tenants × 30 days); the figures then read back only the
	// series they show. When the series are built, the heap is every
	// tenant's series, collected at 25% growth as wlprof classify does.
	gc := debug.SetGCPercent(25)
	res, built, err := fft.ClassifyDataset(ctx, ds, fft.SeriesOptions{}, fft.Options{})
	debug.SetGCPercent(gc)
	if err != nil {
		return err
	}
	if built {
		// The new series table was committed through a handle of its own;
		// this one's manifest still lists the table it replaced.
		if ds, err = dataset.Open(ds.Dir); err != nil {
			return err
		}
	}
	file := &profile.Tenants{Version: profile.Version, Kind: "tenants", StepS: res.StepS,
		Ranking: profile.DefaultRanking(), Classes: []profile.Class{}, Tenants: []profile.Tenant{},
		Warnings: append([]string{}, res.Warnings...)}
	topWeight := 1.0
	for _, c := range res.Classes {
		topWeight = math.Max(topWeight, math.Max(c.Weights.Short, math.Max(c.Weights.Medium, c.Weights.Long)))
	}
	periods := map[string]map[float64]int{}
	for _, t := range res.Tenants {
		file.Tenants = append(file.Tenants, profile.Tenant{Tenant: t.Tenant, Class: t.Class, Pattern: string(t.Pattern),
			PeriodS: t.PeriodS, Strength: t.Strength, Mean: t.Mean, Peak: t.Peak})
		if t.PeriodS != nil && t.Class != "" {
			if periods[t.Class] == nil {
				periods[t.Class] = map[float64]int{}
			}
			periods[t.Class][*t.PeriodS]++
		}
	}
	sort.Slice(file.Tenants, func(a, b int) bool { return file.Tenants[a].Tenant < file.Tenants[b].Tenant })
	for _, c := range res.Classes {
		pc := profile.Class{Class: c.Class, Pattern: string(c.Pattern), Tenants: c.Tenants, Mean: c.Mean, Peak: c.Peak,
			Headroom: profile.JobTypes{Short: c.Headroom.Short, Medium: c.Headroom.Medium, Long: c.Headroom.Long},
			// fft ranks patterns 3/2/1 per job type; the profile format
			// keeps weights in [0,1], so they are divided by the top rank.
			Weights: profile.JobTypes{Short: c.Weights.Short / topWeight, Medium: c.Weights.Medium / topWeight, Long: c.Weights.Long / topWeight}}
		// The class's period: the one most of its periodic tenants have
		// (the shorter on a tie).
		best, bestN := 0.0, 0
		for p, n := range periods[c.Class] {
			if n > bestN || (n == bestN && p < best) {
				best, bestN = p, n
			}
		}
		if bestN > 0 {
			pc.PeriodS = &best
		}
		file.Classes = append(file.Classes, pc)
	}
	reps, err := representatives(ctx, ds, res, 2)
	if err != nil {
		return err
	}
	in.Tenants = &reports.Tenants{File: file, Representatives: reps}
	return nil
}

// representatives picks, per class, up to n tenants closest to the class's
// (mean, peak), with their series (read back from the series table) and
// spectrum.
func representatives(ctx context.Context, ds *dataset.Dataset, res *fft.Result, n int) ([]reports.Representative, error) {
	type pick struct {
		class  string
		tenant fft.Tenant
	}
	var picks []pick
	wanted := map[string]bool{}
	for _, c := range res.Classes {
		var members []fft.Tenant
		for _, t := range res.Tenants {
			if t.Class == c.Class {
				members = append(members, t)
			}
		}
		dist := func(t fft.Tenant) float64 { return math.Hypot(t.Mean-c.Mean, t.Peak-c.Peak) }
		sort.SliceStable(members, func(a, b int) bool {
			da, db := dist(members[a]), dist(members[b])
			if da != db {
				return da < db
			}
			return members[a].Tenant < members[b].Tenant
		})
		for _, t := range members[:min(n, len(members))] {
			picks = append(picks, pick{c.Class, t})
			wanted[t.Tenant] = true
		}
	}
	if len(picks) == 0 {
		return nil, nil
	}
	series, err := dataset.ReadSeriesOf(ctx, ds, func(tenant string) bool { return wanted[tenant] })
	if err != nil {
		return nil, err
	}
	byTenant := map[string]*dataset.Series{}
	for i := range series {
		byTenant[series[i].Tenant] = &series[i]
	}
	var out []reports.Representative
	for _, p := range picks {
		s := byTenant[p.tenant.Tenant]
		if s == nil {
			continue
		}
		f, pw := fft.Spectrum(s.Values, s.StepS)
		out = append(out, reports.Representative{Class: p.class, Tenant: p.tenant.Tenant,
			Series:   reports.Series{Name: p.tenant.Tenant, StepS: s.StepS, Values: s.Values},
			Spectrum: reports.Spectrum{FrequencyHz: f, Power: pw}})
	}
	return out, nil
}

// addSLO runs the slo stage on the runs and provenance tables and sets
// each recurring job's period and SLO, every number with where it came
// from (inferred, or the user's overrides file).
func addSLO(ctx context.Context, ds *dataset.Dataset, in *reports.Input, rj *reportJobs, overrides string) error {
	if ds.Rows(dataset.RunsTable.Name) == 0 {
		in.Notes[reports.StageSLO] = append(in.Notes[reports.StageSLO],
			"No job runs in the dataset: ingest YARN ResourceManager logs, OpenLineage events or Spark event logs (and HDFS audit logs for provenance) to infer SLOs.")
		return nil
	}
	opts := slo.DefaultOptions()
	if overrides != "" {
		ov, err := slo.LoadOverrides(overrides)
		if err != nil {
			return err
		}
		opts.Overrides = ov
	}
	res, err := inferSLO(ctx, ds, opts)
	if errors.Is(err, slo.ErrNoRuns) {
		in.Notes[reports.StageSLO] = append(in.Notes[reports.StageSLO], err.Error())
		return nil
	}
	if err != nil {
		return err
	}
	for _, w := range res.Warnings {
		in.Notes[reports.StageSLO] = append(in.Notes[reports.StageSLO], w)
	}
	for _, sj := range res.Jobs {
		j := rj.job(sj.Job)
		ov := sj.Override
		source := func(set bool) string {
			if set {
				return profile.SourceOverride
			}
			return profile.SourceInferred
		}
		if sj.PeriodS != nil {
			detail := fmt.Sprintf("median spacing of %d submissions", sj.Runs)
			if sj.PeriodSnapped {
				detail += ", snapped to a natural period"
			}
			set := ov != nil && ov.PeriodS != nil
			if set {
				detail = "overrides file " + overrides
			}
			j.Profile.PeriodS = &profile.Number{Value: *sj.PeriodS, Source: source(set), Detail: detail}
		}
		p := &profile.SLO{Actionable: sj.Actionable, Reason: sj.Reason, Runs: sj.Runs, SlackRatio: sj.SlackRatio,
			Override: profile.Override{Fields: []string{}}, Warnings: append([]string{}, sj.Warnings...)}
		if ov != nil {
			p.Override = profile.Override{Applies: true, File: overrides, Fields: overrideFields(ov)}
		}
		if sj.ArrivalS != nil {
			set := ov != nil && ov.ArrivalS != nil
			detail := fmt.Sprintf("p%g of T_inAvail (last write of an input) over %d runs", opts.ArrivalPercentile, sj.ArrivalRuns)
			if sj.ArrivalFrom == "submit" {
				detail = fmt.Sprintf("p%g of the submission offset in the period over %d runs (no input write seen)", 100-opts.ArrivalPercentile, sj.ArrivalRuns)
			}
			if set {
				detail = "overrides file " + overrides
			}
			p.ArrivalS = &profile.Number{Value: *sj.ArrivalS, Source: source(set), Detail: detail}
		}
		if sj.DeadlineS != nil {
			set := ov != nil && ov.DeadlineS != nil
			detail := fmt.Sprintf("p%g of T_outRead (first read of an output) over %d runs", opts.DeadlinePercentile, sj.RunsMeasured)
			if set {
				detail = "overrides file " + overrides
			}
			p.DeadlineS = &profile.Number{Value: *sj.DeadlineS, Source: source(set), Detail: detail}
		}
		j.Profile.SLO = p
		if sj.PeriodS != nil && sj.PeriodAnchorMs != nil {
			rj.anchors[sj.Job] = periodAnchor{int64(math.Round(*sj.PeriodS * 1000)), *sj.PeriodAnchorMs}
		}
	}
	return nil
}

// overrideFields names the SLO fields an override sets.
func overrideFields(ov *slo.Override) []string {
	f := []string{}
	if ov.PeriodS != nil {
		f = append(f, "period_s")
	}
	if ov.ArrivalS != nil {
		f = append(f, "arrival_s")
	}
	if ov.DeadlineS != nil {
		f = append(f, "deadline_s")
	}
	if ov.Accept {
		f = append(f, "accept")
	}
	if ov.Reject {
		f = append(f, "reject")
	}
	return f
}

// addElasticity runs the elasticity stage on the profruns table: per job a
// model per task kind (with its curve, penalty and validation) and the
// measured runs drawn over it; groups without a model become caveats.
func addElasticity(in *reports.Input, rj *reportJobs, runs []dataset.ProfRun) error {
	if len(runs) == 0 {
		in.Notes[reports.StageElasticity] = append(in.Notes[reports.StageElasticity],
			"No profiling runs in the dataset: run wlprof profile run, or ingest profruns-csv, jhist or Spark event logs.")
		return nil
	}
	res, err := elasticity.Build(runs, elasticity.DefaultOptions())
	if errors.Is(err, elasticity.ErrNoRuns) {
		in.Notes[reports.StageElasticity] = append(in.Notes[reports.StageElasticity], err.Error())
		return nil
	}
	if err != nil {
		return err
	}
	for _, m := range res.Models {
		j := rj.job(m.Job)
		em := profile.ElasticityModel{Task: m.Task, Framework: m.Framework, Kind: m.Kind,
			IdealMemoryBytes: float64(m.IdealMemoryBytes), IdealRuntimeS: m.IdealRuntimeS,
			Params: m.Params, Curve: []profile.CurvePoint{}, Warnings: append([]string{}, m.Warnings...)}
		if em.Params == nil {
			em.Params = map[string]float64{}
		}
		for _, pt := range m.Curve {
			// elasticity's penalty is runtime / ideal; the profile's is that − 1.
			em.Curve = append(em.Curve, profile.CurvePoint{MemoryBytes: float64(pt.MemoryBytes), RuntimeS: pt.RuntimeS, Penalty: pt.Penalty - 1})
		}
		if m.Validation.Runs > 0 {
			em.Validation = &profile.Validation{Runs: m.Validation.Runs, MeanAbsError: m.Validation.MeanAbsError, MaxAbsError: m.Validation.MaxAbsError}
		}
		j.Profile.Elasticity = append(j.Profile.Elasticity, em)
		for _, st := range m.Settings {
			j.Measured = append(j.Measured, reports.Measured{Task: m.Task, MemoryBytes: float64(st.MemoryBytes), RuntimeS: st.RuntimeS, Fit: st.UsedToFit})
		}
		for _, w := range m.Warnings {
			j.Profile.Warnings = append(j.Profile.Warnings, "elasticity "+m.Task+": "+w)
		}
	}
	for _, sk := range res.Skipped {
		in.Skipped = append(in.Skipped, reports.Skipped{Stage: reports.StageElasticity, Job: sk.Job,
			Reason: fmt.Sprintf("task %s (%s, %d slots, %d runs): %s", sk.Task, sk.Framework, sk.Slots, sk.Runs, sk.Reason)})
	}
	return nil
}

// addProfiler turns the sandbox profiler's runs (framework "sandbox") into
// each job's sweeps (runtime and peak RSS per memory or slot setting) and
// the per-phase profile of its fastest configuration (seed 002 §4.2.6).
func addProfiler(ctx context.Context, ds *dataset.Dataset, in *reports.Input, rj *reportJobs, runs []dataset.ProfRun) error {
	byJob := map[string][]dataset.ProfRun{}
	for _, r := range runs {
		if r.Framework == "sandbox" {
			byJob[r.Job] = append(byJob[r.Job], r)
		}
	}
	if len(byJob) == 0 {
		in.Notes[reports.StageProfiler] = append(in.Notes[reports.StageProfiler],
			"No sandbox profiling runs in the dataset: wlprof profile run -- CMD records them.")
		return nil
	}
	samples, err := dataset.ReadAll(ctx, ds, dataset.ProfSamplesTable)
	if err != nil {
		return err
	}
	ids := make([]string, 0, len(byJob))
	for id := range byJob {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		jr := byJob[id]
		profiler.SortRuns(jr)
		j := rj.job(id)
		tasks := map[string]bool{}
		for _, r := range jr {
			tasks[r.Task] = true
		}
		taskList := make([]string, 0, len(tasks))
		for t := range tasks {
			taskList = append(taskList, t)
		}
		sort.Strings(taskList)
		for _, task := range taskList {
			var mine []dataset.ProfRun
			slots := map[int32]bool{}
			mems := map[int64]bool{}
			for _, r := range jr {
				if r.Task == task {
					mine = append(mine, r)
					slots[r.Slots] = true
					mems[r.MemoryBytes] = true
				}
			}
			sw := reports.Sweep{Task: task, Setting: "memory_bytes"}
			if len(mems) == 1 && len(slots) > 1 {
				sw.Setting = "slots"
			}
			for _, st := range profiler.Summarize(mine) {
				if st.OK == 0 {
					continue
				}
				x := float64(st.MemBytes)
				if sw.Setting == "slots" {
					x = float64(st.Slots)
				}
				sw.Points = append(sw.Points, reports.SweepPoint{Setting: x, RuntimeS: st.WallS.Median, PeakRSSBytes: st.PeakRSSBytes.Median})
			}
			j.Sweeps = append(j.Sweeps, sw)
			sampled := false // runs from the profiler carry a run id and samples; profruns-csv rows do not
			for _, r := range mine {
				sampled = sampled || r.RunID != ""
			}
			if pr := profiler.BuildProfile(task, mine, samples); sampled && pr != nil {
				var host struct {
					MemTotalBytes float64 `json:"mem_total_bytes"`
				}
				_ = json.Unmarshal([]byte(mine[0].Host), &host) // no host facts: memory stays 0
				for _, ph := range pr.Phases {
					j.Profile.Phases = append(j.Profile.Phases, profile.Phase{Phase: task + "/" + ph.Phase, Tasks: pr.Slots,
						TaskRuntimeS: ph.EndS - ph.StartS, CPUShare: clamp01(ph.CPU), IOShare: clamp01(ph.IO),
						MemoryBytes: ph.Memory * host.MemTotalBytes, Slots: pr.Slots})
				}
				for _, w := range pr.Warnings {
					j.Profile.Warnings = append(j.Profile.Warnings, "profiler "+task+": "+w)
				}
			}
		}
	}
	return nil
}

func clamp01(x float64) float64 { return math.Min(1, math.Max(0, x)) }

// addSkyline fits every job of the skylines table, as wlprof skyline does,
// and fills in each job's skyline section and its runs for the figure.
func addSkyline(ctx context.Context, ds *dataset.Dataset, o *reportOptions, in *reports.Input, rj *reportJobs) ([]*skyline.Fit, error) {
	opts, sweep, err := o.fit.skylineOpts()
	if err != nil {
		return nil, err
	}
	if err := opts.Validate(); err != nil {
		return nil, usageError{err}
	}
	jobs, err := skyline.Load(ctx, ds, "")
	if err != nil {
		return nil, err
	}
	if len(jobs) == 0 {
		in.Notes[reports.StageSkyline] = append(in.Notes[reports.StageSkyline],
			"The dataset has no skylines: ingest re-native, yarn-rm, spark-eventlog or skyline-csv inputs.")
		return nil, nil
	}
	opts.SkipBadJobs = true // a broken log is a caveat of the report, not its end
	res, err := skyline.FitAll(ctx, jobs, opts, sweep, o.fit.Workers)
	if err != nil {
		return nil, err
	}
	byID := map[string]skyline.Job{}
	for _, j := range jobs {
		byID[j.ID] = j
	}
	for _, f := range res.Jobs {
		rep := rj.job(f.Job)
		sk, runs, err := skylineSection(f, byID[f.Job])
		if err != nil {
			return nil, fmt.Errorf("job %s: %w", f.Job, err)
		}
		rep.Profile.Skyline, rep.Runs = sk, runs
		rep.Profile.Warnings = append(rep.Profile.Warnings, f.Warnings...)
		rep.Profile.Identity.Sources = append(rep.Profile.Identity.Sources, "skylines")
		rep.Profile.Identity.Runs = max(rep.Profile.Identity.Runs, f.Runs)
	}
	for _, s := range res.Skipped {
		rep := rj.job(s.Job)
		rep.Profile.Warnings = append(rep.Profile.Warnings, "skyline not fitted: "+s.Reason)
		rep.Profile.Identity.Sources = append(rep.Profile.Identity.Sources, "skylines")
		rep.Profile.Identity.Runs = max(rep.Profile.Identity.Runs, s.Runs)
		in.Skipped = append(in.Skipped, reports.Skipped{Stage: reports.StageSkyline, Job: s.Job, Reason: s.Reason})
	}
	return res.Jobs, nil
}

// addReservations writes, for each fitted job, the YARN reservation request
// of wlprof export yarn-reservation: recurring every period, in the window
// reservationWindow places, for the median container size of its skylines.
// A job whose request cannot be built (no period, a period that does not
// divide --max-periodicity) gets a warning instead.
func addReservations(ctx context.Context, ds *dataset.Dataset, o *reportOptions, rj *reportJobs, fits []*skyline.Fit) error {
	caps, err := containerSizes(ctx, ds)
	if err != nil {
		return err
	}
	for _, f := range fits {
		j := rj.job(f.Job)
		p := j.Profile
		if p.PeriodS == nil || p.Identity.LastStartMs == nil {
			p.Warnings = append(p.Warnings, "no YARN reservation: the job has no period or run start in the runs table")
			continue
		}
		c, ok := caps[f.Job]
		if !ok {
			c = skyline.YARNCapability{MemoryMB: 1024, VCores: 1}
		}
		spec := skyline.ReservationSpec{Queue: o.YARNQueue, Name: f.Job, MaxPeriodicityMs: o.MaxPeriodicity.Milliseconds(), Capability: c}
		spec.ArrivalMs, spec.DeadlineMs, spec.PeriodMs = reservationWindow(p, *p.Identity.LastStartMs, rj.anchor(f.Job))
		req, err := skyline.Reservation(f, spec)
		if err != nil {
			p.Warnings = append(p.Warnings, "no YARN reservation: "+err.Error())
			continue
		}
		b, err := json.MarshalIndent(req, "", "  ")
		if err != nil {
			return err
		}
		j.Reservation = append(b, '\n')
	}
	return nil
}

// containerSizes is, per job, the median memory and vcores per container
// of its skyline samples (1024 MB and 1 vcore where the samples have none).
func containerSizes(ctx context.Context, ds *dataset.Dataset) (map[string]skyline.YARNCapability, error) {
	mem, cores := map[string][]float64{}, map[string][]float64{}
	err := dataset.Scan(ctx, ds, dataset.SkylinesTable, func(s *dataset.SkylineSample) error {
		if s.Containers > 0 {
			if s.MemoryBytes > 0 {
				mem[s.Job] = append(mem[s.Job], float64(s.MemoryBytes)/s.Containers/(1<<20))
			}
			if s.VCores > 0 {
				cores[s.Job] = append(cores[s.Job], s.VCores/s.Containers)
			}
		}
		return nil
	})
	median := func(v []float64, def int64) int64 {
		if len(v) == 0 {
			return def
		}
		sort.Float64s(v)
		return max(1, int64(v[len(v)/2]+0.5))
	}
	out := map[string]skyline.YARNCapability{}
	for job, v := range mem {
		out[job] = skyline.YARNCapability{MemoryMB: median(v, 1024), VCores: median(cores[job], 1)}
	}
	for job, v := range cores {
		if _, ok := out[job]; !ok {
			out[job] = skyline.YARNCapability{MemoryMB: 1024, VCores: median(v, 1)}
		}
	}
	return out, err
}

// skylineSection turns a fit into the profile's skyline section and the
// runs, quantised as the fit saw them, for the figure.
func skylineSection(f *skyline.Fit, job skyline.Job) (*profile.Skyline, []reports.Series, error) {
	c, err := skyline.Quantise(job.Runs, f.StepS)
	if err != nil {
		return nil, nil, err
	}
	runs := make([]reports.Series, len(c))
	used := 0.0
	for i, v := range c {
		runs[i] = reports.Series{Name: job.Runs[i].ID, StepS: f.StepS, Values: v}
		for _, x := range v {
			used += x * f.StepS
		}
	}
	if len(c) > 0 {
		used /= float64(len(c))
	}
	sk := &profile.Skyline{Runs: f.Runs, StepS: f.StepS, Alpha: f.Alpha, Beta: f.Beta, Model: string(f.Model),
		Containers: f.Containers, Reservation: f.Reservation, Objective: f.Objective,
		OverAllocation: f.OverAllocation, UnderAllocation: f.UnderAllocation,
		UsedAreaContainerS: used, ProvisioningRatio: f.ProvisioningRatio, Warnings: f.Warnings}
	for k, r := range f.Reservation {
		sk.PeakReservation = max(sk.PeakReservation, r)
		sk.ReservedAreaContainerS += float64(r) * f.StepS
		if r == 0 {
			continue
		}
		if n := len(sk.Stages); n > 0 && sk.Stages[n-1].Containers == r &&
			math.Abs(sk.Stages[n-1].OffsetS+sk.Stages[n-1].DurationS-float64(k)*f.StepS) < 1e-9 {
			sk.Stages[n-1].DurationS += f.StepS
			continue
		}
		sk.Stages = append(sk.Stages, profile.Stage{OffsetS: float64(k) * f.StepS, DurationS: f.StepS, Containers: r})
	}
	for _, p := range f.AlphaSweep {
		sk.AlphaSweep = append(sk.AlphaSweep, profile.SweepPoint{Alpha: p.Alpha, OverAllocation: p.OverAllocation,
			UnderAllocation: p.UnderAllocation, ProvisioningRatio: p.ProvisioningRatio, PeakReservation: p.PeakReservation})
	}
	return sk, runs, nil
}

// addIdentity fills in, for the jobs being profiled, the raw names, the
// first and last run start and the period (the median spacing of the run
// starts, where the slo stage found none) from the runs table.
func addIdentity(ctx context.Context, ds *dataset.Dataset, rj *reportJobs) error {
	starts := map[string][]int64{}
	names := map[string]map[string]bool{}
	err := dataset.Scan(ctx, ds, dataset.RunsTable, func(r *dataset.Run) error {
		if rj.byID[r.Job] == nil {
			return nil
		}
		if r.StartMs != dataset.NoTime {
			starts[r.Job] = append(starts[r.Job], r.StartMs)
		}
		if r.Name != "" {
			if names[r.Job] == nil {
				names[r.Job] = map[string]bool{}
			}
			names[r.Job][r.Name] = true
		}
		return nil
	})
	if err != nil {
		return err
	}
	for id, j := range rj.byID {
		p := j.Profile
		var ns []string
		for n := range names[id] {
			ns = append(ns, n)
		}
		sort.Strings(ns)
		p.Identity.Names = ns[:min(len(ns), 5)]
		s := starts[id]
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

// reservationWindow places a job's next reservation: with an actionable SLO
// and the slo stage's period start a (its offsets count from the starts of
// that period), the period after the one the last run started in, from
// its arrival to its deadline; otherwise one period after the last run
// started, for as long as the skyline (deadline 0).
func reservationWindow(p *profile.Job, lastStartMs int64, a *periodAnchor) (arrivalMs, deadlineMs, periodMs int64) {
	periodMs = int64(math.Round(p.PeriodS.Value * 1000))
	if s := p.SLO; s != nil && s.Actionable && s.ArrivalS != nil && s.DeadlineS != nil && a != nil && a.periodMs == periodMs && periodMs > 0 {
		k := lastStartMs - a.anchorMs
		k = (k - ((k%periodMs)+periodMs)%periodMs) / periodMs // floor((last − anchor) / period)
		next := a.anchorMs + (k+1)*periodMs
		return next + int64(math.Round(s.ArrivalS.Value*1000)), next + int64(math.Round(s.DeadlineS.Value*1000)), periodMs
	}
	return lastStartMs + periodMs, 0, periodMs
}

// anchor is the slo stage's period start of job, or nil.
func (r *reportJobs) anchor(job string) *periodAnchor {
	if a, ok := r.anchors[job]; ok {
		return &a
	}
	return nil
}
