// Format "spark-eventlog". Runs, skylines and job identity: package doc
// (doc.go).
//
// spark-eventlog reads one application's event log: JSON lines, plain or
// compressed with gzip or zstd (any name) or Spark's lz4 and snappy framings
// (lz4-java LZ4BlockOutputStream, snappy-java SnappyOutputStream; lz4
// checksums are not verified); lzf is refused by name as one reject. A
// rolled log is known by its folder's contents, whatever the folder is
// called: Spark's (an appstatus_<app> marker beside events_<N>_<app>[.codec]
// parts) is read from its lowest-numbered part, all parts in index order;
// Databricks' (the current part eventlog beside the parts it rolled over,
// eventlog-YYYY-MM-DD--HH-MM[.gz]) from its oldest part, by time, eventlog
// last. Either is one application; the other parts and the appstatus_
// marker only leave notes (so pass the folder, not a single later part).
// The logs of one YARN application's attempts (same App ID, App Attempt
// ID 1, 2, ...) read in one ingest are one run, not copies: its start is
// the first attempt's, its end and status the last attempt's (YARN starts
// another attempt only after one failed), its skyline every attempt's
// executors; each attempt's task attempts are kept with app_attempt in
// their config. Such runs are written when every input has been read. The run is the ApplicationStart (App
// Name, App ID, User, Timestamp as start; no submit time: Spark does not log
// one) and ApplicationEnd (end, status FINISHED). A log without
// ApplicationEnd (.inprogress, or cut) is a run without an end: status
// RUNNING, runs.end null, a note, and its skyline cut at the last instant
// the log shows (event timestamps, task launch and finish times, stage and
// job submission and completion times). Containers are executors: an
// executor holds a YARN (or Kubernetes) container from ExecutorAdded to
// ExecutorRemoved (or the end) whether or not tasks run in it, and
// containers are what a reservation reserves; task concurrency is what the
// application did with them, not what it held. The driver is counted only
// where it is an executor (local mode); on YARN the AM container is not in
// the event log, so a Spark skyline is one container below the yarn-rm
// skyline of the same application. memory_bytes is each executor's
// container: spark.executor.memory plus spark.executor.memoryOverhead
// (default max(384 MiB, 10%)), pyspark and enabled off-heap memory, on
// YARN rounded up to a multiple of the minimum allocation
// (spark.hadoop.yarn.scheduler.minimum-allocation-mb, else YARN's 1 GiB);
// on Kubernetes without rounding; for the local driver spark.driver.memory
// alone (Spark's default 1g when unset). Memory settings are read as Spark
// reads them (JavaUtils.byteStringAs in MiB: units b, k, m, g, t, p with or
// without a trailing b, any case, a bare number is MiB, less than a MiB
// truncates; 0, unknown, when Spark could not read it either). The task
// attempts (profruns) keep the executor's memory (memory_bytes, the
// setting elasticity models vary), a task's share of it
// (task_memory_bytes: memory / the executor's task slots) and the
// container (container_memory_bytes) apart; vcores is the executor's
// Total Cores. Logs without executor events (Spark < 1.4) use block managers
// instead. Other legitimate events (any SparkListener* name or a Java class
// name, as SQL and streaming events are written) are counted in the notes;
// other "Event" values, invalid or truncated JSON and used events missing a
// field they need are rejects.

package ingest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/wlprof/wlprof/dataset"
)

func init() {
	register(&Format{
		Name:        "spark-eventlog",
		Table:       "runs+skylines+profruns",
		Description: "Spark event log (JSON lines; gzip, zstd, lz4, snappy; .inprogress; rolled logs: Spark's appstatus_ and events_N_ parts, Databricks' eventlog-YYYY-MM-DD--HH-MM parts) → a run, its executors over time, and its task attempts as profiling runs",
		Detect: func(name string, head []byte) bool {
			if rolledNameRe.MatchString(name) {
				return true
			}
			if sparkCodec(head) != "" {
				return true
			}
			h := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
			return bytes.HasPrefix(h, []byte(`{"Event":"SparkListener`)) ||
				bytes.HasPrefix(h, []byte(`{"Event":"org.apache.spark.`))
		},
		ingest: ingestSpark,
	})
}

