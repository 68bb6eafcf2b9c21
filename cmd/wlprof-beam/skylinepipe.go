package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/skyline"
)

// The skyline pipeline:
//
//	shard paths ─ReadSkylines─▶ (job, one run's rows of that shard) ─GroupByKey─▶ a job's rows
//	             └─rejects (side output) ─▶ one group ─▶ DIR/rejects.csv
//	per job ─FitJob (skyline.JobFromRows, skyline.FitJob: one LP per job)─▶ (job, outcome)
//	        ─▶ one group ─skyline.Collect─▶ DIR/skyline.json, skylines.parquet, reservations.parquet
//
// A shard emits one element per run it holds, never one per sample. A
// run's rows from several shards are put back in the order of the shards'
// paths (and each shard's own order), the order wlprof ingest gives the
// skylines table when it is handed the same files sorted; skyline.JobFromRows
// then builds the job as skyline.Load does. The outcomes are collected in
// job order, as skyline.Run collects them, so the document does not depend
// on the number or order of the shards.

func init() {
	registerPerKey[skyRun](&readSkylinesFn{}, &collectSkylinesFn{})
	register.DoFn3x2[context.Context, string, func(*skyRun) bool, outcome, error](&fitJobFn{})
}

// skylineConfig is what the skyline pipeline's steps need to know.
type skylineConfig = perKeyConfig[skyline.Options]

// buildSkyline makes the pipeline over the given shards (absolute paths).
func buildSkyline(shards []string, cfg skylineConfig) *beam.Pipeline {
	return buildPerKey(shards, &readSkylinesFn{Format: cfg.Format, Ingest: cfg.Ingest, Job: cfg.Options.Job},
		&fitJobFn{Options: cfg.Options}, &collectSkylinesFn{Out: cfg.Out}, cfg.Out)
}

// skyRun is one run's rows of the skylines table of one shard, in the
// table's order.
type skyRun struct {
	Shard      string
	Run        string
	Offsets    []float64
	Containers []float64
}

// jobOutcome is skyline.Outcome with its error as text, to cross workers.
type jobOutcome struct {
	Fit     *skyline.Fit     `json:"fit,omitempty"`
	Skipped *skyline.Skipped `json:"skipped,omitempty"`
	Err     string           `json:"err,omitempty"`
}

// readSkylinesFn reads one shard with ingest's parser for Format (through
// a temporary dataset) and emits each run's rows, and every rejected record.
type readSkylinesFn struct {
	Format string
	Ingest ingestConfig
	Job    string
}

func (f *readSkylinesFn) ProcessElement(ctx context.Context, path string, emit func(string, skyRun), reject func(rejectRow)) error {
	type key struct{ job, run string }
	runs := map[key]*skyRun{}
	var order []key
	err := scanShard(ctx, f.Format, path, f.Ingest, func(ds *dataset.Dataset) error {
		return dataset.Scan(ctx, ds, dataset.SkylinesTable, func(s *dataset.SkylineSample) error {
			if f.Job != "" && s.Job != f.Job {
				return nil
			}
			k := key{s.Job, s.Run}
			r := runs[k]
			if r == nil {
				r = &skyRun{Shard: path, Run: s.Run}
				runs[k] = r
				order = append(order, k)
			}
			r.Offsets = append(r.Offsets, s.OffsetS)
			r.Containers = append(r.Containers, s.Containers)
			return nil
		})
	}, reject)
	if err != nil {
		return err
	}
	for _, k := range order {
		emit(k.job, *runs[k])
	}
	return nil
}

// fitJobFn builds one job from its rows and fits it: one LP (and one per
// α of a sweep) on the worker, skyline.FitJob as wlprof skyline runs it.
type fitJobFn struct {
	Options skyline.Options
}

func (f *fitJobFn) ProcessElement(ctx context.Context, job string, iter func(*skyRun) bool) (outcome, error) {
	parts := gather(iter)
	slices.SortFunc(parts, func(a, b skyRun) int { return cmp.Or(cmp.Compare(a.Run, b.Run), cmp.Compare(a.Shard, b.Shard)) })
	var runs []skyline.JobRun
	for i, p := range parts {
		if i == 0 || p.Run != parts[i-1].Run {
			runs = append(runs, skyline.JobRun{ID: p.Run})
		}
		jr := &runs[len(runs)-1]
		for q := range p.Offsets {
			jr.Samples = append(jr.Samples, skyline.Sample{OffsetS: p.Offsets[q], Containers: p.Containers[q]})
		}
	}
	o := skyline.FitJob(ctx, skyline.JobFromRows(job, runs), f.Options)
	if err := ctx.Err(); err != nil {
		return outcome{}, err
	}
	jo := jobOutcome{Fit: o.Fit, Skipped: o.Skipped}
	if o.Err != nil {
		jo.Err = o.Err.Error()
	}
	blob, err := json.Marshal(jo)
	return outcome{Key: job, Blob: blob}, err
}

// collectSkylinesFn is the global combine: skyline.Collect over the jobs'
// outcomes in job order, written to Out; a failed job's error (every
// one's, as wlprof says them) to Out/errors.txt instead.
type collectSkylinesFn struct {
	Out string
}

func (f *collectSkylinesFn) ProcessElement(_ int, iter func(*outcome) bool) error {
	all := gather(iter)
	slices.SortFunc(all, func(a, b outcome) int { return cmp.Compare(a.Key, b.Key) })
	outs := make([]skyline.Outcome, len(all))
	for i, o := range all {
		var jo jobOutcome
		if err := json.Unmarshal(o.Blob, &jo); err != nil {
			return fmt.Errorf("wlprof-beam: job %s: %w", o.Key, err)
		}
		outs[i] = skyline.Outcome{Fit: jo.Fit, Skipped: jo.Skipped}
		if jo.Err != "" {
			outs[i].Err = errors.New(jo.Err)
		}
	}
	res, failed := skyline.Collect(outs)
	if failed != nil {
		return writeFailed(f.Out, failed)
	}
	return writeSkylineResults(f.Out, res)
}
