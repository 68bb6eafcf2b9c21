package dataset

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
)

// Every input of the manifest is listed, with or without rejects; a file
// ingested twice is two inputs; reasons are counted per input with
// GroupRejects' order; a reject of no listed input is still shown.
func TestRejectsBySource(t *testing.T) {
	ds, err := OpenOrCreate(filepath.Join(t.TempDir(), "ds"))
	if err != nil {
		t.Fatal(err)
	}
	type ingest struct {
		sources []Source
		rejects []Reject
	}
	for _, in := range []ingest{
		{sources: []Source{{Path: "a.csv", Format: "csv", Accepted: 10, Rejected: 4}, {Path: "clean.csv", Format: "csv", Accepted: 7}},
			rejects: []Reject{
				{File: "a.csv", Line: 2, Reason: "3 fields"},
				{File: "a.csv", Line: 3, Reason: "bad cpu"},
				{File: "a.csv", Line: 4, Reason: "bad cpu"},
				{File: "a.csv", Line: 5, Reason: "empty server"},
			}},
		{sources: []Source{{Path: "a.csv", Format: "csv", Accepted: 3, Rejected: 1}},
			rejects: []Reject{{File: "a.csv", Line: 9, Reason: "3 fields"}, {File: "lost.csv", Format: "yarn-rm", Reason: "x"}}},
	} {
		tx, err := ds.Begin()
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range in.sources {
			tx.AddSource(s)
		}
		for i := range in.rejects {
			in.rejects[i].Ingest = int32(tx.Ingest())
			if err := tx.Rejects().Append(&in.rejects[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	got, err := RejectsBySource(context.Background(), ds)
	if err != nil {
		t.Fatal(err)
	}
	want := []SourceRejects{
		{Source: Source{Path: "a.csv", Format: "csv", Accepted: 10, Rejected: 4, Ingest: 1}, Reasons: []RejectGroup{
			{File: "a.csv", Reason: "bad cpu", Count: 2}, {File: "a.csv", Reason: "3 fields", Count: 1}, {File: "a.csv", Reason: "empty server", Count: 1}}},
		{Source: Source{Path: "clean.csv", Format: "csv", Accepted: 7, Ingest: 1}, Reasons: []RejectGroup{}},
		{Source: Source{Path: "a.csv", Format: "csv", Accepted: 3, Rejected: 1, Ingest: 2}, Reasons: []RejectGroup{{File: "a.csv", Reason: "3 fields", Count: 1}}},
		{Source: Source{Path: "lost.csv", Format: "yarn-rm", Rejected: 1, Ingest: 2}, Reasons: []RejectGroup{{File: "lost.csv", Reason: "x", Count: 1}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("RejectsBySource =\n%+v\nwant\n%+v", got, want)
	}
}
