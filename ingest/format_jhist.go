// Format "jhist".
//
// It fills the profruns table that the elasticity stage reads. jhist reads
// a MapReduce job history in Avro-JSON and its <jobid>_conf.xml from the
// same folder into one run per task attempt (Hadoop's Avro-Binary variant
// is decoded with the schema it carries, avro.go; both encodings are
// checked field by field against linkedin/goavro in the tests,
// avro_oracle_test.go; Hadoop 1's text history, Meta VERSION="1" and TYPE
// KEY="VALUE" records, is read by jhist_v1.go, its MAP and REDUCE attempts
// only).

package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/wlprof/wlprof/dataset"
)

// The jhist format: a MapReduce job history file as the JobHistoryServer
// writes it in Avro-JSON (first line "Avro-Json", second line the schema,
// then one event per line), with the job's <jobid>_conf.xml when it lies in
// the same folder. Every task attempt becomes one profiling run:
//
//	task          map or reduce
//	framework     mapreduce
//	memory_bytes  mapreduce.{map,reduce}.memory.mb from the conf (Hadoop's
//	              default 1024 MB when there is no conf; Config says so)
//	runtime_s     attempt finish − attempt start
//	start         the attempt's start time
//	input_bytes   map: the split bytes read (FileInputFormatCounter
//	              BYTES_READ, else HDFS_BYTES_READ); reduce: REDUCE_SHUFFLE_BYTES
//	spilled_*     SPILLED_RECORDS, and spilled bytes estimated from it at the
//	              task's mean record size (the counters count records only)
//	output_*      MAP_OUTPUT_BYTES / MAP_OUTPUT_RECORDS (what the sort buffer held)
//	config        the sort, shuffle, merge and memory keys of the conf, JSON
//
// Failed and killed attempts are runs too, with exit_code 1 and their
// status in Config. Binary job history is
// decoded with the schema on its second line ("Avro-Binary"); an Avro
// object container ("Obj\x01"), which Hadoop does not write, is rejected
// by name.

// jhistConfKeys are the configuration keys an elasticity model reads, by
// exact name or (ending in ".") by prefix.
var jhistConfKeys = []string{
	"mapreduce.map.memory.mb", "mapreduce.reduce.memory.mb",
	"mapreduce.map.java.opts", "mapreduce.reduce.java.opts", "mapred.child.java.opts",
	"mapreduce.job.heap.memory-mb.ratio",
	"mapreduce.task.io.sort.", "mapreduce.map.sort.spill.percent",
	"mapreduce.reduce.shuffle.input.buffer.percent", "mapreduce.reduce.shuffle.memory.limit.percent",
	"mapreduce.reduce.shuffle.merge.percent", "mapreduce.reduce.shuffle.parallelcopies",
	"mapreduce.reduce.input.buffer.percent", "mapreduce.reduce.merge.",
	"mapreduce.map.output.compress", "mapreduce.job.reduces", "mapreduce.job.maps",
	"mapreduce.job.combine.class", "mapreduce.job.reduce.slowstart.completedmaps",
}

func wantConfKey(k string) bool {
	for _, w := range jhistConfKeys {
		if k == w || (strings.HasSuffix(w, ".") && strings.HasPrefix(k, w)) {
			return true
		}
	}
	return false
}

var avroBinaryMagic = []byte("Obj\x01")

func init() {
	register(&Format{
		Name:        "jhist",
		Table:       dataset.ProfRunsTable.Name,
		Description: "MapReduce job history (.jhist, Avro-JSON or Avro-Binary; Hadoop 1's text history) with its _conf.xml beside it: one profiling run per task attempt",
		Detect: func(name string, head []byte) bool {
			if bytes.HasPrefix(head, []byte("Avro-Json")) || bytes.HasPrefix(head, []byte("Avro-Binary")) || strings.HasSuffix(name, ".jhist") ||
				bytes.HasPrefix(head, jhV1Magic) {
				return true
			}
			return strings.HasSuffix(name, "_conf.xml") && bytes.Contains(head, []byte("<configuration")) &&
				bytes.Contains(head, []byte("<name>mapreduce."))
		},
		ingest: ingestJhist,
	})
}

