package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/datasettest"
)

// provTables is what an ingest into a fresh dataset left in the tables the
// provenance formats write.
type provTables struct {
	res     *Result
	prov    []dataset.Provenance
	runs    []dataset.Run
	rejects []dataset.Reject
}

func ingestProv(t testing.TB, format string, loc *time.Location, paths ...string) provTables {
	t.Helper()
	ds, tx := datasettest.Begin(t, filepath.Join(t.TempDir(), "ds"))
	opts := DefaultOptions()
	opts.MaxRejects = -1
	if loc != nil {
		opts.Location = loc
	}
	res, err := Run(context.Background(), tx, format, paths, opts)
	if err != nil {
		tx.Rollback()
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return provTables{res: res, prov: readAll(t, ds, dataset.ProvenanceTable), runs: readAll(t, ds, dataset.RunsTable),
		rejects: readAll(t, ds, dataset.RejectsTable)}
}

const provFixtures = "../testdata/provenance"

// The Dynamometer fixture (apache/hadoop, hadoop-dynamometer test
// resources): six lines at 1970-01-01 00:00:01.010 + 10 ms steps; one
// create, one rename, four mkdirs; Kerberos names hdfs@REALM.COM and
// hdfs/127.0.0.1@REALM.COM are user hdfs.
func TestHDFSAuditFixture(t *testing.T) {
	got := ingestProv(t, "hdfs-audit", nil, filepath.Join(provFixtures, "hadoop_dynamometer_audit_trace_direct_audit0.log"))
	want := []dataset.Provenance{
		{TimeMs: 1010, Op: OpWrite, Path: "/tmp/test1", User: "hdfs", Cmd: "create"},
		{TimeMs: 1020, Op: OpMeta, Path: "/tmp/testDir", User: "hdfs", Cmd: "mkdirs"},
		{TimeMs: 1030, Op: OpRename, Path: "/tmp/testDir", Dst: "/tmp/testDirRenamed", User: "hdfs", Cmd: "rename"},
		{TimeMs: 1040, Op: OpMeta, Path: "/tmp/testDir2", User: "hdfs", Cmd: "mkdirs"},
		{TimeMs: 1050, Op: OpMeta, Path: "/tmp/testDir3", User: "hdfs", Cmd: "mkdirs"},
		{TimeMs: 1060, Op: OpMeta, Path: "/denied", User: "otherUser", Cmd: "mkdirs"},
	}
	if len(got.prov) != len(want) || len(got.rejects) != 0 {
		t.Fatalf("got %d rows %d rejects, want %d rows: %+v %+v", len(got.prov), len(got.rejects), len(want), got.prov, got.rejects)
	}
	for i := range want {
		if got.prov[i] != want[i] {
			t.Errorf("row %d: got %+v\nwant %+v", i, got.prov[i], want[i])
		}
	}
}

// auditLine writes one audit line as a NameNode does.
func auditLine(ts, allowed, ugi, cmd, src, dst, extra string) string {
	return ts + " INFO FSNamesystem.audit: allowed=" + allowed + "\tugi=" + ugi + "\tip=/10.1.2.3\tcmd=" + cmd +
		"\tsrc=" + src + "\tdst=" + dst + "\tperm=alice:hadoop:rw-r--r--\tproto=rpc" + extra
}

func TestHDFSAuditProxyContextTZAndRejects(t *testing.T) {
	lines := []string{
		auditLine("2024-03-10 01:30:00,250", "true", "alice (auth:TOKEN) via hive (auth:KERBEROS)", "open", "/data/a", "null",
			"\tcallerContext=mr_attempt_1710000000000_0042_m_000003_0"),
		auditLine("2024-03-10 03:30:00,000", "true", "bob@EXAMPLE.COM", "create", "/data/b", "null", "\ttrackingId=SPARK_DRIVER_application_1710000000000_0007"),
		auditLine("2024-03-10 03:31:00,000", "false", "eve", "delete", "/data/b", "null", ""),
		auditLine("2024-03-10 03:32:00,000", "true", "bob", "frobnicate", "/data/b", "null", ""),
		"2024-03-10 03:33:00,000 INFO FSNamesystem.audit: allowed=true\tugi=bob\tip=/10.1.2.3\tcmd=open\tsrc=/data/tru",
		"garbage without fields",
		auditLine("2024-13-10 03:30:00,000", "true", "bob", "open", "/data/b", "null", ""),
		auditLine("2024-03-10 03:34:00,000", "maybe", "bob", "open", "/data/b", "null", ""),
		"",
		auditLine("2024-03-10 03:35:00,000", "true", "bob", "rename (options=[TO_TRASH])", "/data/b", "/user/bob/.Trash/b", ""),
		auditLine("2024-03-10T08:00:00.000+0000", "true", "bob", "open", "/data/c", "null", ""),
		auditLine("2024-03-10T08:00:00.000Z", "true", "bob", "open", "/data/c", "null", ""),
	}
	path := writeFile(t, t.TempDir(), "hdfs-audit.log", []byte(strings.Join(lines, "\n")+"\n"))
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	got := ingestProv(t, "hdfs-audit", ny, path)
	// 2024-03-10 is the spring-forward day in New York: 01:30 is EST
	// (UTC-5), 03:30 is EDT (UTC-4).
	est := time.Date(2024, 3, 10, 6, 30, 0, 250e6, time.UTC).UnixMilli()
	edt := time.Date(2024, 3, 10, 7, 30, 0, 0, time.UTC).UnixMilli()
	want := []dataset.Provenance{
		{TimeMs: est, Op: OpRead, Path: "/data/a", User: "alice", Run: "application_1710000000000_0042", Attribution: "callerContext", Cmd: "open"},
		{TimeMs: edt, Op: OpWrite, Path: "/data/b", User: "bob", Run: "application_1710000000000_0007", Attribution: "trackingId", Cmd: "create"},
		{TimeMs: edt + 60e3, Op: OpDenied, Path: "/data/b", User: "eve", Cmd: "delete"},
		{TimeMs: edt + 120e3, Op: OpOther, Path: "/data/b", User: "bob", Cmd: "frobnicate"},
		{TimeMs: edt + 300e3, Op: OpRename, Path: "/data/b", Dst: "/user/bob/.Trash/b", User: "bob", Cmd: "rename (options=[TO_TRASH])"},
		// an explicit offset wins over --tz
		{TimeMs: edt + 1800e3, Op: OpRead, Path: "/data/c", User: "bob", Cmd: "open"},
		{TimeMs: edt + 1800e3, Op: OpRead, Path: "/data/c", User: "bob", Cmd: "open"},
	}
	if len(got.prov) != len(want) {
		t.Fatalf("got %d rows, want %d: %+v", len(got.prov), len(want), got.prov)
	}
	for i := range want {
		if got.prov[i] != want[i] {
			t.Errorf("row %d: got %+v\nwant %+v", i, got.prov[i], want[i])
		}
	}
	wantRej := map[int64]string{5: "truncated", 6: "no audit fields", 7: "out of range", 8: "allowed="}
	if len(got.rejects) != len(wantRej) {
		t.Fatalf("rejects %+v, want lines %v", got.rejects, wantRej)
	}
	for _, r := range got.rejects {
		if r.File != path || !strings.Contains(r.Reason, wantRej[r.Line]) {
			t.Errorf("reject %s:%d %q, want %q", r.File, r.Line, r.Reason, wantRej[r.Line])
		}
	}
	notes := strings.Join(got.res.Files[0].Notes, "; ")
	if !strings.Contains(notes, `"frobnicate" (1)`) || !strings.Contains(notes, "1 operations refused") {
		t.Errorf("notes %q do not count the unknown and denied commands", notes)
	}
}

// The marquez_apples chain (MarquezProject/marquez test resources): 8
// COMPLETE events in +10:00, each with inputs and outputs. The first one,
// gather_apples at 2020-08-30T09:00+10:00 = 2020-08-29T23:00Z, reads
// laurents-orchard/red.delicious and writes grandmas.kitchen/apples.
func TestOpenLineageFixtures(t *testing.T) {
	got := ingestProv(t, "openlineage", nil, filepath.Join(provFixtures, "openlineage"))
	if got.res.Rejected != 0 || got.res.Accepted != 11 {
		t.Fatalf("accepted %d rejected %d, want 11 and 0: %+v", got.res.Accepted, got.res.Rejected, got.rejects)
	}
	t0 := time.Date(2020, 8, 29, 23, 0, 0, 0, time.UTC).UnixMilli()
	wantRun := dataset.Run{Job: "grandmas.kitchen/gather_apples", Run: "fc57cd10-90ce-49aa-ac91-29d222d66fdf", Name: "gather_apples",
		Status: "FINISHED", SubmitMs: dataset.NoTime, StartMs: dataset.NoTime, EndMs: t0, Source: "openlineage"}
	if got.runs[0] != wantRun {
		t.Errorf("first run %+v\nwant %+v", got.runs[0], wantRun)
	}
	wantProv := []dataset.Provenance{
		{TimeMs: t0, Op: OpRead, Path: "laurents-orchard/red.delicious", Job: wantRun.Job, Run: wantRun.Run, Attribution: "lineage", Cmd: "COMPLETE"},
		{TimeMs: t0, Op: OpWrite, Path: "grandmas.kitchen/apples", Job: wantRun.Job, Run: wantRun.Run, Attribution: "lineage", Cmd: "COMPLETE"},
	}
	for i, w := range wantProv {
		if got.prov[i] != w {
			t.Errorf("provenance %d: %+v\nwant %+v", i, got.prov[i], w)
		}
	}
	var full, naive *dataset.Run
	for i := range got.runs {
		switch got.runs[i].Run {
		case "ea041791-68bc-4ae1-bd89-4c8106a157e4":
			full = &got.runs[i]
		case "43d7db3b-8984-4cda-b237-8c6919b36670":
			naive = &got.runs[i]
		}
	}
	// The full event's nominalTime facet: nominalStartTime 2020-12-17T03:00:00.001Z.
	if full == nil || full.SubmitMs != time.Date(2020, 12, 17, 3, 0, 0, 1e6, time.UTC).UnixMilli() || full.Job != "my-scheduler-namespace/myjob.mytask" {
		t.Errorf("full event run %+v: want submit from nominalStartTime", full)
	}
	if naive == nil || naive.Status != "UNKNOWN" {
		t.Errorf("event without eventType: %+v", naive)
	}
}

func TestOpenLineageLinesAndRejects(t *testing.T) {
	lines := []string{
		`{"eventType":"START","eventTime":"2024-01-01T02:00:00","run":{"runId":"r1","facets":{"nominalTime":{"nominalStartTime":"2024-01-01T01:00:00Z"}}},"job":{"namespace":"etl","name":"daily"},"inputs":[{"namespace":"hdfs://nn","name":"/raw/2024-01-01"}],"outputs":[{"namespace":"hdfs://nn","name":"/out/2024-01-01"}]}`,
		`{"eventType":"COMPLETE","eventTime":"2024-01-01T02:30:00Z","run":{"runId":"r1"},"job":{"namespace":"etl","name":"daily"},"outputs":[{"namespace":"hdfs://nn","name":"/out/2024-01-01"}]}`,
		`{"eventType":"COMPLETE","run":{"runId":"r2"},"job":{"name":"x"}}`,
		`{"eventType":"COMPLETE","eventTime":"2024-01-01T02:30:00Z","run":{"runId":"r3"},"job":{"name":"x"},"inputs":[{"namespace":"a"}]}`,
		`{"eventType":"COMPLETE","eventTime":"2024-01-01T02:3`,
		`{"eventType":"FAIL","eventTime":"2024-01-02T02:30:00+01:00","run":{"runId":"r4"},"job":{"name":"x"},"outputs":[{"name":"/out/x"}]}`,
	}
	path := writeFile(t, t.TempDir(), "events.jsonl", []byte(strings.Join(lines, "\n")))
	paris, _ := time.LoadLocation("Europe/Paris")
	got := ingestProv(t, "auto", paris, path)
	if got.res.Files[0].Format != "openlineage" {
		t.Fatalf("detected %q", got.res.Files[0].Format)
	}
	wantRej := map[int64]string{3: "missing eventTime", 4: "without a name", 5: "not an OpenLineage RunEvent"}
	if len(got.rejects) != len(wantRej) {
		t.Fatalf("rejects %+v", got.rejects)
	}
	for _, r := range got.rejects {
		if !strings.Contains(r.Reason, wantRej[r.Line]) {
			t.Errorf("line %d: %q, want %q", r.Line, r.Reason, wantRej[r.Line])
		}
	}
	ms := func(s string) int64 { tm, _ := time.Parse(time.RFC3339, s); return tm.UnixMilli() }
	wantRuns := []dataset.Run{
		// 02:00 in Paris in January is 01:00Z.
		{Job: "etl/daily", Run: "r1", Name: "daily", Status: "RUNNING", SubmitMs: ms("2024-01-01T01:00:00Z"), StartMs: ms("2024-01-01T01:00:00Z"), EndMs: dataset.NoTime, Source: "openlineage"},
		{Job: "etl/daily", Run: "r1", Name: "daily", Status: "FINISHED", SubmitMs: dataset.NoTime, StartMs: dataset.NoTime, EndMs: ms("2024-01-01T02:30:00Z"), Source: "openlineage"},
		{Job: "x", Run: "r4", Name: "x", Status: "FAILED", SubmitMs: dataset.NoTime, StartMs: dataset.NoTime, EndMs: ms("2024-01-02T01:30:00Z"), Source: "openlineage"},
	}
	if len(got.runs) != len(wantRuns) {
		t.Fatalf("runs %+v", got.runs)
	}
	for i := range wantRuns {
		if got.runs[i] != wantRuns[i] {
			t.Errorf("run %d: %+v\nwant %+v", i, got.runs[i], wantRuns[i])
		}
	}
	// START: the input read (outputs are not written yet); COMPLETE: the
	// output write; FAIL: nothing written.
	var ops []string
	for _, p := range got.prov {
		ops = append(ops, p.Op+" "+p.Path)
	}
	if strings.Join(ops, ", ") != "read /raw/2024-01-01, write /out/2024-01-01" {
		t.Errorf("provenance %v", ops)
	}
}

func TestOpenLineageArrayAndPrettyBadTail(t *testing.T) {
	dir := t.TempDir()
	arr := writeFile(t, dir, "a.json", []byte(`[
 {"eventType":"COMPLETE","eventTime":"2024-01-01T00:00:00Z","run":{"runId":"a"},"job":{"name":"j"}},
 {"eventType":"COMPLETE","eventTime":"2024-01-02T00:00:00Z","run":{"runId":"b"},"job":{"name":"j"}}
]`))
	got := ingestProv(t, "openlineage", nil, arr)
	if got.res.Accepted != 2 || len(got.runs) != 2 {
		t.Fatalf("array: accepted %d runs %d", got.res.Accepted, len(got.runs))
	}
	pretty := writeFile(t, dir, "p.json", []byte("{\n \"eventType\": \"COMPLETE\",\n \"eventTime\": \"2024-01-01T00:00:00Z\",\n \"run\": {\"runId\": \"a\"},\n \"job\": {\"name\": \"j\"}\n}\n{\n \"eventType\": \"COMPLETE\",\n \"eventTime\": \"2024"))
	got = ingestProv(t, "openlineage", nil, pretty)
	if got.res.Accepted != 1 || len(got.rejects) != 1 || got.rejects[0].Line != 7 {
		t.Fatalf("pretty with a truncated tail: accepted %d rejects %+v (want the reject at line 7)", got.res.Accepted, got.rejects)
	}
	// An array that is never closed, or text after it, is a reject, not
	// the silent end of the input (FuzzOpenLineage found "[ ").
	ev := `{"eventType":"COMPLETE","eventTime":"2024-01-01T00:00:00Z","run":{"runId":"a"},"job":{"name":"j"}}`
	for _, c := range []struct {
		body     string
		accepted int64
		line     int64
		reason   string
	}{
		{"[ ", 0, 1, "not closed"},
		{"[\n" + ev + ",\n" + ev, 2, 3, "not closed"},
		{"[" + ev + "]\n\n{\"x\":1}\n", 1, 3, "text after the JSON array"},
		{"[" + ev + "]\n \n", 1, 0, ""},
	} {
		got := ingestProv(t, "openlineage", nil, writeFile(t, dir, "c.json", []byte(c.body)))
		if c.reason == "" {
			if got.res.Accepted != c.accepted || len(got.rejects) != 0 {
				t.Errorf("%q: accepted %d, rejects %+v; want %d and none", c.body, got.res.Accepted, got.rejects, c.accepted)
			}
			continue
		}
		if got.res.Accepted != c.accepted || len(got.rejects) != 1 || got.rejects[0].Line != c.line || !strings.Contains(got.rejects[0].Reason, c.reason) {
			t.Errorf("%q: accepted %d, rejects %+v; want %d and one at line %d (%s)", c.body, got.res.Accepted, got.rejects, c.accepted, c.line, c.reason)
		}
	}
}

func TestDetectProvenanceFormats(t *testing.T) {
	for path, want := range map[string]string{
		"hadoop_dynamometer_audit_trace_direct_audit0.log":       "hdfs-audit",
		"openlineage/marquez_event_full.json":                    "openlineage",
		"openlineage/marquez_apples/2_apple_filling.json":        "openlineage",
		"openlineage/openlineage_client_example_full_event.json": "openlineage",
	} {
		wantFormat(t, filepath.Join(provFixtures, path), want)
	}
}

// fixtureBytes reads a fixture for fuzz seeds and benchmarks.
func fixtureBytes(t testing.TB, name string) []byte {
	b, err := os.ReadFile(filepath.Join(provFixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
