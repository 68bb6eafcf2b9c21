// Format "profruns-csv".
//
// It fills the profruns table that the elasticity stage reads.
// profruns-csv is a header and one run per line (the seven required
// columns, the optional ones, and any other column as a configuration key).

package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/wlprof/wlprof/dataset"
)

// The profruns-csv format: one profiling run per line, with a header.
//
//	job,task,framework,memory_bytes,input_bytes,runtime_s,spilled_bytes[,...]
//
// The seven named columns are required. Optional columns with a known name
// fill the ProfRun field of that name: repetition, slots, cpu_s,
// peak_rss_bytes, read_bytes, write_bytes, exit_code, capped,
// memory_spilled_bytes, spilled_records, output_bytes, output_records,
// input_records, host, source. A column named config holds a JSON object
// of configuration keys; any other column is a configuration key itself
// (mapreduce.reduce.shuffle.input.buffer.percent, spark.memory.fraction,
// ...) and goes into the run's Config JSON, an empty cell meaning "not set".

// profrunsRequired are the columns every profruns-csv file has.
var profrunsRequired = []string{"job", "task", "framework", "memory_bytes", "input_bytes", "runtime_s", "spilled_bytes"}

func init() {
	register(&Format{
		Name:        "profruns-csv",
		Table:       dataset.ProfRunsTable.Name,
		Description: "profiling runs: job,task,framework,memory_bytes,input_bytes,runtime_s,spilled_bytes (+ optional columns; other columns are configuration keys)",
		Detect: func(name string, head []byte) bool {
			_, err := parseProfrunsHeader(firstLine(head))
			return err == nil
		},
		ingest: func(ctx context.Context, in *Input, s *sink) error {
			return drain[dataset.ProfRun](ctx, s, newProfrunsCSV(in), s.tx.ProfRuns())
		},
	})
}

// profrunsHeader maps each column to what it fills.
type profrunsHeader struct {
	names    []string // lower-case column names
	required []bool
	set      []func(r *dataset.ProfRun, v []byte) error
}