// rolledPartRe is an event file of a rolled log (Spark 3
// spark.eventLog.rolling.enabled): eventlog_v2_<app>/events_<N>_<app>[.codec][.compact].
var rolledPartRe = regexp.MustCompile(`^events_([0-9]+)_`)

// rolledNameRe is a file of a rolled log, named for a Spark application
// id (YARN, local, standalone, Kubernetes), for detection by name.
var rolledNameRe = regexp.MustCompile(`^(events_[0-9]+|appstatus)_(application_|local-|app-|spark-)`)

func ingestSpark(ctx context.Context, in *Input, s *sink) error {
	name := filepath.Base(in.Path)
	if strings.HasPrefix(name, "appstatus_") {
		s.notes = append(s.notes, "status marker of a rolled Spark event log (nothing to read; in progress when it ends in .inprogress)")
		return nil
	}
	parts := []string{in.Path}
	all, layout, err := rolledLog(in.Path)
	if err != nil {
		return err
	}
	if len(all) > 0 {
		if all[0] != in.Path {
			// The first part reads the whole folder, in order.
			s.notes = append(s.notes, fmt.Sprintf("part of a rolled Spark event log (%s): read with %s", layout, filepath.Base(all[0])))
			return nil
		}
		parts = all
		if len(parts) > 1 {
			s.notes = append(s.notes, fmt.Sprintf("rolled Spark event log (%s): %d parts read in order", layout, len(parts)))
		}
	}
	r := &sparkLog{file: in.Path, exec: map[string]*sparkExec{}, unused: map[string]int64{}}
	r.parts = parts
	r.first = in
	r.prof = NewSparkProfRuns(in.Path)
	return drainJobs(ctx, s, r)
}

// databricksPartRe is a rolled-over part of a Databricks event log:
// eventlog-YYYY-MM-DD--HH-MM, compressed or not, beside the current part
// "eventlog".
var databricksPartRe = regexp.MustCompile(`^eventlog-([0-9]{4}-[0-9]{2}-[0-9]{2}--[0-9]{2}-[0-9]{2})(\.[A-Za-z0-9]+)?$`)

// rolledLog lists the parts of the rolled log path belongs to, in the
// order they were written, and names the layout; nil when path is a log
// of its own. A rolled log is known by its folder's contents, whatever
// the folder is called (a copy need not keep Spark's eventlog_v2_ name):
//
//   - Spark 3 (spark.eventLog.rolling.enabled): an appstatus_<app> marker
//     beside events_<N>_<app> parts, read by N;
//   - Databricks: the current part "eventlog" beside the parts it rolled
//     over, eventlog-YYYY-MM-DD--HH-MM[.gz], read by their time, the
//     current part last.
func rolledLog(path string) ([]string, string, error) {
	name, dir := filepath.Base(path), filepath.Dir(path)
	spark := rolledPartRe.MatchString(name)
	databricks := name == "eventlog" || databricksPartRe.MatchString(name)
	if !spark && !databricks {
		return nil, "", nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, "", err
	}
	if spark {
		marker := strings.HasPrefix(filepath.Base(dir), "eventlog_v2_")
		for _, e := range ents {
			marker = marker || strings.HasPrefix(e.Name(), "appstatus_")
		}
		if !marker {
			return nil, "", nil
		}
		return rolledParts(dir, ents), "Spark's appstatus_ and events_N_ parts", nil
	}
	var dated []string
	current := ""
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		switch {
		case e.Name() == "eventlog":
			current = filepath.Join(dir, e.Name())
		case databricksPartRe.MatchString(e.Name()):
			dated = append(dated, filepath.Join(dir, e.Name()))
		}
	}
	if len(dated) == 0 {
		return nil, "", nil
	}
	// The names' times sort as text (fixed-width digits).
	sort.Strings(dated)
	if current != "" {
		dated = append(dated, current)
	}
	return dated, "Databricks' eventlog and eventlog-YYYY-MM-DD--HH-MM parts", nil
}

