package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/elasticity"
)

// The elasticity pipeline:
//
//	shard paths ─ReadProfRuns─▶ (group, profiling run) ─GroupByKey─▶ a group's runs
//	             └─rejects (side output) ─▶ one group ─▶ DIR/rejects.csv
//	per group (job, task, framework, slots) ─elasticity.ModelGroup─▶ (group, outcome)
//	        ─▶ one group ─elasticity.Collect─▶ DIR/elasticity.json, models.parquet, curves.parquet
//
// A profiling run is one row (a task's run at one memory setting), so the
// runs themselves are the elements. A group's runs are put back in the
// order of the shards' paths and each shard's own order, the order of the
// profruns table that wlprof ingest writes given the same files sorted, and
// elasticity.Collect sorts the outcomes by group, as elasticity.Run does.

func init() {
	registerPerKey[profRow](&readProfRunsFn{}, &collectModelsFn{})
	register.DoFn2x2[string, func(*profRow) bool, outcome, error](&modelGroupFn{})
}

// elasticityConfig is what the elasticity pipeline's steps need to know.
type elasticityConfig = perKeyConfig[elasticity.Options]

// buildElasticity makes the pipeline over the given shards (absolute paths).
func buildElasticity(shards []string, cfg elasticityConfig) *beam.Pipeline {
	return buildPerKey(shards, &readProfRunsFn{Format: cfg.Format, Ingest: cfg.Ingest, Job: cfg.Options.Job},
		&modelGroupFn{Options: cfg.Options}, &collectModelsFn{Options: cfg.Options, Out: cfg.Out}, cfg.Out)
}

// profRow is one row of a shard's profruns table and where it was: the
// shard and the row's place in it. The run is gob-encoded: a ProfRun is
// plain values, and gob keeps every one of them exactly.
type profRow struct {
	Shard string
	Seq   int64
	Run   []byte
}

// groupKey is a group's key as a string (Beam keys are encoded bytes).
func groupKey(g elasticity.Group) string {
	return fmt.Sprintf("%q %q %q %d", g.Job, g.Task, g.Framework, g.Slots)
}

// readProfRunsFn reads one shard with ingest's parser for Format (through
// a temporary dataset) and emits each profiling run under its group, and
// every rejected record.
type readProfRunsFn struct {
	Format string
	Ingest ingestConfig
	Job    string
}

func (f *readProfRunsFn) ProcessElement(ctx context.Context, path string, emit func(string, profRow), reject func(rejectRow)) error {
	var seq int64
	return scanShard(ctx, f.Format, path, f.Ingest, func(ds *dataset.Dataset) error {
		return dataset.Scan(ctx, ds, dataset.ProfRunsTable, func(r *dataset.ProfRun) error {
			seq++
			if f.Job != "" && r.Job != f.Job {
				return nil
			}
			blob, err := encodeGob(r)
			if err != nil {
				return err
			}
			emit(groupKey(elasticity.GroupOf(*r)), profRow{Shard: path, Seq: seq, Run: blob})
			return nil
		})
	}, reject)
}

// modelGroupFn models one group on the worker: elasticity.ModelGroup on
// its runs, in the table's order, as wlprof elasticity models it.
type modelGroupFn struct {
	Options elasticity.Options
}

func (f *modelGroupFn) ProcessElement(key string, iter func(*profRow) bool) (outcome, error) {
	rows := gather(iter)
	slices.SortFunc(rows, func(a, b profRow) int { return cmp.Or(cmp.Compare(a.Shard, b.Shard), cmp.Compare(a.Seq, b.Seq)) })
	runs := make([]dataset.ProfRun, len(rows))
	for i, r := range rows {
		if err := decodeGob(r.Run, &runs[i]); err != nil {
			return outcome{}, err
		}
	}
	blob, err := json.Marshal(elasticity.ModelGroup(elasticity.GroupOf(runs[0]), runs, f.Options))
	return outcome{Key: key, Blob: blob}, err
}

// collectModelsFn is the global combine: elasticity.Collect over the
// groups' outcomes, written to Out.
type collectModelsFn struct {
	Options elasticity.Options
	Out     string
}

func (f *collectModelsFn) ProcessElement(_ int, iter func(*outcome) bool) error {
	var outs []elasticity.Outcome
	var o outcome
	for iter(&o) {
		var eo elasticity.Outcome
		if err := json.Unmarshal(o.Blob, &eo); err != nil {
			return fmt.Errorf("wlprof-beam: group %s: %w", o.Key, err)
		}
		outs = append(outs, eo)
	}
	res, failed := elasticity.Collect(outs, f.Options)
	if failed != nil {
		return writeFailed(f.Out, failed)
	}
	return writeElasticityResults(f.Out, res)
}