// parseProfrunsHeader reads the header line.
func parseProfrunsHeader(line []byte) (*profrunsHeader, error) {
	fields, _, _, err := splitCSV(line, nil, nil, nil)
	if err != nil {
		return nil, err
	}
	h := &profrunsHeader{}
	seen := map[string]bool{}
	for _, f := range fields {
		name := strings.ToLower(strings.TrimSpace(string(f)))
		if name == "" {
			return nil, errors.New("empty column name in the header")
		}
		if seen[name] {
			return nil, fmt.Errorf("column %q appears twice", name)
		}
		seen[name] = true
		h.names = append(h.names, name)
		h.set = append(h.set, profrunsSetter(name))
		req := false
		for _, n := range profrunsRequired {
			req = req || n == name
		}
		h.required = append(h.required, req)
	}
	var missing []string
	for _, n := range profrunsRequired {
		if !seen[n] {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("header lacks %s (want %s)", strings.Join(missing, ", "), strings.Join(profrunsRequired, ","))
	}
	return h, nil
}

// profrunsSetter returns how a column fills a run; nil for a configuration key.
func profrunsSetter(name string) func(r *dataset.ProfRun, v []byte) error {
	str := func(p func(r *dataset.ProfRun) *string, required bool) func(*dataset.ProfRun, []byte) error {
		return func(r *dataset.ProfRun, v []byte) error {
			s := strings.TrimSpace(string(v))
			if required && s == "" {
				return fmt.Errorf("%s is empty", name)
			}
			*p(r) = s
			return nil
		}
	}
	i64 := func(p func(r *dataset.ProfRun) *int64, positive bool) func(*dataset.ProfRun, []byte) error {
		return func(r *dataset.ProfRun, v []byte) error {
			n, err := parseCount(v)
			if err != nil {
				return fmt.Errorf("%s %q: %v", name, v, err)
			}
			if positive && n == 0 {
				return fmt.Errorf("%s is 0, want more than 0", name)
			}
			*p(r) = n
			return nil
		}
	}
	i32 := func(p func(r *dataset.ProfRun) *int32, signed bool) func(*dataset.ProfRun, []byte) error {
		return func(r *dataset.ProfRun, v []byte) error {
			n, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 32)
			if len(bytes.TrimSpace(v)) == 0 {
				n, err = 0, nil
			}
			if err != nil || (!signed && n < 0) {
				return fmt.Errorf("%s %q is not a whole number%s", name, v, map[bool]string{false: " ≥ 0", true: ""}[signed])
			}
			*p(r) = int32(n)
			return nil
		}
	}
	secs := func(p func(r *dataset.ProfRun) *float64, positive bool) func(*dataset.ProfRun, []byte) error {
		return func(r *dataset.ProfRun, v []byte) error {
			x, err := parseFloat(bytes.TrimSpace(v))
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 || (positive && x == 0) || x > 1e9 {
				want := "≥ 0"
				if positive {
					want = "> 0"
				}
				return fmt.Errorf("%s %q is not a number of seconds %s", name, v, want)
			}
			*p(r) = x
			return nil
		}
	}
	switch name {
	case "job":
		return str(func(r *dataset.ProfRun) *string { return &r.Job }, true)
	case "task":
		return str(func(r *dataset.ProfRun) *string { return &r.Task }, true)
	case "framework":
		return func(r *dataset.ProfRun, v []byte) error {
			s := strings.ToLower(strings.TrimSpace(string(v)))
			if s == "" {
				return errors.New("framework is empty (sandbox, mapreduce, spark, tez, ...)")
			}
			r.Framework = s
			return nil
		}
	case "memory_bytes":
		return i64(func(r *dataset.ProfRun) *int64 { return &r.MemoryBytes }, true)
	case "input_bytes":
		return i64(func(r *dataset.ProfRun) *int64 { return &r.InputBytes }, false)
	case "runtime_s":
		return secs(func(r *dataset.ProfRun) *float64 { return &r.RuntimeS }, true)
	case "spilled_bytes":
		return i64(func(r *dataset.ProfRun) *int64 { return &r.SpilledBytes }, false)
	case "cpu_s":
		return secs(func(r *dataset.ProfRun) *float64 { return &r.CPUS }, false)
	case "repetition":
		return i32(func(r *dataset.ProfRun) *int32 { return &r.Repetition }, false)
	case "slots":
		return i32(func(r *dataset.ProfRun) *int32 { return &r.Slots }, false)
	case "exit_code":
		return i32(func(r *dataset.ProfRun) *int32 { return &r.ExitCode }, true)
	case "peak_rss_bytes":
		return i64(func(r *dataset.ProfRun) *int64 { return &r.PeakRSSBytes }, false)
	case "read_bytes":
		return i64(func(r *dataset.ProfRun) *int64 { return &r.ReadBytes }, false)
	case "write_bytes":
		return i64(func(r *dataset.ProfRun) *int64 { return &r.WriteBytes }, false)
	case "memory_spilled_bytes":
		return i64(func(r *dataset.ProfRun) *int64 { return &r.MemorySpilledBytes }, false)
	case "spilled_records":
		return i64(func(r *dataset.ProfRun) *int64 { return &r.SpilledRecords }, false)
	case "output_bytes":
		return i64(func(r *dataset.ProfRun) *int64 { return &r.OutputBytes }, false)
	case "output_records":
		return i64(func(r *dataset.ProfRun) *int64 { return &r.OutputRecords }, false)
	case "input_records":
		return i64(func(r *dataset.ProfRun) *int64 { return &r.InputRecords }, false)
	case "host":
		return str(func(r *dataset.ProfRun) *string { return &r.Host }, false)
	case "source":
		return str(func(r *dataset.ProfRun) *string { return &r.Source }, false)
	case "capped":
		return func(r *dataset.ProfRun, v []byte) error {
			switch strings.ToLower(strings.TrimSpace(string(v))) {
			case "true", "1", "yes":
				r.Capped = true
			case "false", "0", "no", "":
				r.Capped = false
			default:
				return fmt.Errorf("capped %q is not true or false", v)
			}
			return nil
		}
	}
	return nil // "config" and configuration keys
}

