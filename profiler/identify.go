package profiler

import (
	"context"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/profile"
)

// Identify counts, for the jobs of the profiles, the profiling runs the
// profruns table holds (sandbox runs, profruns-csv rows, task attempts
// from job histories), in each job's identity: its run count is the most
// any one source saw, and profruns joins its sources. A job known only
// from profiling runs (an elasticity model, a phase profile) otherwise has
// an empty identity. Run starts are not taken: a sandbox run says nothing
// of when the recurring job runs in the cluster.
func Identify(ctx context.Context, ds *dataset.Dataset, jobs profile.Jobs) error {
	n := map[string]int{}
	err := dataset.Scan(ctx, ds, dataset.ProfRunsTable, func(r *dataset.ProfRun) error {
		if jobs[r.Job] != nil {
			n[r.Job]++
		}
		return nil
	})
	if err != nil {
		return err
	}
	for job, runs := range n {
		id := &jobs[job].Identity
		id.Runs = max(id.Runs, runs)
		id.Sources = append(id.Sources, dataset.ProfRunsTable.Name)
	}
	return nil
}
