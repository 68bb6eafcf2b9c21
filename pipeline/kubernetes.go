package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/elasticity"
	"github.com/wlprof/wlprof/harvest"
	"github.com/wlprof/wlprof/kube"
	"github.com/wlprof/wlprof/profile"
	"github.com/wlprof/wlprof/reports"
	"github.com/wlprof/wlprof/skyline"
)

// KubernetesOptions are wlprof export kubernetes's.
type KubernetesOptions struct {
	Export kube.Options
	// Skyline fits the jobs' skylines (their parallelism); Profiles, when
	// set, is a directory of profile files (a report's profiles/) to take
	// the skylines and elasticity models from instead of fitting them.
	Skyline  skyline.Options
	Profiles string
	Around   func(stage string, run func() error) error
}

// Kubernetes builds the patches of wlprof export kubernetes: the job
// profiles (skylines fitted as wlprof skyline does, elasticity models as
// wlprof elasticity, or read from o.Profiles), then package kube's
// patches from them and the dataset's usage.
func Kubernetes(ctx context.Context, ds *dataset.Dataset, o KubernetesOptions) (*kube.Result, error) {
	around := Options{Around: o.Around}.around
	jobs := profile.Jobs{}
	var skipped []kube.Skipped
	if o.Profiles != "" {
		var err error
		if jobs, err = readProfiles(o.Profiles); err != nil {
			return nil, err
		}
	} else {
		if ds.Rows(dataset.SkylinesTable.Name) > 0 {
			err := around("skyline", func() error {
				in, err := skyline.Load(ctx, ds, o.Skyline)
				if err != nil {
					return err
				}
				opts := o.Skyline
				opts.SkipBadJobs = true // one job's broken runs leave its parallelism out, not the export
				res, err := skyline.Run(ctx, in, opts)
				if err != nil {
					return err
				}
				for _, s := range res.Skipped {
					skipped = append(skipped, kube.Skipped{ID: s.Job, Reason: "skyline: " + s.Reason})
				}
				return res.Profile(jobs)
			})
			if err != nil {
				return nil, err
			}
		}
		if ds.Rows(dataset.ProfRunsTable.Name) > 0 {
			err := around("elasticity", func() error {
				in, err := elasticity.Load(ctx, ds, elasticity.DefaultOptions())
				if err != nil {
					return err
				}
				res, err := elasticity.Run(ctx, in, elasticity.DefaultOptions())
				if errors.Is(err, elasticity.ErrNoRuns) {
					return nil
				}
				if err != nil {
					return err
				}
				for _, s := range res.Skipped {
					skipped = append(skipped, kube.Skipped{ID: s.Job, Reason: "elasticity: " + s.Describe()})
				}
				res.Profile(jobs)
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
	}
	in, err := kube.Load(ctx, ds, jobs, o.Export)
	if err != nil {
		return nil, err
	}
	in.Skipped = append(in.Skipped, skipped...)
	return kube.Run(ctx, in, o.Export)
}

// readProfiles reads every job profile (*.json of kind job) in dir, or in
// dir/profiles when dir is a report.
func readProfiles(dir string) (profile.Jobs, error) {
	if st, err := os.Stat(filepath.Join(dir, "profiles")); err == nil && st.IsDir() {
		dir = filepath.Join(dir, "profiles")
	}
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	jobs := profile.Jobs{}
	for _, p := range paths {
		j, err := profile.LoadJob(p)
		if err != nil {
			return nil, fmt.Errorf("--profiles: %w", err)
		}
		jobs[j.Job] = j
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("--profiles %s: no job profile (*.json) there", dir)
	}
	return jobs, nil
}

// addKubernetes sets the planner's platform when the data came from a
// Kubernetes ingest: the answers then speak of nodes, namespaces, CronJobs
// and pods, their actions point at wlprof export kubernetes, and a node's
// cores are the nodes' allocatable (nodeCores) unless --server-cores or
// the harvest section says otherwise.
func addKubernetes(ctx context.Context, ds *dataset.Dataset, o Options, p *reports.Planner, args string) error {
	if !kube.FromKubernetes(ds.Manifest()) {
		return nil
	}
	p.Platform = reports.PlatformKubernetes
	p.Commands["kubernetes"] = "wlprof export kubernetes" + args
	if o.Planner.ServerCores > 0 || (o.Harvest != nil && o.Harvest.Cores != harvest.DefaultOptions().Cores) {
		return nil
	}
	c, from, err := nodeCores(ctx, ds)
	if err != nil || c == 0 {
		return err
	}
	p.CoresPerServer, p.CoresFrom = c, from+" (--server-cores to set)"
	return nil
}

// nodeCores is a node's cores in a dataset from a Kubernetes ingest
// (dataset.KubernetesNodeCores: the median node's allocatable, rounded),
// as wlprof harvest takes them.
func nodeCores(ctx context.Context, ds *dataset.Dataset) (int, string, error) {
	return dataset.KubernetesNodeCores(ctx, ds)
}