// rolledParts lists the event files of a Spark rolled log folder by index.
func rolledParts(dir string, ents []os.DirEntry) []string {
	type part struct {
		n    int
		path string
	}
	var ps []part
	for _, e := range ents {
		m := rolledPartRe.FindStringSubmatch(e.Name())
		if m == nil || !e.Type().IsRegular() {
			continue
		}
		n, err := strconv.Atoi(m[1])
		if err != nil {
			continue
		}
		ps = append(ps, part{n, filepath.Join(dir, e.Name())})
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].n < ps[j].n || ps[i].n == ps[j].n && ps[i].path < ps[j].path })
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.path
	}
	return out
}

// sparkEvent holds the fields of the events this format uses; the others
// are checked to be JSON and counted.
type sparkEvent struct {
	Event        string  `json:"Event"`
	Timestamp    *int64  `json:"Timestamp"`
	SparkVersion string  `json:"Spark Version"`
	AppName      string  `json:"App Name"`
	AppID        string  `json:"App ID"`
	AttemptID    string  `json:"App Attempt ID"`
	User         string  `json:"User"`
	ExecutorID   *string `json:"Executor ID"`
	ExecutorInfo *struct {
		TotalCores *float64 `json:"Total Cores"`
	} `json:"Executor Info"`
	BlockManagerID *struct {
		ExecutorID string `json:"Executor ID"`
	} `json:"Block Manager ID"`
	SparkProperties map[string]string `json:"Spark Properties"`
}

// sparkExec is one executor's life.
type sparkExec struct {
	order       int
	addMs       int64
	removeMs    int64 // NoTime while alive
	cores       float64
	blockMgr    bool // known only from BlockManagerAdded
	removedLine int64
}

// sparkLog reads one application's event log (one file, or the parts of
// a rolled folder) and yields its run and skyline at the end.
type sparkLog struct {
	file  string
	first *Input
	parts []string
	part  int
	cur   *Input // opened part other than first
	open  bool
	done  bool
	jobLines

	app          *sparkEvent
	appLine      int64
	endMs        int64
	hasEnd       bool
	lastMs       int64
	props        map[string]string
	version      string
	exec         map[string]*sparkExec
	executorSeen bool // any ExecutorAdded: block managers are not used
	bmExec       map[string]*sparkExec
	unused       map[string]int64
	codecs       []string
	events       int64
	prof         *SparkProfRuns // task attempts → profruns
	removedEarly int64
	beforeStart  int64
}

func (r *sparkLog) Close() {
	if r.cur != nil {
		r.cur.Close()
		r.cur = nil
	}
}

// openPart prepares the line reader of the next part; false when none is left.
func (r *sparkLog) openPart() (bool, *ParseError) {
	r.Close()
	if r.part >= len(r.parts) {
		return false, nil
	}
	path := r.parts[r.part]
	r.part++
	in := r.first
	if path != r.first.Path {
		var err error
		if in, err = Open(path); err != nil {
			r.err = err
			return false, nil
		}
		r.cur = in
	}
	r.file = path
	if r.prof != nil {
		r.prof.path = path // its rejects name the part they are in
	}
	head := in.Head(16)
	r.lr = lineReader{}
	switch c := sparkCodec(head); c {
	case "lz4":
		r.lr.r = bufio.NewReaderSize(&lz4BlockReader{r: in.Reader()}, streamBuffer(64*in.Size, headBytes))
		r.noteCodec(c, path)
	case "snappy":
		r.lr.r = bufio.NewReaderSize(&snappyStreamReader{r: in.Reader()}, streamBuffer(64*in.Size, headBytes))
		r.noteCodec(c, path)
	case "lzf":
		return true, &ParseError{File: path, Err: errors.New("Spark event log compressed with lzf: not supported (decompress it, or write event logs with spark.eventLog.compression.codec=zstd)")}
	default:
		r.lr = newLineReader(in)
	}
	r.open = true
	return true, nil
}

func (r *sparkLog) noteCodec(c, path string) {
	if len(r.parts) > 1 {
		c += " (" + filepath.Base(path) + ")"
	}
	r.codecs = append(r.codecs, c)
}