// hadoopConf is a Hadoop configuration file.
type hadoopConf struct {
	Properties []struct {
		Name  string `xml:"name"`
		Value string `xml:"value"`
	} `xml:"property"`
}

// readHadoopConf reads the keys of a <configuration> file.
func readHadoopConf(data []byte) (map[string]string, error) {
	var c hadoopConf
	if err := xml.Unmarshal(data, &c); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, p := range c.Properties {
		out[strings.TrimSpace(p.Name)] = strings.TrimSpace(p.Value)
	}
	return out, nil
}

// jhCounters is the JhCounters record.
type jhCounters struct {
	Groups []struct {
		Name   string `json:"name"`
		Counts []struct {
			Name  string `json:"name"`
			Value int64  `json:"value"`
		} `json:"counts"`
	} `json:"groups"`
}

// get returns a counter by its name in any group whose name ends in group.
func (c *jhCounters) get(group, name string) (int64, bool) {
	if c == nil {
		return 0, false
	}
	for _, g := range c.Groups {
		if !strings.HasSuffix(g.Name, group) {
			continue
		}
		for _, k := range g.Counts {
			if k.Name == name {
				return k.Value, true
			}
		}
	}
	return 0, false
}

// jhCountersField reads JhCounters, bare or as the non-null branch of a
// ["null", "JhCounters"] union ({"org.apache...JhCounters": {...}}).
type jhCountersField struct{ c *jhCounters }

func (f *jhCountersField) UnmarshalJSON(b []byte) error {
	var c jhCounters
	if err := json.Unmarshal(b, &c); err != nil {
		return err
	}
	if c.Groups == nil {
		var u map[string]jhCounters
		if json.Unmarshal(b, &u) == nil && len(u) == 1 {
			for _, v := range u {
				c = v
			}
		}
	}
	f.c = &c
	return nil
}

// jhEvent holds the fields of the events we read (the union of their records).
type jhEvent struct {
	JobID        string          `json:"jobid"`
	JobName      string          `json:"jobName"`
	TaskID       string          `json:"taskid"`
	AttemptID    string          `json:"attemptId"`
	TaskType     string          `json:"taskType"`
	StartTime    *int64          `json:"startTime"`
	FinishTime   *int64          `json:"finishTime"`
	TaskStatus   string          `json:"taskStatus"`
	Status       string          `json:"status"`
	Hostname     string          `json:"hostname"`
	TrackerName  string          `json:"trackerName"`
	Counters     jhCountersField `json:"counters"`
	ShuffleDone  *int64          `json:"shuffleFinishTime"`
	SortDone     *int64          `json:"sortFinishTime"`
	MapFinishDon *int64          `json:"mapFinishTime"`
}

// jhAttempt is one task attempt being assembled.
type jhAttempt struct {
	id, task, kind string
	startLine      int64
	startMs        int64
	host           string
	end            *jhEvent
	endLine        int64
	failed         bool
}

// jhistParse reads a job history: the job's name and id, and its attempts
// in order of first appearance, or rejects for bad events.
type jhistParse struct {
	path           string
	jobName, jobID string
	attempts       []*jhAttempt
	byID           map[string]*jhAttempt
	rejects        []*ParseError
}

func (p *jhistParse) attempt(id string) *jhAttempt {
	a := p.byID[id]
	if a == nil {
		a = &jhAttempt{id: id, startMs: dataset.NoTime}
		p.byID[id] = a
		p.attempts = append(p.attempts, a)
	}
	return a
}

func (p *jhistParse) reject(line int64, rec []byte, err error) {
	p.rejects = append(p.rejects, &ParseError{File: p.path, Line: line, Err: err, Record: recordText(rec)})
}

