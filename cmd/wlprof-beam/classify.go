package main

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/dataflow"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/flink"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/spark"
	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/classify"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/ingest"
	"github.com/wlprof/wlprof/internal/timeflag"
)

// classifyCmd is wlprof-beam classify's options.
type classifyCmd = stageCmd[classify.Options, classify.Input, classify.Result, classify.Document]

var beamLogLevels = map[string]slog.Level{"off": slog.LevelError + 100, "error": slog.LevelError,
	"warn": slog.LevelWarn, "info": slog.LevelInfo, "debug": slog.LevelDebug}

var runners = []string{"prism", "flink", "spark", "dataflow"}

func newClassifyCmd(g *globalOptions) *cobra.Command {
	o := newStageCmd(g, classify.Contract, dataset.UsageTable.Name)
	cmd := &cobra.Command{
		Use:   "classify --input GLOB --format FMT --out DIR",
		Short: "Classify tenants from raw trace shards: pattern, class, headroom (as wlprof classify)",
		Long: `Read raw shards with wlprof's ingest parsers, build every tenant's
average-server series from per-shard partial sums, classify each tenant
with the FFT, cluster the tenants into classes and compute each class's
headroom: the answer of wlprof ingest + wlprof classify on the same input,
whatever the number and order of the shards.

Writes DIR/classify.json (exactly wlprof classify -o json), DIR/tenants.parquet
and DIR/classes.parquet (readable by DuckDB) and DIR/rejects.csv (every
rejected input record with file, line and reason), and prints the document
as -o asks.

Shard by server, tenant or time (files of whole days, hours...): a server's
samples of one grid slot should not be split between shards (as with wlprof,
a split run of samples counts twice in that slot's average). Without --step,
the step is measured, as wlprof measures it, on the first batch of the first
shard by name: shards that each hold every n-th sample of a server look
coarser than the data is; give --step then.`,
		Example: "  wlprof-beam classify --input 'traces/*.csv' --format csv --out out\n" +
			"  wlprof-beam classify --input 'shards/part-*' --format azure-cpu --runner flink --endpoint localhost:8099 --out /shared/out\n" +
			"  wlprof-beam classify --input 'gs://BUCKET/usage/*.json.gz' --format google2019-usage --runner dataflow \\\n" +
			"    --project PROJECT --region europe-west4 --temp-location gs://BUCKET/tmp --beam-opt num_workers=20 --out gs://BUCKET/out",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), classifyShards, func(doc classify.Document) error { return printClassify(o, doc) })
		},
	}
	f := cmd.Flags()
	o.bind(f, "a usage format")
	o.opts.AddFlags(f)
	f.StringVar(&o.Ingest.CPUUnit, "cpu-unit", "", "how CSV inputs write utilisation: auto, fraction, percent or raw")
	f.StringVar(&o.Ingest.Tenant, "tenant", "", "tenant of formats that carry none (series-csv, alibaba2018-machine)")
	f.StringVar(&o.Ingest.TenantKey, "tenant-key", "", "which trace field is the tenant (see wlprof ingest --help)")
	return cmd
}

// printClassify prints the document as wlprof classify does: every
// tenant with --tenants, and the warnings on stderr but with -o json.
func printClassify(o *classifyCmd, doc classify.Document) error {
	doc.ListTenants = o.opts.Tenants // not in the JSON the pipeline wrote
	err := o.print(doc)
	if o.g.Output != "json" {
		for _, s := range doc.Warnings {
			o.g.progressf("warning: %s\n", s)
		}
	}
	return err
}

// classifyShards runs the pipeline and returns the document it wrote and
// the number of rejected records.
func classifyShards(ctx context.Context, o *classifyCmd, shards []string, opts classify.Options) (classify.Document, int64, error) {
	iopts, err := o.Ingest.options()
	if err != nil {
		return classify.Document{}, 0, usageError{err}
	}
	build := func(shards []string, out string) (*beam.Pipeline, error) {
		step, err := chooseStep(ctx, shards, o.Format, iopts, opts.Step)
		if err != nil {
			return nil, err
		}
		opts.Step = step
		p := buildClassify(shards, classifyConfig{Format: o.Format, Ingest: o.Ingest, StepMs: step.Milliseconds(), Options: opts, Out: out})
		o.g.progressf("classify: %d shard(s) on %s, step %s\n", len(shards), o.Runner, timeflag.FormatDuration(step))
		return p, nil
	}
	none := func(rejected int64) error {
		return fmt.Errorf("the inputs hold no utilisation data to classify (%d record(s) rejected)", rejected)
	}
	return o.runShards(ctx, shards, build, none, classifyJSON, tenantsParquet, classesParquet)
}

// chooseStep is the grid step of the run: --step, or the data's own
// sampling interval when coarser, measured as wlprof classify measures it
// (classify.BatchStep) on the first batch of the first shard holding usage.
func chooseStep(ctx context.Context, shards []string, format string, opts ingest.Options, step time.Duration) (time.Duration, error) {
	tmp, err := os.MkdirTemp("", "wlprof-beam-step-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	for i, s := range shards {
		var got time.Duration
		errFound := errors.New("found")
		_, err := readShard(ctx, filepath.Join(tmp, fmt.Sprint(i)), format, s, opts, func(ub *dataset.UsageBatch) error {
			got = classify.BatchStep(ub, step)
			return errFound
		})
		if errors.Is(err, errFound) {
			return got, nil
		}
		if err != nil {
			return 0, err
		}
	}
	if step <= 0 {
		step = classify.DefaultStep
	}
	return step, nil
}

// countRejects counts the rows of DIR/rejects.csv, writing one with only
// its header when the pipeline had none to write.
func countRejects(ctx context.Context, dir string) (int64, error) {
	f, err := openOut(ctx, dir, rejectsCSV)
	if errors.Is(err, os.ErrNotExist) {
		return 0, writeRejects(dir, nil)
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	var n int64
	for {
		_, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, err
		}
		n++
	}
	return max(n-1, 0), nil
}
