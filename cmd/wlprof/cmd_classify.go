package main

import (
	"context"
	"encoding/csv"
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

// classifyReport is the JSON document of `wlprof classify -o json`.
type classifyReport struct {
	Version      int                      `json:"version"`
	StepS        float64                  `json:"step_s"`
	At           string                   `json:"at"` // the "current" instant of the headroom, RFC 3339
	SeriesSource string                   `json:"series_source"`
	Patterns     map[fft.Pattern]int      `json:"patterns"` // tenants per pattern
	Ranking      map[string][]fft.Pattern `json:"ranking"`  // class preference per job type, first = most preferred
	Tenants      []fft.Tenant             `json:"tenants"`
	Classes      []fft.Class              `json:"classes"`
	Warnings     []string                 `json:"warnings"`
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
	source := "series table"
	if res.Built {
		source = "built from usage"
		o.g.progressf("built %d tenant series from %d usage rows\n", len(res.Tenants), ds.Rows(dataset.UsageTable.Name))
	}
	rep := classifyReport{Version: 1, StepS: res.StepS, At: time.UnixMilli(res.AtMs).UTC().Format(time.RFC3339),
		SeriesSource: source, Patterns: map[fft.Pattern]int{}, Ranking: fft.Ranking,
		Tenants: res.Tenants, Classes: res.Classes, Warnings: res.Warnings}
	for _, p := range []fft.Pattern{fft.Periodic, fft.Constant, fft.Unpredictable, fft.Insufficient} {
		rep.Patterns[p] = 0
	}
	for _, t := range res.Tenants {
		rep.Patterns[t.Pattern]++
	}
	switch o.g.Output {
	case "json":
		return writeJSON(o.g.io.Out, rep)
	case "csv":
		return writeClassifyCSV(o, &rep)
	}
	return writeClassifyText(o, &rep)
}

func writeClassifyText(o *classifyOptions, rep *classifyReport) error {
	w := tabwriter.NewWriter(o.g.io.Out, 2, 8, 2, ' ', 0)
	fmt.Fprintf(w, "%d tenants: %d periodic, %d constant, %d unpredictable, %d insufficient (step %gs, current = %s)\n\n",
		len(rep.Tenants), rep.Patterns[fft.Periodic], rep.Patterns[fft.Constant], rep.Patterns[fft.Unpredictable],
		rep.Patterns[fft.Insufficient], rep.StepS, rep.At)
	fmt.Fprintln(w, "CLASS\tPATTERN\tTENANTS\tSERVERS\tMEAN\tPEAK\tCURRENT\tHEADROOM SHORT\tMEDIUM\tLONG")
	for _, c := range rep.Classes {
		fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\n", c.Class, c.Pattern, c.Tenants, c.Servers,
			c.Mean, c.Peak, c.Current, c.Headroom.Short, c.Headroom.Medium, c.Headroom.Long)
	}
	if o.Tenants {
		fmt.Fprintln(w, "\nTENANT\tPATTERN\tPERIOD\tSTRENGTH\tMEAN\tPEAK\tCLASS\tSTEP\tREASON")
		for _, t := range rep.Tenants {
			period, class, reason := "-", t.Class, t.Reason
			if t.PeriodS != nil {
				period = timeflag.FormatSeconds(*t.PeriodS)
			}
			if class == "" {
				class = "-"
			}
			if reason == "" {
				reason = "-"
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%.2f\t%.3f\t%.3f\t%s\t%s\t%s\n", t.Tenant, t.Pattern, period, t.Strength, t.Mean, t.Peak, class,
				timeflag.FormatSeconds(t.StepS), reason)
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
		fmt.Fprintf(o.g.io.Err, "warning: %s\n", s)
	}
	if tw > 0 {
		fmt.Fprintf(o.g.io.Err, "warning: %d tenant(s) have warnings (gaps); see -o json\n", tw)
	}
	return nil
}

func writeClassifyCSV(o *classifyOptions, rep *classifyReport) error {
	w := csv.NewWriter(o.g.io.Out)
	// The tenant's class's headroom follows, as the text's class table
	// shows it (empty for a tenant without a class); step_s, added later,
	// closes each row.
	w.Write([]string{"tenant", "pattern", "period_s", "strength", "mean", "peak", "class", "servers", "reason",
		"class_current", "headroom_short", "headroom_medium", "headroom_long", "step_s"})
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	classes := map[string]fft.Class{}
	for _, c := range rep.Classes {
		classes[c.Class] = c
	}
	for _, t := range rep.Tenants {
		period := ""
		if t.PeriodS != nil {
			period = f(*t.PeriodS)
		}
		row := []string{t.Tenant, string(t.Pattern), period, f(t.Strength), f(t.Mean), f(t.Peak), t.Class,
			strconv.Itoa(t.Servers), t.Reason, "", "", "", "", f(t.StepS)}
		if c, ok := classes[t.Class]; ok {
			row[9], row[10], row[11], row[12] = f(c.Current), f(c.Headroom.Short), f(c.Headroom.Medium), f(c.Headroom.Long)
		}
		w.Write(row)
	}
	w.Flush()
	return w.Error()
}
