package ingest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJhistRealFixtures: hraven's real job histories (testdata/jobs/SOURCES.md)
// ingest without a reject, but for the one its authors cut after a
// MAP_ATTEMPT_STARTED event (its name says SUCCEEDED; the file ends at
// line 15), whose attempt without a finish is one reject that says so. The
// Sleep job's 10 maps and 1 reduce are 11 attempts, the ERROR job's one
// attempt 1, the Hadoop 1 Sleep job's map and reduce 2.
func TestJhistRealFixtures(t *testing.T) {
	o := ingestJobs(t, "auto", []string{"../testdata/jobs/jhist-real"}, DefaultOptions())
	if len(o.rejects) != 1 || !strings.Contains(o.rejects[0].File, "job_1410289045532_259974") || o.rejects[0].Line != 15 ||
		!strings.Contains(o.rejects[0].Reason, "no finish event") {
		t.Errorf("rejects %+v, want the cut file's attempt without a finish", o.rejects)
	}
	per := map[string]int{}
	for _, r := range o.prof {
		switch {
		case strings.HasSuffix(r.Source, "_user1_Sleep+job"):
			per["hadoop1"]++
		case strings.Contains(r.Source, "Sleep+job"):
			per["sleep"]++
		case strings.Contains(r.Source, "ERROR"):
			per["error"]++
		}
	}
	if per["sleep"] != 11 || per["error"] != 1 || per["hadoop1"] != 2 {
		t.Errorf("attempts %v, want 11 of the Sleep job, 1 of the ERROR job, 2 of the Hadoop 1 one", per)
	}
}

// TestJhistHadoop1: hraven's Hadoop 1 (JobTracker) history of a Sleep job
// is read as the job history it is: its MAP attempt started 1386370582498
// and finished 1386370583978 (1.48 s, CPU_MILLISECONDS 640), its REDUCE
// attempt 1386370585208 → 1386370592528 (7.32 s, CPU 1350 ms); the SETUP
// and CLEANUP attempts are the framework's and no runs. The same file cut
// inside a record keeps what came before and rejects the cut record.
func TestJhistHadoop1(t *testing.T) {
	const v1 = "../testdata/jobs/jhist-real/job_201311192236_3583_1386370578196_user1_Sleep+job"
	o := ingestJobs(t, "auto", []string{v1}, DefaultOptions())
	if len(o.rejects) != 0 || len(o.prof) != 2 {
		t.Fatalf("%d runs, rejects %+v", len(o.prof), o.rejects)
	}
	m, r := o.prof[0], o.prof[1]
	if m.Job != "Sleep job" || m.Task != "map" || m.StartMs != 1386370582498 || m.RuntimeS != 1.48 || m.CPUS != 0.64 ||
		!strings.Contains(m.Config, `"attempt":"attempt_201311192236_3583_m_000000_0"`) || !strings.Contains(m.Config, `"job_id":"job_201311192236_3583"`) {
		t.Errorf("map %+v", m)
	}
	if r.Task != "reduce" || r.StartMs != 1386370585208 || r.RuntimeS != 7.32 || r.CPUS != 1.35 || r.ExitCode != 0 {
		t.Errorf("reduce %+v", r)
	}
	data, err := os.ReadFile(v1)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "job_201311192236_3583_cut")
	i := bytes.Index(data, []byte("ReduceAttempt TASK_TYPE=\"REDUCE\" TASKID=\"task_201311192236_3583_r_000000\" TASK_ATTEMPT_ID=\"attempt_201311192236_3583_r_000000_0\" TASK_STATUS"))
	if err := os.WriteFile(cut, data[:i+200], 0o644); err != nil {
		t.Fatal(err)
	}
	o = ingestJobs(t, "jhist", []string{cut}, DefaultOptions())
	if len(o.prof) != 1 || len(o.rejects) != 2 || !strings.Contains(o.rejects[0].Reason, "not closed (cut short?)") ||
		!strings.Contains(o.rejects[1].Reason, "no finish event") {
		t.Errorf("cut file: %d runs, rejects %+v", len(o.prof), o.rejects)
	}
}
