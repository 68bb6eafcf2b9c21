package pipeline

import (
	"context"
	"fmt"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/harvest"
	"github.com/wlprof/wlprof/profile"
	"github.com/wlprof/wlprof/reports"
)

// addJobTypes, when o.JobTypes is set, gives every job of the runs table
// its length type (seed 000 §4.1) in its profile, with thresholds derived
// as wlprof harvest does from the run durations and the classes' capacity
// (no replay).
func (r *reportInput) addJobTypes(ctx context.Context, ds *dataset.Dataset, o Options) error {
	if o.JobTypes == nil || ds.Rows(dataset.RunsTable.Name) == 0 {
		return nil
	}
	runs, err := dataset.ReadAll(ctx, ds, dataset.RunsTable)
	if err != nil {
		return err
	}
	var tenants *profile.Tenants
	if r.in.Tenants != nil {
		tenants = r.in.Tenants.File
	}
	harvest.TypeJobs(runs, tenants, *o.JobTypes).Profile(r.jobs)
	return nil
}

// addHarvest, when o.Harvest is set, runs the harvest stage as wlprof
// harvest does and keeps what the report's section shows; with the runs
// workload each job's profile gets its length type.
func (r *reportInput) addHarvest(ctx context.Context, ds *dataset.Dataset, o Options) error {
	if o.Harvest == nil {
		r.note(reports.StageHarvest, "Not asked for: --harvest replays the job runs (or --harvest-workload poisson, a synthetic stream) on the primary tenants' spare cores, placing them by their classes' history (seed 000 Algorithm 1) and blind, and counts the containers killed.")
		return nil
	}
	if ds.Rows(dataset.UsageTable.Name) == 0 && ds.Rows(dataset.SeriesTable.Name) == 0 {
		r.note(reports.StageHarvest, "No utilisation data in the dataset: the harvest what-if replays the primary tenants' usage.")
		return nil
	}
	opts := *o.Harvest
	if opts.Workload == harvest.WorkloadRuns && ds.Rows(dataset.RunsTable.Name) == 0 {
		r.note(reports.StageHarvest, "No job runs in the dataset to replay: ingest job logs, or use --harvest-workload poisson.")
		return nil
	}
	var res *harvest.Result
	err := r.around(reports.StageHarvest, func() error {
		in, err := harvest.Load(ctx, ds, opts)
		if err != nil {
			return err
		}
		res, err = harvest.Run(ctx, in, opts)
		return err
	})
	if err != nil {
		return fmt.Errorf("harvest: %w", err)
	}
	world, workload, types := res.Summary()
	h := &reports.Harvest{World: world + ".", Workload: "Workload: " + workload + ".", Thresholds: "Job types: " + types + ".",
		Assumptions: res.Assumptions, Warnings: res.Warnings}
	for _, p := range res.Policies {
		h.Policies = append(h.Policies, reports.HarvestRow{Policy: string(p.Policy), Containers: p.Containers, Killed: p.Killed, Unplaced: p.Unplaced,
			MultiClassJobs: p.MultiClass, FallbackJobs: p.Fallback, HarvestedCoreH: p.HarvestedCoreH, LostCoreH: p.LostCoreH})
	}
	for _, g := range []struct {
		by string
		m  func(*harvest.Outcome) map[string]*harvest.Tally
	}{{"pattern", func(o *harvest.Outcome) map[string]*harvest.Tally { return o.ByPattern }},
		{"job type", func(o *harvest.Outcome) map[string]*harvest.Tally { return o.ByType }}} {
		keys := map[string]bool{}
		for _, p := range res.Policies {
			for k := range g.m(p) {
				keys[k] = true
			}
		}
		order := []string{"short", "medium", "long", "constant", "periodic", "unpredictable", "none"}
		for _, k := range order {
			if !keys[k] {
				continue
			}
			for _, p := range res.Policies {
				t := g.m(p)[k]
				if t == nil {
					t = &harvest.Tally{}
				}
				h.Groups = append(h.Groups, reports.HarvestRow{By: g.by, Key: k, Policy: string(p.Policy), Containers: t.Containers, Killed: t.Killed,
					HarvestedCoreH: t.HarvestedCoreH, LostCoreH: t.LostCoreH})
			}
		}
	}
	res.Profile(r.jobs)
	r.in.Harvest = h
	return nil
}
