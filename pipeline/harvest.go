package pipeline

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/wlprof/wlprof/internal/timeflag"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/harvest"
	"github.com/wlprof/wlprof/profile"
	"github.com/wlprof/wlprof/reports"
)

// addJobTypes, when o.JobTypes is set, gives every job of the runs table
// its length type (Zhang et al., OSDI'16 §4.1) in its profile, with thresholds derived
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
		r.note(reports.StageHarvest, "Not asked for: --harvest replays the job runs (or --harvest-workload poisson, a synthetic stream) on the primary tenants' spare cores, placing them by their classes' history (Zhang et al., OSDI'16 Algorithm 1) and blind, and counts the containers killed.")
		return nil
	}
	if ds.Rows(dataset.UsageTable.Name) == 0 && ds.Rows(dataset.SeriesTable.Name) == 0 {
		r.note(reports.StageHarvest, "No utilisation data in the dataset: the harvest what-if replays the primary tenants' usage.")
		return nil
	}
	opts := *o.Harvest
	// On Kubernetes data a server is a node: the replay's servers have the
	// nodes' cores, as the answers count them, unless set.
	var coresFrom string
	if opts.Cores == harvest.DefaultOptions().Cores {
		c, from, err := nodeCores(ctx, ds)
		if err != nil {
			return err
		}
		if c > 0 {
			opts.Cores, coresFrom = c, from
		}
	}
	if opts.Workload == harvest.WorkloadRuns && ds.Rows(dataset.RunsTable.Name) == 0 {
		r.note(reports.StageHarvest, "No job runs in the dataset to replay: ingest job logs, or use --harvest-workload poisson.")
		return nil
	}
	var res *harvest.Result
	err := r.around(reports.StageHarvest, func() (err error) {
		res, err = harvest.Contract.Execute(ctx, ds, opts)
		return err
	})
	if err != nil {
		return fmt.Errorf("harvest: %w", err)
	}
	world, workload, types := res.Summary()
	h := &reports.Harvest{World: world + ".", Workload: "Workload: " + workload + ".", Thresholds: "Job types: " + types + ".",
		Assumptions: res.Assumptions, Warnings: res.Warnings}
	if coresFrom != "" {
		h.Assumptions = append(h.Assumptions, fmt.Sprintf("a server is a Kubernetes node of %d cores: %s", opts.Cores, coresFrom))
	}
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
	if err := res.Profile(r.jobs); err != nil {
		return err
	}
	r.in.Harvest = h
	r.harvestRuns, r.harvestWindow = harvestOutcomes(res)
	if opts.Window > 0 {
		r.harvestWindow += fmt.Sprintf("; at most the last %s of the data: --harvest-window 0 replays all of it)", timeflag.FormatDuration(opts.Window))
	} else {
		r.harvestWindow += "; the whole data)"
	}
	return nil
}

// harvestLabels name the policies for a reader (Zhang et al., OSDI'16 §6).
var harvestLabels = map[harvest.Policy]string{
	harvest.History: "history (Algorithm 1)",
	harvest.Blind:   "blind (YARN-PT)",
	harvest.Stock:   "stock (YARN-Stock)",
}

// harvestOutcomes are the replay's outcomes in the planner's words, and
// the part of the data it replayed.
func harvestOutcomes(res *harvest.Result) ([]reports.HarvestOutcome, string) {
	var out []reports.HarvestOutcome
	for _, p := range res.Policies {
		label := harvestLabels[p.Policy]
		if label == "" {
			label = string(p.Policy)
		}
		o := reports.HarvestOutcome{Policy: string(p.Policy), Label: label, Containers: p.Containers, Completed: p.Completed, Killed: p.Killed,
			CompletedCoreH: p.CompletedCoreH, LostCoreH: p.LostCoreH}
		if jt := p.JobTimes; jt != nil {
			o.Jobs, o.JobsFinished = jt.Jobs, jt.Finished
			if jt.Finished > 0 {
				mean, p95 := jt.MeanS, jt.P95S
				o.MeanJobS, o.P95JobS = &mean, &p95
			}
		}
		out = append(out, o)
	}
	day := func(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02") }
	days := float64(res.EndMs-res.StartMs) / 86400e3
	return out, fmt.Sprintf("%s to %s UTC (%s days", day(res.StartMs), day(res.EndMs), strconv.FormatFloat(math.Round(days*10)/10, 'f', -1, 64))
}
