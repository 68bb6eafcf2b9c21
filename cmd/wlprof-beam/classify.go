package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/dataflow"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/flink"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/spark"
	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/classify"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/ingest"
	"github.com/wlprof/wlprof/internal/safetext"
	"github.com/wlprof/wlprof/internal/timeflag"
)

type classifyOptions struct {
	g *globalOptions
	shardFlags
	// opts are the classify stage's options, flags and all
	// (classify.Options.AddFlags): declared once, for both binaries.
	opts classify.Options
}

var beamLogLevels = map[string]slog.Level{"off": slog.LevelError + 100, "error": slog.LevelError,
	"warn": slog.LevelWarn, "info": slog.LevelInfo, "debug": slog.LevelDebug}

var runners = []string{"prism", "flink", "spark", "dataflow"}

func newClassifyCmd(g *globalOptions) *cobra.Command {
	o := &classifyOptions{g: g, opts: classify.DefaultOptions()}
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
		RunE: func(cmd *cobra.Command, _ []string) error { return runClassifyCmd(cmd.Context(), o) },
	}
	f := cmd.Flags()
	o.bind(f, "a usage format")
	o.opts.AddFlags(f)
	f.StringVar(&o.Ingest.CPUUnit, "cpu-unit", "", "how CSV inputs write utilisation: auto, fraction, percent or raw")
	f.StringVar(&o.Ingest.Tenant, "tenant", "", "tenant of formats that carry none (series-csv, alibaba2018-machine)")
	f.StringVar(&o.Ingest.TenantKey, "tenant-key", "", "which trace field is the tenant (see wlprof ingest --help)")
	return cmd
}

// validate checks every flag and returns the shards, sorted, and the
// options of the stage; all problems at once, as a usage error.
func (o *classifyOptions) validate() ([]string, classify.Options, error) {
	opts := o.opts
	var errs []error
	if err := opts.Validate(); err != nil {
		errs = append(errs, err)
	}
	shards, more := o.shardFlags.validate("classify", dataset.UsageTable.Name)
	return shards, opts, errors.Join(append(errs, more...)...)
}

func runClassifyCmd(ctx context.Context, o *classifyOptions) error {
	shards, opts, err := o.validate()
	if err != nil {
		return usageError{err}
	}
	doc, rejected, err := classifyShards(ctx, shards, o, opts)
	if err != nil {
		return err
	}
	return o.finish(rejected, func() error {
		doc.ListTenants = o.opts.Tenants // not in the JSON the pipeline wrote
		err := printDoc(o.g, doc, func(w *safetext.Writer) error { return doc.WriteText(w) })
		if o.g.Output != "json" {
			for _, s := range doc.Warnings {
				o.g.progressf("warning: %s\n", s)
			}
		}
		return err
	})
}

// classifyShards runs the pipeline and returns the document it wrote and
// the number of rejected records.
func classifyShards(ctx context.Context, shards []string, o *classifyOptions, opts classify.Options) (classify.Document, int64, error) {
	var doc classify.Document
	iopts, err := o.Ingest.options()
	if err != nil {
		return doc, 0, usageError{err}
	}
	shards, out, err := o.prepare(ctx, shards, classifyJSON, tenantsParquet, classesParquet)
	if err != nil {
		return doc, 0, err
	}
	step, err := chooseStep(ctx, shards, o.Format, iopts, opts.Step)
	if err != nil {
		return doc, 0, err
	}
	opts.Step = step
	p := buildClassify(shards, classifyConfig{Format: o.Format, Ingest: o.Ingest, StepMs: step.Milliseconds(), Options: opts, Out: out})
	o.g.progressf("classify: %d shard(s) on %s, step %s\n", len(shards), o.Runner, timeflag.FormatDuration(step))
	rejected, b, err := o.runPipeline(ctx, o.g, p, out, classifyJSON, false)
	if err == nil && b == nil {
		return doc, rejected, fmt.Errorf("the inputs hold no utilisation data to classify (%d record(s) rejected)", rejected)
	}
	if err != nil {
		return doc, rejected, err
	}
	return doc, rejected, json.Unmarshal(b, &doc)
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
