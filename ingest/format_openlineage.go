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
		Description: "OpenLineage RunEvents, JSON or JSON lines (START/COMPLETE/FAIL, inputs/outputs) → provenance and runs",
		Detect: func(name string, head []byte) bool {
			h := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n[")
			return len(h) > 0 && h[0] == '{' && bytes.Contains(head, []byte(`"eventTime"`)) && bytes.Contains(head, []byte(`"runId"`))
		},
		ingest: ingestOpenLineage,
	})
}

// olEvent is the part of an OpenLineage RunEvent the toolkit uses.
type olEvent struct {
	EventType string `json:"eventType"`
	EventTime string `json:"eventTime"`
	Run       struct {
		RunID  string `json:"runId"`
		Facets struct {
			NominalTime *struct {
				NominalStartTime string `json:"nominalStartTime"`
				NominalEndTime   string `json:"nominalEndTime"`
			} `json:"nominalTime"`
		} `json:"facets"`
	} `json:"run"`
	Job struct {
		Namespace string `json:"namespace"`
		Name      string `json:"name"`
	} `json:"job"`
	Inputs  []olDataset `json:"inputs"`
	Outputs []olDataset `json:"outputs"`
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
	return nil
}

type olReader struct {
	s      *sink
	file   string
	loc    *time.Location
	naive  int64
	noType int64
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

// event parses and writes one RunEvent.
func (ol *olReader) event(line int64, raw []byte) error {
	var ev olEvent
	if err := json.Unmarshal(raw, &ev); err != nil {
		return ol.reject(line, raw, fmt.Errorf("not an OpenLineage RunEvent: %v", err))
	}
	var miss []string
	if ev.EventTime == "" {
		miss = append(miss, "eventTime")
	}
	if ev.Run.RunID == "" {
		miss = append(miss, "run.runId")
	}
	if ev.Job.Name == "" {
		miss = append(miss, "job.name")
	}
	if len(miss) > 0 {
		return ol.reject(line, raw, fmt.Errorf("missing %s", strings.Join(miss, ", ")))
	}
	t, naive, err := ol.time(ev.EventTime)
	if err != nil {
		return ol.reject(line, raw, fmt.Errorf("eventTime: %v", err))
	}
	nominal := dataset.NoTime
	if nt := ev.Run.Facets.NominalTime; nt != nil && nt.NominalStartTime != "" {
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
	typ := strings.ToUpper(ev.EventType)
	status, ok := olStatus[typ]
	if !ok {
		status = "UNKNOWN"
		if typ == "" {
			ol.noType++
		}
	}
	job := OpenLineageJob(ev.Job.Namespace, ev.Job.Name)
	run := dataset.Run{Job: job, Run: ev.Run.RunID, Name: ev.Job.Name, Status: status,
		SubmitMs: nominal, StartMs: dataset.NoTime, EndMs: dataset.NoTime, Source: "openlineage"}
	switch typ {
	case "START":
		run.StartMs = t
		if run.SubmitMs == dataset.NoTime {
			run.SubmitMs = t
		}
	case "COMPLETE", "FAIL", "ABORT":
		run.EndMs = t
	}
	tx := ol.s.tx
	if err := tx.Runs().Append(&run); err != nil {
		return err
	}
	p := dataset.Provenance{TimeMs: t, Job: job, Run: ev.Run.RunID, Attribution: "lineage", Cmd: typ}
	for _, d := range ev.Inputs {
		p.Op, p.Path = OpRead, OpenLineagePath(d.Namespace, d.Name)
		if err := tx.Provenance().Append(&p); err != nil {
			return err
		}
	}
	if typ == "COMPLETE" {
		for _, d := range ev.Outputs {
			p.Op, p.Path = OpWrite, OpenLineagePath(d.Namespace, d.Name)
			if err := tx.Provenance().Append(&p); err != nil {
				return err
			}
		}
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
