package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/elasticity"
	"github.com/wlprof/wlprof/internal/safetext"
)

type elasticityOptions struct {
	g *globalOptions
	shardFlags
	opts elasticity.Options
}

func newElasticityCmd(g *globalOptions) *cobra.Command {
	o := &elasticityOptions{g: g, opts: elasticity.DefaultOptions()}
	cmd := &cobra.Command{
		Use:   "elasticity --input GLOB --format FMT --out DIR",
		Short: "Build memory elasticity models from profiling runs, one group per worker task (as wlprof elasticity)",
		Long: `Read raw shards with wlprof's ingest parsers (profruns-csv, jhist or
spark-eventlog), group the profiling runs by job, task, framework and slot
count, and model each group on a worker as wlprof elasticity models it:
the answer of wlprof ingest + wlprof elasticity on the same input, whatever
the number and order of the shards.

Writes DIR/elasticity.json (exactly wlprof elasticity -o json),
DIR/models.parquet (one row per model) and DIR/curves.parquet (one row per
model and curve point), readable by DuckDB, and DIR/rejects.csv, and prints
the document as -o asks. The flags that shape the models are wlprof
elasticity's.`,
		Example: "  wlprof-beam elasticity --input 'profruns/*.csv' --format profruns-csv --out out\n" +
			"  wlprof-beam elasticity --input 'history/*.jhist' --format jhist --job sort --out out -o json",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runElasticityCmd(cmd.Context(), o) },
	}
	f := cmd.Flags()
	o.bind(f, "profruns-csv, jhist or spark-eventlog")
	o.opts.AddFlags(f)
	return cmd
}

// validate checks every flag and returns the shards, sorted, and the
// options of the stage, as wlprof elasticity takes them; all problems at
// once, as a usage error.
func (o *elasticityOptions) validate() ([]string, elasticity.Options, error) {
	err := o.opts.Validate()
	shards, more := o.shardFlags.validate("elasticity", dataset.ProfRunsTable.Name)
	return shards, o.opts, errors.Join(append([]error{err}, more...)...)
}

func runElasticityCmd(ctx context.Context, o *elasticityOptions) error {
	shards, opts, err := o.validate()
	if err != nil {
		return usageError{err}
	}
	doc, rejected, err := elasticityShards(ctx, shards, o, opts)
	if err != nil {
		return err
	}
	return o.finish(rejected, func() error {
		return printDoc(o.g, doc, func(w *safetext.Writer) error { return doc.WriteText(w) })
	})
}

// elasticityShards runs the pipeline and returns the document it wrote and
// the number of rejected records.
func elasticityShards(ctx context.Context, shards []string, o *elasticityOptions, opts elasticity.Options) (elasticity.Document, int64, error) {
	var doc elasticity.Document
	shards, out, err := o.prepare(ctx, shards, elasticityJSON, modelsParquet, curvesParquet, errorsTxt)
	if err != nil {
		return doc, 0, err
	}
	p := buildElasticity(shards, elasticityConfig{Format: o.Format, Ingest: o.Ingest, Options: opts, Out: out})
	o.g.progressf("elasticity: %d shard(s) on %s\n", len(shards), o.Runner)
	rejected, b, err := o.runPipeline(ctx, o.g, p, out, elasticityJSON, true)
	if err == nil && b == nil {
		// No group at all: the combine had nothing to run on (the stage's
		// remedy, to ingest, is not this command's).
		what := "no profiling runs"
		if opts.Job != "" {
			what += fmt.Sprintf(" for job %q", opts.Job)
		}
		return doc, rejected, fmt.Errorf("%s in the inputs (%d record(s) rejected)", what, rejected)
	}
	if err != nil {
		return doc, rejected, err
	}
	return doc, rejected, json.Unmarshal(b, &doc)
}
