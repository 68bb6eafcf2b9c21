package dataset

import (
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
)

// Table describes one table of the dataset: its folder name, its Arrow
// schema and how rows of the Go record type T map to columns.
type Table[T any] struct {
	Name   string
	cols   []column[T]
	schema *arrow.Schema
	// groupRows is the rows per Parquet row group; 0 means BatchRows.
	groupRows int
	// pageBytes is the data page size; 0 means arrow's default (1 MB).
	pageBytes int64
	// codecs overrides the compression (zstd) of columns by dotted path.
	codecs map[string]compress.Compression
	// pages, when set, encodes the table's row groups instead of pqarrow
	// (usagewrite.go).
	pages func(w io.Writer, as *arrow.Schema, props *parquet.WriterProperties, fdicts []*floatDict) (recordSink, error)
	// groupDone, when set, is asked at every groupStep rows of a row
	// group whether to end it there, before its groupRows.
	groupDone func(rows int, cols []colWriter[T]) bool
}

func newTable[T any](name string, cols ...column[T]) *Table[T] {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = c.field
	}
	md := arrow.NewMetadata([]string{"wlprof.table", "wlprof.schema_version"},
		[]string{name, fmt.Sprint(SchemaVersion)})
	return &Table[T]{Name: name, cols: cols, schema: arrow.NewSchema(fields, &md)}
}

// withGroupRows sets the rows per row group of a table whose rows are
// large (a series row holds a month of samples): row groups are the unit
// of parallel reading, and a writer buffers one in memory.
func withGroupRows[T any](t *Table[T], n int) *Table[T] {
	t.groupRows = n
	return t
}

// withPageBytes sets a table's data page size for pqarrow's writer. The
// series table, when written with it (WriterFor; Tx.WriteSeries writes
// pages of its own), needs small pages: arrow/go v16's level encoder
// grows its buffer by a few bytes at every run of definition levels
// (every NaN slot starts one), so encoding a page costs its level bytes
// times its runs — quadratic in the page size; at 1 MB pages writing the
// series took longer than building them.
func withPageBytes[T any](t *Table[T], n int64) *Table[T] {
	t.pageBytes = n
	return t
}

// withCodec sets the compression of one column (dotted Parquet path).
// The series values are rounded doubles that zstd shrinks only 2.5× at
// 95 MB/s here and snappy 1.8×; reading the series is on classify's path,
// and at 10,000 tenants snappy's decoding alone took 2 of the read's 5 CPU
// seconds, so the values are stored uncompressed (1.7 GB instead of 0.9;
// the series table is derived, rebuilt from usage when stale).
func withCodec[T any](t *Table[T], path string, c compress.Compression) *Table[T] {
	if t.codecs == nil {
		t.codecs = map[string]compress.Compression{}
	}
	t.codecs[path] = c
	return t
}

// withGroupRule has a table's row groups end where done says, asked at
// every groupStep rows, or at its groupRows.
func withGroupRule[T any](t *Table[T], done func(rows int, cols []colWriter[T]) bool) *Table[T] {
	t.groupDone = done
	return t
}

// groupStep is how often a writer asks a table's group rule whether the
// row group is done.
const groupStep = 1 << 17

// usageGroupDone ends a usage row group once it has 256 rows for each
// tenant the file has had so far (between 2^17 and 2^20 rows, in steps of
// 2^17): 256 time steps of a time-ordered trace. The first classify
// decodes a row group into a batch that its fold workers read, and
// ingest buffers one: a month of 1,000 tenants in groups of 2^18 rows
// took 7% less CPU to classify and 8% less to ingest than in groups of
// 2^20, for 13% more bytes (a cpu dictionary per group). The ids of the
// names compress with the cycle of tenants, which a group of 256 cycles
// holds: at 10,000 tenants groups stay at 2^20 rows (groups of 2^18
// made the table 48% larger there).
func usageGroupDone(rows int, cols []colWriter[Usage]) bool {
	t, ok := cols[0].(*dictCol[Usage])
	return ok && rows >= 256*t.tab.Len()
}

// withPages gives a table its own row group encoder.
func withPages[T any](t *Table[T], pages func(io.Writer, *arrow.Schema, *parquet.WriterProperties, []*floatDict) (recordSink, error)) *Table[T] {
	t.pages = pages
	return t
}

// Schema is the table's Arrow schema.
func (t *Table[T]) Schema() *arrow.Schema { return t.schema }

