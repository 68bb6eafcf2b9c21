package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/ingest"
	"github.com/wlprof/wlprof/internal/table/tabletest"
	"github.com/wlprof/wlprof/reports"
	"github.com/wlprof/wlprof/skyline"
)

// runInputs is a folder of the tpch_q12 fixture and a note no format
// reads.
func runInputs(t *testing.T) string {
	t.Helper()
	in := filepath.Join(t.TempDir(), "in")
	os.MkdirAll(in, 0o755)
	b, err := os.ReadFile("../testdata/resourceestimator/tpch_q12.txt")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(in, "tpch_q12.txt"), b, 0o644)
	os.WriteFile(filepath.Join(in, "NOTES.md"), []byte("# notes\n\nWhere the fixture comes from.\n"), 0o644)
	return in
}

func runOptions(out string, lines *[]string) RunOptions {
	fit := skyline.DefaultOptions()
	fit.StepS = 5
	figures := reports.DefaultOptions()
	figures.InlineJobs = 0
	return RunOptions{Out: out, Ingest: ingest.DefaultOptions(), Figures: figures,
		Report: Options{Skyline: fit, Around: func(stage string, run func() error) error {
			*lines = append(*lines, "stage "+stage)
			return run()
		}},
		Progress: func(format string, a ...any) { *lines = append(*lines, strings.TrimSpace(fmt.Sprintf(format, a...))) }}
}

// Run surveys, ingests into a fresh OUT/dataset and writes OUT/report;
// run again, it replaces the dataset rather than adding to it.
func TestRunFreshDataset(t *testing.T) {
	ctx := context.Background()
	in := runInputs(t)
	out := filepath.Join(t.TempDir(), "out")
	var lines []string
	rep, err := Run(ctx, []string{in}, runOptions(out, &lines))
	if err != nil {
		t.Fatal(err)
	}
	ds := filepath.Join(out, "dataset")
	if rep.Version != 1 || rep.Dataset != ds || len(rep.Files) != 1 || rep.Rejected != 0 || rep.Accepted == 0 {
		t.Errorf("report %+v", rep)
	}
	if len(rep.Undetected) != 1 || rep.Undetected[0].Path != filepath.Join(in, "NOTES.md") {
		t.Errorf("undetected %+v", rep.Undetected)
	}
	if rep.Report == nil || !strings.HasSuffix(rep.Report.Dir, filepath.Join("out", "report")) {
		t.Errorf("report index %+v", rep.Report)
	}
	if _, err := os.Stat(filepath.Join(out, "report", "index.html")); err != nil {
		t.Error(err)
	}
	want := []string{"left out " + filepath.Join(in, "NOTES.md") + ": no known format", "ingesting 1 file(s) into " + ds,
		"stage ingest", fmt.Sprintf("ingested %d record(s), 0 rejected", rep.Accepted)}
	if len(lines) < len(want) || !reflect.DeepEqual(lines[:len(want)], want) {
		t.Errorf("progress and stages %q, want them to start %q", lines, want)
	}
	again, err := Run(ctx, []string{in}, runOptions(out, &lines))
	if err != nil {
		t.Fatal(err)
	}
	if again.Accepted != rep.Accepted {
		t.Errorf("second run: %d records, first %d", again.Accepted, rep.Accepted)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 2 {
		t.Errorf("%s holds %v, want dataset and report", out, entries)
	}
}

// With a dataset given, the inputs are added to it.
func TestRunIntoDataset(t *testing.T) {
	ctx := context.Background()
	in := runInputs(t)
	dir := t.TempDir()
	var lines []string
	o := runOptions(filepath.Join(dir, "out"), &lines)
	o.Dataset = filepath.Join(dir, "ds")
	o.Ingest.SkipDuplicates = false
	first, err := Run(ctx, []string{in}, o)
	if err != nil {
		t.Fatal(err)
	}
	second, err := Run(ctx, []string{in}, o)
	if err != nil {
		t.Fatal(err)
	}
	if first.Dataset != o.Dataset || second.Accepted != first.Accepted {
		t.Errorf("dataset %s; accepted %d then %d", first.Dataset, first.Accepted, second.Accepted)
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "dataset")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("OUT/dataset made although a dataset was given: %v", err)
	}
}

// Nothing is written when no input is known or the report's place holds
// something else.
func TestRunChangesNothingOnFailure(t *testing.T) {
	ctx := context.Background()
	var lines []string
	notes := t.TempDir()
	os.WriteFile(filepath.Join(notes, "README"), []byte("nothing to read\n"), 0o644)
	out := filepath.Join(t.TempDir(), "out")
	if _, err := Run(ctx, []string{notes}, runOptions(out, &lines)); err == nil || !strings.HasPrefix(err.Error(), "no input in a known format among 1 file(s)") {
		t.Errorf("no known input: %v", err)
	}
	os.MkdirAll(filepath.Join(out, "report"), 0o755)
	os.WriteFile(filepath.Join(out, "report", "mine.txt"), []byte("keep"), 0o644)
	if _, err := Run(ctx, []string{runInputs(t)}, runOptions(out, &lines)); !errors.Is(err, reports.ErrNotReport) {
		t.Errorf("report dir not a report: %v", err)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 1 {
		t.Errorf("%s holds %v after failures, want the user's report folder alone", out, entries)
	}
}

// wlprof run's text is a line about the dataset, then the report's; its
// CSV is the report's.
func TestRunReportText(t *testing.T) {
	r := &RunReport{Dataset: "out/dataset", Files: []ingest.FileResult{{}, {}}, Accepted: 9, Rejected: 1,
		Report: &reports.Index{Dir: "out/report", IndexHTML: "index.html"}}
	tabletest.Equal(t, r.WriteText, r.WriteCSV, "dataset: out/dataset (2 files, 9 records, 1 rejected)\nout/report/index.html\n  0 profiles, 0 plots\n",
		"kind,stage,job,path\nhtml,,,index.html\n")
}