// parseJhist reads an Avro-JSON job history line by line, or hands a
// binary one ("Avro-Binary") to parseJhistBinary.
func parseJhist(path string, in *Input, ctx context.Context) (*jhistParse, error) {
	p := &jhistParse{path: path, byID: map[string]*jhAttempt{}}
	head := in.Head(64)
	switch {
	case bytes.HasPrefix(head, avroBinaryMagic):
		p.reject(1, nil, errors.New("Avro object container file (Obj\\x01): not a job history as Hadoop writes it (\"Avro-Json\" or \"Avro-Binary\" and its schema); convert it with avro-tools tojson"))
		return p, nil
	case bytes.HasPrefix(head, []byte("Avro-Binary")):
		return p, parseJhistBinary(p, in, ctx)
	case bytes.HasPrefix(head, jhV1Magic):
		return p, parseJhistV1(p, in, ctx)
	}
	lr := newLineReader(in)
	for {
		line, bad, err := lr.nextLine(ctx, path)
		if err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		if bad != nil {
			p.reject(lr.line, line, bad)
			continue
		}
		t := bytes.TrimSpace(line)
		if len(t) == 0 {
			continue
		}
		if lr.line == 1 {
			if string(t) != "Avro-Json" {
				p.reject(lr.line, line, errors.New(`first line is neither "Avro-Json" nor "Avro-Binary": not a job history file`))
				return p, nil
			}
			continue
		}
		p.event(lr.line, t)
	}
	return p, nil
}

// parseJhistBinary decodes the records after the header and schema lines.
// Binary Avro has no sync markers: after a bad record nothing more can be
// read, and one reject says how much was left.
func parseJhistBinary(p *jhistParse, in *Input, ctx context.Context) error {
	data := in.Mapped()
	if data == nil {
		var err error
		if data, err = io.ReadAll(in.Reader()); err != nil {
			return fmt.Errorf("%s: %w", p.path, err)
		}
	}
	_, rest, ok1 := bytes.Cut(data, []byte("\n"))
	schema, body, ok2 := bytes.Cut(rest, []byte("\n"))
	if !ok1 || !ok2 {
		p.reject(1, nil, errors.New("Avro-Binary job history without its schema line"))
		return nil
	}
	typ, err := parseAvroSchema(schema)
	if err != nil {
		p.reject(2, schema, fmt.Errorf("schema: %v", err))
		return nil
	}
	// One value budget for the whole body, not one per record: values that
	// take no bytes (nulls, empty records) can otherwise make each of many
	// small records decode a budget's worth, quadratic in the file's size.
	d := &avroDecoder{buf: body, budget: 1024 + 8*len(body)}
	for n := int64(1); d.off < len(d.buf); n++ {
		if n&0xfff == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		start := d.off
		v, err := d.value(typ, 0)
		if err == nil && d.off == start {
			// A record of no bytes (a schema without fields, or only
			// nulls) would repeat for ever.
			err = errors.New("the schema's record takes no bytes (no fields, or only nulls)")
		}
		if err != nil {
			p.reject(n, nil, fmt.Errorf("binary record %d at byte %d after the schema: %v; the remaining %d bytes cannot be read", n, start, err, len(d.buf)-start))
			return nil
		}
		js, err := json.Marshal(v)
		if err != nil {
			p.reject(n, nil, fmt.Errorf("binary record %d: %v", n, err))
			continue
		}
		p.event(n, js)
	}
	return nil
}

