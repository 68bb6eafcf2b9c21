package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"sort"
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

// rejectGroup counts the rejects of one file with one reason.
type rejectGroup struct {
	File   string `json:"file"`
	Reason string `json:"reason"`
	Count  int    `json:"count"`
}

// rejectJSON is one rejected record in -o json.
type rejectJSON struct {
	Ingest int32  `json:"ingest"`
	File   string `json:"file"`
	Line   int64  `json:"line"`
	Col    int32  `json:"col"`
	Format string `json:"format"`
	Reason string `json:"reason"`
	Record string `json:"record"`
}

type rejectsReport struct {
	Version int           `json:"version"`
	Total   int           `json:"total"`
	Groups  []rejectGroup `json:"groups"`
	Rejects []rejectJSON  `json:"rejects"`
}

func runRejects(ctx context.Context, o *rejectsOptions) error {
	if o.Limit < -1 {
		return usagef("--limit %d: want -1 (all) or more", o.Limit)
	}
	ds, err := dataset.Open(o.g.Dataset)
	if err != nil {
		return err
	}
	var rows []dataset.Reject
	err = dataset.Scan(ctx, ds, dataset.RejectsTable, func(r *dataset.Reject) error {
		if o.File == "" || r.File == o.File {
			rows = append(rows, *r)
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.SliceStable(rows, func(a, b int) bool {
		if rows[a].File != rows[b].File {
			return rows[a].File < rows[b].File
		}
		return rows[a].Line < rows[b].Line
	})
	rep := rejectsReport{Version: 1, Total: len(rows), Groups: []rejectGroup{}, Rejects: []rejectJSON{}}
	byKey := map[[2]string]int{}
	for _, r := range rows {
		k := [2]string{r.File, r.Reason}
		if i, ok := byKey[k]; ok {
			rep.Groups[i].Count++
			continue
		}
		byKey[k] = len(rep.Groups)
		rep.Groups = append(rep.Groups, rejectGroup{File: r.File, Reason: r.Reason, Count: 1})
	}
	sort.SliceStable(rep.Groups, func(a, b int) bool { return rep.Groups[a].Count > rep.Groups[b].Count })
	for i, r := range rows {
		if o.Limit >= 0 && i >= o.Limit {
			break
		}
		rep.Rejects = append(rep.Rejects, rejectJSON{Ingest: r.Ingest, File: r.File, Line: r.Line, Col: r.Col,
			Format: r.Format, Reason: r.Reason, Record: r.Record})
	}
	switch o.g.Output {
	case "json":
		return writeJSON(o.g.io.Out, rep)
	case "csv":
		w := csv.NewWriter(o.g.io.Out)
		_ = w.Write([]string{"ingest", "file", "line", "col", "format", "reason", "record"})
		for _, r := range rep.Rejects {
			_ = w.Write([]string{strconv.Itoa(int(r.Ingest)), r.File, strconv.FormatInt(r.Line, 10), strconv.Itoa(int(r.Col)), r.Format, r.Reason, r.Record})
		}
		w.Flush()
		return w.Error()
	}
	return rejectsText(o, rep)
}

func rejectsText(o *rejectsOptions, rep rejectsReport) error {
	w := o.g.io.Out
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
