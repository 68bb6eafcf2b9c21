package profiler

import (
	"context"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/profile"
)

// Identify counts, for the jobs of the profiles, the profiling runs the
// profruns table holds (sandbox runs, profruns-csv rows, task attempts
// from job histories): profruns joins each such job's sources, and a job
// no other source saw runs of (known only from an elasticity model or a
// phase profile, which otherwise has an empty identity) gets their count
// as its runs. Where the runs table, the skylines or the SLO counted the
// job's runs, those stay: a job run's task attempts are not runs of the
// job. Run starts are not taken: a sandbox run says nothing of when the
// recurring job runs in the cluster.
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
		if id.Runs == 0 {
			id.Runs = runs
		}
		id.Sources = append(id.Sources, dataset.ProfRunsTable.Name)
	}
	return nil
}
