package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
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
)

const (
	// promChunkPoints bounds the points per series of one series query:
	// under Prometheus' 11,000, and a day at one minute, so a chunk of a
	// thousand containers is tens of megabytes of JSON, not gigabytes.
	promChunkPoints = 1440
	promProbePoints = 60 // the first series chunk's points
	promRetries     = 5
	promBackoff     = 500 * time.Millisecond
	promMaxBackoff  = 8 * time.Second
)

// promMaxPoints is about how many points one series response holds at
// most once the series are known (50 MB of JSON, 80 MB decoded); a
// variable for the test of it.
var promMaxPoints int64 = 2_000_000

// errPromTooLarge is a query the server refuses for its size; it is split.
var errPromTooLarge = errors.New("query too large for the server")

// promClient asks one server for ranges, retrying what may pass later.
type promClient struct {
	endpoint string // .../api/v1/query_range
	shown    string // the server's URL with any password masked
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
	c := &promClient{endpoint: u.String() + "/api/v1/query_range", shown: u.Redacted(), hc: o.Client, retries: o.Retries, backoff: o.backoff, hash: sha256.New()}
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
		return nil, true, fmt.Errorf("GET %s: %v", c.shown, err)
	}
	defer resp.Body.Close()
	body, err = io.ReadAll(resp.Body)
	if err != nil {
		return nil, true, fmt.Errorf("GET %s: reading the response: %v", c.shown, err)
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
		return nil, true, fmt.Errorf("GET %s: HTTP %d: %s", c.shown, resp.StatusCode, said)
	case (resp.StatusCode == http.StatusBadRequest || resp.StatusCode == http.StatusUnprocessableEntity) &&
		(strings.Contains(said, "exceeded maximum resolution") || strings.Contains(said, "too many samples")):
		return nil, false, fmt.Errorf("%w: HTTP %d: %s", errPromTooLarge, resp.StatusCode, said)
	}
	return nil, false, fmt.Errorf("the Prometheus server refused the query: GET %s: HTTP %d: %s", c.shown, resp.StatusCode, said)
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
