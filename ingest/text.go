package ingest

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/wlprof/wlprof/internal/table"
)

// WriteText writes a row per input file, the notes (a note several inputs
// share once, with the first input's path and how many others have it;
// -o json keeps every input's notes) and the totals, as wlprof ingest
// prints them.
func (d Document) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "ingest %d into %s\n", d.Ingest, d.Dataset)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FILE\tFORMAT\tTABLE\tACCEPTED\tREJECTED")
	for _, f := range d.Files {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\n", f.Path, f.Format, f.Table, f.Accepted, f.Rejected)
	}
	tw.Flush()
	for _, n := range SharedNotes(d.Files) {
		if len(n.Files) == 1 {
			fmt.Fprintf(w, "note: %s: %s\n", n.Files[0], n.Text)
		} else {
			fmt.Fprintf(w, "note: %s and %d other input(s): %s\n", n.Files[0], len(n.Files)-1, n.Text)
		}
	}
	_, err := fmt.Fprintf(w, "total: %d accepted, %d rejected\n", d.Accepted, d.Rejected)
	return err
}

// WriteCSV writes one row per input file, its notes joined by "; ".
func (d Document) WriteCSV(w io.Writer) error {
	return table.CSV(w, []string{"path", "format", "table", "accepted", "rejected", "notes"}, func(row func(...string)) {
		for _, f := range d.Files {
			row(f.Path, f.Format, f.Table, fmt.Sprint(f.Accepted), fmt.Sprint(f.Rejected), strings.Join(f.Notes, "; "))
		}
	})
}
