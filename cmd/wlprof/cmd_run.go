package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/ingest"
	"github.com/wlprof/wlprof/pipeline"
)

type runOptions struct {
	report     reportOptions
	Out        string
	Paths      []string
	TZ         string
	MaxRejects int64
	AllowDup   bool
	// datasetSet: -d was given, so inputs are added to that dataset instead
	// of a fresh one inside DIR.
	datasetSet bool
}

func newRunCmd(g *globalOptions) *cobra.Command {
	o := &runOptions{report: newReportOptions(g)}
	cmd := &cobra.Command{
		Use:   "run --out DIR PATH...",
		Short: "Run the whole pipeline: detect formats, ingest, every stage, report",
		Long: `Run the whole pipeline in one command:

  1. detect the format of every input (directories stand for the files below
     them; files no format recognises, such as README or SOURCES.md, are
     listed and left out);
  2. ingest them into a fresh dataset, DIR/dataset (with -d: add them to that
     dataset instead);
  3. run every stage that has inputs — classify (utilisation traces), slo
     (provenance and runs), skyline (run skylines), elasticity and the
     profiler's sweeps (profiling runs) — and write the report to DIR/report
     (profiles/, tenants.json, plots/, index.html), as wlprof report does.

It ends with the path of index.html, what each stage computed and the
report's four answers: how big the cluster must be (with --target-makespan
and a simulated workload: the smallest cluster under stock YARN and
YARN-ME), what can be harvested, which jobs may miss their deadline, and
what to do, each with the command that reproduces it (index.json's
summary.decisions; the report's first screen). When the inputs span far
more than one analysis window (years apart), it says so on stderr as soon
as they are ingested, before the stages run, even with --quiet, and again
above the answers. Byte-identical inputs are
read once. A fresh dataset is built beside the old one and replaces it
only when the ingest succeeded.
` + timesHelp + exitStatusRejectsHelp,
		Example: `  wlprof run --out out traces/ logs/
  wlprof run --out out --step 5s testdata/resourceestimator/tpch_q12.txt
  wlprof run --out out --simulate-trace jobs.csv --simulate-node-memory 16G --target-makespan 15m traces/
  wlprof run --out out -d ds -q -o json new-logs/`,
		Args: needArgs("PATH (the inputs to ingest)"),
		RunE: func(cmd *cobra.Command, a []string) error {
			o.Paths = a
			o.datasetSet = cmd.Flags().Changed("dataset")
			return runRun(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Out, "out", "", "output directory: DIR/dataset and DIR/report (required)")
	o.report.bindReportFlags(cmd)
	f.StringVar(&o.TZ, "tz", "UTC", "time zone of timestamps written without an offset (IANA name)")
	f.BoolVar(&o.AllowDup, "allow-duplicate", false, "ingest a file even when the dataset, or another input, holds its content (same sha256) already")
	f.Int64Var(&o.MaxRejects, "max-rejects", 1000, "abort, changing nothing, after this many rejected records (-1: no limit)")
	return cmd
}

func runRun(ctx context.Context, o *runOptions) error {
	g := o.report.g
	if o.Out == "" {
		return usagef("--out DIR is required")
	}
	if err := o.report.checkCounts(); err != nil {
		return err
	}
	opts := ingest.DefaultOptions()
	if err := (ingest.Flags{TZ: o.TZ}).Apply(&opts); err != nil {
		return usageError{err}
	}
	// Byte-identical inputs (the same file under two names, or one the
	// dataset holds already) are read once, as wlprof ingest does.
	opts.MaxRejects, opts.Watch, opts.SkipDuplicates = o.MaxRejects, g.watchInput, !o.AllowDup
	po, err := o.report.pipeline(g)
	if err != nil {
		return err
	}
	ro := pipeline.RunOptions{Out: o.Out, Ingest: opts, Report: po, Figures: o.report.figures(), Progress: g.progressf,
		// A warning is not progress: --quiet does not silence it.
		Warn: func(format string, a ...any) {
			if g.status != nil {
				g.status.around(func() { fmt.Fprintf(g.io.Err, format, a...) })
				return
			}
			fmt.Fprintf(g.io.Err, format, a...)
		}}
	if o.datasetSet {
		ro.Dataset = g.Dataset
	} else {
		ro.Report.Planner.Dataset = ""
	}
	rep, err := pipeline.Run(ctx, o.Paths, ro)
	if err != nil {
		return err
	}
	if err := printDoc(g, rep, rep.WriteCSV, rep.WriteText); err != nil {
		return err
	}
	if rep.Rejected > 0 {
		return rejectedError{rep.Rejected}
	}
	return nil
}
