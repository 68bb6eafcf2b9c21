package ingest

import (
	"bytes"
	"github.com/wlprof/wlprof/classify"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/wlprof/wlprof/dataset"
)

// The real instance_usage row (testdata/traces/google2019, from the
// fixture quoted_real_rows.txt): start_time "1838400000000" µs is
// 1838400 s − 600 s = 1837800 s after the trace start, 2019-05-01T07:00:00Z
// (midnight PDT), i.e. 2019-05-22T13:30:00Z; tenant the collection_id, server
// the machine_id, cpu and memory average_usage as written.
var googleRealRow = dataset.Usage{Tenant: "330587238433", Server: "23624491139",
	TimeMs: time.Date(2019, 5, 22, 13, 30, 0, 0, time.UTC).UnixMilli(), CPU: 0.008392333984375, Memory: 0.0094757080078125}

// googleDerived is what instance_usage_derived_rows.json (the real row
// edited, see SOURCES.md) must give: two rows, then five rejects.
var googleDerivedRows = []dataset.Usage{
	{Tenant: googleRealRow.Tenant, Server: googleRealRow.Server, TimeMs: googleRealRow.TimeMs + 300_000, CPU: googleRealRow.CPU, Memory: googleRealRow.Memory},
	{Tenant: googleRealRow.Tenant, Server: googleRealRow.Server, TimeMs: googleRealRow.TimeMs + 600_000, CPU: googleRealRow.CPU, Memory: nan},
}

var googleDerivedRejects = []struct {
	line int64
	why  string
}{
	{3, "no average_usage.cpus"},
	{4, "start_time 0 is outside the trace window"},
	{5, "average_usage.cpus 1.5 is outside [0, 1] NCU"},
	{6, "no machine_id"},
	{7, "not an instance_usage JSON object"},
}

func usageEqual(t *testing.T, what string, got, want []dataset.Usage) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d records, want %d: %+v", what, len(got), len(want), got)
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Tenant != w.Tenant || g.Server != w.Server || g.TimeMs != w.TimeMs || g.CPU != w.CPU ||
			!(g.Memory == w.Memory || math.IsNaN(g.Memory) && math.IsNaN(w.Memory)) {
			t.Errorf("%s: record %d = %+v, want %+v", what, i, g, w)
		}
	}
}

// The gzipped file is the real row again: the same instance (collection
// 330587238433, index 111) on the same machine at the same start_time, so
// it is a duplicate, not a second instance to add.
func TestGoogleUsageJSON(t *testing.T) {
	got := mustRun(t, "google2019-usage", []string{
		traceFile("google2019", "instance_usage-000000000000.json"),
		traceFile("google2019", "instance_usage-000000000001.json.gz"),
		traceFile("google2019", "instance_usage_derived_rows.json")}, DefaultOptions())
	want := append([]dataset.Usage{googleRealRow}, googleDerivedRows...)
	usageEqual(t, "json", got.usage, want)
	if len(got.rejects) != len(googleDerivedRejects)+1 {
		t.Fatalf("%d rejects: %+v", len(got.rejects), got.rejects)
	}
	for _, r := range googleDerivedRejects {
		hasReject(t, got.rejects, r.line, r.why)
	}
	hasReject(t, got.rejects, 1, "duplicate: instance 111 of collection 330587238433 already has a row for machine 23624491139")
	if f := got.res.Files[1]; !noteContains(f.Notes, "compression: gzip") || f.Accepted != 0 || f.Rejected != 1 {
		t.Errorf("gzipped copy: %+v", f)
	}
	if got.res.Accepted != 3 || !noteContains(got.res.Files[2].Notes, "3 instance rows of 3 google2019-usage input(s) summed into 3 usage rows") {
		t.Errorf("accepted %d, notes %q", got.res.Accepted, got.res.Files[2].Notes)
	}

	// --tenant-key machine; --trace-start moves every instant. The real
	// row runs inside an alloc set: the machine's usage is its alloc
	// instance's (TestGoogleUsageAllocInstances).
	opts := DefaultOptions()
	opts.TenantKey = "machine"
	opts.TraceStart = time.Date(2019, 5, 1, 0, 0, 0, 0, time.UTC)
	got = mustRun(t, "google2019-usage", []string{traceFile("google2019", "instance_usage-000000000000.json"),
		traceFile("google2019", "instance_usage_alloc_instance.json")}, opts)
	if len(got.usage) != 1 || got.usage[0].Tenant != "23624491139" || got.usage[0].TimeMs != googleRealRow.TimeMs-7*3600_000 {
		t.Errorf("machine key, UTC start: %+v", got.usage)
	}
	// user needs collection_events: a clear error, not a silent fallback.
	opts.TenantKey = "user"
	_, err := runInto(t, filepath.Join(t.TempDir(), "ds"), "google2019-usage", []string{traceFile("google2019", "instance_usage-000000000000.json")}, opts)
	if err == nil || !strings.Contains(err.Error(), "collection_events") {
		t.Errorf("user key: %v", err)
	}
	// A key of another format is noted and the default used.
	opts.TenantKey = "subscription"
	got = mustRun(t, "google2019-usage", []string{traceFile("google2019", "instance_usage-000000000000.json")}, opts)
	if got.usage[0].Tenant != googleRealRow.Tenant || !noteContains(got.res.Files[0].Notes, "--tenant-key subscription does not apply to google2019-usage") {
		t.Errorf("foreign key: %+v %q", got.usage[0], got.res.Files[0].Notes)
	}
}

