// Format "skyline-csv". Runs, skylines and job identity: package doc
// (doc.go).
//
// skyline-csv reads a header naming job, run, time (or offset_s, timestamp),
// containers and optionally memory_bytes and vcores. Time is seconds from
// the run's start when below 1e9, else a timestamp (RFC 3339, epoch seconds
// or milliseconds): one kind per file, set by its first row. With
// timestamps, offsets are from each run's earliest timestamp and the run's
// start and end are its first and last. Rows are samples as above; NaN,
// infinite or negative amounts, a second row at the same time of a run
// (found once the file is read, so reported after the others), and empty job
// or run are rejects. A file's rows are held until its end (40 bytes a row);
// runs are written sorted by job and run.

package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

func init() {
	register(&Format{
		Name:        "skyline-csv",
		Table:       "runs+skylines",
		Description: "skylines as CSV: header job,run,time,containers[,memory_bytes,vcores]; time in seconds from the run's start, or a timestamp",
		Detect: func(name string, head []byte) bool {
			fields, _, _, err := splitCSV(firstLine(head), nil, nil, nil)
			if err != nil {
				return false
			}
			cols, missing := skylineColumns(fields)
			return missing == "" && cols[skyTime] >= 0
		},
		ingest: func(ctx context.Context, in *Input, s *sink) error {
			return drainJobs(ctx, s, newSkylineCSV(in, s.opts.Location))
		},
	})
}

const (
	skyJob = iota
	skyRun
	skyTime
	skyContainers
	skyMemory
	skyVCores
	skyNCols
)

var skylineColumnNames = [skyNCols][]string{
	{"job"}, {"run"}, {"time", "offset_s", "timestamp"}, {"containers"}, {"memory_bytes"}, {"vcores"},
}

// skylineColumns maps header fields to columns; missing names the
// required columns that are absent.
func skylineColumns(fields [][]byte) (cols [skyNCols]int, missing string) {
	for i := range cols {
		cols[i] = -1
	}
	for i, f := range fields {
		f = bytes.ToLower(bytes.TrimSpace(f))
		for c, names := range skylineColumnNames {
			for _, n := range names {
				if string(f) == n && cols[c] < 0 {
					cols[c] = i
				}
			}
		}
	}
	for c := skyJob; c <= skyContainers; c++ {
		if cols[c] < 0 {
			if missing != "" {
				missing += ", "
			}
			missing += skylineColumnNames[c][0]
		}
	}
	return cols, missing
}

// offsetLimit separates offsets from timestamps: a run does not last 1e9 s
// (31 years), and epoch 1e9 s is 2001.
const offsetLimit = 1e9

type skyKey struct{ job, run string }

// skyRow is one accepted row, kept compact: a file's rows stay in memory
// until its end (40 bytes a row).
type skyRow struct {
	t          float64 // offset in s, or epoch ms
	line       int64
	containers float64
	memory     int64
	vcores     float64
}

// skylineCSV reads the whole file (skylines are small: runs × steps),
// rejecting bad rows as it goes, and yields one run with its samples per
// (job, run) at the end, sorted.
type skylineCSV struct {
	jobLines
	file string
	loc  *time.Location
	cols [skyNCols]int
	ncol int

	mode     int // 0 unknown, 1 offsets, 2 timestamps
	modeLine int64
	runs     map[skyKey]*[]skyRow
	keys     []skyKey
	next     int
	lastKey  skyKey // the previous row's run: most files are grouped by run
	lastRows *[]skyRow
	pending  []*ParseError
	built    *jobRecord

	fields  [][]byte
	colsAt  []int
	scratch []byte
	eof     bool
}

func newSkylineCSV(in *Input, loc *time.Location) *skylineCSV {
	if loc == nil {
		loc = time.UTC
	}
	return &skylineCSV{jobLines: jobLines{lr: newLineReader(in)}, file: in.Path, loc: loc, ncol: -1, runs: map[skyKey]*[]skyRow{}}
}

