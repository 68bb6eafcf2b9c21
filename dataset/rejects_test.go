package dataset

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/wlprof/wlprof/internal/table/tabletest"
)

func TestGroupRejects(t *testing.T) {
	rows := []Reject{
		{File: "a.csv", Line: 2, Reason: "bad cpu"},
		{File: "a.csv", Line: 3, Reason: "3 fields"},
		{File: "a.csv", Line: 5, Reason: "bad cpu"},
		{File: "b.csv", Line: 1, Reason: "3 fields"},
		{File: "b.csv", Line: 4, Reason: "bad cpu"},
		{File: "b.csv", Line: 7, Reason: "bad cpu"},
		{File: "b.csv", Line: 9, Reason: "bad cpu"},
	}
	want := []RejectGroup{
		{File: "b.csv", Reason: "bad cpu", Count: 3},
		{File: "a.csv", Reason: "bad cpu", Count: 2},
		// Equal counts keep the order of their first record.
		{File: "a.csv", Reason: "3 fields", Count: 1},
		{File: "b.csv", Reason: "3 fields", Count: 1},
	}
	if got := GroupRejects(rows); !reflect.DeepEqual(got, want) {
		t.Errorf("GroupRejects = %+v\nwant %+v", got, want)
	}
	if got := GroupRejects(nil); got == nil || len(got) != 0 {
		t.Errorf("GroupRejects(nil) = %#v, want an empty slice", got)
	}
}

func TestReadRejectsSortsAndFilters(t *testing.T) {
	ctx := context.Background()
	ds, err := OpenOrCreate(filepath.Join(t.TempDir(), "ds"))
	if err != nil {
		t.Fatal(err)
	}
	// Two ingests, written out of file and line order.
	for _, batch := range [][]Reject{
		{{Ingest: 1, File: "b.csv", Line: 9, Reason: "x"}, {Ingest: 1, File: "a.csv", Line: 4, Reason: "y"}},
		{{Ingest: 2, File: "a.csv", Line: 2, Reason: "z"}, {Ingest: 2, File: "b.csv", Line: 9, Reason: "w"}, {Ingest: 2, File: "a.csv", Line: 0, Reason: "v"}},
	} {
		tx, err := ds.Begin()
		if err != nil {
			t.Fatal(err)
		}
		for i := range batch {
			if err := tx.Rejects().Append(&batch[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	where := func(rows []Reject) []string {
		var out []string
		for _, r := range rows {
			b, _ := json.Marshal([]any{r.File, r.Line, r.Reason})
			out = append(out, string(b))
		}
		return out
	}
	all, err := ReadRejects(ctx, ds, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`["a.csv",0,"v"]`, `["a.csv",2,"z"]`, `["a.csv",4,"y"]`, `["b.csv",9,"x"]`, `["b.csv",9,"w"]`}
	if got := where(all); !reflect.DeepEqual(got, want) {
		t.Errorf("ReadRejects = %q\nwant %q", got, want)
	}
	b, err := ReadRejects(ctx, ds, "b.csv")
	if err != nil || !reflect.DeepEqual(where(b), want[3:]) {
		t.Errorf("ReadRejects(b.csv) = %q, %v", where(b), err)
	}
	if none, err := ReadRejects(ctx, ds, "c.csv"); err != nil || none != nil {
		t.Errorf("ReadRejects(c.csv) = %v, %v", none, err)
	}
}

// The JSON names of a reject are wlprof rejects' -o json contract.
func TestRejectJSONNames(t *testing.T) {
	b, err := json.Marshal(Reject{Ingest: 1, File: "f", Line: 2, Col: 3, Format: "csv", Reason: "r", Record: "x,y"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"ingest":1,"file":"f","line":2,"col":3,"format":"csv","reason":"r","record":"x,y"}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}

// ListRejects keeps the first limit records but counts and groups them
// all; the text says where each was and how many were left out.
func TestRejectList(t *testing.T) {
	rows := []Reject{{File: "a.csv", Line: 2, Col: 3, Reason: "bad cpu", Record: "x,y"}, {File: "a.csv", Line: 4, Reason: "bad cpu"}, {File: "b.json", Reason: "truncated"}}
	l := ListRejects(rows, 2)
	if l.Version != 1 || l.Total != 3 || len(l.Groups) != 2 || len(l.Rejects) != 2 {
		t.Errorf("list %+v", l)
	}
	if got := ListRejects(nil, -1); got.Rejects == nil || got.Groups == nil {
		t.Errorf("no rejects: %+v, want empty lists", got)
	}
	if w := []string{rows[0].Where(), rows[1].Where(), rows[2].Where()}; !reflect.DeepEqual(w, []string{"a.csv:2:3", "a.csv:4", "b.json"}) {
		t.Errorf("where %q", w)
	}
	text := "3 rejected record(s) in 2 file(s)\n\nCOUNT  FILE    REASON\n2      a.csv   bad cpu\n1      b.json  truncated\n\n" +
		"WHERE      REASON   RECORD\na.csv:2:3  bad cpu  \"x,y\"\na.csv:4    bad cpu  \"\"\n... and 1 more (--limit -1 lists them all)\n"
	csv := "ingest,file,line,col,format,reason,record\n0,a.csv,2,3,,bad cpu,\"x,y\"\n0,a.csv,4,0,,bad cpu,\n"
	tabletest.Equal(t, l.WriteText, l.WriteCSV, text, csv)
}