func (r *sparkLog) Scan() bool {
	r.perr, r.rec = nil, jobRecord{}
	for !r.done {
		if !r.open {
			ok, perr := r.openPart()
			if r.err != nil {
				r.done = true
				return false
			}
			if perr != nil {
				r.perr = perr
				r.open = false
				return true
			}
			if !ok {
				r.done = true
				return r.finish()
			}
		}
		line, err := r.lr.next()
		if err == io.EOF {
			r.open = false
			continue
		}
		if err != nil && !errors.Is(err, errLineTooLong) {
			if errors.Is(err, errCorrupt) {
				// A corrupt compressed part: what was read stands, the rest
				// of the part is one reject.
				r.perr = &ParseError{File: r.file, Line: r.lr.line + 1, Err: err}
				r.open = false
				return true
			}
			r.err, r.done = err, true
			return false
		}
		if err != nil {
			r.perr = r.bad(line, err)
			return true
		}
		if perr := r.event(line); perr != nil {
			r.perr = perr
			return true
		}
	}
	return false
}

func (r *sparkLog) bad(line []byte, err error) *ParseError {
	return &ParseError{File: r.file, Line: r.lr.line, Err: err, Record: recordText(line)}
}

// sparkEventName reads the "Event" value when a line starts with it, as
// Spark writes every event; ok is false otherwise (then the line is
// decoded in full).
func sparkEventName(line []byte) (string, bool) {
	const pre = `{"Event":"`
	if !bytes.HasPrefix(line, []byte(pre)) {
		return "", false
	}
	rest := line[len(pre):]
	k := bytes.IndexByte(rest, '"')
	if k < 0 || bytes.IndexByte(rest[:k], '\\') >= 0 {
		return "", false
	}
	return string(rest[:k]), true
}

// sparkUsed are the events that make runs and skylines.
var sparkUsed = map[string]bool{
	"SparkListenerLogStart": true, "SparkListenerApplicationStart": true, "SparkListenerApplicationEnd": true,
	"SparkListenerExecutorAdded": true, "SparkListenerExecutorRemoved": true, "SparkListenerEnvironmentUpdate": true,
	"SparkListenerBlockManagerAdded": true, "SparkListenerBlockManagerRemoved": true,
}

// javaClassRe is a fully qualified class name: how Spark writes events of
// listeners outside core (SQL, streaming, custom ones).
var javaClassRe = regexp.MustCompile(`^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)+$`)

