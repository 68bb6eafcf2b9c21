package pipeline

import (
	"context"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/harvest"
	"github.com/wlprof/wlprof/profile"
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
