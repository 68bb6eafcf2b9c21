package main

import (
	"context"
	"fmt"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/stage"
	"github.com/wlprof/wlprof/internal/timeflag"
	"github.com/wlprof/wlprof/skyline"
)

// skylineCmd is wlprof-beam skyline's options.
type skylineCmd = stageCmd[skyline.Options, skyline.Input, skyline.Result, skyline.Document]

// skylineStageFlags are the skyline stage's flags wlprof-beam skyline
// takes: all but --workers, since the runner, not the command, decides how
// many jobs are fitted at once.
var skylineStageFlags = []string{"alpha", "beta", "step", "min-runs", "timeout", "model", "job", "alpha-sweep"}

func newSkylineCmd(g *globalOptions) *cobra.Command {
	o := newStageCmd(g, skyline.Contract, dataset.SkylinesTable.Name)
	cmd := &cobra.Command{
		Use:   "skyline --input GLOB --format FMT --out DIR",
		Short: "Fit reservation skylines to recurring jobs' runs, one LP per job on the workers (as wlprof skyline)",
		Long: `Read raw shards with wlprof's ingest parsers (re-native, yarn-rm,
spark-eventlog or skyline-csv), group each recurring job's runs, and fit
its skyline with COIN-OR CLP on a worker, one LP per job, as wlprof skyline
fits it: the answer of wlprof ingest + wlprof skyline on the same input,
whatever the number and order of the shards.

Writes DIR/skyline.json (exactly wlprof skyline -o json, but for solve_s,
which is a time), DIR/skylines.parquet (one row per fitted job) and
DIR/reservations.parquet (one row per job and step), readable by DuckDB,
and DIR/rejects.csv, and prints the document as -o asks.

Shard by file as the logs come, or by job or run: a run whose rows are in
several shards is put back together in the order of the shards' paths, as
wlprof ingest does given the files sorted; skyline-csv with timestamps
counts each shard's part of a run from its own first timestamp, so keep a
run's rows in one shard there. The workers need CLP (see the command's
package documentation for each runner).`,
		Example: "  wlprof-beam skyline --input 'logs/*.txt' --format re-native --out out\n" +
			"  wlprof-beam skyline --input 'sky/part-*.csv' --format skyline-csv --beta auto --alpha-sweep 0.1,0.5 --out out -o json",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd.Context(), skylineShards, o.print) },
	}
	f := cmd.Flags()
	o.bind(f, "re-native, yarn-rm, spark-eventlog or skyline-csv")
	stage.AddOnly(f, o.opts.AddFlags, skylineStageFlags...)
	return cmd
}

// skylineShards runs the pipeline and returns the document it wrote and
// the number of rejected records.
func skylineShards(ctx context.Context, o *skylineCmd, shards []string, opts skyline.Options) (skyline.Document, int64, error) {
	build := func(shards []string, out string) (*beam.Pipeline, error) {
		p := buildSkyline(shards, skylineConfig{Format: o.Format, Ingest: o.Ingest, Options: opts, Out: out})
		o.g.progressf("skyline: %d shard(s) on %s, step %s\n", len(shards), o.Runner, timeflag.FormatSeconds(opts.StepS))
		return p, nil
	}
	none := func(rejected int64) error {
		// No job at all: the combine had nothing to run on; wlprof
		// skyline says so too (of the job asked for, as its --job does).
		if opts.Job != "" {
			return fmt.Errorf("job %q: no skylines in the input (%d record(s) rejected)", opts.Job, rejected)
		}
		return fmt.Errorf("%w (%d record(s) rejected)", skyline.ErrNoSkylines, rejected)
	}
	doc, rejected, err := o.runShards(ctx, shards, build, none, skylineJSON, skylinesParquet, reservationsParquet, errorsTxt)
	if err != nil {
		return doc, rejected, err
	}
	if err := doc.NothingFitted(opts.MinRuns); err != nil {
		return doc, rejected, err // as wlprof skyline: the options, not one job, are at fault
	}
	if job := opts.Job; job != "" {
		// As wlprof skyline --job: an error when the job is not there or
		// has too few runs.
		if len(doc.Jobs) == 0 && len(doc.Skipped) == 0 {
			return doc, rejected, none(rejected)
		}
		if len(doc.Skipped) > 0 && doc.Skipped[0].Runs < opts.MinRuns {
			return doc, rejected, fmt.Errorf("job %s: %w: %d, need %d (--min-runs)", job, skyline.ErrTooFewRuns, doc.Skipped[0].Runs, opts.MinRuns)
		}
	}
	return doc, rejected, nil
}
