package ingest

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/klauspost/compress/s2"
	"github.com/pierrec/lz4/v4"
	"github.com/wlprof/wlprof/dataset"
)

const sparkDir = "../testdata/jobs/spark/"

// The two real Spark logs, with values read off their events:
// drelephant (Spark 1.5.1 on YARN): ApplicationStart 1458126354336 ("PythonPi",
// application_1457600942802_0093, user hdfs), executor 2 added at
// 1458126397624 (+43.288 s), executor 1 at 1458126398962 (+44.626 s), two
// cores each, spark.executor.memory 1g (a YARN container of 1 GiB + 384 MiB
// overhead, rounded up to YARN's default 1 GiB minimum allocation: 2 GiB),
// never removed; ApplicationEnd
// 1458126409609 (+55.273 s).
// sparklens (Spark 2.3.0, local mode): ApplicationStart 1532512549494
// ("Spark shell", local-1532512550423, user beria), executor "driver" added
// at 1532512550459 (+0.965 s) with 4 cores, no spark.driver.memory (Spark's
// default 1g); ApplicationEnd 1532512565469 (+15.975 s).
var (
	drelephantRun = dataset.Run{Job: "PythonPi", Run: "application_1457600942802_0093", Name: "PythonPi", User: "hdfs",
		Status: "FINISHED", SubmitMs: dataset.NoTime, StartMs: 1458126354336, EndMs: 1458126409609, Source: "spark-eventlog"}
	drelephantSky = []dataset.SkylineSample{
		{Job: "PythonPi", Run: "application_1457600942802_0093"},
		{Job: "PythonPi", Run: "application_1457600942802_0093", OffsetS: 43.288, Containers: 1, MemoryBytes: 2 << 30, VCores: 2},
		{Job: "PythonPi", Run: "application_1457600942802_0093", OffsetS: 44.626, Containers: 2, MemoryBytes: 4 << 30, VCores: 4},
		{Job: "PythonPi", Run: "application_1457600942802_0093", OffsetS: 55.273},
	}
	sparklensRun = dataset.Run{Job: "Spark shell", Run: "local-1532512550423", Name: "Spark shell", User: "beria",
		Status: "FINISHED", SubmitMs: dataset.NoTime, StartMs: 1532512549494, EndMs: 1532512565469, Source: "spark-eventlog"}
	sparklensSky = []dataset.SkylineSample{
		{Job: "Spark shell", Run: "local-1532512550423"},
		{Job: "Spark shell", Run: "local-1532512550423", OffsetS: 0.965, Containers: 1, MemoryBytes: 1 << 30, VCores: 4},
		{Job: "Spark shell", Run: "local-1532512550423", OffsetS: 15.975},
	}
)

