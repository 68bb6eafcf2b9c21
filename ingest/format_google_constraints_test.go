package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

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
	// The different-machine constraint (column 13, "If true, indicates that
	// a task must be scheduled to execute on a different machine than any
	// other currently running task in the job", the 2011 schema): set on
	// job 1's six rows and on job 2 task 1's SUBMIT (line 10) only.
	for i, e := range ev[:18] {
		want := i < 6 || i == 9
		if e.DifferentMachine != want {
			t.Errorf("2011 line %d: different_machine %v, want %v", i+1, e.DifferentMachine, want)
		}
	}
	for _, e := range ev[18:] {
		if e.DifferentMachine {
			t.Errorf("2019 event with different_machine (the trace has no such field): %+v", e)
		}
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
	p := &g2011{csvRow: csvRow{file: "f"}}
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

// The instance_events fixture as a Parquet shard (INT64 columns,
// resource_request a struct, constraint a list of structs with the
// relation as its number, as the BigQuery export writes them) ingests to
// the same task_events rows and rejects as the JSON lines.
func TestInstanceEventsParquet(t *testing.T) {
	rows := rewrittenRows(t, "../testdata/constraints/google2019/instance_events_constraints.json", func(m map[string]any) {
		if cs, ok := m["constraint"].([]any); ok {
			for _, c := range cs {
				c := c.(map[string]any)
				if name, ok := c["relation"].(string); ok { // a name in JSON, a number in Parquet
					c["relation"] = slices.Index(dataset.Relations[:], name)
				}
			}
		}
	})
	i64, f64, str := arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float64, arrow.BinaryTypes.String
	var fields []arrow.Field
	for _, n := range []string{"time", "type", "collection_id", "scheduling_class", "missing_type", "collection_type", "priority", "alloc_collection_id", "instance_index", "machine_id", "alloc_instance_index"} {
		fields = append(fields, arrow.Field{Name: n, Type: i64, Nullable: true})
	}
	fields = append(fields,
		arrow.Field{Name: "resource_request", Type: arrow.StructOf(arrow.Field{Name: "cpus", Type: f64, Nullable: true}, arrow.Field{Name: "memory", Type: f64, Nullable: true}), Nullable: true},
		arrow.Field{Name: "constraint", Type: arrow.ListOf(arrow.StructOf(arrow.Field{Name: "name", Type: str, Nullable: true},
			arrow.Field{Name: "value", Type: str, Nullable: true}, arrow.Field{Name: "relation", Type: i64, Nullable: true})), Nullable: true})
	sc := arrow.NewSchema(fields, nil)
	shard := writeFile(t, t.TempDir(), "instance_events-000000000000.parquet", parquetRows(t, sc, rows, 3))
	jEvs, jRej := autoIngest(t, "../testdata/constraints/google2019/instance_events_constraints.json", dataset.TaskEventsTable)
	pEvs, pRej := autoIngest(t, shard, dataset.TaskEventsTable)
	if len(jEvs) != 6 || len(jRej) != 2 {
		t.Fatalf("JSON: %d events, %d rejects; want 6 and 2", len(jEvs), len(jRej))
	}
	if len(pEvs) != len(jEvs) || len(pRej) != len(jRej) {
		t.Fatalf("Parquet: %d events, %d rejects; JSON %d, %d", len(pEvs), len(pRej), len(jEvs), len(jRej))
	}
	for i := range jEvs {
		a, b := jEvs[i], pEvs[i]
		same := a.TimeMs == b.TimeMs && a.Job == b.Job && a.Task == b.Task && a.Machine == b.Machine && a.Type == b.Type && a.Constraints == b.Constraints &&
			(a.CPURequest == b.CPURequest || math.IsNaN(a.CPURequest) && math.IsNaN(b.CPURequest)) &&
			(a.MemoryRequest == b.MemoryRequest || math.IsNaN(a.MemoryRequest) && math.IsNaN(b.MemoryRequest))
		if !same {
			t.Errorf("event %d: JSON %+v, Parquet %+v", i, a, b)
		}
	}
	for i := range jRej {
		if jRej[i].Line != pRej[i].Line || jRej[i].Reason != pRej[i].Reason {
			t.Errorf("reject %d: JSON line %d %q, Parquet row %d %q", i, jRej[i].Line, jRej[i].Reason, pRej[i].Line, pRej[i].Reason)
		}
	}
}

// The machine_attributes fixture as a Parquet shard ingests to the same
// rows and rejects as the JSON lines.
func TestMachineAttributesParquet(t *testing.T) {
	rows := rewrittenRows(t, "../testdata/constraints/google2019/machine_attributes.json", func(m map[string]any) {
		for _, k := range []string{"time", "machine_id"} { // INT64 as strings in the JSON export, numbers in Parquet
			if s, ok := m[k].(string); ok {
				m[k] = json.Number(s)
			}
		}
	})
	sc := arrow.NewSchema([]arrow.Field{{Name: "time", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, {Name: "machine_id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true}, {Name: "value", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "deleted", Type: arrow.FixedWidthTypes.Boolean, Nullable: true}}, nil)
	shard := writeFile(t, t.TempDir(), "machine_attributes-000000000000.parquet", parquetRows(t, sc, rows, 2))
	jA, jRej := autoIngest(t, "../testdata/constraints/google2019/machine_attributes.json", dataset.MachineAttributesTable)
	pA, pRej := autoIngest(t, shard, dataset.MachineAttributesTable)
	if len(jA) != 4 || len(jRej) != 1 || len(pA) != len(jA) || len(pRej) != len(jRej) {
		t.Fatalf("JSON %d rows %d rejects, Parquet %d rows %d rejects; want 4 and 1 each", len(jA), len(jRej), len(pA), len(pRej))
	}
	for i := range jA {
		if jA[i] != pA[i] {
			t.Errorf("row %d: JSON %+v, Parquet %+v", i, jA[i], pA[i])
		}
	}
	if jRej[0].Line != pRej[0].Line || jRej[0].Reason != pRej[0].Reason {
		t.Errorf("reject: JSON line %d %q, Parquet row %d %q", jRej[0].Line, jRej[0].Reason, pRej[0].Line, pRej[0].Reason)
	}
}

// The different-machine column is a boolean (0/1, true/false, empty for
// false); anything else is a reject naming the column.
func TestDifferentMachineColumn(t *testing.T) {
	p := &g2011{csvRow: csvRow{file: "f"}}
	var e dataset.TaskEvent
	for _, c := range []struct {
		v    string
		want bool
	}{{"1", true}, {"true", true}, {"0", false}, {"", false}} {
		if perr := p.taskEvent([]byte("600000000,,1,0,,0,u1,0,9,0.25,0.125,0,"+c.v), 1, &e); perr != nil || e.DifferentMachine != c.want {
			t.Errorf("%q: %v, different_machine %v", c.v, perr, e.DifferentMachine)
		}
	}
	perr := p.taskEvent([]byte("600000000,,1,0,,0,u1,0,9,0.25,0.125,0,2"), 7, &e)
	if perr == nil || perr.Line != 7 || !strings.Contains(perr.Error(), `different-machine constraint "2"`) {
		t.Errorf("flag 2: %v", perr)
	}
}

// autoIngest ingests path with auto into a new dataset and returns the
// rows of table and the rejects.
func autoIngest[T any](t *testing.T, path string, table *dataset.Table[T]) ([]T, []dataset.Reject) {
	t.Helper()
	_, ds, err := Into(context.Background(), filepath.Join(t.TempDir(), "ds"), "auto", []string{path}, DefaultOptions())
	if ds == nil {
		t.Fatalf("%s: %v", path, err)
	}
	rej, err := dataset.ReadRejects(context.Background(), ds, "")
	if err != nil {
		t.Fatal(err)
	}
	return readAll(t, ds, table), rej
}

// rewrittenRows are the JSON lines of a fixture, each rewritten by fix as
// the Parquet export writes its values.
func rewrittenRows(t *testing.T, path string, fix func(map[string]any)) [][]byte {
	t.Helper()
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]byte
	for _, l := range bytes.Split(bytes.TrimSpace(body), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatal(err)
		}
		fix(m)
		b, _ := json.Marshal(m)
		rows = append(rows, b)
	}
	return rows
}