// googleSchema is instance_usage as the BigQuery export writes it to
// Parquet: INT64 columns, nested usage structs, lists, everything nullable.
func googleSchema() *arrow.Schema {
	f64 := arrow.PrimitiveTypes.Float64
	i64 := arrow.PrimitiveTypes.Int64
	usage := arrow.StructOf(arrow.Field{Name: "cpus", Type: f64, Nullable: true}, arrow.Field{Name: "memory", Type: f64, Nullable: true})
	var fields []arrow.Field
	for _, n := range []string{"start_time", "end_time", "collection_id", "instance_index", "machine_id", "alloc_collection_id", "alloc_instance_index", "collection_type"} {
		fields = append(fields, arrow.Field{Name: n, Type: i64, Nullable: true})
	}
	fields = append(fields,
		arrow.Field{Name: "average_usage", Type: usage, Nullable: true},
		arrow.Field{Name: "maximum_usage", Type: usage, Nullable: true},
		arrow.Field{Name: "random_sample_usage", Type: arrow.StructOf(arrow.Field{Name: "cpus", Type: f64, Nullable: true}), Nullable: true})
	for _, n := range []string{"assigned_memory", "page_cache_memory", "cycles_per_instruction", "memory_accesses_per_instruction", "sample_rate"} {
		fields = append(fields, arrow.Field{Name: n, Type: f64, Nullable: true})
	}
	for _, n := range []string{"cpu_usage_distribution", "tail_cpu_usage_distribution"} {
		fields = append(fields, arrow.Field{Name: n, Type: arrow.ListOf(f64), Nullable: true})
	}
	return arrow.NewSchema(fields, nil)
}

// parquetRows writes JSON rows (objects) of schema sc as a Parquet file in
// row groups of rowGroup rows, as pqarrow writes them by default.
func parquetRows(t testing.TB, sc *arrow.Schema, rows [][]byte, rowGroup int64) []byte {
	t.Helper()
	js := append(append([]byte("["), bytes.Join(rows, []byte(","))...), ']')
	rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, sc, bytes.NewReader(js))
	if err != nil {
		t.Fatalf("%v\n%s", err, js)
	}
	defer rec.Release()
	tbl := array.NewTableFromRecords(sc, []arrow.Record{rec})
	defer tbl.Release()
	var buf bytes.Buffer
	if err := pqarrow.WriteTable(tbl, &buf, rowGroup, nil, pqarrow.DefaultWriterProps()); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// writeGoogleParquet writes JSON rows as an instance_usage Parquet shard in
// row groups of rowGroup rows.
func writeGoogleParquet(t testing.TB, path string, rows [][]byte, rowGroup int64) {
	t.Helper()
	js := append([]byte("["), bytes.Join(rows, []byte(","))...)
	js = append(js, ']')
	rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, googleSchema(), bytes.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	tbl := array.NewTableFromRecords(googleSchema(), []arrow.Record{rec})
	defer tbl.Release()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy))
	if err := pqarrow.WriteTable(tbl, f, rowGroup, props, pqarrow.DefaultWriterProps()); err != nil {
		t.Fatal(err)
	}
}