func (r *skylineCSV) Scan() bool {
	r.perr, r.rec = nil, jobRecord{}
	for !r.eof {
		line, err := r.lr.next()
		if err == io.EOF {
			r.eof = true
			r.sortRuns()
			break
		}
		if err != nil && !errors.Is(err, errLineTooLong) {
			r.err = err
			return false
		}
		if err != nil {
			r.perr = r.bad(line, 0, err)
			return true
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if r.ncol < 0 {
			if r.err = r.header(line); r.err != nil {
				return false
			}
			continue
		}
		if perr := r.row(line); perr != nil {
			r.perr = perr
			return true
		}
	}
	for {
		if len(r.pending) > 0 {
			r.perr, r.pending = r.pending[0], r.pending[1:]
			return true
		}
		if r.built != nil {
			r.rec, r.built = *r.built, nil
			return true
		}
		if r.next >= len(r.keys) {
			return false
		}
		k := r.keys[r.next]
		r.next++
		rec := r.build(k, *r.runs[k])
		r.built = &rec
		delete(r.runs, k)
	}
}

func (r *skylineCSV) bad(line []byte, col int, err error) *ParseError {
	return &ParseError{File: r.file, Line: r.lr.line, Col: col, Err: err, Record: recordText(line)}
}

func (r *skylineCSV) header(line []byte) error {
	fields, _, _, err := splitCSV(line, nil, nil, nil)
	if err != nil {
		return fmt.Errorf("%s:%d: header: %v", r.file, r.lr.line, err)
	}
	cols, missing := skylineColumns(fields)
	if missing != "" {
		return fmt.Errorf("%s:%d: header %q lacks column(s) %s (want job,run,time,containers[,memory_bytes,vcores])", r.file, r.lr.line, recordText(line), missing)
	}
	r.cols, r.ncol = cols, len(fields)
	return nil
}

func (r *skylineCSV) row(line []byte) *ParseError {
	var err error
	r.fields, r.colsAt, r.scratch, err = splitCSV(line, r.fields, r.colsAt, r.scratch)
	if err != nil {
		return r.bad(line, 0, err)
	}
	if len(r.fields) != r.ncol {
		return r.bad(line, 0, fmt.Errorf("%d fields, the header has %d", len(r.fields), r.ncol))
	}
	field := func(c int) ([]byte, int) {
		if r.cols[c] < 0 {
			return nil, 0
		}
		return bytes.TrimSpace(r.fields[r.cols[c]]), r.colsAt[r.cols[c]]
	}
	job, jc := field(skyJob)
	run, rc := field(skyRun)
	if len(job) == 0 {
		return r.bad(line, jc, errors.New("empty job"))
	}
	if len(run) == 0 {
		return r.bad(line, rc, errors.New("empty run"))
	}
	tb, tc := field(skyTime)
	mode, t, err := r.readTime(tb)
	if err != nil {
		return r.bad(line, tc, err)
	}
	if r.mode == 0 {
		r.mode, r.modeLine = mode, r.lr.line
	} else if mode != r.mode {
		what := [...]string{"", "an offset in seconds", "a timestamp"}
		return r.bad(line, tc, fmt.Errorf("time %q is %s, but the file's first time (line %d) is %s: one file, one kind", tb, what[mode], r.modeLine, what[r.mode]))
	}
	var s skyRow
	s.t, s.line = t, r.lr.line
	cb, cc := field(skyContainers)
	if s.containers, err = nonNegative(cb, "containers"); err != nil {
		return r.bad(line, cc, err)
	}
	if b, c := field(skyMemory); len(b) > 0 {
		v, err := nonNegative(b, "memory_bytes")
		if err == nil && (v != math.Trunc(v) || v >= 1<<62) {
			err = fmt.Errorf("memory_bytes %q is not a whole number of bytes", b)
		}
		if err != nil {
			return r.bad(line, c, err)
		}
		s.memory = int64(v)
	}
	if b, c := field(skyVCores); len(b) > 0 {
		if s.vcores, err = nonNegative(b, "vcores"); err != nil {
			return r.bad(line, c, err)
		}
	}
	if r.lastRows == nil || string(job) != r.lastKey.job || string(run) != r.lastKey.run {
		k := skyKey{string(job), string(run)}
		rows := r.runs[k]
		if rows == nil {
			rows = new([]skyRow)
			r.runs[k] = rows
			r.keys = append(r.keys, k)
		}
		r.lastKey, r.lastRows = k, rows
	}
	*r.lastRows = append(*r.lastRows, s)
	return nil
}

// readTime reads an offset in seconds (mode 1) or a timestamp in epoch
// milliseconds (mode 2): RFC 3339 text, or a number of at least 1e9
// (epoch seconds or milliseconds).
func (r *skylineCSV) readTime(b []byte) (int, float64, error) {
	if len(b) >= 10 && b[4] == '-' {
		ms, err := parseTimestamp(b, r.loc)
		return 2, float64(ms), err
	}
	v, err := parseFloat(b)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, 0, fmt.Errorf("time %q is neither seconds from the run's start nor a timestamp", b)
	}
	if v < 0 {
		return 0, 0, fmt.Errorf("time %q is negative", b)
	}
	if v < offsetLimit {
		return 1, v, nil
	}
	ms, err := parseTimestamp(b, r.loc)
	return 2, float64(ms), err
}

