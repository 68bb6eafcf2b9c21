package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

const (
	// promChunkPoints bounds the points per series of one series query:
	// under Prometheus' 11,000, and a day at one minute, so a chunk of a
	// thousand containers is tens of megabytes of JSON, not gigabytes.
	promChunkPoints = 1440
	promRetries     = 5
	promBackoff     = 500 * time.Millisecond
	promMaxBackoff  = 8 * time.Second
)

// errPromTooLarge is a query the server refuses for its size; it is split.
var errPromTooLarge = errors.New("query too large for the server")

// promClient asks one server for ranges, retrying what may pass later.
type promClient struct {
	endpoint string // .../api/v1/query_range
	hc       *http.Client
	retries  int
	backoff  time.Duration
	bytes    int64
	hash     hash.Hash
	queries  int64
}

func newPromClient(o PrometheusOptions) (*promClient, error) {
	u, err := url.Parse(strings.TrimRight(o.URL, "/"))
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("--url %q: not a URL", o.URL)
	}
	c := &promClient{endpoint: u.String() + "/api/v1/query_range", hc: o.Client, retries: o.Retries, backoff: o.backoff, hash: sha256.New()}
	if c.hc == nil {
		c.hc = &http.Client{Timeout: 5 * time.Minute}
	}
	if c.retries == 0 {
		c.retries = promRetries
	}
	if c.backoff == 0 {
		c.backoff = promBackoff
	}
	return c, nil
}

// get runs one range query and returns the body of a success.
func (c *promClient) get(ctx context.Context, expr string, startMs, endMs, stepMs int64) ([]byte, error) {
	q := url.Values{}
	q.Set("query", expr)
	q.Set("start", promMsText(startMs))
	q.Set("end", promMsText(endMs))
	q.Set("step", promMsText(stepMs))
	wait := c.backoff
	var last error
	for try := 0; try <= c.retries; try++ {
		if try > 0 {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(wait):
			}
			wait = min(2*wait, promMaxBackoff)
		}
		body, retry, err := c.once(ctx, c.endpoint+"?"+q.Encode())
		if err == nil {
			return body, nil
		}
		if !retry {
			return nil, err
		}
		last = err
	}
	return nil, fmt.Errorf("%w (gave up after %d tries)", last, c.retries+1)
}

// once is one GET; retry says whether trying again may help.
func (c *promClient) once(ctx context.Context, u string) (body []byte, retry bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, false, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, false, ctx.Err()
		}
		return nil, true, fmt.Errorf("GET %s: %v", c.endpoint, err)
	}
	defer resp.Body.Close()
	body, err = io.ReadAll(resp.Body)
	if err != nil {
		return nil, true, fmt.Errorf("GET %s: reading the response: %v", c.endpoint, err)
	}
	c.queries++
	if resp.StatusCode == http.StatusOK {
		return body, false, nil
	}
	var e promResponse
	said := strings.TrimSpace(string(body))
	if json.Unmarshal(body, &e) == nil && e.Status == "error" {
		said = e.ErrorType + ": " + e.Error
	}
	if len(said) > 300 {
		said = said[:300] + "..."
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable:
		return nil, true, fmt.Errorf("GET %s: HTTP %d: %s", c.endpoint, resp.StatusCode, said)
	case (resp.StatusCode == http.StatusBadRequest || resp.StatusCode == http.StatusUnprocessableEntity) &&
		(strings.Contains(said, "exceeded maximum resolution") || strings.Contains(said, "too many samples")):
		return nil, false, fmt.Errorf("%w: HTTP %d: %s", errPromTooLarge, resp.StatusCode, said)
	}
	return nil, false, fmt.Errorf("the Prometheus server refused the query: GET %s: HTTP %d: %s", c.endpoint, resp.StatusCode, said)
}

func promMsText(ms int64) string {
	return strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64)
}

// promPiece is one answered query of a role over [first, last] of a grid.
type promPiece struct {
	Role    string   `json:"role"`
	Query   string   `json:"query"`
	StartMs int64    `json:"start_ms"`
	EndMs   int64    `json:"end_ms"`
	StepS   float64  `json:"step_s"`
	Chunk   [2]int64 `json:"chunk"` // the series chunk it belongs to; label roles [0,0]
}