func TestSparkEventLogFixtures(t *testing.T) {
	o := ingestJobs(t, "auto", []string{sparkDir}, DefaultOptions())
	for _, f := range o.res.Files {
		if f.Format != "spark-eventlog" || f.Rejected != 0 {
			t.Errorf("%+v", f)
		}
	}
	// The YARN log has an App Attempt ID: its run is written when every
	// input is read (it could have other attempts), after the local one.
	if !reflect.DeepEqual(o.runs, []dataset.Run{sparklensRun, drelephantRun}) {
		t.Errorf("runs %+v", o.runs)
	}
	if want := append(append([]dataset.SkylineSample{}, sparklensSky...), drelephantSky...); !reflect.DeepEqual(o.sky, want) {
		t.Errorf("skylines\n%+v\nwant\n%+v", o.sky, want)
	}
	// Task ends are profiling runs now, no longer counted as unused.
	if !hasNoteLike(o.res.Files[0].Notes, "counted): TaskStart 10") || hasNoteLike(o.res.Files[0].Notes, "TaskEnd") ||
		!hasNote(o.res.Files[0].Notes, "Spark 1.5.1") {
		t.Errorf("notes %q", o.res.Files[0].Notes)
	}
	// Every task end is a profiling run: 10 in drelephant, 8 in sparklens
	// (their SparkListenerTaskEnd lines), and each file's accepted count is
	// its run, its skyline samples and its profiling runs.
	var nd, ns int
	for _, r := range o.prof {
		switch r.Job {
		case "PythonPi":
			nd++
		case "Spark shell":
			ns++
		default:
			t.Errorf("profrun of job %q", r.Job)
		}
	}
	if nd != 10 || ns != 8 {
		t.Fatalf("profruns: %d of PythonPi, %d of Spark shell; want 10 and 8", nd, ns)
	}
	for _, f := range o.res.Files {
		want := int64(1 + len(drelephantSky) + 10)
		if strings.Contains(f.Path, "sparklens") {
			want = int64(1 + len(sparklensSky) + 8)
		}
		if f.Accepted != want {
			t.Errorf("%s: accepted %d, want %d", f.Path, f.Accepted, want)
		}
	}
	// drelephant line 16, the first task end: task 1 (index 1) of stage 0
	// "reduce at pi.py:39" on executor 2 (2 cores, spark.executor.memory
	// 1g), launched 1458126398726, finished 1458126403558 (4.832 s), no
	// shuffle or input metrics, nothing spilled.
	d := o.prof[0]
	want := dataset.ProfRun{Job: "PythonPi", Task: "stage 0: reduce at pi.py:39", Framework: "spark", MemoryBytes: 1 << 30,
		Slots: 2, RuntimeS: 4.832, StartMs: 1458126398726, Outcome: "ok", Source: d.Source, Config: d.Config,
		// Two slots share the executor's 1 GiB; its YARN container is
		// 1 GiB + 384 MiB overhead, rounded up to YARN's default 1 GiB
		// minimum allocation.
		TaskMemoryBytes: 512 << 20, ContainerMemoryBytes: 2 << 30}
	if !reflect.DeepEqual(d, want) || !strings.HasSuffix(d.Source, "drelephant_event_log_1.jsonl") ||
		!strings.Contains(d.Config, `"spark.shuffle.memoryFraction":"0.5"`) || !strings.Contains(d.Config, `"stage_attempt_index":"0.1"`) ||
		!strings.Contains(d.Config, `"app_id":"application_1457600942802_0093"`) || !strings.Contains(d.Config, `"parent_stages":[]`) {
		t.Errorf("first drelephant profrun\n%+v\nwant\n%+v", d, want)
	}
	// sparklens line 12: task 0 of stage 0 on the driver (local mode, 4
	// cores, no spark.driver.memory: Spark's default 1g, noted in the
	// config), 1532512561948 → 1532512562213 (0.265 s), Executor CPU Time
	// 12929000 ns.
	s := o.prof[10]
	if s.Job != "Spark shell" || s.Task != "stage 0: collect at <console>:25" || s.MemoryBytes != 1<<30 || s.Slots != 4 ||
		math.Abs(s.RuntimeS-0.265) > 1e-9 || math.Abs(s.CPUS-0.012929) > 1e-12 || !strings.Contains(s.Config, "memory_source") {
		t.Errorf("first sparklens profrun %+v", s)
	}
}

// lz4JavaStream frames data as lz4-java's LZ4BlockOutputStream does, in
// blocks of size bytes, with an empty last block.
func lz4JavaStream(t testing.TB, data []byte, size int) []byte {
	var out bytes.Buffer
	block := func(method byte, c []byte, dlen int) {
		var h [21]byte
		copy(h[:], lz4BlockMagic)
		h[8] = method | 4
		binary.LittleEndian.PutUint32(h[9:], uint32(len(c)))
		binary.LittleEndian.PutUint32(h[13:], uint32(dlen))
		out.Write(h[:])
		out.Write(c)
	}
	for len(data) > 0 {
		n := min(size, len(data))
		dst := make([]byte, lz4.CompressBlockBound(n))
		k, err := lz4.CompressBlock(data[:n], dst, nil)
		if err != nil {
			t.Fatal(err)
		}
		if k == 0 || k >= n {
			block(0x10, data[:n], n)
		} else {
			block(0x20, dst[:k], n)
		}
		data = data[n:]
	}
	block(0x10, nil, 0)
	return out.Bytes()
}

