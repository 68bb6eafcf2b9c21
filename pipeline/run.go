package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/ingest"
	"github.com/wlprof/wlprof/reports"
)

// RunOptions of Run.
type RunOptions struct {
	// Out receives the report, Out/report, and, unless Dataset is set, a
	// dataset built fresh from the inputs, Out/dataset.
	Out string
	// Dataset, when set, is the dataset the inputs are added to.
	Dataset string
	// Ingest are the ingest's options; formats are detected.
	Ingest ingest.Options
	// Report are Report's options; its Around is also called around the
	// ingest, as stage "ingest".
	Report Options
	// Figures are the report's writing options (reports.Write).
	Figures reports.Options
	// Progress, when set, hears what Run does, a line at a time.
	Progress func(format string, a ...any)
	// Warn, when set, hears the warnings Run gives before the stages run
	// (inputs of different eras), a line at a time; nil: Progress hears them.
	Warn func(format string, a ...any)
}

// RunReport is what Run did: the wlprof run -o json document.
type RunReport struct {
	Version    int                 `json:"version"`
	Dataset    string              `json:"dataset"`
	Files      []ingest.FileResult `json:"files"`
	Undetected []ingest.Undetected `json:"undetected"`
	Accepted   int64               `json:"accepted"`
	Rejected   int64               `json:"rejected"`
	Report     *reports.Index      `json:"report"`
}

// WriteText writes a line about the dataset, then the report's text
// (reports.Index.WriteText), as wlprof run prints them.
func (r *RunReport) WriteText(w io.Writer) error {
	skipped := 0
	for _, f := range r.Files {
		if f.Skipped {
			skipped++
		}
	}
	fmt.Fprintf(w, "dataset: %s (%s, %s, %d rejected", r.Dataset, plural(len(r.Files)-skipped, "file", "files"), plural(int(r.Accepted), "record", "records"), r.Rejected)
	if skipped > 0 {
		fmt.Fprintf(w, "; %s skipped: the same content as another input", plural(skipped, "file", "files"))
	}
	fmt.Fprintln(w, ")")
	for _, f := range r.Files {
		if f.Skipped {
			for _, n := range f.Notes {
				fmt.Fprintf(w, "  %s: %s\n", f.Path, n)
			}
		}
	}
	return r.Report.WriteText(w)
}

// WriteCSV lists the report's files, as wlprof report -o csv does.
func (r *RunReport) WriteCSV(w io.Writer) error { return r.Report.WriteCSV(w) }

// Run is the whole pipeline: it detects the format of every input (a
// directory stands for the files below it; files no format reads are
// left out and listed), ingests them, runs every stage that has inputs
// (Report) and writes the report. Both destinations are checked before
// anything is written, and the ingest is one transaction (a fresh dataset
// replaces Out/dataset only when it succeeded), so a failure leaves
// nothing changed. Rejected records are counted in the result, not an
// error.
func Run(ctx context.Context, paths []string, o RunOptions) (*RunReport, error) {
	progress := o.Progress
	if progress == nil {
		progress = func(string, ...any) {}
	}
	known, unknown, err := ingest.Survey(paths)
	if err != nil {
		return nil, err
	}
	for _, u := range unknown {
		progress("  left out %s: no known format\n", u.Path)
	}
	if len(known) == 0 {
		return nil, ingest.NoneKnown(unknown)
	}
	report := filepath.Join(o.Out, "report")
	if err := reports.CheckDir(report); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, err
	}
	dir, into := o.Dataset, ingest.Into
	if dir == "" {
		dir, into = filepath.Join(o.Out, "dataset"), ingest.Fresh
	}
	progress("ingesting %d file(s) into %s\n", len(known), dir)
	var res *ingest.Result
	var ds *dataset.Dataset
	err = o.Report.around("ingest", func() (err error) {
		res, ds, err = into(ctx, dir, "auto", known, o.Ingest)
		return err
	})
	if errors.Is(err, ingest.ErrTooManyRejects) {
		return nil, fmt.Errorf("%w (nothing was written)", err)
	}
	if err != nil {
		return nil, err
	}
	progress("ingested %d record(s), %d rejected\n", res.Accepted, res.Rejected)
	// The era warning is given up front too: a planner who reads it only in
	// the final summary has waited for stages whose numbers it qualifies.
	warn := o.Warn
	if warn == nil {
		warn = progress
	}
	era, err := eras(ctx, ds)
	if err != nil {
		return nil, err
	}
	if era != "" {
		warn("warning: %s\n", era)
	}
	if o.Report.Planner.Dataset == "" {
		o.Report.Planner.Dataset = dir
	}
	in, err := Report(ctx, ds, o.Report)
	if err != nil {
		return nil, err
	}
	idx, err := reports.Write(report, in, o.Figures)
	if err != nil {
		return nil, err
	}
	if unknown == nil {
		unknown = []ingest.Undetected{}
	}
	return &RunReport{Version: 1, Dataset: dir, Files: res.Files, Undetected: unknown,
		Accepted: res.Accepted, Rejected: res.Rejected, Report: idx}, nil
}
