package ingest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/dataset"
)

// A batch_task subset re-exported with the schema's header line and its
// counts and times through a float column ("10.0"), the shape users
// publish (schema.md §1.5's columns): auto detects it, every row whose
// numbers are whole is read, and a count of 2.5 tasks stays a reject.
func TestAlibabaBatchTaskReexport(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	got, err := runInto(t, dir, "auto", []string{traceFile("alibaba2018", "batch_task_reexport_sample.csv")}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	f := got.res.Files[0]
	if f.Format != alibabaBatchTaskName || f.Accepted != 5 || f.Rejected != 1 {
		t.Fatalf("file %+v, want alibaba2018-batch-task, 5 accepted, 1 rejected; rejects %+v", f, got.rejects)
	}
	hasReject(t, got.rejects, 7, `instance_num "2.5" is not a count`)
	if !strings.Contains(strings.Join(f.Notes, "\n"), alibabaHeaderNote) {
		t.Errorf("notes %q do not say the header was skipped", f.Notes)
	}
	stages, err := dataset.ReadAll(context.Background(), openDataset(t, dir), dataset.StagesTable)
	if err != nil {
		t.Fatal(err)
	}
	planMem := 0.39 // divided at run time, as the reader does
	want := dataset.Stage{Job: "j_101", Stage: "1", Name: "M1", Tasks: 10, Status: "Terminated", StartMs: 100_000, EndMs: 160_000,
		CPUs: 1, Memory: planMem / 100, Source: alibabaBatchTaskName}
	if len(stages) != 5 || stages[0] != want {
		t.Fatalf("stages %+v\nwant first %+v", stages, want)
	}
	if s := stages[2]; s.Stage != "3" || s.Parents != "2" || s.Tasks != 1 {
		t.Errorf("R3_2: %+v", s)
	}
	if s := stages[3]; s.StartMs != dataset.NoTime || s.EndMs != dataset.NoTime || s.Tasks != 1 {
		t.Errorf("a waiting task (times 0.0): %+v", s)
	}
}

func TestCountOf(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "7": 7, "1.0": 1, "10.00": 10, "1e3": 1000, "2.5": -1, "-1": -1, "-1.0": -1, "+1": -1,
		"NaN": -1, "inf": -1, "": -1, "1.0.0": -1, "9007199254740992.0": -1, "0.0": 0} {
		n, ok := countOf([]byte(in))
		if !ok {
			n = -1
		}
		if n != want {
			t.Errorf("%q: %d, want %d", in, n, want)
		}
	}
}

// A machine_meta subset with the schema's header line, in which machine
// m_103 is IMPORT_INSTALLING (not yet in service; a status of the published
// table's rows) on both of its rows: its rows are its state (OUT), not
// rejects, and m_104's "0.0" time and "96.0" cores are whole numbers.
func TestAlibabaMachineMetaReexport(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	got, err := runInto(t, dir, "auto", []string{traceFile("alibaba2018", "machine_meta_reexport_sample.csv")}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if f := got.res.Files[0]; f.Format != alibabaMetaFormat || f.Accepted != 6 || f.Rejected != 0 {
		t.Fatalf("file %+v, rejects %+v", f, got.rejects)
	}
	var types []string
	for _, e := range readMachineEvents(t, dir) {
		types = append(types, e.Machine+"@"+e.Type)
	}
	if s := strings.Join(types, " "); s != "m_101@ADD m_102@ADD m_103@OUT m_104@ADD m_103@OUT m_101@UPDATE" {
		t.Errorf("events %s", s)
	}
	if notes := strings.Join(got.res.Files[0].Notes, "\n"); !strings.Contains(notes, `"IMPORT_INSTALLING" ×2`) || !strings.Contains(notes, alibabaHeaderNote) {
		t.Errorf("notes %s", notes)
	}
}

// machine_usage with the schema's header line: detected and skipped.
func TestAlibabaMachineUsageHeader(t *testing.T) {
	body := "machine_id,time_stamp,cpu_util_percent,mem_util_percent,mem_gps,mkpi,net_in,net_out,disk_io_percent\n" +
		"m_1932,386640,41,92,,,43.08,31.8,4\n"
	path := writeFile(t, t.TempDir(), "machine_usage_part.csv", []byte(body))
	got := mustRun(t, "auto", []string{path}, DefaultOptions())
	if f := got.res.Files[0]; f.Format != alibabaMachineName || f.Accepted != 1 || f.Rejected != 0 {
		t.Fatalf("file %+v, rejects %+v", f, got.rejects)
	}
}

// Without the header line, a re-exported row's integral floats do not
// hide its format from auto.
func TestAlibabaFloatRowsDetected(t *testing.T) {
	for body, want := range map[string]string{
		"M1,10.0,j_101,1,Terminated,100.0,160.0,100.0,0.39\n": alibabaBatchTaskName,
		"m_104,0.0,12,a,96.0,100.0,USING\n":                   alibabaMetaFormat,
		"m_1932,386640.0,41.0,92.0,,,43.21,32.78,2.0\n":       alibabaMachineName,
	} {
		wantFormat(t, writeFile(t, t.TempDir(), "part.csv", []byte(body)), want)
	}
}
