package ingest

import (
	"reflect"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/dataset"
)

const skyDir = "../testdata/jobs/skyline/"

// TestSkylineCSVOffsets: the rows of offsets.csv (written for this test)
// as they are, sorted by job and run; the NaN and negative rows of run r1
// are rejects at their line and column.
func TestSkylineCSVOffsets(t *testing.T) {
	o := ingestJobs(t, "auto", []string{skyDir + "offsets.csv"}, DefaultOptions())
	if s := steps(o.skyline("etl_daily", "2024-03-01")); s != "0:2 60:5 180:0" {
		t.Errorf("2024-03-01: %s", s)
	}
	if s := steps(o.skyline("etl_daily", "2024-03-02")); s != "0:3 120:4 240:0" {
		t.Errorf("2024-03-02: %s", s)
	}
	if s := steps(o.skyline("report", "r1")); s != "0:1 60:0" {
		t.Errorf("r1: %s", s)
	}
	if got := o.skyline("etl_daily", "2024-03-01")[1]; got.MemoryBytes != 10737418240 || got.VCores != 5 {
		t.Errorf("sample %+v", got)
	}
	var runs []string
	for _, r := range o.runs {
		if r.StartMs != dataset.NoTime || r.EndMs != dataset.NoTime || r.Source != "skyline-csv" || r.Name != r.Job {
			t.Errorf("run %+v", r)
		}
		runs = append(runs, r.Job+"/"+r.Run)
	}
	if strings.Join(runs, " ") != "etl_daily/2024-03-01 etl_daily/2024-03-02 report/r1" {
		t.Errorf("runs %v", runs)
	}
	want := []dataset.Reject{
		{Ingest: 1, File: skyDir + "offsets.csv", Line: 9, Col: 14, Format: "skyline-csv", Reason: "containers is NaN", Record: "report,r1,30,NaN,,"},
		{Ingest: 1, File: skyDir + "offsets.csv", Line: 10, Col: 14, Format: "skyline-csv", Reason: "containers -2 is negative", Record: "report,r1,45,-2,,"},
	}
	if !reflect.DeepEqual(o.rejects, want) {
		t.Errorf("rejects %+v", o.rejects)
	}
	if o.res.Accepted != 3+8 {
		t.Errorf("accepted %d", o.res.Accepted)
	}
}

// TestSkylineCSVTimestamps: offsets from each run's earliest timestamp,
// whatever the row order; epoch seconds count as timestamps; a duplicate
// time, an offset among timestamps and an empty run are rejects.
func TestSkylineCSVTimestamps(t *testing.T) {
	o := ingestJobs(t, "skyline-csv", []string{skyDir + "timestamps.csv"}, DefaultOptions())
	if s := steps(o.skyline("q12", "run-a")); s != "0:1 5:3 20:0" {
		t.Errorf("run-a: %s", s)
	}
	// 1709337650 s is 2024-03-02T00:00:50Z.
	if s := steps(o.skyline("q12", "run-b")); s != "0:2 10:4 30:0 50:0" {
		t.Errorf("run-b: %s", s)
	}
	if len(o.runs) != 2 || o.runs[1].StartMs != ms("2024-03-02T00:00:00Z") || o.runs[1].EndMs != ms("2024-03-02T00:00:50Z") {
		t.Errorf("runs %+v", o.runs)
	}
	var reasons []string
	for _, r := range o.rejects {
		reasons = append(reasons, r.Reason)
	}
	// Duplicates are found when the run is complete, so their rejects
	// come after the others.
	if got := rejectLines(o.rejects); !reflect.DeepEqual(got, []int64{9, 10, 8}) ||
		!strings.Contains(reasons[0], "one file, one kind") || reasons[1] != "empty run" ||
		reasons[2] != "run q12/run-b already has time 2024-03-02T00:00:30Z (line 7)" {
		t.Errorf("rejects %v %q", got, reasons)
	}
}

func TestSkylineCSVHeader(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "x.csv", []byte("job,run,containers\na,b,1\n"))
	if _, err := ingest(t, t.Context(), dir+"/ds", "skyline-csv", []string{p}, DefaultOptions()); err == nil || !strings.Contains(err.Error(), "lacks column(s) time") {
		t.Errorf("err %v", err)
	}
	for head, want := range map[string]bool{
		"job,run,time,containers\n":              true,
		"JOB, Run ,offset_s,containers,vcores\n": true,
		"job,run,containers\n":                   false,
		"tenant,server,timestamp,cpu\n":          false,
	} {
		f, err := detectedAs(t, writeFile(t, dir, "h.csv", []byte(head)))
		if got := err == nil && f.Name == "skyline-csv"; got != want {
			t.Errorf("Detect(%q) = %v, %v", head, f, err)
		}
	}
}

// TestJobsTwiceInOneIngest: a run read twice in one ingest is written
// twice, and the second input's notes say so.
func TestJobsTwiceInOneIngest(t *testing.T) {
	p := skyDir + "offsets.csv"
	o := ingestJobs(t, "skyline-csv", []string{p, p}, DefaultOptions())
	if len(o.runs) != 6 || hasNoteLike(o.res.Files[0].Notes, "written twice") ||
		!hasNoteLike(o.res.Files[1].Notes, "written twice (an .inprogress log beside its final copy? a file named twice?): 3 (etl_daily/2024-03-01, first read from "+p+")") {
		t.Errorf("runs %d, notes %q / %q", len(o.runs), o.res.Files[0].Notes, o.res.Files[1].Notes)
	}
}
