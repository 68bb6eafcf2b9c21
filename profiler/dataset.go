package profiler

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/wlprof/wlprof/dataset"
)

// Commit writes one run and its samples to ds in one transaction, so an
// interrupted sweep keeps every run finished before it (Options.OnRun).
func Commit(ds *dataset.Dataset, r *Run) error {
	tx, err := ds.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := tx.ProfRuns().Append(&r.Record); err != nil {
		return err
	}
	for i := range r.Samples {
		if err := tx.ProfSamples().Append(&r.Samples[i]); err != nil {
			return err
		}
	}
	tx.AddSource(dataset.Source{Path: "profile run " + r.Record.RunID, Format: "profile-run", Accepted: 1, Notes: r.Warnings})
	return tx.Commit()
}

// LoadJob reads the profiling runs of job (of task too, when task is not
// "") and the job's samples from ds.
func LoadJob(ctx context.Context, ds *dataset.Dataset, job, task string) ([]dataset.ProfRun, []dataset.ProfSample, error) {
	var runs []dataset.ProfRun
	err := dataset.Scan(ctx, ds, dataset.ProfRunsTable, func(r *dataset.ProfRun) error {
		if r.Job == job && (task == "" || r.Task == task) {
			runs = append(runs, *r)
		}
		return nil
	})
	if err != nil || len(runs) == 0 {
		return runs, nil, err
	}
	var samples []dataset.ProfSample
	err = dataset.Scan(ctx, ds, dataset.ProfSamplesTable, func(s *dataset.ProfSample) error {
		if s.Job == job {
			samples = append(samples, *s)
		}
		return nil
	})
	return runs, samples, err
}

// SweepInto runs the sweep (Sweep) and commits each finished run to ds at
// once (Commit), so that a sweep that fails or is interrupted keeps every
// run finished before. It returns the runs committed, in the order they
// ran, and their samples, with the sweep's error. o.OnRun, when set, is
// called after each run is committed.
func SweepInto(ctx context.Context, ds *dataset.Dataset, argv []string, o Options) ([]dataset.ProfRun, []dataset.ProfSample, error) {
	var runs []dataset.ProfRun
	var samples []dataset.ProfSample
	onRun := o.OnRun
	o.OnRun = func(r *Run) error {
		if err := Commit(ds, r); err != nil {
			return err
		}
		runs = append(runs, r.Record)
		samples = append(samples, r.Samples...)
		if onRun != nil {
			return onRun(r)
		}
		return nil
	}
	_, err := Sweep(ctx, argv, o)
	return runs, samples, err
}

// NoRunsError is the error of a job (and task, when given) with no
// profiling runs in ds: a misspelt job names the closest known jobs
// (dataset.UnknownJobError); a known job without task lists its tasks.
func NoRunsError(ctx context.Context, ds *dataset.Dataset, job, task string) error {
	var tasks []string
	err := dataset.Scan(ctx, ds, dataset.ProfRunsTable, func(r *dataset.ProfRun) error {
		if r.Job == job && !slices.Contains(tasks, r.Task) {
			tasks = append(tasks, r.Task)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(tasks) == 0 || task == "" {
		return ds.UnknownJob(ctx, dataset.ProfRunsTable.Name, job)
	}
	slices.Sort(tasks)
	q := make([]string, len(tasks))
	for i, t := range tasks {
		q[i] = strconv.Quote(t)
	}
	return fmt.Errorf("job %q has no profiling runs of task %q in %s; its tasks: %s", job, task, ds.Dir, strings.Join(q, ", "))
}
