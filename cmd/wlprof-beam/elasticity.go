package main

import (
	"context"
	"fmt"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/elasticity"
)

// elasticityCmd is wlprof-beam elasticity's options.
type elasticityCmd = stageCmd[elasticity.Options, elasticity.Input, elasticity.Result, elasticity.Document]

func newElasticityCmd(g *globalOptions) *cobra.Command {
	o := newStageCmd(g, elasticity.Contract, dataset.ProfRunsTable.Name)
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
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd.Context(), elasticityShards, o.print) },
	}
	f := cmd.Flags()
	o.bind(f, "profruns-csv, jhist or spark-eventlog")
	o.opts.AddFlags(f)
	return cmd
}

// elasticityShards runs the pipeline and returns the document it wrote and
// the number of rejected records.
func elasticityShards(ctx context.Context, o *elasticityCmd, shards []string, opts elasticity.Options) (elasticity.Document, int64, error) {
	build := func(shards []string, out string) (*beam.Pipeline, error) {
		p := buildElasticity(shards, elasticityConfig{Format: o.Format, Ingest: o.Ingest, Options: opts, Out: out})
		o.g.progressf("elasticity: %d shard(s) on %s\n", len(shards), o.Runner)
		return p, nil
	}
	none := func(rejected int64) error {
		// No group at all: the combine had nothing to run on (the stage's
		// remedy, to ingest, is not this command's).
		what := "no profiling runs"
		if opts.Job != "" {
			what += fmt.Sprintf(" for job %q", opts.Job)
		}
		return fmt.Errorf("%s in the inputs (%d record(s) rejected)", what, rejected)
	}
	return o.runShards(ctx, shards, build, none, elasticityJSON, modelsParquet, curvesParquet, errorsTxt)
}
