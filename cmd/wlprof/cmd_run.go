package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/ingest"
	"github.com/wlprof/wlprof/reports"
)

type runOptions struct {
	report     reportOptions
	Out        string
	Paths      []string
	TZ         string
	MaxRejects int64
	// datasetSet: -d was given, so inputs are added to that dataset instead
	// of a fresh one inside DIR.
	datasetSet bool
}

func newRunCmd(g *globalOptions) *cobra.Command {
	o := &runOptions{report: reportOptions{fit: skylineOptions{g: g}}}
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

It ends with a short summary and the path of index.html. A fresh dataset is
built beside the old one and replaces it only when the ingest succeeded.
` + timesHelp + exitStatusHelp,
		Example: `  wlprof run --out out traces/ logs/
  wlprof run --out out --step 5s testdata/resourceestimator/tpch_q12.txt
  wlprof run --out out -d ds -q -o json new-logs/`,
		Args: args(cobra.MinimumNArgs(1)),
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
	f.Int64Var(&o.MaxRejects, "max-rejects", 1000, "abort, changing nothing, after this many rejected records (-1: no limit)")
	return cmd
}

type pipelineReport struct {
	Version    int                 `json:"version"`
	Dataset    string              `json:"dataset"`
	Files      []ingest.FileResult `json:"files"`
	Undetected []ingest.Undetected `json:"undetected"`
	Accepted   int64               `json:"accepted"`
	Rejected   int64               `json:"rejected"`
	Report     *reports.Index      `json:"report"`
}

func runRun(ctx context.Context, o *runOptions) error {
	g := o.report.fit.g
	if o.Out == "" {
		return usagef("--out DIR is required")
	}
	if o.report.Inline < 0 || o.report.Workers < 0 {
		return usagef("--inline-jobs and --workers must be 0 or more")
	}
	o.report.fit.Workers = o.report.Workers
	opts := ingest.DefaultOptions()
	var err error
	if opts.Location, err = time.LoadLocation(o.TZ); err != nil {
		return usagef("--tz %q: %v", o.TZ, err)
	}
	opts.MaxRejects = o.MaxRejects
	if _, err := o.report.fit.skylineOpts(); err != nil {
		return err
	}
	known, unknown, err := ingest.Survey(o.Paths)
	if err != nil {
		return err
	}
	if err := leftOut(g, known, unknown); err != nil {
		return err
	}
	// Both destinations are checked before anything is written, so that
	// a failure leaves nothing changed.
	if err := reports.CheckDir(filepath.Join(o.Out, "report")); err != nil {
		return err
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return err
	}
	// Without -d the inputs make a fresh dataset, OUT/dataset.
	into := ingest.Into
	if !o.datasetSet {
		g.Dataset, into = filepath.Join(o.Out, "dataset"), ingest.Fresh
	}
	g.progressf("ingesting %d file(s) into %s\n", len(known), g.Dataset)
	var res *ingest.Result
	err = tuneStage("ingest", func() (err error) {
		res, _, err = into(ctx, g.Dataset, "auto", known, opts)
		return err
	})
	if errors.Is(err, ingest.ErrTooManyRejects) {
		return fmt.Errorf("%w (nothing was written)", err)
	}
	if err != nil {
		return err
	}
	g.progressf("ingested %d record(s), %d rejected\n", res.Accepted, res.Rejected)
	o.report.Out = filepath.Join(o.Out, "report")
	in, err := reportInput(ctx, &o.report)
	if err != nil {
		return err
	}
	idx, err := writeReport(&o.report, in)
	if err != nil {
		return err
	}
	rep := pipelineReport{Version: 1, Dataset: g.Dataset, Files: res.Files, Undetected: unknown,
		Accepted: res.Accepted, Rejected: res.Rejected, Report: idx}
	if rep.Undetected == nil {
		rep.Undetected = []ingest.Undetected{}
	}
	switch g.Output {
	case "json":
		err = writeJSON(g.io.Out, rep)
	case "csv":
		err = reportCSV(g, idx) // what was written, as wlprof report -o csv
	default:
		fmt.Fprintf(g.io.Out, "dataset: %s (%d files, %d records, %d rejected)\n", g.Dataset, len(res.Files), res.Accepted, res.Rejected)
		err = reportText(g, idx)
	}
	if err != nil {
		return err
	}
	if res.Rejected > 0 {
		return rejectedError{res.Rejected}
	}
	return nil
}