// event reads one event in Avro's JSON encoding; line is its line (JSON)
// or record number (binary).
func (p *jhistParse) event(line int64, t []byte) {
	var ev struct {
		Type  string                     `json:"type"`
		Event map[string]json.RawMessage `json:"event"`
		Name  string                     `json:"name"` // the schema line
	}
	if err := json.Unmarshal(t, &ev); err != nil {
		p.reject(line, t, fmt.Errorf("not a JSON event: %v", err))
		return
	}
	if ev.Type == "record" && ev.Name == "Event" {
		return // the Avro schema
	}
	if ev.Type == "" || len(ev.Event) != 1 {
		p.reject(line, t, errors.New(`want {"type": ..., "event": {"<record name>": {...}}}`))
		return
	}
	var body jhEvent
	for _, raw := range ev.Event {
		if err := json.Unmarshal(raw, &body); err != nil {
			p.reject(line, t, fmt.Errorf("%s: %v", ev.Type, err))
			return
		}
	}
	kind := ""
	switch {
	case strings.HasPrefix(ev.Type, "MAP_ATTEMPT_"):
		kind = "map"
	case strings.HasPrefix(ev.Type, "REDUCE_ATTEMPT_"):
		kind = "reduce"
	}
	switch {
	case ev.Type == "JOB_SUBMITTED":
		p.jobName, p.jobID = body.JobName, body.JobID
	case kind != "" && body.AttemptID == "":
		p.reject(line, t, fmt.Errorf("%s without an attemptId", ev.Type))
	case kind != "" && strings.HasSuffix(ev.Type, "_STARTED"):
		if body.StartTime == nil {
			p.reject(line, t, fmt.Errorf("%s without a startTime", ev.Type))
			return
		}
		a := p.attempt(body.AttemptID)
		a.kind, a.task, a.startMs, a.startLine, a.host = kind, body.TaskID, *body.StartTime, line, body.TrackerName
	case kind != "":
		if body.FinishTime == nil {
			p.reject(line, t, fmt.Errorf("%s without a finishTime", ev.Type))
			return
		}
		a := p.attempt(body.AttemptID)
		a.kind, a.task = kind, body.TaskID
		a.end, a.endLine = &body, line
		a.failed = !strings.HasSuffix(ev.Type, "_FINISHED")
		if body.Hostname != "" {
			a.host = body.Hostname
		}
	}
}

// findConf returns the _conf.xml of job jobID beside path, or "".
func findConf(path, jobID string) string {
	if jobID == "" {
		return ""
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		return ""
	}
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), jobID+"_conf.xml") {
			return filepath.Join(filepath.Dir(path), e.Name())
		}
	}
	return ""
}

func ingestJhist(ctx context.Context, in *Input, s *sink) error {
	runs, rejects, notes, err := readJhist(ctx, in)
	if err != nil {
		return err
	}
	s.notes = append(s.notes, notes...)
	for _, r := range rejects {
		if err := s.reject(r); err != nil {
			return err
		}
	}
	w := s.tx.ProfRuns()
	for i := range runs {
		if err := w.Append(&runs[i]); err != nil {
			return err
		}
		s.accepted++
		s.res.Accepted++
	}
	return nil
}

