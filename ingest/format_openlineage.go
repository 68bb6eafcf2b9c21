// OpenLineage (format "openlineage").
//
// RunEvents as JSON lines, a JSON array, or pretty-printed objects one
// after another. An event is one record: it adds one runs row (job
// "namespace/name", run = runId; START gives the start, and the submit time
// unless the nominalTime facet gives it; COMPLETE, FAIL and ABORT give the
// end and status FINISHED, FAILED, KILLED; the slo stage merges the rows of
// a run id) and provenance rows with Attribution "lineage": each input read
// at the event time, and each output of the run written at its COMPLETE
// time. A run may declare its datasets on any of its events (Marquez's demo
// declares them on START only): the outputs of all a run's events, across
// the inputs of one ingest, are merged and each written once when the run
// completes (openlineage_outputs.go); a run with no COMPLETE writes nothing
// and the notes count it. A dataset whose
// name is an absolute path is that path, so lineage and audit edges meet;
// other names are prefixed by their namespace. Times without an offset are
// read in Options.Location and counted in the notes. OpenLineage 2's
// DatasetEvent and JobEvent (told apart by their schemaURL; they have no
// run) are records too, kept as provenance rows of op meta, which move no
// data: a DatasetEvent's dataset (Cmd "DatasetEvent"), a JobEvent's inputs
// and outputs, its job's declared lineage (Cmd "JobEvent input" and
// "JobEvent output"). Events without eventTime, a RunEvent without
// run.runId or job.name, a JobEvent without job.name, a DatasetEvent
// without dataset.name, a nameless dataset, or values that are not JSON
// objects are rejected with their line; in a pretty-printed file a
// syntax error rejects the rest of the file as one record.

package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

