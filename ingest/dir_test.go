package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/dataset"
)

// mixedDir writes a folder of one usage CSV, one prose file and a hidden
// file, and beside it a usage CSV and one whose only record is bad; it
// returns the folder and the two CSVs.
func mixedDir(t *testing.T) (dir, single, bad string) {
	t.Helper()
	root := t.TempDir()
	dir = filepath.Join(root, "in")
	for name, body := range map[string]string{
		"in/a/usage.csv": "tenant,server,timestamp,cpu\nt1,s1,2024-01-01T00:00:00Z,0.5\n",
		"in/NOTES.md":    "# Where these traces come from\n\nA folder of inputs and this note.\n",
		"in/.hidden.csv": "tenant,server,timestamp,cpu\nt9,s9,2024-01-01T00:00:00Z,0.5\n",
		"single.csv":     "tenant,server,timestamp,cpu\nt2,s1,2024-01-01T00:00:00Z,0.25\n",
		"bad.csv":        "tenant,server,timestamp,cpu\nt3,s1,2024-01-01T00:00:00Z,lots\n",
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, filepath.Join(root, "single.csv"), filepath.Join(root, "bad.csv")
}

func TestSurveySplitsAFolder(t *testing.T) {
	dir, single, _ := mixedDir(t)
	known, unknown, err := Survey([]string{single, dir})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{single, filepath.Join(dir, "a", "usage.csv")}; !reflect.DeepEqual(known, want) {
		t.Errorf("known = %q, want %q", known, want)
	}
	if len(unknown) != 1 || unknown[0].Path != filepath.Join(dir, "NOTES.md") || unknown[0].Reason == "" {
		t.Errorf("unknown = %+v, want NOTES.md with a reason", unknown)
	}
}

// SurveyDirs surveys folders only: a file named alone is kept even when
// no format reads it, so that the ingest names it in its error.
func TestSurveyDirsKeepsNamedFiles(t *testing.T) {
	dir, single, _ := mixedDir(t)
	named := filepath.Join(dir, "NOTES.md")
	known, unknown, err := SurveyDirs([]string{named, dir, single})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{named, filepath.Join(dir, "a", "usage.csv"), single}; !reflect.DeepEqual(known, want) {
		t.Errorf("known = %q, want %q", known, want)
	}
	if len(unknown) != 1 || unknown[0].Path != named {
		t.Errorf("unknown = %+v, want the folder's NOTES.md", unknown)
	}
	// A path that does not exist is kept too: the ingest reports it.
	missing := filepath.Join(dir, "missing.csv")
	if known, _, err := SurveyDirs([]string{missing}); err != nil || !reflect.DeepEqual(known, []string{missing}) {
		t.Errorf("SurveyDirs(missing) = %q, %v", known, err)
	}
}

func TestSharedNotes(t *testing.T) {
	files := []FileResult{
		{Path: "a", Notes: []string{"columns", "a only"}},
		{Path: "b"},
		{Path: "c", Notes: []string{"columns", "columns"}},
		{Path: "d", Notes: []string{"columns"}},
	}
	want := []Note{{Text: "columns", Files: []string{"a", "c", "d"}}, {Text: "a only", Files: []string{"a"}}}
	if got := SharedNotes(files); !reflect.DeepEqual(got, want) {
		t.Errorf("SharedNotes = %+v, want %+v", got, want)
	}
	if got := SharedNotes(nil); got != nil {
		t.Errorf("SharedNotes(nil) = %+v", got)
	}
}

func TestValidateTenantKey(t *testing.T) {
	o := DefaultOptions()
	for _, k := range append(TenantKeys(), "") {
		o.TenantKey = k
		if err := o.Validate(); err != nil {
			t.Errorf("TenantKey %q: %v", k, err)
		}
	}
	o.TenantKey = "colour"
	err := o.Validate()
	if err == nil || !strings.HasPrefix(err.Error(), `--tenant-key "colour": want one of `) || !strings.Contains(err.Error(), "machine") {
		t.Errorf("TenantKey colour: %v", err)
	}
}

func TestIntoCommitsOrLeavesTheDataset(t *testing.T) {
	ctx := context.Background()
	_, single, bad := mixedDir(t)
	ds := filepath.Join(t.TempDir(), "ds")
	res, d, err := Into(ctx, ds, "csv", []string{single}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if res.Accepted != 1 || d.Rows(dataset.UsageTable.Name) != 1 || d.Dir != ds {
		t.Fatalf("accepted %d, usage rows %d, dir %s", res.Accepted, d.Rows(dataset.UsageTable.Name), d.Dir)
	}
	before := snapshot(t, ds)
	opts := DefaultOptions()
	opts.MaxRejects = 0
	if _, _, err := Into(ctx, ds, "csv", []string{bad}, opts); !errors.Is(err, ErrTooManyRejects) {
		t.Fatalf("err = %v, want ErrTooManyRejects", err)
	}
	sameTree(t, "after a failed ingest", snapshot(t, ds), before)
}

func TestFreshReplacesOnlyOnSuccess(t *testing.T) {
	ctx := context.Background()
	dir, single, bad := mixedDir(t)
	out := t.TempDir()
	ds := filepath.Join(out, "dataset")
	mustIngest(t, ds, "csv", []string{filepath.Join(dir, "a", "usage.csv")}, DefaultOptions())
	mustIngest(t, ds, "csv", []string{single}, DefaultOptions())
	before := snapshot(t, ds)

	opts := DefaultOptions()
	opts.MaxRejects = 0
	if _, _, err := Fresh(ctx, ds, "csv", []string{bad}, opts); !errors.Is(err, ErrTooManyRejects) {
		t.Fatalf("err = %v, want ErrTooManyRejects", err)
	}
	sameTree(t, "after a failed fresh ingest", snapshot(t, ds), before)

	res, d, err := Fresh(ctx, ds, "auto", []string{single}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	// The new dataset holds the new input alone, in dir's place.
	if res.Accepted != 1 || d.Dir != ds || d.Rows(dataset.UsageTable.Name) != 1 || len(d.Manifest().Sources) != 1 {
		t.Errorf("accepted %d, dir %s, usage rows %d, sources %d", res.Accepted, d.Dir, d.Rows(dataset.UsageTable.Name), len(d.Manifest().Sources))
	}
	entries, err := os.ReadDir(out)
	if err != nil || len(entries) != 1 || entries[0].Name() != "dataset" {
		t.Errorf("%s holds %v (%v), want the dataset alone", out, entries, err)
	}
}

func TestDocument(t *testing.T) {
	_, single, _ := mixedDir(t)
	dir := filepath.Join(t.TempDir(), "ds")
	res, ds, err := Into(context.Background(), dir, "csv", []string{single}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	d := res.Document(ds, nil)
	if d.Version != 1 || d.Dataset != dir || d.Ingest != res.Ingest || d.Accepted != 1 || len(d.Files) != 1 || len(d.Tables) != len(dataset.TableNames) ||
		d.Tables[dataset.UsageTable.Name] != 1 || d.Tables[dataset.RejectsTable.Name] != 0 {
		t.Errorf("document %+v", d)
	}
	b, _ := json.Marshal(d)
	if strings.Contains(string(b), "undetected") {
		t.Errorf("nothing left out, yet: %s", b)
	}
	u := []Undetected{{Path: "x", Reason: "r"}}
	if d := res.Document(ds, u); !reflect.DeepEqual(d.Undetected, u) {
		t.Errorf("undetected %+v", d.Undetected)
	}
}
