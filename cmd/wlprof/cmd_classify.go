package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/classify"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/timeflag"
	"github.com/wlprof/wlprof/pipeline"
	"github.com/wlprof/wlprof/reports"
)

type classifyOptions struct {
	g       *globalOptions
	Step    time.Duration
	K       int
	AtMs    int64
	Tenants bool
}

func newClassifyCmd(g *globalOptions) *cobra.Command {
	o := &classifyOptions{g: g}
	cmd := &cobra.Command{
		Use:   "classify",
		Short: "Classify tenants as periodic, constant or unpredictable; classes and headroom",
		Long: `Build each tenant's average-server utilisation series on a fixed grid,
classify it with the FFT as periodic, constant or unpredictable, cluster the
tenants of each pattern into classes with K-Means, and compute each class's
headroom for short, medium and long jobs (Zhang et al., OSDI'16 §3, §4.1).

The series are built from the usage table and stored in the series table;
later runs reuse them until more usage is ingested or --step changes.
A tenant sampled more coarsely than the grid is analysed on its own step
(the grid's times its typical gap between samples, at most an hour): STEP
with --tenants, step_s in -o json and csv. Tenants with less than 3 days of
history, or samples in less than half of their slots, are "insufficient"
with the reason.
` + timesHelp + exitStatusHelp,
		Example: "  wlprof classify -d ds\n  wlprof classify -d ds --step 5m -o json\n  wlprof classify -d ds --k 3 --at 2024-01-14T12:00:00Z",
		Args:    args(cobra.NoArgs),
		RunE:    func(cmd *cobra.Command, _ []string) error { return runClassify(cmd.Context(), o) },
	}
	cmd.Flags().Var(timeflag.NewDuration(&o.Step, 0), "step", "grid step (default 2m, coarser when the data is)")
	cmd.Flags().IntVar(&o.K, "k", 0, "classes per pattern (default: chosen from the data)")
	cmd.Flags().BoolVar(&o.Tenants, "tenants", false, "also list every tenant with its pattern, period and class")
	o.AtMs = dataset.NoTime
	cmd.Flags().Var(timeflag.NewInstant(&o.AtMs), "at", "instant that is \"current\" for headroom (default: the last slot)")
	return cmd
}

func runClassify(ctx context.Context, o *classifyOptions) error {
	opts := classify.Options{K: o.K, AtMs: o.AtMs, Step: o.Step}
	if err := opts.Validate(); err != nil {
		return usageError{err}
	}
	ds, err := dataset.Open(o.g.Dataset)
	if err != nil {
		return err
	}
	var res *classify.Result
	err = o.g.stage(reports.StageClassify, func() (err error) {
		res, err = pipeline.Classify(ctx, ds, opts)
		return err
	})
	if errors.Is(err, classify.ErrNoSeries) {
		return fmt.Errorf("%s has no utilisation data to classify: ingest a trace first (wlprof ingest --help lists the formats)", o.g.Dataset)
	}
	if err != nil {
		return err
	}
	if res.Built {
		o.g.progressf("built %d tenant series from %d usage rows\n", len(res.Tenants), ds.Rows(dataset.UsageTable.Name))
	}
	doc := res.Document()
	return printDoc(o.g, doc, doc.WriteCSV, func(w io.Writer) error {
		if err := doc.WriteText(w, o.Tenants); err != nil {
			return err
		}
		for _, s := range doc.Warnings {
			fmt.Fprintf(o.g.io.Err, "warning: %s\n", s)
		}
		if n := doc.WarnedTenants(); n > 0 {
			fmt.Fprintf(o.g.io.Err, "warning: %d tenant(s) have warnings (gaps); see -o json\n", n)
		}
		return nil
	})
}
