package ingest

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/wlprof/wlprof/dataset"
)

func readMachineEvents(t *testing.T, dir string) []dataset.MachineEvent {
	t.Helper()
	rows, err := dataset.ReadAll(t.Context(), openDataset(t, dir), dataset.MachineEventsTable)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// googleMachineRejects are the schema-written fixture's bad lines
// (testdata/traces/SOURCES.md).
var googleMachineRejects = []struct {
	line int64
	why  string
}{
	{7, "REMOVE of machine 99 without an ADD before it"},
	{8, "out of order: UPDATE of machine 23624491139"},
	{9, "type 0 is not a machine event type"},
	{10, "capacity.cpus 1.5"},
	{11, "not a machine_events JSON object"},
}

// checkGoogleMachines checks the six accepted events of the fixture.
func checkGoogleMachines(t *testing.T, got []dataset.MachineEvent) {
	t.Helper()
	start := googleTraceStart.UnixMilli() - 600_000
	want := []struct {
		machine, typ, rack string
		ms                 int64
		cpus               float64
	}{
		{"23624491139", "ADD", "sw-A", start, 0.5},
		{"23624491140", "ADD", "sw-A", start, 0.5},
		{"23624491141", "ADD", "sw-B", start, 1},
		{"23624491139", "REMOVE", "sw-A", start + 3_600_000, math.NaN()},
		{"23624491139", "ADD", "sw-A", start + 7_200_000, 0.5},
		{"23624491140", "UPDATE", "sw-A", start + 7_200_000, 0.75},
	}
	if len(got) != len(want) {
		t.Fatalf("%d events, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Machine != w.machine || g.Type != w.typ || g.Rack != w.rack || g.TimeMs != w.ms ||
			!(g.CPUs == w.cpus || math.IsNaN(g.CPUs) && math.IsNaN(w.cpus)) || g.Source != googleMachineEventsFormat {
			t.Errorf("event %d: %+v, want %+v", i, g, w)
		}
	}
	if got[5].Platform != "plat-1" || !math.IsNaN(got[5].Memory) || got[0].Memory != 0.25 {
		t.Errorf("platform and memory: %+v %+v", got[0], got[5])
	}
}

func TestGoogleMachineEventsJSON(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	got, err := runInto(t, dir, "auto", []string{traceFile("google2019", "machine_events_schema_rows.json")}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if f := got.res.Files[0]; f.Format != googleMachineEventsFormat || f.Accepted != 6 || f.Rejected != 5 {
		t.Fatalf("file %+v", f)
	}
	for _, r := range googleMachineRejects {
		hasReject(t, got.rejects, r.line, r.why)
	}
	checkGoogleMachines(t, readMachineEvents(t, dir))

	// A later ingest continues each machine's history from the dataset.
	more := writeFile(t, t.TempDir(), "more.json", []byte(
		`{"time":"9500000000","machine_id":"23624491141","type":"2","switch_id":"sw-B","platform_id":"p"}`+"\n"+
			`{"time":"9500000000","machine_id":"23624491140","type":"1","switch_id":"sw-A","platform_id":"p"}`+"\n"+
			`{"time":"100","machine_id":"23624491139","type":"3","switch_id":"sw-A","platform_id":"p"}`+"\n"))
	got, err = runInto(t, dir, googleMachineEventsFormat, []string{more}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if f := got.res.Files[0]; f.Accepted != 1 || f.Rejected != 2 {
		t.Fatalf("second ingest %+v", f)
	}
	hasReject(t, got.rejects, 2, "already in the cluster")
	hasReject(t, got.rejects, 3, "out of order")
}

// The same rows as a Parquet shard (ints as numbers, capacity a struct,
// absent values null), gzipped, found by "auto" from its name.
func TestGoogleMachineEventsParquet(t *testing.T) {
	b := traceBytes(t, "google2019", "machine_events_schema_rows.json")
	var rows [][]byte
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		if bytes.HasSuffix(l, []byte("}")) { // all but the truncated line
			rows = append(rows, l)
		}
	}
	i64, str, f64 := arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String, arrow.PrimitiveTypes.Float64
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "time", Type: i64, Nullable: true}, {Name: "machine_id", Type: i64, Nullable: true},
		{Name: "type", Type: i64, Nullable: true}, {Name: "switch_id", Type: str, Nullable: true},
		{Name: "capacity", Type: arrow.StructOf(arrow.Field{Name: "cpus", Type: f64, Nullable: true}, arrow.Field{Name: "memory", Type: f64, Nullable: true}), Nullable: true},
		{Name: "platform_id", Type: str, Nullable: true}, {Name: "missing_data_reason", Type: i64, Nullable: true},
	}, nil)
	// Parquet shards hold the INT64 columns as numbers, not strings.
	var objs []map[string]any
	for _, l := range rows {
		d := json.NewDecoder(bytes.NewReader(l))
		d.UseNumber()
		var m map[string]any
		if err := d.Decode(&m); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"time", "machine_id", "type", "missing_data_reason"} {
			if v, ok := m[k].(string); ok {
				m[k] = json.Number(v)
			}
		}
		objs = append(objs, m)
	}
	js, err := json.Marshal(objs)
	if err != nil {
		t.Fatal(err)
	}
	rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, sc, bytes.NewReader(js))
	if err != nil {
		t.Fatalf("%v\n%s", err, js)
	}
	tbl := array.NewTableFromRecords(sc, []arrow.Record{rec})
	var buf bytes.Buffer
	if err := pqarrow.WriteTable(tbl, &buf, 4, nil, pqarrow.DefaultWriterProps()); err != nil {
		t.Fatal(err)
	}
	shard := writeFile(t, t.TempDir(), "machine_events-000000000000.parquet.gz", gzipBytes(t, buf.Bytes()))
	dir := filepath.Join(t.TempDir(), "ds")
	got, err := runInto(t, dir, "auto", []string{shard}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if f := got.res.Files[0]; f.Format != googleMachineEventsFormat || f.Accepted != 6 || f.Rejected != 4 {
		t.Fatalf("file %+v", f)
	}
	for _, r := range googleMachineRejects[:4] {
		hasReject(t, got.rejects, r.line, r.why)
	}
	checkGoogleMachines(t, readMachineEvents(t, dir))
}