// fetch answers expr over [first, last] at step, split in halves while the
// server says it is too large, and hands each answered piece on.
func (c *promClient) fetch(ctx context.Context, p promPiece, stepMs int64, handle func(promPiece, []byte) error) error {
	body, err := c.get(ctx, p.Query, p.StartMs, p.EndMs, stepMs)
	if errors.Is(err, errPromTooLarge) && p.EndMs > p.StartMs {
		mid := p.StartMs + (p.EndMs-p.StartMs)/stepMs/2*stepMs
		a, b := p, p
		a.EndMs, b.StartMs = mid, mid+stepMs
		if err := c.fetch(ctx, a, stepMs, handle); err != nil {
			return err
		}
		return c.fetch(ctx, b, stepMs, handle)
	}
	if err != nil {
		return fmt.Errorf("%s query %s over [%s, %s]: %w", p.Role, p.Query, msTime(p.StartMs), msTime(p.EndMs), err)
	}
	c.bytes += int64(len(body))
	c.hash.Write(body)
	return handle(p, body)
}

func msTime(ms int64) string { return time.UnixMilli(ms).UTC().Format(time.RFC3339) }

// promSaver writes the prometheus-json file of an API ingest.
type promSaver struct {
	path string
	f    *os.File
	w    *bytes.Buffer
}

type promHeader struct {
	Format     string            `json:"format"`
	Version    int               `json:"version"`
	URL        string            `json:"url"`
	StartMs    int64             `json:"start_ms"`
	EndMs      int64             `json:"end_ms"`
	StepS      float64           `json:"step_s"`
	LabelStepS float64           `json:"label_step_s"`
	Queries    map[string]string `json:"queries"`
}

func newPromSaver(path string, h promHeader) (*promSaver, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return nil, err
	}
	s := &promSaver{path: path, f: f, w: &bytes.Buffer{}}
	b, _ := json.Marshal(h)
	if _, err := f.Write(append(b, '\n')); err != nil {
		s.abort()
		return nil, err
	}
	return s, nil
}

// add writes one piece: its envelope, then the body as the server sent it
// (compacted onto one line when it had newlines).
func (s *promSaver) add(p promPiece, body []byte) error {
	env, _ := json.Marshal(p)
	s.w.Reset()
	s.w.Write(env[:len(env)-1])
	s.w.WriteString(`,"response":`)
	if bytes.IndexByte(body, '\n') >= 0 {
		if err := json.Compact(s.w, body); err != nil {
			return fmt.Errorf("--save: the response is not JSON: %v", err)
		}
	} else {
		s.w.Write(body)
	}
	s.w.WriteString("}\n")
	_, err := s.f.Write(s.w.Bytes())
	return err
}

func (s *promSaver) commit() error {
	if err := s.f.Sync(); err != nil {
		s.abort()
		return err
	}
	if err := s.f.Close(); err != nil {
		os.Remove(s.f.Name())
		return err
	}
	return os.Rename(s.f.Name(), s.path)
}

func (s *promSaver) abort() {
	s.f.Close()
	os.Remove(s.f.Name())
}

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
	s := &sink{tx: tx, format: promFormat, opts: opts, res: res, file: o.URL}
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
		saver, err = newPromSaver(o.Save, promHeader{Format: promFileMarker, Version: 1, URL: o.URL, StartMs: col.startMs, EndMs: col.endMs,
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
		return col.addBody(p, body, o.URL, c.queries)
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
	fr := FileResult{Path: o.URL, Format: promFormat, Table: dataset.UsageTable.Name, Accepted: s.accepted, Rejected: s.rejected, Notes: s.notes}
	res.Files = append(res.Files, fr)
	tx.AddSource(dataset.Source{Path: o.URL, Format: promFormat, Table: fr.Table, SizeBytes: c.bytes,
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
		for a := col.startMs; a <= lend; a += (10000 - 1) * lstep {
			p := promPiece{Role: role, Query: promQuery(queries[role], time.Duration(lstep)*time.Millisecond), StartMs: a,
				EndMs: min(a+(10000-1)*lstep, lend), StepS: float64(lstep) / 1000}
			if err := c.fetch(ctx, p, lstep, handle); err != nil {
				return err
			}
		}
	}
	for a := col.startMs; a <= col.endMs; a += promChunkPoints * col.stepMs {
		chunk := [2]int64{a, min(a+(promChunkPoints-1)*col.stepMs, col.endMs)}
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
		c.s.notes = append(c.s.notes, fmt.Sprintf("server warning on %s: %s", p.Role, w))
	}
	if p.Chunk == [2]int64{} {
		return c.addLabels(p.Role, r, file, line)
	}
	return c.addSeries(p.Role, r, file, line, p.Chunk)
}

// headNotes say what was read and how it was mapped.
func (c *promCollector) headNotes(queries map[string]string) []string {
	notes := []string{
		fmt.Sprintf("kubernetes: range %s to %s, step %gs, label step %gs, %d queries", msTime(c.startMs), msTime(c.endMs),
			float64(c.stepMs)/1000, float64(c.lstepMs)/1000, c.pieces),
		"kubernetes: tenant = " + c.key + ", server = node, utilisation = used / the node's allocatable; recurring job = CronJob, run = Job, skyline containers = pods, instances = pods",
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
