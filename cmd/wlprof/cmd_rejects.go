package main

import (
	"context"

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
	l := dataset.ListRejects(rows, o.Limit)
	return printDoc(o.g, l, l.WriteCSV, l.WriteText)
}
