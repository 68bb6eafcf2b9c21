package ingest

import (
	"testing"

	"github.com/wlprof/wlprof/internal/table/tabletest"
)

// A note two shards share is printed once in the text, naming the first
// and counting the other; the CSV keeps every file's notes.
func TestDocumentText(t *testing.T) {
	d := Document{Version: 1, Dataset: "ds", Ingest: 2, Accepted: 7, Rejected: 1, Files: []FileResult{
		{Path: "a.csv", Format: "csv", Table: "usage", Accepted: 4, Notes: []string{"cpu in percent"}},
		{Path: "b.csv", Format: "csv", Table: "usage", Accepted: 3, Rejected: 1, Notes: []string{"cpu in percent", "1 bad line"}},
	}}
	text := "ingest 2 into ds\n" +
		"FILE   FORMAT  TABLE  ACCEPTED  REJECTED\n" +
		"a.csv  csv     usage  4         0\n" +
		"b.csv  csv     usage  3         1\n" +
		"note: a.csv and 1 other input(s): cpu in percent\n" +
		"note: b.csv: 1 bad line\n" +
		"total: 7 accepted, 1 rejected\n"
	csv := "path,format,table,accepted,rejected,notes\na.csv,csv,usage,4,0,cpu in percent\nb.csv,csv,usage,3,1,cpu in percent; 1 bad line\n"
	tabletest.Equal(t, d.WriteText, d.WriteCSV, text, csv)
}