func (r *sparkLog) event(line []byte) *ParseError {
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	name, fast := sparkEventName(line)
	if fast && !sparkUsed[name] {
		if !json.Valid(line) {
			return r.bad(line, fmt.Errorf("%s: truncated or invalid JSON", name))
		}
		r.activity(line)
		if sparkProfUsed[name] {
			r.events++
			return r.profLine(line)
		}
		return r.unusedEvent(line, name)
	}
	if t := bytes.TrimSpace(line); t[0] != '{' {
		return r.bad(line, errors.New("not a JSON object (a Spark event log has one event object per line)"))
	}
	var e sparkEvent
	if err := json.Unmarshal(line, &e); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF) {
			return r.bad(line, errors.New("truncated or invalid JSON"))
		}
		return r.bad(line, fmt.Errorf("bad event: %v", err))
	}
	if !sparkUsed[e.Event] {
		if sparkProfUsed[e.Event] {
			r.events++
			return r.profLine(line)
		}
		return r.unusedEvent(line, e.Event)
	}
	r.events++
	if e.Timestamp != nil {
		if *e.Timestamp < 0 || *e.Timestamp > 1e15 {
			return r.bad(line, fmt.Errorf("%s: Timestamp %d is not epoch milliseconds", e.Event, *e.Timestamp))
		}
		r.lastMs = max(r.lastMs, *e.Timestamp)
	}
	need := func(what string, ok bool) *ParseError {
		if ok {
			return nil
		}
		return r.bad(line, fmt.Errorf("%s without %s", e.Event, what))
	}
	switch e.Event {
	case "SparkListenerLogStart":
		r.version = e.SparkVersion
	case "SparkListenerEnvironmentUpdate":
		if r.props == nil {
			r.props = map[string]string{}
		}
		for k, v := range e.SparkProperties {
			r.props[k] = v
		}
	case "SparkListenerApplicationStart":
		if p := need("Timestamp", e.Timestamp != nil); p != nil {
			return p
		}
		if r.app != nil {
			return r.bad(line, fmt.Errorf("a second SparkListenerApplicationStart (the first is on line %d)", r.appLine))
		}
		ev := e
		r.app, r.appLine = &ev, r.lr.line
	case "SparkListenerApplicationEnd":
		if p := need("Timestamp", e.Timestamp != nil); p != nil {
			return p
		}
		r.endMs, r.hasEnd = *e.Timestamp, true
	case "SparkListenerExecutorAdded":
		if p := need("Timestamp and Executor ID", e.Timestamp != nil && e.ExecutorID != nil); p != nil {
			return p
		}
		x := &sparkExec{order: len(r.exec), addMs: *e.Timestamp, removeMs: dataset.NoTime}
		if e.ExecutorInfo != nil && e.ExecutorInfo.TotalCores != nil {
			c := *e.ExecutorInfo.TotalCores
			if c < 0 || c != c || c > 1e6 {
				return r.bad(line, fmt.Errorf("Total Cores %v out of range", c))
			}
			x.cores = c
		}
		if old, ok := r.exec[*e.ExecutorID]; ok {
			x.order = old.order // re-added: the later life counts
		}
		r.exec[*e.ExecutorID] = x
		r.executorSeen = true
	case "SparkListenerExecutorRemoved":
		if p := need("Timestamp and Executor ID", e.Timestamp != nil && e.ExecutorID != nil); p != nil {
			return p
		}
		x := r.exec[*e.ExecutorID]
		if x == nil || x.removeMs != dataset.NoTime {
			r.removedEarly++
			return nil
		}
		x.removeMs, x.removedLine = *e.Timestamp, r.lr.line
	case "SparkListenerBlockManagerAdded", "SparkListenerBlockManagerRemoved":
		// Only used when the log has no executor events (Spark < 1.4).
		if e.BlockManagerID == nil || e.Timestamp == nil {
			return nil
		}
		if r.bmExec == nil {
			r.bmExec = map[string]*sparkExec{}
		}
		id := e.BlockManagerID.ExecutorID
		if e.Event == "SparkListenerBlockManagerAdded" {
			r.bmExec[id] = &sparkExec{order: len(r.bmExec), addMs: *e.Timestamp, removeMs: dataset.NoTime, blockMgr: true}
		} else if x := r.bmExec[id]; x != nil {
			x.removeMs = *e.Timestamp
		}
	}
	if sparkProfUsed[e.Event] {
		return r.profLine(line)
	}
	return nil
}

// sparkProfUsed are the events SparkProfRuns reads (the application's
// name, properties, executor cores, stage names and task ends).
var sparkProfUsed = map[string]bool{
	"SparkListenerApplicationStart": true, "SparkListenerEnvironmentUpdate": true, "SparkListenerExecutorAdded": true,
	"SparkListenerStageSubmitted": true, "SparkListenerStageCompleted": true, "SparkListenerTaskEnd": true,
	"SparkListenerJobStart": true, "SparkListenerJobEnd": true,
}

// profLine feeds a line to the profiling runs; a task end it cannot use
// is a reject of its own (the line still counted for the skyline).
func (r *sparkLog) profLine(line []byte) *ParseError {
	if r.prof == nil {
		return nil
	}
	return r.prof.Line(r.lr.line, line)
}

// activityKeys are the instants of task, stage and job events: they show
// an in-progress application still working after its last event with a
// top-level Timestamp.
var activityKeys = [...][]byte{[]byte(`"Launch Time":`), []byte(`"Finish Time":`), []byte(`"Submission Time":`), []byte(`"Completion Time":`)}

// activity advances lastMs to the latest instant of these keys in line.
func (r *sparkLog) activity(line []byte) {
	for _, k := range activityKeys {
		rest := line
		for {
			i := bytes.Index(rest, k)
			if i < 0 {
				break
			}
			rest = rest[i+len(k):]
			j := 0
			for j < len(rest) && j < 16 && rest[j] >= '0' && rest[j] <= '9' {
				j++
			}
			if v, ok := plainInt(rest[:j]); ok && v >= epochMsThreshold && v <= 1e15 {
				r.lastMs = max(r.lastMs, v)
			}
		}
	}
}

