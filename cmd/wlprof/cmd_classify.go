package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/fft"
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
headroom for short, medium and long jobs (seed 000 §3, §4.1).

The series are built from the usage table and stored in the series table;
later runs reuse them until more usage is ingested or --step changes.
Tenants with less than 3 days of history, or samples in less than half of
their slots, are "insufficient" with the reason.
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
	opts := fft.Options{K: o.K, AtMs: o.AtMs, Step: o.Step}
	if err := opts.Validate(); err != nil {
		return usageError{err}
	}
	ds, err := dataset.Open(o.g.Dataset)
	if err != nil {
		return err
	}
	var res *fft.Result
	err = tuneStage(reports.StageClassify, func() (err error) {
		res, err = pipeline.Classify(ctx, ds, opts)
		return err
	})
	if errors.Is(err, fft.ErrNoSeries) {
		return fmt.Errorf("%s has no utilisation data to classify: ingest a trace first (wlprof ingest --help lists the formats)", o.g.Dataset)
	}
	if err != nil {
		return err
	}
	if res.Built {
		o.g.progressf("built %d tenant series from %d usage rows\n", len(res.Tenants), ds.Rows(dataset.UsageTable.Name))
	}
	text := func(g *globalOptions, d fft.Document) error { return classifyText(g, d, o.Tenants) }
	return emit(o.g, res.Document(), classifyCSV, text)
}

func classifyText(g *globalOptions, rep fft.Document, tenants bool) error {
	w := tabwriter.NewWriter(g.io.Out, 2, 8, 2, ' ', 0)
	fmt.Fprintf(w, "%d tenants: %d periodic, %d constant, %d unpredictable, %d insufficient (step %gs, current = %s)\n\n",
		len(rep.Tenants), rep.Patterns[fft.Periodic], rep.Patterns[fft.Constant], rep.Patterns[fft.Unpredictable],
		rep.Patterns[fft.Insufficient], rep.StepS, rep.At)
	fmt.Fprintln(w, "CLASS\tPATTERN\tTENANTS\tSERVERS\tMEAN\tPEAK\tCURRENT\tHEADROOM SHORT\tMEDIUM\tLONG")
	for _, c := range rep.Classes {
		fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\n", c.Class, c.Pattern, c.Tenants, c.Servers,
			c.Mean, c.Peak, c.Current, c.Headroom.Short, c.Headroom.Medium, c.Headroom.Long)
	}
	if tenants {
		fmt.Fprintln(w, "\nTENANT\tPATTERN\tPERIOD\tSTRENGTH\tMEAN\tPEAK\tCLASS\tREASON")
		for _, t := range rep.Tenants {
			fmt.Fprintf(w, "%s\t%s\t%s\t%.2f\t%.3f\t%.3f\t%s\t%s\n", t.Tenant, t.Pattern, orDash(t.PeriodS, "-", timeflag.FormatSeconds),
				t.Strength, t.Mean, t.Peak, dash(t.Class), dash(t.Reason))
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	var tw int
	for _, t := range rep.Tenants {
		if len(t.Warnings) > 0 {
			tw++
		}
	}
	for _, s := range rep.Warnings {
		fmt.Fprintf(g.io.Err, "warning: %s\n", s)
	}
	if tw > 0 {
		fmt.Fprintf(g.io.Err, "warning: %d tenant(s) have warnings (gaps); see -o json\n", tw)
	}
	return nil
}

func classifyCSV(g *globalOptions, rep fft.Document) error {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	classes := map[string]fft.Class{}
	for _, c := range rep.Classes {
		classes[c.Class] = c
	}
	// The tenant's class's headroom closes each row, as the text's class
	// table shows it (empty for a tenant without a class).
	return writeCSV(g.io.Out, []string{"tenant", "pattern", "period_s", "strength", "mean", "peak", "class", "servers", "reason",
		"class_current", "headroom_short", "headroom_medium", "headroom_long"}, func(row func(...string)) {
		for _, t := range rep.Tenants {
			r := []string{t.Tenant, string(t.Pattern), orDash(t.PeriodS, "", f), f(t.Strength), f(t.Mean), f(t.Peak), t.Class,
				strconv.Itoa(t.Servers), t.Reason, "", "", "", ""}
			if c, ok := classes[t.Class]; ok {
				r[9], r[10], r[11], r[12] = f(c.Current), f(c.Headroom.Short), f(c.Headroom.Medium), f(c.Headroom.Long)
			}
			row(r...)
		}
	})
}