// The tables. Their columns are documented in doc.go; names carry units.
var (
	UsageTable = withGroupRule(withPages(newTable("usage",
		stringCol("tenant", true, func(r *Usage) *string { return &r.Tenant }),
		stringCol("server", true, func(r *Usage) *string { return &r.Server }),
		timeCol("time", func(r *Usage) *int64 { return &r.TimeMs }),
		withDict(float64Col("cpu", false, func(r *Usage) *float64 { return &r.CPU })),
		withDict(float64Col("memory", true, func(r *Usage) *float64 { return &r.Memory })),
	), newUsageSink), usageGroupDone)
	SeriesTable = withCodec(withPageBytes(withGroupRows(newTable("series",
		stringCol("tenant", false, func(r *Series) *string { return &r.Tenant }),
		timeCol("start", func(r *Series) *int64 { return &r.StartMs }),
		float64Col("step_s", false, func(r *Series) *float64 { return &r.StepS }),
		float64ListCol("values", func(r *Series) *[]float64 { return &r.Values }),
		int32Col("servers", func(r *Series) *int32 { return &r.Servers }),
		int32Col("thin_tail", func(r *Series) *int32 { return &r.ThinTail }),
	), SeriesGroupRows), 64<<10), "values.list.element", compress.Codecs.Uncompressed)
	RunsTable = newTable("runs",
		stringCol("job", true, func(r *Run) *string { return &r.Job }),
		stringCol("run", false, func(r *Run) *string { return &r.Run }),
		stringCol("name", true, func(r *Run) *string { return &r.Name }),
		stringCol("user", true, func(r *Run) *string { return &r.User }),
		stringCol("queue", true, func(r *Run) *string { return &r.Queue }),
		stringCol("status", true, func(r *Run) *string { return &r.Status }),
		timeCol("submit", func(r *Run) *int64 { return &r.SubmitMs }),
		timeCol("start", func(r *Run) *int64 { return &r.StartMs }),
		timeCol("end", func(r *Run) *int64 { return &r.EndMs }),
		stringCol("source", true, func(r *Run) *string { return &r.Source }),
	)
	SkylinesTable = newTable("skylines",
		stringCol("job", true, func(r *SkylineSample) *string { return &r.Job }),
		stringCol("run", true, func(r *SkylineSample) *string { return &r.Run }),
		float64Col("offset_s", false, func(r *SkylineSample) *float64 { return &r.OffsetS }),
		float64Col("containers", false, func(r *SkylineSample) *float64 { return &r.Containers }),
		int64Col("memory_bytes", func(r *SkylineSample) *int64 { return &r.MemoryBytes }),
		float64Col("vcores", false, func(r *SkylineSample) *float64 { return &r.VCores }),
	)
	ProvenanceTable = newTable("provenance",
		timeCol("time", func(r *Provenance) *int64 { return &r.TimeMs }),
		stringCol("op", true, func(r *Provenance) *string { return &r.Op }),
		stringCol("path", false, func(r *Provenance) *string { return &r.Path }),
		stringCol("dst", false, func(r *Provenance) *string { return &r.Dst }),
		stringCol("user", true, func(r *Provenance) *string { return &r.User }),
		stringCol("job", true, func(r *Provenance) *string { return &r.Job }),
		stringCol("run", true, func(r *Provenance) *string { return &r.Run }),
		stringCol("attribution", true, func(r *Provenance) *string { return &r.Attribution }),
		stringCol("cmd", true, func(r *Provenance) *string { return &r.Cmd }),
	)
	ProfRunsTable = newTable("profruns",
		stringCol("job", true, func(r *ProfRun) *string { return &r.Job }),
		stringCol("task", true, func(r *ProfRun) *string { return &r.Task }),
		stringCol("framework", true, func(r *ProfRun) *string { return &r.Framework }),
		int64Col("memory_bytes", func(r *ProfRun) *int64 { return &r.MemoryBytes }),
		int32Col("slots", func(r *ProfRun) *int32 { return &r.Slots }),
		int32Col("repetition", func(r *ProfRun) *int32 { return &r.Repetition }),
		int64Col("input_bytes", func(r *ProfRun) *int64 { return &r.InputBytes }),
		float64Col("runtime_s", false, func(r *ProfRun) *float64 { return &r.RuntimeS }),
		float64Col("cpu_s", false, func(r *ProfRun) *float64 { return &r.CPUS }),
		int64Col("peak_rss_bytes", func(r *ProfRun) *int64 { return &r.PeakRSSBytes }),
		int64Col("read_bytes", func(r *ProfRun) *int64 { return &r.ReadBytes }),
		int64Col("write_bytes", func(r *ProfRun) *int64 { return &r.WriteBytes }),
		int64Col("spilled_bytes", func(r *ProfRun) *int64 { return &r.SpilledBytes }),
		int32Col("exit_code", func(r *ProfRun) *int32 { return &r.ExitCode }),
		boolCol("capped", func(r *ProfRun) *bool { return &r.Capped }),
		stringCol("host", true, func(r *ProfRun) *string { return &r.Host }),
		stringCol("config", true, func(r *ProfRun) *string { return &r.Config }),
		stringCol("source", true, func(r *ProfRun) *string { return &r.Source }),
		stringCol("run_id", false, func(r *ProfRun) *string { return &r.RunID }),
		timeCol("start", func(r *ProfRun) *int64 { return &r.StartMs }),
		stringCol("outcome", true, func(r *ProfRun) *string { return &r.Outcome }),
		int64Col("read_syscall_bytes", func(r *ProfRun) *int64 { return &r.ReadSyscallBytes }),
		int64Col("write_syscall_bytes", func(r *ProfRun) *int64 { return &r.WriteSyscallBytes }),
		int64Col("spill_peak_bytes", func(r *ProfRun) *int64 { return &r.SpillPeakBytes }),
		int32Col("peak_threads", func(r *ProfRun) *int32 { return &r.PeakThreads }),
		int32Col("oom_kills", func(r *ProfRun) *int32 { return &r.OOMKills }),
		stringCol("cap_note", true, func(r *ProfRun) *string { return &r.CapNote }),
		int64Col("memory_spilled_bytes", func(r *ProfRun) *int64 { return &r.MemorySpilledBytes }),
		int64Col("spilled_records", func(r *ProfRun) *int64 { return &r.SpilledRecords }),
		int64Col("output_bytes", func(r *ProfRun) *int64 { return &r.OutputBytes }),
		int64Col("output_records", func(r *ProfRun) *int64 { return &r.OutputRecords }),
		int64Col("input_records", func(r *ProfRun) *int64 { return &r.InputRecords }),
		float64Col("cpu_wait_s", false, func(r *ProfRun) *float64 { return &r.CPUWaitS }),
		int64Col("task_memory_bytes", func(r *ProfRun) *int64 { return &r.TaskMemoryBytes }),
		int64Col("container_memory_bytes", func(r *ProfRun) *int64 { return &r.ContainerMemoryBytes }),
	)
	ProfSamplesTable = newTable("profsamples",
		stringCol("job", true, func(r *ProfSample) *string { return &r.Job }),
		stringCol("run", true, func(r *ProfSample) *string { return &r.Run }),
		float64Col("offset_s", false, func(r *ProfSample) *float64 { return &r.OffsetS }),
		float64Col("cpu_s", false, func(r *ProfSample) *float64 { return &r.CPUS }),
		int64Col("rss_bytes", func(r *ProfSample) *int64 { return &r.RSSBytes }),
		int64Col("read_bytes", func(r *ProfSample) *int64 { return &r.ReadBytes }),
		int64Col("write_bytes", func(r *ProfSample) *int64 { return &r.WriteBytes }),
		int32Col("threads", func(r *ProfSample) *int32 { return &r.Threads }),
		int32Col("procs", func(r *ProfSample) *int32 { return &r.Procs }),
		int64Col("spill_bytes", func(r *ProfSample) *int64 { return &r.SpillBytes }),
		int64Col("cgroup_bytes", func(r *ProfSample) *int64 { return &r.CgroupBytes }),
		stringCol("phase", true, func(r *ProfSample) *string { return &r.Phase }),
	)
	RejectsTable = newTable("rejects",
		int32Col("ingest", func(r *Reject) *int32 { return &r.Ingest }),
		stringCol("file", true, func(r *Reject) *string { return &r.File }),
		int64Col("line", func(r *Reject) *int64 { return &r.Line }),
		int32Col("col", func(r *Reject) *int32 { return &r.Col }),
		stringCol("format", true, func(r *Reject) *string { return &r.Format }),
		stringCol("reason", false, func(r *Reject) *string { return &r.Reason }),
		stringCol("record", false, func(r *Reject) *string { return &r.Record }),
	)
)

// TableNames lists every table, in manifest order.
var TableNames = []string{
	UsageTable.Name, SeriesTable.Name, RunsTable.Name, SkylinesTable.Name,
	ProvenanceTable.Name, ProfRunsTable.Name, RejectsTable.Name,
	ProfSamplesTable.Name, VMsTable.Name, CollectionsTable.Name, StagesTable.Name,
	MachineEventsTable.Name, TaskEventsTable.Name, TaskConstraintsTable.Name, MachineAttributesTable.Name,
	InstancesTable.Name,
}
