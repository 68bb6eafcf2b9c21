package main

import (
	"context"
	"fmt"
	"strconv"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/dataset"
)

type rejectsOptions struct {
	g     *globalOptions
	File  string
	Limit int
}

func newRejectsCmd(g *globalOptions) *cobra.Command {
	o := &rejectsOptions{g: g}
	cmd := &cobra.Command{
		Use:   "rejects",
		Short: "List the input records ingest rejected, with file, line and reason",
		Long: `List the records of the dataset's rejects table: every input record that
was not ingested, with its file, line, column, format and reason, and the
record itself (its first 256 bytes). Counts per file and reason come first,
most frequent first; then the records, in file and line order, up to
--limit (-o json and -o csv list them all unless --limit is given).
` + exitStatusHelp,
		Example: `  wlprof rejects -d ds
  wlprof rejects -d ds --file usage.csv --limit 5
  wlprof rejects -d ds -o csv > rejects.csv`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("limit") && o.g.Output != "text" {
				o.Limit = -1
			}
			return runRejects(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVar(&o.File, "file", "", "only the records of this input file (as ingest names it)")
	cmd.Flags().IntVar(&o.Limit, "limit", 20, "records listed at most (-1: all)")
	return cmd
}

type rejectsReport struct {
	Version int                   `json:"version"`
	Total   int                   `json:"total"`
	Groups  []dataset.RejectGroup `json:"groups"`
	Rejects []dataset.Reject      `json:"rejects"`
}

func runRejects(ctx context.Context, o *rejectsOptions) error {
	if o.Limit < -1 {
		return usagef("--limit %d: want -1 (all) or more", o.Limit)
	}
	ds, err := dataset.Open(o.g.Dataset)
	if err != nil {
		return err
	}
	rows, err := dataset.ReadRejects(ctx, ds, o.File)
	if err != nil {
		return err
	}
	rep := rejectsReport{Version: 1, Total: len(rows), Groups: dataset.GroupRejects(rows), Rejects: rows}
	if o.Limit >= 0 && o.Limit < len(rows) {
		rep.Rejects = rows[:o.Limit]
	}
	if rep.Rejects == nil {
		rep.Rejects = []dataset.Reject{}
	}
	return emit(o.g, rep, rejectsCSV, rejectsText)
}

func rejectsCSV(g *globalOptions, rep rejectsReport) error {
	return writeCSV(g.io.Out, []string{"ingest", "file", "line", "col", "format", "reason", "record"}, func(row func(...string)) {
		for _, r := range rep.Rejects {
			row(strconv.Itoa(int(r.Ingest)), r.File, strconv.FormatInt(r.Line, 10), strconv.Itoa(int(r.Col)), r.Format, r.Reason, r.Record)
		}
	})
}

func rejectsText(g *globalOptions, rep rejectsReport) error {
	w := g.io.Out
	files := map[string]bool{}
	for _, gr := range rep.Groups {
		files[gr.File] = true
	}
	fmt.Fprintf(w, "%d rejected record(s) in %d file(s)\n", rep.Total, len(files))
	if rep.Total == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\nCOUNT\tFILE\tREASON")
	for _, gr := range rep.Groups {
		fmt.Fprintf(tw, "%d\t%s\t%s\n", gr.Count, gr.File, gr.Reason)
	}
	fmt.Fprintln(tw, "\nWHERE\tREASON\tRECORD")
	for _, r := range rep.Rejects {
		where := r.File
		if r.Line > 0 {
			where += ":" + strconv.FormatInt(r.Line, 10)
		}
		if r.Col > 0 {
			where += ":" + strconv.Itoa(int(r.Col))
		}
		fmt.Fprintf(tw, "%s\t%s\t%q\n", where, r.Reason, r.Record)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if n := rep.Total - len(rep.Rejects); n > 0 {
		fmt.Fprintf(w, "... and %d more (--limit -1 lists them all)\n", n)
	}
	return nil
}