func (r *sparkLog) unusedEvent(line []byte, name string) *ParseError {
	if !strings.HasPrefix(name, "SparkListener") && !javaClassRe.MatchString(name) {
		return r.bad(line, fmt.Errorf("unknown event %q (not a Spark listener event)", name))
	}
	r.events++
	r.unused[name]++
	return nil
}

// finish builds the run and its skyline once every part is read.
func (r *sparkLog) finish() bool {
	if r.app == nil {
		if r.events == 0 && r.lr.line == 0 {
			return false // an empty file: nothing to say
		}
		r.perr = &ParseError{File: r.file, Line: r.lr.line, Err: fmt.Errorf("no SparkListenerApplicationStart in %d events: no run to attach them to (a log cut at its start?)", r.events)}
		return true
	}
	a := r.app
	startMs := *a.Timestamp
	name := a.AppName
	if name == "" {
		name = r.props["spark.app.name"]
	}
	id := a.AppID
	if id == "" {
		id = r.props["spark.app.id"]
	}
	if id == "" { // the log's name is the app id, with a codec and .inprogress
		id = strings.TrimSuffix(filepath.Base(r.parts[0]), ".inprogress")
		for _, ext := range []string{".lz4", ".snappy", ".zstd", ".zst", ".lzf", ".gz"} {
			id = strings.TrimSuffix(id, ext)
		}
	}
	run := &dataset.Run{Job: normaliseJobName(name), Run: id, Name: name, User: a.User, Queue: r.props["spark.yarn.queue"],
		Status: "RUNNING", SubmitMs: dataset.NoTime, StartMs: startMs, EndMs: dataset.NoTime, Source: "spark-eventlog"}
	endMs := r.lastMs
	if r.hasEnd {
		run.Status, run.EndMs, endMs = "FINISHED", r.endMs, r.endMs
	}
	execs := r.exec
	if !r.executorSeen {
		execs = r.bmExec
		// Without executor events, block managers stand for executors;
		// the driver's counts only when it is the only one (local mode).
		if len(execs) > 1 {
			delete(execs, "driver")
		}
	}
	// An executor holds a container: its memory plus Spark's overhead,
	// rounded up as YARN allocates it (sparkContainerMemory); that is
	// what a reservation of the run's containers must ask for.
	execMem := sparkMemoryBytes(r.props["spark.executor.memory"])
	if execMem > 0 {
		execMem, _ = sparkContainerMemory(r.props, id, execMem, false)
	}
	drvMem := sparkMemoryBytes(r.props["spark.driver.memory"])
	ids := make([]string, 0, len(execs))
	for id := range execs {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return execs[ids[i]].order < execs[ids[j]].order })
	var deltas []stepDelta
	for _, eid := range ids {
		x := execs[eid]
		until := x.removeMs
		if until == dataset.NoTime || until > endMs {
			until = endMs // alive at the end, or removed after it
		}
		from := x.addMs
		if from < startMs {
			r.beforeStart++
			from = startMs
		}
		if until <= from {
			continue
		}
		mem := execMem
		if eid == "driver" {
			mem = drvMem
		}
		deltas = append(deltas,
			stepDelta{OffsetS: float64(from-startMs) / 1000, Containers: 1, MemoryBytes: mem, VCores: x.cores},
			stepDelta{OffsetS: float64(until-startMs) / 1000, Containers: -1, MemoryBytes: -mem, VCores: -x.cores})
	}
	r.rec = jobRecord{Run: run, Samples: stepSamples(run.Job, run.Run, deltas), AppAttempt: a.AttemptID}
	if r.prof != nil {
		r.rec.ProfRuns = r.prof.Runs()
	}
	return true
}

// sparkMemoryBytes is a Spark memory setting for the skyline: unset is
// Spark's default, 1g; unreadable is 0 (unknown).
func sparkMemoryBytes(s string) int64 {
	if strings.TrimSpace(s) == "" {
		return 1 << 30
	}
	b, err := sparkMemory(s)
	if err != nil {
		return 0
	}
	return b
}