func nonNegative(b []byte, what string) (float64, error) {
	v, err := parseFloat(b)
	switch {
	case err != nil:
		return 0, fmt.Errorf("%s %q is not a number", what, b)
	case math.IsNaN(v) || math.IsInf(v, 0):
		return 0, fmt.Errorf("%s is %v", what, v)
	case v < 0:
		return 0, fmt.Errorf("%s %v is negative", what, v)
	}
	return v, nil
}

func (r *skylineCSV) sortRuns() {
	sort.Slice(r.keys, func(i, j int) bool {
		a, b := r.keys[i], r.keys[j]
		return a.job < b.job || a.job == b.job && a.run < b.run
	})
}

// build makes the run and its samples: offsets as written, or seconds
// from the run's earliest timestamp. A second row at the same time of the
// same run is rejected here (rejects then follow the file's other ones).
func (r *skylineCSV) build(k skyKey, rows []skyRow) jobRecord {
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].t < rows[j].t })
	kept := rows[:0]
	for i, s := range rows {
		if i > 0 && s.t == rows[i-1].t {
			when := strconv.FormatFloat(s.t, 'g', -1, 64) + " s"
			if r.mode == 2 {
				when = time.UnixMilli(int64(s.t)).UTC().Format(time.RFC3339Nano)
			}
			r.pending = append(r.pending, &ParseError{File: r.file, Line: s.line,
				Err: fmt.Errorf("run %s/%s already has time %s (line %d)", k.job, k.run, when, rows[i-1].line)})
			continue
		}
		kept = append(kept, s)
	}
	rows = kept
	run := &dataset.Run{Job: k.job, Run: k.run, Name: k.job, SubmitMs: dataset.NoTime, StartMs: dataset.NoTime,
		EndMs: dataset.NoTime, Source: "skyline-csv"}
	origin := 0.0
	if r.mode == 2 {
		origin = rows[0].t
		run.StartMs, run.EndMs = int64(rows[0].t), int64(rows[len(rows)-1].t)
	}
	out := make([]dataset.SkylineSample, len(rows))
	for i, s := range rows {
		out[i] = dataset.SkylineSample{Job: k.job, Run: k.run, Containers: s.containers, MemoryBytes: s.memory, VCores: s.vcores}
		if r.mode == 2 {
			out[i].OffsetS = (s.t - origin) / 1000
		} else {
			out[i].OffsetS = s.t
		}
	}
	return jobRecord{Run: run, Samples: out}
}

func (r *skylineCSV) Notes() []string {
	switch r.mode {
	case 1:
		return []string{"time: seconds from each run's start"}
	case 2:
		return []string{"time: timestamps; offsets from each run's first timestamp"}
	}
	return nil
}