// parseCount reads a byte or record count: a whole number ≥ 0, written
// plainly or as an integral float (1.5e9).
func parseCount(v []byte) (int64, error) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return 0, errors.New("empty")
	}
	if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
		if n < 0 {
			return 0, errors.New("negative")
		}
		return n, nil
	}
	x, err := parseFloat(v)
	if err != nil || math.IsNaN(x) || x < 0 || x >= 1<<62 || x != math.Trunc(x) {
		return 0, errors.New("not a whole number ≥ 0")
	}
	return int64(x), nil
}

// profrunsCSV reads a profruns-csv input.
type profrunsCSV struct {
	path   string
	lr     lineReader
	hdr    *profrunsHeader
	rec    dataset.ProfRun
	perr   *ParseError
	err    error
	fields [][]byte
	cols   []int
	buf    []byte
}

func newProfrunsCSV(in *Input) *profrunsCSV {
	return &profrunsCSV{path: in.Path, lr: newLineReader(in)}
}

func (r *profrunsCSV) Err() error { return r.err }

// Line is where the reader is: the current record's line (or row).
func (r *profrunsCSV) Line() int64 { return r.lr.line }

func (r *profrunsCSV) Record() (*dataset.ProfRun, *ParseError) {
	if r.perr != nil {
		return nil, r.perr
	}
	return &r.rec, nil
}

func (r *profrunsCSV) Scan() bool {
	for {
		line, err := r.lr.next()
		if err == io.EOF {
			return false
		}
		if err != nil && !errors.Is(err, errLineTooLong) {
			r.err = fmt.Errorf("%s: %w", r.path, err)
			return false
		}
		if err == nil && len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		r.perr = nil
		if err != nil {
			r.perr = &ParseError{File: r.path, Line: r.lr.line, Err: err, Record: recordText(line)}
			return true
		}
		if r.hdr == nil {
			h, err := parseProfrunsHeader(line)
			if err != nil {
				// Without a header no line can be read: that is an error
				// of the whole input, not of one record.
				r.err = fmt.Errorf("%s:%d: not a profruns-csv header: %v", r.path, r.lr.line, err)
				return false
			}
			r.hdr = h
			continue
		}
		r.parse(line)
		return true
	}
}

// parse reads one data line into r.rec or r.perr.
func (r *profrunsCSV) parse(line []byte) {
	fail := func(col int, err error) {
		r.perr = &ParseError{File: r.path, Line: r.lr.line, Col: col, Err: err, Record: recordText(line)}
	}
	var err error
	r.fields, r.cols, r.buf, err = splitCSV(line, r.fields, r.cols, r.buf)
	if err != nil {
		fail(0, err)
		return
	}
	if len(r.fields) != len(r.hdr.names) {
		fail(0, fmt.Errorf("%d fields, the header has %d", len(r.fields), len(r.hdr.names)))
		return
	}
	r.rec = dataset.ProfRun{Source: r.path}
	var config map[string]any
	for i, f := range r.fields {
		if set := r.hdr.set[i]; set != nil {
			if !r.hdr.required[i] && len(bytes.TrimSpace(f)) == 0 {
				continue // an optional column left empty: not measured
			}
			if err := set(&r.rec, f); err != nil {
				fail(r.cols[i], err)
				return
			}
			continue
		}
		if r.hdr.names[i] == "config" {
			if len(bytes.TrimSpace(f)) == 0 {
				continue
			}
			var obj map[string]any
			if err := json.Unmarshal(f, &obj); err != nil || obj == nil {
				fail(r.cols[i], fmt.Errorf("config is not a JSON object: %q", recordText(f)))
				return
			}
			if config == nil {
				config = map[string]any{}
			}
			for k, v := range obj {
				config[k] = v
			}
			continue
		}
		if v := strings.TrimSpace(string(f)); v != "" {
			if config == nil {
				config = map[string]any{}
			}
			config[r.hdr.names[i]] = v
		}
	}
	if r.rec.Source == "" {
		r.rec.Source = r.path
	}
	if config != nil {
		b, err := json.Marshal(config) // map keys come out sorted
		if err != nil {
			fail(0, fmt.Errorf("config: %v", err))
			return
		}
		r.rec.Config = string(b)
	}
}
