package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
)

// promResponse is a query_range response body.
type promResponse struct {
	Status    string   `json:"status"`
	ErrorType string   `json:"errorType"`
	Error     string   `json:"error"`
	Warnings  []string `json:"warnings"`
	Data      struct {
		ResultType string       `json:"resultType"`
		Result     []promSeries `json:"result"`
	} `json:"data"`
}

// promSeries is one series of a matrix.
type promSeries struct {
	Metric map[string]string `json:"metric"`
	Values []promPoint       `json:"values"`
}

// promPoint is [unix seconds, "value"]: the time in ms, the value's text
// kept until it is parsed (NaN and ±Inf are rejects, not decode errors).
type promPoint struct {
	Ms int64
	V  []byte
}

// UnmarshalJSON reads [1700000060.5,"0.25"] without the reflection of a
// generic decode: a month of a thousand containers is 86 million of them.
func (p *promPoint) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) < 2 || b[0] != '[' || b[len(b)-1] != ']' {
		return fmt.Errorf("point %.40q: want [time, \"value\"]", b)
	}
	ts, v, ok := bytes.Cut(b[1:len(b)-1], []byte(","))
	if !ok {
		return fmt.Errorf("point %.40q: want [time, \"value\"]", b)
	}
	sec, err := strconv.ParseFloat(string(bytes.TrimSpace(ts)), 64)
	if err != nil || math.IsNaN(sec) || math.IsInf(sec, 0) {
		return fmt.Errorf("point %.40q: time is not a number", b)
	}
	v = bytes.TrimSpace(v)
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return fmt.Errorf("point %.40q: value is not a string", b)
	}
	p.Ms = int64(math.Round(sec * 1000))
	p.V = v[1 : len(v)-1]
	return nil
}

// errPromValue marks a value that is not a finite number.
var errPromValue = errors.New("not a finite number")

// value parses the point's value.
func (p promPoint) value() (float64, error) {
	f, err := strconv.ParseFloat(string(p.V), 64)
	if err != nil {
		return 0, fmt.Errorf("value %q: %w", p.V, errPromValue)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("value %q: %w", p.V, errPromValue)
	}
	return f, nil
}

// decodePromResponse reads a response body. A body that is not a
// response, or whose status is not success, or whose result is not a
// matrix, is an error naming what the server said.
func decodePromResponse(body []byte) (*promResponse, error) {
	var r promResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("not a Prometheus API response: %v", err)
	}
	if r.Status != "success" {
		if r.Status == "error" {
			return &r, fmt.Errorf("the server refused the query: %s: %s", r.ErrorType, r.Error)
		}
		return nil, fmt.Errorf("not a Prometheus API response: status %q", r.Status)
	}
	if r.Data.ResultType != "matrix" {
		return nil, fmt.Errorf("result type %q: a range query gives a matrix", r.Data.ResultType)
	}
	return &r, nil
}

// labelsText is a series' labels as PromQL writes them, sorted, for
// rejects.
func labelsText(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%s=%q", k, m[k])
	}
	b.WriteByte('}')
	return b.String()
}