// googleJSONRows are the real row and the derived rows that JSON can hold
// in Parquet (all but the truncated line).
func googleJSONRows(t testing.TB) [][]byte {
	var rows [][]byte
	for _, name := range []string{"instance_usage-000000000000.json", "instance_usage_derived_rows.json"} {
		b := traceBytes(t, "google2019", name)
		for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
			if bytes.HasSuffix(l, []byte("}")) {
				rows = append(rows, l)
			}
		}
	}
	return rows
}

// The same real rows as a Parquet shard (integers as numbers, absent values
// null), plain and gzipped, read back through the format and by detection.
// The gzipped shard repeats every row of the plain one: its three valid
// rows are duplicates.
func TestGoogleUsageParquet(t *testing.T) {
	dir := t.TempDir()
	rows := googleJSONRows(t)
	if len(rows) != 7 {
		t.Fatalf("%d rows", len(rows))
	}
	shard := filepath.Join(dir, "instance_usage-000000000000.parquet")
	writeGoogleParquet(t, shard, rows, 3) // three row groups
	raw, _ := os.ReadFile(shard)
	gz := writeFile(t, dir, "instance_usage-000000000001.parquet.gz", gzipBytes(t, raw))

	got := mustRun(t, "auto", []string{shard, gz}, DefaultOptions())
	for _, fr := range got.res.Files {
		if fr.Format != "google2019-usage" {
			t.Fatalf("%s detected as %s", fr.Path, fr.Format)
		}
	}
	one := append([]dataset.Usage{googleRealRow}, googleDerivedRows...)
	usageEqual(t, "parquet", got.usage, one)
	// Rows 4..7 of the shard are the derived rows 3..6: same reasons, row
	// numbers one later (the real row comes first).
	if len(got.rejects) != 8+3 {
		t.Fatalf("%d rejects: %+v", len(got.rejects), got.rejects)
	}
	for _, r := range googleDerivedRejects[:4] {
		hasReject(t, got.rejects, r.line+1, r.why)
	}
	for row := int64(1); row <= 3; row++ {
		hasReject(t, got.rejects, row, "duplicate: instance 111 of collection 330587238433")
	}
	if f := got.res.Files[1]; f.Accepted != 0 || f.Rejected != 7 {
		t.Errorf("gzipped shard: %+v", f)
	}
	if !strings.Contains(got.rejects[0].Record, "start_time=1838400000000") || !strings.Contains(got.rejects[0].Record, "average_usage.cpus=null") {
		t.Errorf("reject record %q", got.rejects[0].Record)
	}
	if !noteContains(got.res.Files[1].Notes, "decompressed to a temporary file to read the Parquet footer") {
		t.Errorf("notes %q", got.res.Files[1].Notes)
	}

	// A Parquet file that is not instance_usage is refused as a whole.
	other := filepath.Join(dir, "instance_usage-other.parquet")
	writeOtherParquet(t, other)
	_, err := runInto(t, filepath.Join(dir, "ds2"), "google2019-usage", []string{other}, DefaultOptions())
	if err == nil || !strings.Contains(err.Error(), "has no column start_time") {
		t.Errorf("other parquet: %v", err)
	}
}

func writeOtherParquet(t testing.TB, path string) {
	sc := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, sc, strings.NewReader(`[{"x":1}]`))
	if err != nil {
		t.Fatal(err)
	}
	tbl := array.NewTableFromRecords(sc, []arrow.Record{rec})
	f, _ := os.Create(path)
	if err := pqarrow.WriteTable(tbl, f, 10, nil, pqarrow.DefaultWriterProps()); err != nil {
		t.Fatal(err)
	}
}

// The classify stage tells NCU from server fractions by this name.
func TestGoogleUsageFormatName(t *testing.T) {
	if googleUsageFormat != classify.GoogleUsageFormat {
		t.Fatalf("ingest's %q, classify's %q", googleUsageFormat, classify.GoogleUsageFormat)
	}
}