func TestAlibabaMachineMeta(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	got, err := runInto(t, dir, "auto", []string{traceFile("alibaba2018", "machine_meta_sample.csv")}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if f := got.res.Files[0]; f.Format != alibabaMetaFormat || f.Accepted != 7 || f.Rejected != 5 {
		t.Fatalf("file %+v", f)
	}
	for _, r := range []struct {
		line int64
		why  string
	}{
		{8, "out of order: UPDATE of machine m_1"},
		{9, `time_stamp "abc"`},
		{10, `mem_size "150"`},
		{11, "4 fields, want 7"},
		{12, `status "US-ING" is not a status word`},
	} {
		hasReject(t, got.rejects, r.line, r.why)
	}
	ev := readMachineEvents(t, dir)
	var types []string
	for _, e := range ev {
		types = append(types, e.Machine+"@"+e.Type)
	}
	// Line 7, m_4 OFFLINE without ever being in service, is the machine's
	// state (OUT), not a reject.
	if s := strings.Join(types, " "); s != "m_1@ADD m_2@ADD m_3@ADD m_1@REMOVE m_1@ADD m_2@UPDATE m_4@OUT" {
		t.Fatalf("events %s", s)
	}
	if e := ev[5]; e.TimeMs != 7_200_000 || e.Rack != "1" || e.CPUs != 96 || e.Memory != 0.9 || e.Source != alibabaMetaFormat {
		t.Errorf("m_2 update %+v", e)
	}
	notes := strings.Join(got.res.Files[0].Notes, "\n")
	if !strings.Contains(notes, `"OFFLINE" ×2`) {
		t.Errorf("notes %s", notes)
	}
}

// Neither format claims the other trace files, nor they the new ones.
func TestMachineEventsDetection(t *testing.T) {
	for _, c := range []struct {
		file, want string
	}{
		{traceFile("alibaba2018", "machine_usage_sample.csv"), alibabaMachineName},
		{traceFile("alibaba2018", "machine_meta_sample.csv"), alibabaMetaFormat},
		{traceFile("google2019", "machine_events_schema_rows.json"), googleMachineEventsFormat},
		{traceFile("google2019", "instance_usage-000000000000.json"), googleUsageFormat},
		{traceFile("google2019", "collection_events-000000000000.json"), googleCollectionsFormat},
	} {
		wantFormat(t, c.file, c.want)
	}
	// The JSON export leaves null fields out: a REMOVE may carry only
	// time, machine_id and type. instance_events and machine_attributes
	// lines are not machine events.
	dir := t.TempDir()
	for _, c := range []struct {
		line string
		want bool
	}{
		{`{"time":"3600000000","machine_id":"5","type":"2"}`, true},
		{`{"time":"0","type":"0","collection_id":"1","instance_index":"0","machine_id":"5"}`, false},
		{`{"time":"0","machine_id":"5","name":"GN7r","value":"3"}`, false},
	} {
		f, _ := detectedAs(t, writeFile(t, dir, "events.json", []byte(c.line+"\n")))
		if got := f != nil && f.Name == googleMachineEventsFormat; got != c.want {
			t.Errorf("%s: detected %v", c.line, f)
		}
	}
}
