package ingest

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/dataset"
)

// The constraint fixtures (testdata/traces/SOURCES.md) are written from
// the schemas: no real constraint rows are bundled. "auto" detects all
// five formats.
func TestGoogleConstraintFormats(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	files := []string{
		constraintFile("google2011", "task_events.csv"), constraintFile("google2011", "task_constraints.csv"),
		constraintFile("google2011", "machine_attributes.csv"),
		constraintFile("google2019", "instance_events_constraints.json"), constraintFile("google2019", "machine_attributes.json"),
	}
	got, err := runInto(t, dir, "auto", files, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		format             string
		accepted, rejected int64
	}{
		{google2011TaskEventsFormat, 18, 1}, {google2011TaskConstraintsFormat, 7, 2}, {google2011MachineAttrsFormat, 11, 2},
		{google2019InstanceEventsFormat, 6, 2}, {google2019MachineAttrsFormat, 4, 1},
	}
	for i, w := range want {
		f := got.res.Files[i]
		if f.Format != w.format || f.Accepted != w.accepted || f.Rejected != w.rejected {
			t.Errorf("%s: %s accepted %d rejected %d, want %s %d %d", f.Path, f.Format, f.Accepted, f.Rejected, w.format, w.accepted, w.rejected)
		}
	}
	for _, r := range []struct {
		file string
		line int64
		why  string
	}{
		{"task_events.csv", 19, "unknown event type 9"},
		{"task_constraints.csv", 8, "unknown relation 5"},
		{"task_constraints.csv", 9, `LESS_THAN "abc": the value is not a number`},
		{"machine_attributes.csv", 12, "empty attribute name"},
		{"machine_attributes.csv", 13, `attribute deleted "2"`},
		{"instance_events_constraints.json", 7, "unknown relation 9"},
		{"instance_events_constraints.json", 8, "not a number"},
		{"machine_attributes.json", 5, "no value and not deleted"},
	} {
		var rs []dataset.Reject
		for _, x := range got.rejects {
			if filepath.Base(x.File) == r.file {
				rs = append(rs, x)
			}
		}
		hasReject(t, rs, r.line, r.why)
	}
	ds := openDataset(t, dir)
	ev, err := dataset.ReadAll(t.Context(), ds, dataset.TaskEventsTable)
	if err != nil {
		t.Fatal(err)
	}
	// 2011 line 2: SCHEDULE of job 1 task 0 on 101 at 610 s of the trace
	// clock = 10 s after 19:00 EDT 1 May 2011.
	e := ev[1]
	if e.Type != "SCHEDULE" || e.Job != 1 || e.Task != 0 || e.Machine != 101 || e.CPURequest != 0.25 ||
		e.TimeMs != google2011TraceStart.UnixMilli()+10_000 {
		t.Errorf("2011 event: %+v", e)
	}
	if ev[16].CPURequest == ev[16].CPURequest || !math.IsNaN(ev[16].MemoryRequest) { // job 5: requests left empty
		t.Errorf("empty requests must read back as NaN: %+v", ev[16])
	}
	// 2019 line 4: INT64 as strings, relation by name, PRESENT's value dropped.
	e = ev[18+3]
	if e.Task != 1 || e.Machine != 0 || e.Constraints != "Nm\x1fGREATER_THAN\x1f3\x1ew2\x1fPRESENT\x1f" {
		t.Errorf("2019 event: %+v %q", e, e.Constraints)
	}
	cs, ok := dataset.DecodeConstraints(e.Constraints)
	if !ok || len(cs) != 2 || cs[1] != (dataset.Constraint{Attribute: "w2", Relation: "PRESENT"}) {
		t.Errorf("decoded %+v %v", cs, ok)
	}
	ma, err := dataset.ReadAll(t.Context(), ds, dataset.MachineAttributesTable)
	if err != nil {
		t.Fatal(err)
	}
	// time 0: held from before the trace (null); deleted rows keep no value.
	if ma[0].TimeMs != dataset.NoTime || ma[0].Machine != 101 || ma[0].Value != "aaa" || !ma[8].Deleted {
		t.Errorf("machine attributes: %+v / %+v", ma[0], ma[8])
	}
}

// constraintFile is a fixture of testdata/constraints (kept out of
// testdata/traces, which the run and auto-detection tests ingest whole).
func constraintFile(parts ...string) string {
	return filepath.Join(append([]string{"..", "testdata", "constraints"}, parts...)...)
}

// The separators of the canonical constraint list are refused in names
// and values, in both traces.
func TestConstraintSeparatorsRefused(t *testing.T) {
	p := &g2011{file: "f"}
	var rec dataset.TaskConstraint
	if perr := p.taskConstraint([]byte("600000000,1,0,0,GK,a\x1eb"), 1, &rec); perr == nil || !strings.Contains(perr.Error(), "control character") {
		t.Errorf("2011: %v", perr)
	}
	var e dataset.TaskEvent
	err := scanInstanceEvent([]byte(`{"time": 1, "type": 0, "collection_id": 1, "instance_index": 0, "constraint": [{"name": "a\u001fb", "value": "x", "relation": 0}]}`), 0, &e)
	if err == nil || !strings.Contains(err.Error(), "control character") {
		t.Errorf("2019: %v", err)
	}
}
