package ingest

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestJhistRealFixtures: hraven's real job histories (testdata/jobs/SOURCES.md)
// ingest without a reject, but for the one its authors cut after a
// MAP_ATTEMPT_STARTED event (its name says SUCCEEDED; the file ends at
// line 15), whose attempt without a finish is one reject that says so. The
// Sleep job's 10 maps and 1 reduce are 11 attempts, the ERROR job's one
// attempt 1. (The Hadoop 1 JobTracker history file beside them is no
// .jhist: no format reads it, and wlprof ingest of the folder leaves it
// out with that reason.)
func TestJhistRealFixtures(t *testing.T) {
	paths, err := filepath.Glob("../testdata/jobs/jhist-real/*.jhist")
	if err != nil || len(paths) != 3 {
		t.Fatalf("%v: %v", paths, err)
	}
	o := ingestJobs(t, "auto", append(paths, "../testdata/jobs/jhist-real/job_1329348432655_0001_conf.xml"), DefaultOptions())
	if len(o.rejects) != 1 || !strings.Contains(o.rejects[0].File, "job_1410289045532_259974") || o.rejects[0].Line != 15 ||
		!strings.Contains(o.rejects[0].Reason, "no finish event") {
		t.Errorf("rejects %+v, want the cut file's attempt without a finish", o.rejects)
	}
	per := map[string]int{}
	for _, r := range o.prof {
		switch {
		case strings.Contains(r.Source, "Sleep+job"):
			per["sleep"]++
		case strings.Contains(r.Source, "ERROR"):
			per["error"]++
		}
	}
	if per["sleep"] != 11 || per["error"] != 1 {
		t.Errorf("attempts %v, want 11 of the Sleep job and 1 of the ERROR job", per)
	}
}