// snappyJavaStream frames data as snappy-java's SnappyOutputStream does.
func snappyJavaStream(data []byte, size int) []byte {
	var out bytes.Buffer
	out.Write(snappyMagic)
	out.Write([]byte{0, 0, 0, 1, 0, 0, 0, 1})
	for len(data) > 0 {
		n := min(size, len(data))
		c := s2.EncodeSnappy(nil, data[:n])
		var l [4]byte
		binary.BigEndian.PutUint32(l[:], uint32(len(c)))
		out.Write(l[:])
		out.Write(c)
		data = data[n:]
	}
	return out.Bytes()
}

// TestSparkEventLogCodecs: every codec Spark writes gives the same run and
// skyline as the plain log; lzf is refused by name.
func TestSparkEventLogCodecs(t *testing.T) {
	plain, err := os.ReadFile(sparkDir + "drelephant_event_log_1.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	in := t.TempDir()
	for name, data := range map[string][]byte{
		"application_1457600942802_0093.gz":     gzipBytes(t, plain),
		"application_1457600942802_0093.zstd":   zstdBytes(t, plain),
		"application_1457600942802_0093.lz4":    lz4JavaStream(t, plain, 4096),
		"application_1457600942802_0093.snappy": snappyJavaStream(plain, 4096),
	} {
		o := ingestJobs(t, "auto", []string{writeFile(t, in, name, data)}, DefaultOptions())
		if len(o.rejects) != 0 || !reflect.DeepEqual(o.runs, []dataset.Run{drelephantRun}) || !reflect.DeepEqual(o.sky, drelephantSky) {
			t.Errorf("%s: rejects %+v runs %+v sky %+v", name, o.rejects, o.runs, o.sky)
		}
		if f := o.res.Files[0]; f.Format != "spark-eventlog" || !(hasNoteLike(f.Notes, "compression: ") || hasNoteLike(f.Notes, "codec: ")) {
			t.Errorf("%s: %+v", name, f)
		}
	}
	lzf := writeFile(t, in, "app.lzf", append([]byte("ZV\x01\x00\x10"), bytes.Repeat([]byte{1}, 40)...))
	o := ingestJobs(t, "auto", []string{lzf}, DefaultOptions())
	if len(o.rejects) != 1 || !strings.Contains(o.rejects[0].Reason, "lzf: not supported") || len(o.runs) != 0 {
		t.Errorf("lzf: %+v %+v", o.rejects, o.runs)
	}
	// A corrupt lz4 block: what came before stands, the rest is a reject.
	bad := lz4JavaStream(t, plain, 4096)
	bad[21+5] ^= 0xff
	bad = bad[:len(bad)/2]
	o = ingestJobs(t, "spark-eventlog", []string{writeFile(t, in, "bad.lz4", bad)}, DefaultOptions())
	if len(o.rejects) == 0 || o.res.Files[0].Rejected == 0 {
		t.Errorf("corrupt lz4: %+v", o.res.Files[0])
	}
}

// TestSparkEventLogInProgress: without ApplicationEnd the run has no end,
// status RUNNING, and executors alive are cut at the last instant the log
// shows: the JobEnd's Completion Time 1458126409602 (+55.266 s), later than
// the last top-level Timestamp (a block manager at +45.021 s).
func TestSparkEventLogInProgress(t *testing.T) {
	plain, err := os.ReadFile(sparkDir + "drelephant_event_log_1.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, l := range strings.Split(string(plain), "\n") {
		if !strings.Contains(l, "SparkListenerApplicationEnd") {
			kept = append(kept, l)
		}
	}
	p := writeFile(t, t.TempDir(), "application_1457600942802_0093.inprogress", []byte(strings.Join(kept, "\n")))
	o := ingestJobs(t, "auto", []string{p}, DefaultOptions())
	want := drelephantRun
	want.Status, want.EndMs = "RUNNING", dataset.NoTime
	if !reflect.DeepEqual(o.runs, []dataset.Run{want}) {
		t.Errorf("runs %+v", o.runs)
	}
	wantSky := append([]dataset.SkylineSample{}, drelephantSky...)
	wantSky[3].OffsetS = 55.266
	if !reflect.DeepEqual(o.sky, wantSky) {
		t.Errorf("sky %+v", o.sky)
	}
	if !hasNoteLike(o.res.Files[0].Notes, "in progress: no SparkListenerApplicationEnd") {
		t.Errorf("notes %q", o.res.Files[0].Notes)
	}
}

// TestSparkEventLogRolled: a rolled eventlog_v2_ folder is one run, read
// from its parts in index order (events_10 after events_2), whatever their
// codecs; the status marker and later parts only leave notes.
func TestSparkEventLogRolled(t *testing.T) {
	plain, err := os.ReadFile(sparkDir + "sparklens_local-1532512550423.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(plain), "\n")
	dir := filepath.Join(t.TempDir(), "eventlog_v2_local-1532512550423")
	writeFile(t, dir, "appstatus_local-1532512550423", nil)
	writeFile(t, dir, "events_1_local-1532512550423", []byte(strings.Join(lines[:10], "")))
	writeFile(t, dir, "events_2_local-1532512550423.zstd", zstdBytes(t, []byte(strings.Join(lines[10:20], ""))))
	writeFile(t, dir, "events_10_local-1532512550423.lz4", lz4JavaStream(t, []byte(strings.Join(lines[20:], "")), 1024))
	o := ingestJobs(t, "auto", []string{dir}, DefaultOptions())
	if len(o.rejects) != 0 || !reflect.DeepEqual(o.runs, []dataset.Run{sparklensRun}) || !reflect.DeepEqual(o.sky, sparklensSky) {
		t.Fatalf("rejects %+v runs %+v sky %+v", o.rejects, o.runs, o.sky)
	}
	var got []string
	for _, f := range o.res.Files {
		got = append(got, filepath.Base(f.Path)+":"+f.Format+":"+strings.Join(f.Notes, "|"))
	}
	want := []string{
		"appstatus_local-1532512550423:spark-eventlog:status marker of a rolled Spark event log (nothing to read; in progress when it ends in .inprogress)",
		"events_10_local-1532512550423.lz4:spark-eventlog:part of a rolled Spark event log (Spark's appstatus_ and events_N_ parts): read with events_1_local-1532512550423",
	}
	if !reflect.DeepEqual(got[:2], want) || !strings.Contains(got[2], "3 parts read in order") ||
		!strings.HasPrefix(got[3], "events_2_local-1532512550423.zstd:spark-eventlog:compression: zstd|part of a rolled") {
		t.Errorf("files:\n%s", strings.Join(got, "\n"))
	}
}

// TestSparkEventLogBadInput: each bad line is a reject with its line and
// reason; legitimate events this format does not use are counted instead.
func TestSparkEventLogBadInput(t *testing.T) {
	body := strings.Join([]string{
		`{"Event":"SparkListenerLogStart","Spark Version":"3.5.0"}`,
		`{"Event":"SparkListenerApplicationStart","App Name":"nightly-42","App ID":"app-1","Timestamp":1700000000000,"User":"u"}`,
		`{"Event":"SparkListenerExecutorAdded","Timestamp":1700000001000,"Executor ID":"1","Executor Info":{"Total Cores":2}}`,
		`{"Event":"SparkListenerExecutorAdded","Timestamp":1700000002000,"Executor Info":{"Total Cores":2}}`, // 4: no id
		`{"Event":"SparkListenerTaskEnd","Stage ID":0,"Task Info":{"Task ID":1,`,                             // 5: truncated
		`{"Event":"Bogus"}`, // 6: unknown
		`{"Event":"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart","executionId":0}`, // counted
		`not json at all`, // 8
		`{"Event":"SparkListenerExecutorAdded","Timestamp":-5,"Executor ID":"2"}`,                                               // 9: negative
		`{"Event":"SparkListenerExecutorAdded","Timestamp":1700000003000,"Executor ID":"3","Executor Info":{"Total Cores":-1}}`, // 10
		`{"Event":"SparkListenerApplicationStart","App Name":"x","Timestamp":1700000000000}`,                                    // 11: second start
		`{"Event":"SparkListenerExecutorRemoved","Timestamp":1700000004000,"Executor ID":"9"}`,                                  // never added: counted
		`{"Event":"SparkListenerApplicationEnd"}`,                                                                               // 13: no Timestamp
		`{"Event":"SparkListenerExecutorRemoved","Timestamp":1700000005000,"Executor ID":"1"}`,
		`{"Event":"SparkListenerExecutorAdded","Timestamp":1700000009000,"Executor ID":"4","Executor Info":{"Total Cores":2}}`,
		`{"Event":"SparkListenerApplicationEnd","Timestamp":1700000010000}`,
		`{"Event":"SparkListenerExecutorRemoved","Timestamp":1700000020000,"Executor ID":"4"}`,
		`{"Event":"SparkListenerStageSubmitted","Stage Info":{"Stage ID":0}}`,
		`{"Event":"SparkListenerTaskEnd","Stage ID":0,"Task Info":{"Launch Time":1700000002000,"Finish Time":1700000001000},"Task Metrics":{}}`, // 19: ends before it starts
		`{"Event":"SparkListenerTaskEnd","Stage ID":0,"Task End Reason":{"Reason":"Success"},"Task Info":{"Executor ID":"1","Launch Time":1700000001000,"Finish Time":1700000003500},"Task Metrics":{"Disk Bytes Spilled":7,"Memory Bytes Spilled":21}}`,
	}, "\n")
	p := writeFile(t, t.TempDir(), "app-1", []byte(body))
	o := ingestJobs(t, "auto", []string{p}, DefaultOptions())
	if got := rejectLines(o.rejects); !reflect.DeepEqual(got, []int64{4, 5, 6, 8, 9, 10, 11, 13, 19}) {
		t.Errorf("rejected lines %v: %+v", got, o.rejects)
	}
	for _, r := range o.rejects {
		if r.Format != "spark-eventlog" || r.Reason == "" || r.Record == "" {
			t.Errorf("reject %+v", r)
		}
		if r.Line == 8 && !strings.Contains(r.Reason, "not a JSON object") || r.Line == 5 && !strings.Contains(r.Reason, "truncated or invalid JSON") {
			t.Errorf("reject %+v", r)
		}
	}
	if len(o.runs) != 1 || o.runs[0].Job != "nightly" || o.runs[0].EndMs != 1700000010000 {
		t.Errorf("runs %+v", o.runs)
	}
	// The one good task end is a profiling run; the bad one a reject only.
	if len(o.prof) != 1 || o.prof[0].RuntimeS != 2.5 || o.prof[0].SpilledBytes != 7 || o.prof[0].MemorySpilledBytes != 21 ||
		o.prof[0].Slots != 2 || o.prof[0].Job != o.runs[0].Job { // one job key in runs and profruns
		t.Errorf("profruns %+v", o.prof)
	}
	if f := o.res.Files[0]; f.Accepted != int64(1+len(o.sky)+1) || f.Rejected != 9 {
		t.Errorf("accepted %d rejected %d", f.Accepted, f.Rejected)
	}
	// Executor 4 is removed after the end: held until the end.
	if s := steps(o.sky); s != "0:0 1:1 5:0 9:1 10:0" {
		t.Errorf("skyline %s", s)
	}
	notes := strings.Join(o.res.Files[0].Notes, "\n")
	if !strings.Contains(notes, "(counted): org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart 1") ||
		!strings.Contains(notes, "executor removals without a live executor (ignored): 1") {
		t.Errorf("notes:\n%s", notes)
	}

	// A log with no ApplicationStart is one reject, and no run.
	p = writeFile(t, t.TempDir(), "cut", []byte(`{"Event":"SparkListenerExecutorAdded","Timestamp":1,"Executor ID":"1"}`+"\n"))
	o = ingestJobs(t, "spark-eventlog", []string{p}, DefaultOptions())
	if len(o.rejects) != 1 || !strings.Contains(o.rejects[0].Reason, "no SparkListenerApplicationStart") || len(o.runs)+len(o.sky) != 0 {
		t.Errorf("no start: %+v %+v", o.rejects, o.runs)
	}
}

// TestSparkMemory: spark.executor.memory and spark.driver.memory read as
// Spark's bytesConf(ByteUnit.MiB) reads them (JavaUtils.byteStringAs and
// ByteUnit.convertTo). The "was" column is what the two parsers this one
// replaced made of the value (skyline / profruns, "-" unreadable) where
// they were wrong or disagreed.
func TestSparkMemory(t *testing.T) {
	const bad = -1
	for _, c := range []struct {
		in   string
		want int64 // bytes, or bad
		was  string
	}{
		{"4g", 4 << 30, ""},
		{"512m", 512 << 20, ""},
		{"1024", 1 << 30, ""}, // a bare number is MiB
		{"2G", 2 << 30, ""},
		{"3gb", 3 << 30, ""},
		{"3GB", 3 << 30, ""},
		{" 8g\t", 8 << 30, ""}, // Java's trim
		{"1t", 1 << 40, ""},
		{"2tb", 2 << 40, ""},
		{"1048576k", 1 << 30, ""},
		{"2048kb", 2 << 20, ""},
		{"0", 0, "0 / - (default 1g)"},
		{"5p", 5 << 50, "5 PiB / - (default 1g)"},
		{"5pb", 5 << 50, "5 PiB / - (default 1g)"},
		{"100b", 0, "100 MiB / 100 B"}, // bytes, truncated to whole MiB
		{"1073741824b", 1 << 30, "1 PiB / 1 GiB"},
		{"1536k", 1 << 20, "1.5 MiB / 1.5 MiB"}, // Spark truncates to MiB
		{"100k", 0, "100 KiB / 100 KiB"},
		{"+4g", bad, "4 GiB / 4 GiB"}, // Spark's pattern has no sign
		{"-1g", bad, ""},
		{"1.5g", bad, ""}, // "Fractional values are not supported"
		{"4 g", bad, ""},
		{"4gib", bad, ""},
		{"4x", bad, ""},
		{"g", bad, ""},
		{"junk", bad, ""},
		{"8192p", bad, ""},                // more bytes than an int64
		{"99999999999999999999", bad, ""}, // Long.parseLong overflows
	} {
		got, err := sparkMemory(c.in)
		if c.want == bad {
			if err == nil {
				t.Errorf("%q: %d bytes, want an error", c.in, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: %d, %v; want %d (the old parsers: %s)", c.in, got, err, c.want, c.was)
		}
	}
	// The skyline's policy on top: unset is Spark's default, unreadable
	// is 0 (unknown).
	for in, want := range map[string]int64{"": 1 << 30, "  ": 1 << 30, "4g": 4 << 30, "junk": 0, "-1g": 0} {
		if got := sparkMemoryBytes(in); got != want {
			t.Errorf("sparkMemoryBytes(%q) = %d, want %d", in, got, want)
		}
	}
	// sparkByteString in another unit, as byteStringAsBytes and
	// byteStringAsKb would read it.
	for _, c := range []struct {
		in         string
		unit, want int64
	}{{"100", 1, 100}, {"100", 1 << 10, 100}, {"1m", 1 << 10, 1024}, {"1023b", 1 << 10, 0}, {"8191p", 1, 8191 << 50}} {
		if got, err := sparkByteString(c.in, c.unit); err != nil || got != c.want {
			t.Errorf("sparkByteString(%q, %d) = %d, %v; want %d", c.in, c.unit, got, err, c.want)
		}
	}
}

// TestSparkProfRunsMemory: the profiling runs read the memory setting with
// the same parser as the skyline; where it gives nothing usable they fall
// back to Spark's default and say so in the config.
func TestSparkProfRunsMemory(t *testing.T) {
	for _, c := range []struct {
		value  string
		want   int64
		source string // memory_source in the config, "" for none
	}{
		{"5pb", 5 << 50, ""},
		{"1536k", 1 << 20, ""},
		{"", 1 << 30, "default spark.executor.memory=1g"},
		{"100b", 1 << 30, "less than 1 MiB"},
		{"4gib", 1 << 30, "unknown unit"},
	} {
		s := NewSparkProfRuns("f")
		lines := []string{
			`{"Event":"SparkListenerEnvironmentUpdate","Spark Properties":{"spark.master":"yarn","spark.executor.memory":"` + c.value + `"}}`,
			`{"Event":"SparkListenerTaskEnd","Stage ID":0,"Task End Reason":{"Reason":"Success"},"Task Info":{"Task ID":1,"Index":0,"Attempt":0,"Launch Time":1000,"Executor ID":"1","Host":"h","Finish Time":3000},"Task Metrics":{"Executor CPU Time":1000000,"Disk Bytes Spilled":0,"Memory Bytes Spilled":0}}`,
		}
		for i, l := range lines {
			if perr := s.Line(int64(i+1), []byte(l)); perr != nil {
				t.Fatalf("%q: line %d: %v", c.value, i+1, perr)
			}
		}
		runs := s.Runs()
		if len(runs) != 1 {
			t.Fatalf("%q: %d runs", c.value, len(runs))
		}
		var cfg map[string]any
		if err := json.Unmarshal([]byte(runs[0].Config), &cfg); err != nil {
			t.Fatal(err)
		}
		src, _ := cfg["memory_source"].(string)
		if runs[0].MemoryBytes != c.want || (c.source == "") != (src == "") || !strings.Contains(src, c.source) {
			t.Errorf("%q: memory %d (want %d), memory_source %q (want %q)", c.value, runs[0].MemoryBytes, c.want, src, c.source)
		}
	}
}

// TestSparkProfRunsStageParents: a task's config carries its stage's
// "Parent IDs" (the stage DAG), not the "Parent IDs" of the stage's RDDs,
// and its start is the attempt's launch time.
func TestSparkProfRunsStageParents(t *testing.T) {
	s := NewSparkProfRuns("f")
	stage := func(id int, parents string) string {
		return fmt.Sprintf(`{"Event":"SparkListenerStageSubmitted","Stage Info":{"Stage ID":%d,"Stage Attempt ID":0,"Stage Name":"s%d","Number of Tasks":1,`+
			`"RDD Info":[{"RDD ID":9,"Name":"r","Parent IDs":[7,8]}],"Parent IDs":%s}}`, id, id, parents)
	}
	end := func(stage int, launch int64) string {
		return fmt.Sprintf(`{"Event":"SparkListenerTaskEnd","Stage ID":%d,"Task End Reason":{"Reason":"Success"},"Task Info":{"Task ID":1,"Index":0,"Attempt":0,"Launch Time":%d,"Executor ID":"1","Host":"h","Finish Time":%d},"Task Metrics":{"Disk Bytes Spilled":0,"Memory Bytes Spilled":0}}`, stage, launch, launch+500)
	}
	lines := []string{`{"Event":"SparkListenerApplicationStart","App Name":"dag","App ID":"app-1"}`,
		stage(0, "[]"), stage(1, "[]"), stage(2, "[0,1]"), end(0, 1000), end(1, 1100), end(2, 2000)}
	for i, l := range lines {
		if perr := s.Line(int64(i+1), []byte(l)); perr != nil {
			t.Fatalf("line %d: %v", i+1, perr)
		}
	}
	runs := s.Runs()
	if len(runs) != 3 {
		t.Fatalf("%d runs, want 3", len(runs))
	}
	for i, want := range []string{`"parent_stages":[]`, `"parent_stages":[]`, `"parent_stages":[0,1]`} {
		if !strings.Contains(runs[i].Config, want) || !strings.Contains(runs[i].Config, `"app_id":"app-1"`) {
			t.Errorf("stage %d: config %s, want %s and app-1", i, runs[i].Config, want)
		}
	}
	if runs[2].StartMs != 2000 {
		t.Errorf("stage 2 start %d, want its launch 2000", runs[2].StartMs)
	}
}

func TestSparkDetect(t *testing.T) {
	f, _ := Lookup("spark-eventlog")
	for _, c := range []struct {
		name, head string
		want       bool
	}{
		{"app-20240101120000-0001", `{"Event":"SparkListenerLogStart","Spark Version":"3.5.0"}`, true},
		{"x", "\xef\xbb\xbf\n" + `{"Event":"SparkListenerApplicationStart"}`, true},
		{"x", `{"Event":"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart"}`, true},
		{"events_1_application_1_0001.lz4", "", true},
		{"appstatus_spark-0123abcd.inprogress", "", true},
		{"events_1_export.csv", "a,b\n", false},
		{"x.lz4", "LZ4Block\x10", true},
		{"x", `{"eventType":"START"}`, false},
		{"x", `{"Event":"Other"}`, false},
	} {
		if got := f.Detect(c.name, []byte(c.head)); got != c.want {
			t.Errorf("Detect(%q, %q) = %v", c.name, c.head, got)
		}
	}
}
