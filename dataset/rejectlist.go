package dataset

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/wlprof/wlprof/internal/table"
)

// RejectList is what wlprof rejects shows of the rejects table (its -o
// json document): how many records were rejected, their counts per file
// and reason, and the records themselves up to a limit.
type RejectList struct {
	Version int           `json:"version"`
	Total   int           `json:"total"`
	Groups  []RejectGroup `json:"groups"`
	Rejects []Reject      `json:"rejects"`
}

// ListRejects lists rows (as ReadRejects orders them), grouped by
// GroupRejects, keeping the first limit records (limit < 0: all).
func ListRejects(rows []Reject, limit int) RejectList {
	l := RejectList{Version: 1, Total: len(rows), Groups: GroupRejects(rows), Rejects: rows}
	if limit >= 0 && limit < len(rows) {
		l.Rejects = rows[:limit]
	}
	if l.Rejects == nil {
		l.Rejects = []Reject{}
	}
	return l
}

// Where is where the record was in its input: file, file:line or
// file:line:col, as far as they are known.
func (r Reject) Where() string {
	where := r.File
	if r.Line > 0 {
		where += ":" + strconv.FormatInt(r.Line, 10)
	}
	if r.Col > 0 {
		where += ":" + strconv.Itoa(int(r.Col))
	}
	return where
}

// WriteText writes the counts per file and reason, then each record
// listed with where it was and why, then how many were left out.
func (l RejectList) WriteText(w io.Writer) error {
	files := map[string]bool{}
	for _, gr := range l.Groups {
		files[gr.File] = true
	}
	fmt.Fprintf(w, "%d rejected record(s) in %d file(s)\n", l.Total, len(files))
	if l.Total == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\nCOUNT\tFILE\tREASON")
	for _, gr := range l.Groups {
		fmt.Fprintf(tw, "%d\t%s\t%s\n", gr.Count, gr.File, gr.Reason)
	}
	fmt.Fprintln(tw, "\nWHERE\tREASON\tRECORD")
	for _, r := range l.Rejects {
		fmt.Fprintf(tw, "%s\t%s\t%q\n", r.Where(), r.Reason, r.Record)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if n := l.Total - len(l.Rejects); n > 0 {
		fmt.Fprintf(w, "... and %d more (--limit -1 lists them all)\n", n)
	}
	return nil
}

// WriteCSV writes one row per record listed.
func (l RejectList) WriteCSV(w io.Writer) error {
	return table.CSV(w, []string{"ingest", "file", "line", "col", "format", "reason", "record"}, func(row func(...string)) {
		for _, r := range l.Rejects {
			row(strconv.Itoa(int(r.Ingest)), r.File, strconv.FormatInt(r.Line, 10), strconv.Itoa(int(r.Col)), r.Format, r.Reason, r.Record)
		}
	})
}