func init() {
	register(&Format{
		Name:        "openlineage",
		Table:       dataset.ProvenanceTable.Name,
		Description: "OpenLineage RunEvents, JSON or JSON lines (START/COMPLETE/FAIL, inputs/outputs; OpenLineage 2 DatasetEvents and JobEvents as metadata) → provenance and runs",
		Detect: func(name string, head []byte) bool {
			h := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n[")
			return len(h) > 0 && h[0] == '{' && bytes.Contains(head, []byte(`"eventTime"`)) &&
				(bytes.Contains(head, []byte(`"runId"`)) || bytes.Contains(head, []byte(`/definitions/DatasetEvent"`)) || bytes.Contains(head, []byte(`/definitions/JobEvent"`)))
		},
		ingest: ingestOpenLineage,
	})
}

// olEvent is the part of an OpenLineage RunEvent the toolkit uses.
type olEvent struct {
	EventType string `json:"eventType"`
	EventTime string `json:"eventTime"`
	SchemaURL string `json:"schemaURL"`
	// Dataset is the subject of an OpenLineage 2 DatasetEvent.
	Dataset *olDataset `json:"dataset"`
	// Run is nil when the event has none: an OpenLineage 2 DatasetEvent
	// or JobEvent, or a RunEvent that lost it.
	Run *olRun `json:"run"`
	Job struct {
		Namespace string `json:"namespace"`
		Name      string `json:"name"`
	} `json:"job"`
	Inputs  []olDataset `json:"inputs"`
	Outputs []olDataset `json:"outputs"`
}

type olRun struct {
	RunID  string `json:"runId"`
	Facets struct {
		NominalTime *struct {
			NominalStartTime string `json:"nominalStartTime"`
			NominalEndTime   string `json:"nominalEndTime"`
		} `json:"nominalTime"`
	} `json:"facets"`
}

type olDataset struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// OpenLineageJob is the job identity of an OpenLineage job: "namespace/name"
// (the name alone when the namespace is empty).
func OpenLineageJob(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// OpenLineagePath is the provenance path of a dataset. A name that is an
// absolute path (HDFS, local files) is the path itself, so lineage and HDFS
// audit edges meet on the same node; other names are prefixed with their
// namespace ("postgres://db:5432/sales.orders").
func OpenLineagePath(namespace, name string) string {
	if strings.HasPrefix(name, "/") || namespace == "" {
		return name
	}
	return strings.TrimSuffix(namespace, "/") + "/" + name
}

// olStatus maps eventType to the runs table's YARN-style status.
var olStatus = map[string]string{
	"START": "RUNNING", "RUNNING": "RUNNING", "COMPLETE": "FINISHED", "FAIL": "FAILED", "ABORT": "KILLED",
}

// ingestOpenLineage reads RunEvents: one JSON object per line, a JSON array
// of events, or pretty-printed objects one after another. Each event adds
// one runs row (partial: a START row has the start, a COMPLETE row the end;
// the slo stage merges rows of one run id) and one provenance row per input
// (op read, at the event time) and, for COMPLETE, per output (op write).
// An event is one record: accepted, or rejected with its line.
//
// Times without a UTC offset are read in Options.Location. The nominalTime
// facet's start, when present, is the run's submit time: it is the
// scheduler's intended instant, which is what the period is found from.
func ingestOpenLineage(ctx context.Context, in *Input, s *sink) error {
	ol := &olReader{s: s, file: in.Path, loc: s.opts.Location}
	if ol.loc == nil {
		ol.loc = time.UTC
	}
	head := bytes.TrimLeft(bytes.TrimPrefix(in.Head(headBytes), []byte("\xef\xbb\xbf")), " \t\r\n")
	var err error
	switch first := firstLine(in.Head(headBytes)); {
	case len(head) > 0 && head[0] == '[':
		err = ol.document(ctx, in)
	case json.Valid(first) || len(bytes.TrimSpace(first)) == 0 && len(head) == 0:
		err = ol.lines(ctx, in)
	default:
		err = ol.document(ctx, in)
	}
	if err != nil {
		return err
	}
	if ol.naive > 0 {
		s.notes = append(s.notes, fmt.Sprintf("%d event times without a UTC offset read in %s", ol.naive, ol.loc))
	}
	if ol.noType > 0 {
		s.notes = append(s.notes, fmt.Sprintf("%d events without eventType kept as status UNKNOWN", ol.noType))
	}
	if ol.datasetEvents > 0 {
		s.notes = append(s.notes, fmt.Sprintf("%d DatasetEvents (OpenLineage 2, no run) kept as provenance rows of op meta", ol.datasetEvents))
	}
	if ol.jobEvents > 0 {
		s.notes = append(s.notes, fmt.Sprintf("%d JobEvents (OpenLineage 2, no run) kept as provenance rows of op meta: "+
			"their inputs and outputs are the job's declared lineage, not reads or writes of a run", ol.jobEvents))
	}
	return nil
}

type olReader struct {
	s      *sink
	file   string
	loc    *time.Location
	naive  int64
	noType int64
	// datasetEvents and jobEvents count the OpenLineage 2 events without a
	// run, for the notes.
	datasetEvents, jobEvents int64
}

// lines reads JSON lines.
func (ol *olReader) lines(ctx context.Context, in *Input) error {
	lr := newLineReader(in)
	for n := 0; ; n++ {
		line, err := lr.next()
		if err == io.EOF {
			return nil
		}
		if err != nil && !errors.Is(err, errLineTooLong) {
			return fmt.Errorf("%s: %w", ol.file, err)
		}
		if n&0xfff == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			if err := ol.reject(lr.line, line, err); err != nil {
				return err
			}
			continue
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := ol.event(lr.line, line); err != nil {
			return err
		}
	}
}

// maxDocumentBytes bounds a pretty-printed or array input, which is read
// whole; large lineage exports are JSON lines.
const maxDocumentBytes = 1 << 30

// document reads an array of events or objects one after another.
func (ol *olReader) document(ctx context.Context, in *Input) error {
	data := in.Mapped()
	if data == nil {
		var err error
		if data, err = io.ReadAll(io.LimitReader(in.Reader(), maxDocumentBytes+1)); err != nil {
			return fmt.Errorf("%s: %w", ol.file, err)
		}
	}
	if len(data) > maxDocumentBytes {
		return fmt.Errorf("%s: a JSON document over %d bytes; write JSON lines instead", ol.file, maxDocumentBytes)
	}
	// lineAt counts lines from where it last stopped: offsets only grow,
	// so a document is counted through once, not once per event.
	lastOff, lastLine := int64(0), int64(1)
	lineAt := func(off int64) int64 {
		lastLine += int64(bytes.Count(data[lastOff:off], []byte("\n")))
		lastOff = off
		return lastLine
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	trimmed := bytes.TrimLeft(data, " \t\r\n\xef\xbb\xbf")
	array := len(trimmed) > 0 && trimmed[0] == '['
	if array {
		if _, err := dec.Token(); err != nil {
			return ol.reject(1, data, err)
		}
	}
	for n := 0; ; n++ {
		if n&0xff == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if array && !dec.More() {
			return ol.arrayEnd(dec, data, lineAt)
		}
		// Skip whitespace so that the offset is where the value starts.
		start := dec.InputOffset()
		for int(start) < len(data) && strings.IndexByte(" \t\r\n,", data[start]) >= 0 {
			start++
		}
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			// The decoder cannot resynchronise: what is left is one reject.
			end := min(int(start)+maxRecordText, len(data))
			return ol.reject(lineAt(start), data[start:end], fmt.Errorf("bad JSON: %v", err))
		}
		if err := ol.event(lineAt(start), raw); err != nil {
			return err
		}
	}
}

// arrayEnd reads the ']' that closes a document's array: an array that
// is never closed (a truncated export) or text after it is a reject, not
// silently the end of the input.
func (ol *olReader) arrayEnd(dec *json.Decoder, data []byte, lineAt func(int64) int64) error {
	off := dec.InputOffset()
	if tok, err := dec.Token(); err != nil || tok != json.Delim(']') {
		if err == nil || err == io.EOF {
			err = errors.New("the JSON array is not closed with ']' (a truncated document?)")
		}
		end := min(int(off)+maxRecordText, len(data))
		return ol.reject(lineAt(off), data[off:end], fmt.Errorf("bad JSON: %v", err))
	}
	off = dec.InputOffset()
	rest := bytes.TrimLeft(data[off:], " \t\r\n")
	if len(rest) > 0 {
		off = int64(len(data) - len(rest))
		return ol.reject(lineAt(off), rest[:min(len(rest), maxRecordText)], errors.New("text after the JSON array"))
	}
	return nil
}

func (ol *olReader) reject(line int64, rec []byte, err error) error {
	return ol.s.reject(&ParseError{File: ol.file, Line: line, Err: err, Record: recordText(rec)})
}

// Kinds of OpenLineage events, told apart by the schemaURL the spec
// requires of every event ("…/OpenLineage.json#/definitions/JobEvent").
const (
	olRunEvent     = "RunEvent"
	olJobEvent     = "JobEvent"
	olDatasetEvent = "DatasetEvent"
)

// kind says which event ev is. Only an event without a run can be a
// DatasetEvent or a JobEvent: a RunEvent that lost its run stays a
// RunEvent (and a reject) unless its schemaURL says otherwise, or it
// holds a dataset and no job as only a DatasetEvent does.
func (ev *olEvent) kind() string {
	if ev.Run != nil {
		return olRunEvent
	}
	switch {
	case strings.HasSuffix(ev.SchemaURL, "/"+olDatasetEvent):
		return olDatasetEvent
	case strings.HasSuffix(ev.SchemaURL, "/"+olJobEvent):
		return olJobEvent
	case ev.Dataset != nil && ev.Job.Name == "":
		return olDatasetEvent
	}
	return olRunEvent
}

// event parses and writes one event.
func (ol *olReader) event(line int64, raw []byte) error {
	var ev olEvent
	if err := json.Unmarshal(raw, &ev); err != nil {
		return ol.reject(line, raw, fmt.Errorf("not an OpenLineage RunEvent: %v", err))
	}
	kind := ev.kind()
	run := ev.Run
	if run == nil {
		run = &olRun{}
	}
	var miss []string
	if ev.EventTime == "" {
		miss = append(miss, "eventTime")
	}
	switch kind {
	case olRunEvent:
		if run.RunID == "" {
			miss = append(miss, "run.runId")
		}
		if ev.Job.Name == "" {
			miss = append(miss, "job.name")
		}
	case olJobEvent:
		if ev.Job.Name == "" {
			miss = append(miss, "job.name")
		}
	case olDatasetEvent:
		if ev.Dataset == nil || ev.Dataset.Name == "" {
			miss = append(miss, "dataset.name")
		}
	}
	if len(miss) > 0 {
		return ol.reject(line, raw, fmt.Errorf("missing %s", strings.Join(miss, ", ")))
	}
	t, naive, err := ol.time(ev.EventTime)
	if err != nil {
		return ol.reject(line, raw, fmt.Errorf("eventTime: %v", err))
	}
	nominal := dataset.NoTime
	if nt := run.Facets.NominalTime; nt != nil && nt.NominalStartTime != "" {
		if nominal, _, err = ol.time(nt.NominalStartTime); err != nil {
			return ol.reject(line, raw, fmt.Errorf("nominalStartTime: %v", err))
		}
	}
	for _, d := range append(ev.Inputs, ev.Outputs...) {
		if d.Name == "" {
			return ol.reject(line, raw, errors.New("a dataset without a name"))
		}
	}
	if naive {
		ol.naive++
	}
	if kind != olRunEvent {
		return ol.metadata(kind, t, &ev)
	}
	typ := strings.ToUpper(ev.EventType)
	status, ok := olStatus[typ]
	if !ok {
		status = "UNKNOWN"
		if typ == "" {
			ol.noType++
		}
	}
	job := OpenLineageJob(ev.Job.Namespace, ev.Job.Name)
	r := dataset.Run{Job: job, Run: run.RunID, Name: ev.Job.Name, Status: status,
		SubmitMs: nominal, StartMs: dataset.NoTime, EndMs: dataset.NoTime, Source: "openlineage"}
	switch typ {
	case "START":
		r.StartMs = t
		if r.SubmitMs == dataset.NoTime {
			r.SubmitMs = t
		}
	case "COMPLETE", "FAIL", "ABORT":
		r.EndMs = t
	}
	tx := ol.s.tx
	if err := tx.Runs().Append(&r); err != nil {
		return err
	}
	p := dataset.Provenance{TimeMs: t, Job: job, Run: run.RunID, Attribution: "lineage", Cmd: typ}
	for _, d := range ev.Inputs {
		p.Op, p.Path = OpRead, OpenLineagePath(d.Namespace, d.Name)
		if err := tx.Provenance().Append(&p); err != nil {
			return err
		}
	}
	if err := ol.outputs(job, run.RunID, typ, t, ev.Outputs); err != nil {
		return err
	}
	ol.s.accepted++
	ol.s.res.Accepted++
	return nil
}

// metadata writes what a DatasetEvent or JobEvent carries as provenance
// rows of op meta, which move no data: a JobEvent's inputs and outputs
// are the job's declared lineage, not a read or a write at eventTime, and
// a DatasetEvent says a dataset exists (with its facets) at eventTime.
// Cmd says which ("JobEvent input", "JobEvent output", "DatasetEvent").
func (ol *olReader) metadata(kind string, t int64, ev *olEvent) error {
	tx := ol.s.tx
	p := dataset.Provenance{TimeMs: t, Op: OpMeta, Attribution: "lineage"}
	if kind == olDatasetEvent {
		p.Path, p.Cmd = OpenLineagePath(ev.Dataset.Namespace, ev.Dataset.Name), olDatasetEvent
		if err := tx.Provenance().Append(&p); err != nil {
			return err
		}
		ol.datasetEvents++
	} else {
		p.Job = OpenLineageJob(ev.Job.Namespace, ev.Job.Name)
		for _, io := range [2]struct {
			cmd string
			ds  []olDataset
		}{{olJobEvent + " input", ev.Inputs}, {olJobEvent + " output", ev.Outputs}} {
			for _, d := range io.ds {
				p.Path, p.Cmd = OpenLineagePath(d.Namespace, d.Name), io.cmd
				if err := tx.Provenance().Append(&p); err != nil {
					return err
				}
			}
		}
		ol.jobEvents++
	}
	ol.s.accepted++
	ol.s.res.Accepted++
	return nil
}

// time parses an RFC 3339 instant, with or without an offset, and says
// whether it had none.
func (ol *olReader) time(v string) (int64, bool, error) {
	b := []byte(v)
	naive := len(b) >= 19 && !bytes.ContainsAny(b[19:], "Zz+-")
	ms, err := parseRFC3339(b, ol.loc)
	return ms, naive, err
}
