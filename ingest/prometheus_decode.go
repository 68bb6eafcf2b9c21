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

// promSeries is one series of a matrix. Its values are read by hand
// (parseValues) from the raw bytes: a month of a thousand containers is 86
// million points, and a generic decode of [t,"v"] pairs spent most of the
// ingest in reflection.
type promSeries struct {
	Metric map[string]string `json:"metric"`
	Raw    json.RawMessage   `json:"values"`
	Values []promPoint       `json:"-"`
}

// promPoint is [unix seconds, "value"]: the time in ms, the value's text
// kept until it is parsed (NaN and ±Inf are rejects, not decode errors).
type promPoint struct {
	Ms int64
	V  []byte
}

// parseValues reads [[t,"v"],...] (JSON whitespace allowed between tokens).
func parseValues(b []byte, out []promPoint) ([]promPoint, error) {
	i := 0
	skip := func() {
		for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
			i++
		}
	}
	bad := func(what string) error {
		lo := max(0, i-20)
		return fmt.Errorf("values at byte %d (%.40q): %s", i, b[lo:min(len(b), i+20)], what)
	}
	skip()
	if i >= len(b) || b[i] != '[' {
		return out, bad("want an array of [time, \"value\"]")
	}
	i++
	skip()
	if i < len(b) && b[i] == ']' {
		i++
		skip()
		if i != len(b) {
			return out, bad("text after the values")
		}
		return out, nil
	}
	for {
		skip()
		if i >= len(b) || b[i] != '[' {
			return out, bad("want [time, \"value\"]")
		}
		i++
		skip()
		j := i
		for i < len(b) && b[i] != ',' && b[i] != ' ' && b[i] != ']' {
			i++
		}
		sec, err := strconv.ParseFloat(string(b[j:i]), 64)
		if err != nil || math.IsNaN(sec) || math.IsInf(sec, 0) {
			return out, bad("time is not a number")
		}
		skip()
		if i >= len(b) || b[i] != ',' {
			return out, bad("want , after the time")
		}
		i++
		skip()
		if i >= len(b) || b[i] != '"' {
			return out, bad("value is not a string")
		}
		i++
		j = i
		for i < len(b) && b[i] != '"' {
			i++
		}
		if i >= len(b) {
			return out, bad("unterminated value")
		}
		out = append(out, promPoint{Ms: int64(math.Round(sec * 1000)), V: b[j:i]})
		i++
		skip()
		if i >= len(b) || b[i] != ']' {
			return out, bad("want ] after the value")
		}
		i++
		skip()
		if i < len(b) && b[i] == ',' {
			i++
			continue
		}
		if i < len(b) && b[i] == ']' {
			i++
			skip()
			if i != len(b) {
				return out, bad("text after the values")
			}
			return out, nil
		}
		return out, bad("want , or ]")
	}
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
	for i := range r.Data.Result {
		sr := &r.Data.Result[i]
		var err error
		if sr.Values, err = parseValues(sr.Raw, nil); err != nil {
			return nil, fmt.Errorf("not a Prometheus API response: series %d %s: %v", i+1, labelsText(sr.Metric), err)
		}
		sr.Raw = nil
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
