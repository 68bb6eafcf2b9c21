package ingest

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

// runPrometheus is Run for format prometheus: the server's API instead of
// files.
func runPrometheus(ctx context.Context, tx *dataset.Tx, paths []string, opts Options) (*Result, error) {
	o := opts.Prometheus
	if len(paths) > 0 {
		return nil, fmt.Errorf("prometheus reads --url, not files (%s); a file saved with --save is format prometheus-json", strings.Join(paths, ", "))
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	c, err := newPromClient(o)
	if err != nil {
		return nil, err
	}
	res := &Result{Ingest: tx.Ingest(), Files: []FileResult{}}
	// The URL as recorded (manifest, rejects, notes, the saved file):
	// without a password it may carry.
	shown := c.shown
	s := &sink{tx: tx, format: promFormat, opts: opts, res: res, file: shown, run: &runState{}}
	col := newPromCollector(s, promFormat, o.Step, o.Start, o.End)
	queries := map[string]string{}
	for _, r := range PrometheusRoles() {
		queries[r] = promDefaultQueries[r]
		if q, ok := o.Queries[r]; ok {
			queries[r] = q
		}
	}
	var saver *promSaver
	if o.Save != "" {
		saver, err = newPromSaver(o.Save, promHeader{Format: promFileMarker, Version: 1, URL: shown, StartMs: col.startMs, EndMs: col.endMs,
			StepS: o.Step.Seconds(), LabelStepS: labelStep(o.Step).Seconds(), Queries: queries})
		if err != nil {
			return nil, fmt.Errorf("--save: %w", err)
		}
		defer func() {
			if saver != nil {
				saver.abort()
			}
		}()
	}
	handle := func(p promPiece, body []byte) error {
		if saver != nil {
			if err := saver.add(p, body); err != nil {
				return err
			}
		}
		return col.addBody(p, body, shown, c.queries)
	}
	if err := promFetchAll(ctx, c, col, queries, handle); err != nil {
		return nil, err
	}
	if err := col.finish(ctx); err != nil {
		return nil, err
	}
	if saver != nil {
		if err := saver.commit(); err != nil {
			return nil, fmt.Errorf("--save: %w", err)
		}
		saver = nil
	}
	s.notes = append(col.headNotes(queries), s.notes...)
	fr := FileResult{Path: shown, Format: promFormat, Table: dataset.UsageTable.Name, Accepted: s.accepted, Rejected: s.rejected, Notes: s.notes}
	res.Files = append(res.Files, fr)
	tx.AddSource(dataset.Source{Path: shown, Format: promFormat, Table: fr.Table, SizeBytes: c.bytes,
		SHA256: hex.EncodeToString(c.hash.Sum(nil)), Accepted: fr.Accepted, Rejected: fr.Rejected, Notes: fr.Notes})
	if opts.Progress != nil {
		opts.Progress(fr)
	}
	return res, nil
}

// promFetchAll asks for the label roles over the whole range at the label
// step, then the series roles chunk by chunk.
func promFetchAll(ctx context.Context, c *promClient, col *promCollector, queries map[string]string, handle func(promPiece, []byte) error) error {
	step := time.Duration(col.stepMs) * time.Millisecond
	lstep := col.lstepMs
	// The label grid starts at the range's start and reaches past its end,
	// so that every point of the range is inside some label window.
	lend := col.startMs + (col.endMs-col.startMs+lstep-1)/lstep*lstep
	for _, role := range promLabelRoles {
		for a := col.startMs; a <= lend; a += 10000 * lstep {
			p := promPiece{Role: role, Query: promQuery(queries[role], time.Duration(lstep)*time.Millisecond), StartMs: a,
				EndMs: min(a+(10000-1)*lstep, lend), StepS: float64(lstep) / 1000}
			if err := c.fetch(ctx, p, lstep, handle); err != nil {
				return err
			}
		}
	}
	// The first chunk is short (promProbePoints): it tells how many series
	// there are; each next chunk's length follows the series the last one
	// had, so a response stays near promMaxPoints points however large the
	// cluster (a day of ten thousand containers would be 14 million).
	pts := int64(min(promChunkPoints, promProbePoints))
	for a := col.startMs; a <= col.endMs; a += pts * col.stepMs {
		if col.lastSeries > 0 {
			pts = min(promChunkPoints, max(1, promMaxPoints/col.lastSeries))
		}
		col.lastSeries = 0
		chunk := [2]int64{a, min(a+(pts-1)*col.stepMs, col.endMs)}
		for _, role := range promSeriesRoles {
			p := promPiece{Role: role, Query: promQuery(queries[role], step), StartMs: chunk[0], EndMs: chunk[1], StepS: step.Seconds(), Chunk: chunk}
			if err := c.fetch(ctx, p, col.stepMs, handle); err != nil {
				return err
			}
		}
	}
	return nil
}

// addBody decodes one answered piece and adds it.
func (c *promCollector) addBody(p promPiece, body []byte, file string, line int64) error {
	c.pieces++
	r, err := decodePromResponse(body)
	if err != nil {
		return fmt.Errorf("%s:%d: %s query %s: %w", file, line, p.Role, p.Query, err)
	}
	for _, w := range r.Warnings {
		if note := fmt.Sprintf("server warning on %s: %s", p.Role, w); !c.warned[note] {
			c.warned[note] = true
			c.s.notes = append(c.s.notes, note)
		}
	}
	if p.Chunk == [2]int64{} {
		return c.addLabels(p.Role, r, file, line)
	}
	return c.addSeries(p.Role, r, file, line, p.Chunk)
}

// tenantShape is what a tenant key names, for the mapping note.
var tenantShape = map[string]string{"namespace": "namespace", "workload": "workload's container (NAMESPACE/KIND/NAME/CONTAINER)"}

// headNotes say what was read and how it was mapped.
func (c *promCollector) headNotes(queries map[string]string) []string {
	notes := []string{
		fmt.Sprintf("kubernetes: range %s to %s, step %gs, label step %gs, %d queries", msTime(c.startMs), msTime(c.endMs),
			float64(c.stepMs)/1000, float64(c.lstepMs)/1000, c.pieces),
		"kubernetes: tenant = " + tenantShape[c.key] + ", server = node, utilisation = used / the node's allocatable, nodes' allocatable = machine_events; recurring job = CronJob, run = Job, skyline containers = pods, instances = pods (task = their containers)",
	}
	for _, r := range PrometheusRoles() {
		if q := queries[r]; q != promDefaultQueries[r] {
			notes = append(notes, fmt.Sprintf("query %s = %s", r, q))
		}
	}
	return notes
}

// ingestPromFile reads a prometheus-json file: its header, then one
// answered piece per line.
func ingestPromFile(ctx context.Context, in *Input, s *sink) error {
	br := in.Reader()
	line := int64(0)
	next := func() ([]byte, error) {
		b, err := br.ReadBytes('\n')
		if len(b) > 0 {
			line++
			return bytes.TrimRight(b, "\r\n"), nil
		}
		return nil, err
	}
	first, err := next()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("%s: empty file", in.Path)
		}
		return err
	}
	var h promHeader
	if err := json.Unmarshal(first, &h); err != nil || h.Format != promFileMarker {
		return fmt.Errorf("%s:1: not a %s header (want {\"format\":%q,...})", in.Path, promJSONFormat, promFileMarker)
	}
	if h.Version != 1 {
		return fmt.Errorf("%s:1: %s version %d: this build reads version 1", in.Path, promJSONFormat, h.Version)
	}
	step := time.Duration(h.StepS * float64(time.Second))
	if step < time.Second || time.Duration(h.LabelStepS*float64(time.Second)) != labelStep(step) || h.EndMs < h.StartMs {
		return fmt.Errorf("%s:1: header: step_s %g, label_step_s %g, start_ms %d, end_ms %d do not make a range", in.Path, h.StepS, h.LabelStepS, h.StartMs, h.EndMs)
	}
	col := newPromCollector(s, promJSONFormat, step, time.UnixMilli(h.StartMs), time.UnixMilli(h.EndMs))
	key := []byte(`,"response":`)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		b, err := next()
		if b == nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return err
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		// The envelope's own fields come before "response" and hold no
		// unescaped quote, so the first `,"response":` is the key; the
		// body after it is decoded once, not twice.
		i := bytes.Index(b, key)
		var p promPiece
		if i < 0 || b[len(b)-1] != '}' || json.Unmarshal(append(append([]byte{}, b[:i]...), '}'), &p) != nil || p.Role == "" {
			if err := s.reject(&ParseError{File: in.Path, Line: line, Err: errors.New("not a saved response: want {\"role\",...,\"response\":{...}}"), Record: recordText(b)}); err != nil {
				return err
			}
			continue
		}
		if _, known := promDefaultQueries[p.Role]; !known {
			if err := s.reject(&ParseError{File: in.Path, Line: line, Err: fmt.Errorf("unknown role %q", p.Role), Record: recordText(b[:i])}); err != nil {
				return err
			}
			continue
		}
		if err := col.addBody(p, b[i+len(key):len(b)-1], in.Path, line); err != nil {
			return err
		}
	}
	if err := col.finish(ctx); err != nil {
		return err
	}
	s.notes = append(col.headNotes(h.Queries), s.notes...)
	return nil
}