// sparkMemory reads a memory setting (spark.executor.memory,
// spark.driver.memory) as Spark does: ConfigBuilder.bytesConf(ByteUnit.MiB),
// that is JavaUtils.byteStringAs(s, MiB), so a bare number is MiB and a
// size below a MiB is truncated to whole MiB ("1536k" is 1 MiB, "100b" is
// 0), as Spark truncates it. The result is in bytes.
func sparkMemory(s string) (int64, error) {
	mib, err := sparkByteString(s, 1<<20)
	if err != nil {
		return 0, err
	}
	if mib > math.MaxInt64>>20 {
		return 0, fmt.Errorf("%q: more bytes than an int64 holds", s)
	}
	return mib << 20, nil
}

// sparkSizeSuffixes are JavaUtils.byteSuffixes: binary units, b to p,
// with or without a trailing b.
var sparkSizeSuffixes = map[string]int64{
	"b": 1, "k": 1 << 10, "kb": 1 << 10, "m": 1 << 20, "mb": 1 << 20, "g": 1 << 30, "gb": 1 << 30,
	"t": 1 << 40, "tb": 1 << 40, "p": 1 << 50, "pb": 1 << 50,
}

// sparkByteString is Spark's JavaUtils.byteStringAs(s, unit) with unit in
// bytes: s lowercased and trimmed of spaces and control characters must
// be ASCII digits and an optional suffix from sparkSizeSuffixes (no sign,
// no fraction, no space between); without a suffix the number is in unit.
// The value is converted to unit as ByteUnit.convertTo does: up by
// multiplying (an overflow is an error), down by integer division.
func sparkByteString(s string, unit int64) (int64, error) {
	v := strings.TrimFunc(strings.ToLower(s), func(r rune) bool { return r <= ' ' }) // Java's trim
	i := 0
	for i < len(v) && v[i] >= '0' && v[i] <= '9' {
		i++
	}
	digits, suffix := v[:i], v[i:]
	if digits == "" {
		return 0, fmt.Errorf("%q: not a size (digits and an optional unit b, k, m, g, t or p)", s)
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q: number out of range", s)
	}
	from := unit
	if suffix != "" {
		var ok bool
		if from, ok = sparkSizeSuffixes[suffix]; !ok {
			return 0, fmt.Errorf("%q: unknown unit %q (b, k, m, g, t or p, with or without a trailing b)", s, suffix)
		}
	}
	if from > unit {
		ratio := from / unit
		if n > math.MaxInt64/ratio {
			return 0, fmt.Errorf("%q: more than an int64 holds in units of %d bytes", s, unit)
		}
		return n * ratio, nil
	}
	return n / (unit / from), nil
}

// Notes says what the log was and what was counted but not used.
func (r *sparkLog) Notes() []string {
	var notes []string
	if len(r.codecs) > 0 {
		notes = append(notes, "Spark compression codec: "+strings.Join(r.codecs, ", "))
	}
	if r.version != "" {
		notes = append(notes, "Spark "+r.version)
	}
	if r.app != nil && !r.hasEnd {
		notes = append(notes, "in progress: no SparkListenerApplicationEnd, so the run has no end (runs.end is null, status RUNNING) and its skyline is cut at the last instant the log shows (event timestamps, task launch and finish, stage and job times)")
	}
	if !r.executorSeen && len(r.bmExec) > 0 {
		notes = append(notes, "no executor events: block managers stand for executors")
	}
	if r.removedEarly > 0 {
		notes = append(notes, fmt.Sprintf("executor removals without a live executor (ignored): %d", r.removedEarly))
	}
	if r.beforeStart > 0 {
		notes = append(notes, fmt.Sprintf("executors added before the application started (counted from its start): %d", r.beforeStart))
	}
	if len(r.unused) > 0 {
		names := make([]string, 0, len(r.unused))
		for n := range r.unused {
			names = append(names, n)
		}
		sort.Strings(names)
		var b strings.Builder
		for i, n := range names {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s %d", strings.TrimPrefix(n, "SparkListener"), r.unused[n])
		}
		notes = append(notes, "events not used for runs, skylines or profiling runs (counted): "+b.String())
	}
	return notes
}