// readJhist reads one job history input (or its _conf.xml companion, which
// has no records of its own) into runs and rejects.
func readJhist(ctx context.Context, in *Input) (runs []dataset.ProfRun, rejects []*ParseError, notes []string, err error) {
	if strings.HasSuffix(filepath.Base(in.Path), "_conf.xml") {
		return nil, nil, []string{"configuration of a job history file: read with the .jhist beside it"}, nil
	}
	p, err := parseJhist(in.Path, in, ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	rejects = p.rejects
	conf := map[string]string{}
	if c := findConf(in.Path, p.jobID); c != "" {
		data, err := os.ReadFile(c)
		if err == nil {
			conf, err = readHadoopConf(data)
		}
		if err != nil {
			rejects = append(rejects, &ParseError{File: c, Err: fmt.Errorf("job configuration unreadable, history read without it: %v", err)})
			conf = map[string]string{}
		} else {
			notes = append(notes, "configuration from "+filepath.Base(c))
		}
	} else if len(p.attempts) > 0 {
		notes = append(notes, "no <jobid>_conf.xml beside it: memory is Hadoop's default mapreduce.*.memory.mb=1024 and the merge keys their defaults")
	}
	// Normalised as yarn-rm and spark-eventlog name a run's job, so the
	// profiling runs of a recurring job meet its runs in one profile.
	job := normaliseJobName(p.jobName)
	if job == "" {
		job = p.jobID
	}
	for _, a := range p.attempts {
		rec, perr := jhistRun(in.Path, job, p.jobID, a, conf)
		if perr != nil {
			rejects = append(rejects, perr)
			continue
		}
		runs = append(runs, *rec)
	}
	return runs, rejects, notes, nil
}

// jhistRun turns one attempt into a profiling run.
func jhistRun(path, job, jobID string, a *jhAttempt, conf map[string]string) (*dataset.ProfRun, *ParseError) {
	line := a.startLine
	if line == 0 {
		line = a.endLine
	}
	switch {
	case job == "":
		return nil, &ParseError{File: path, Line: line, Err: fmt.Errorf("attempt %s: no JOB_SUBMITTED event names the job", a.id)}
	case a.end == nil:
		return nil, &ParseError{File: path, Line: line, Err: fmt.Errorf("attempt %s started but has no finish event (log cut short?)", a.id)}
	case a.startMs == dataset.NoTime:
		return nil, &ParseError{File: path, Line: a.endLine, Err: fmt.Errorf("attempt %s finished but has no start event", a.id)}
	case *a.end.FinishTime < a.startMs:
		return nil, &ParseError{File: path, Line: a.endLine, Err: fmt.Errorf("attempt %s finishes (%d) before it starts (%d)", a.id, *a.end.FinishTime, a.startMs)}
	}
	c := a.end.Counters.c
	r := &dataset.ProfRun{Job: job, Task: a.kind, Framework: "mapreduce", Source: path,
		RuntimeS: float64(*a.end.FinishTime-a.startMs) / 1000, StartMs: a.startMs}
	if r.RuntimeS == 0 {
		r.RuntimeS = 0.001 // finished within the log's millisecond
	}
	cfg := map[string]any{"attempt": a.id, "job_id": jobID}
	memKey := "mapreduce." + a.kind + ".memory.mb"
	mb := int64(1024)
	if v, ok := conf[memKey]; ok {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 0 {
			mb = n
		}
	} else {
		cfg["memory_source"] = "default " + memKey + "=1024"
	}
	r.MemoryBytes = mb << 20
	keys := make([]string, 0, len(conf))
	for k := range conf {
		if wantConfKey(k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		cfg[k] = conf[k]
	}
	if a.failed {
		r.ExitCode = 1
		st := a.end.Status
		if st == "" {
			st = a.end.TaskStatus
		}
		cfg["status"] = st
	}
	if a.host != "" {
		cfg["host"] = a.host
	}
	tc := "TaskCounter"
	if a.kind == "map" {
		if v, ok := c.get("FileInputFormatCounter", "BYTES_READ"); ok {
			r.InputBytes = v
		} else {
			r.InputBytes, _ = c.get("FileSystemCounter", "HDFS_BYTES_READ")
		}
		r.InputRecords, _ = c.get(tc, "MAP_INPUT_RECORDS")
		r.OutputBytes, _ = c.get(tc, "MAP_OUTPUT_BYTES")
		r.OutputRecords, _ = c.get(tc, "MAP_OUTPUT_RECORDS")
	} else {
		r.InputBytes, _ = c.get(tc, "REDUCE_SHUFFLE_BYTES")
		r.InputRecords, _ = c.get(tc, "REDUCE_INPUT_RECORDS")
	}
	r.SpilledRecords, _ = c.get(tc, "SPILLED_RECORDS")
	// Spilled bytes at the mean record size of what the task sorted.
	bytesPer, recs := r.OutputBytes, r.OutputRecords
	if a.kind == "reduce" {
		bytesPer, recs = r.InputBytes, r.InputRecords
	}
	if recs > 0 && r.SpilledRecords > 0 {
		r.SpilledBytes = int64(float64(r.SpilledRecords) * float64(bytesPer) / float64(recs))
	}
	if v, ok := c.get(tc, "CPU_MILLISECONDS"); ok {
		r.CPUS = float64(v) / 1000
	}
	if v, ok := c.get(tc, "MAP_PHYSICAL_MEMORY_BYTES_MAX"); ok && a.kind == "map" {
		r.PeakRSSBytes = v
	} else if v, ok := c.get(tc, "REDUCE_PHYSICAL_MEMORY_BYTES_MAX"); ok && a.kind == "reduce" {
		r.PeakRSSBytes = v
	} else {
		r.PeakRSSBytes, _ = c.get(tc, "PHYSICAL_MEMORY_BYTES")
	}
	r.ReadBytes, _ = c.get("FileSystemCounter", "FILE_BYTES_READ")
	r.WriteBytes, _ = c.get("FileSystemCounter", "FILE_BYTES_WRITTEN")
	r.Slots = 1
	b, err := json.Marshal(cfg)
	if err != nil {
		return nil, &ParseError{File: path, Line: line, Err: err}
	}
	r.Config = string(b)
	return r, nil
}
