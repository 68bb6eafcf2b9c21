// What every Alibaba 2018 reader shares.
//
// Every Alibaba 2018 reader skips a first line naming the schema's columns
// (subsets re-exported by the trace's users often have one; auto detects
// a file by it alone) and reads a count or whole seconds written as an
// integral float ("1.0", from a float column of the re-export) as the
// integer; a fraction where a count is due ("2.5") stays a reject.

package ingest

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/wlprof/wlprof/dataset"
)

// Column names of the Alibaba cluster-trace-v2018 tables, as the trace's
// schema (schema.txt, schema.md) lists them. The published files have no
// header; subsets re-exported by their users (pandas and the like) often
// have one line of these names, which the readers skip and auto detects.
var (
	alibabaMachineUsageCols = []string{"machine_id", "time_stamp", "cpu_util_percent", "mem_util_percent", "mem_gps", "mkpi", "net_in", "net_out", "disk_io_percent"}
	alibabaMachineMetaCols  = []string{"machine_id", "time_stamp", "failure_domain_1", "failure_domain_2", "cpu_num", "mem_size", "status"}
	alibabaBatchTaskCols    = []string{"task_name", "instance_num", "job_name", "task_type", "status", "start_time", "end_time", "plan_cpu", "plan_mem"}
)

// isHeaderOf reports whether line is a header naming cols in order: each
// field, without quotes and surrounding blanks, the column's name in any
// case. A line of other names is not a header but a record (and a reject).
func isHeaderOf(line []byte, cols []string) bool {
	f := fieldsOf(line, len(cols))
	if f == nil {
		return false
	}
	for i, c := range cols {
		if !strings.EqualFold(string(bytes.TrimSpace(f[i])), c) {
			return false
		}
	}
	return true
}

// alibabaDetect is the Detect of an Alibaba table of cols: a header naming
// them, or a first row of as many fields that ok accepts.
func alibabaDetect(cols []string, ok func(f [][]byte) bool) func(name string, head []byte) bool {
	return func(_ string, head []byte) bool {
		first, header := alibabaRows(head, cols)
		if header {
			return true
		}
		f := fieldsOf(first, len(cols))
		return f != nil && ok(f)
	}
}

// alibabaRows is the first line of head that is not a header of cols,
// and whether a header came before it.
func alibabaRows(head []byte, cols []string) (first []byte, header bool) {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	for len(head) > 0 {
		var line []byte
		line, head, _ = bytes.Cut(head, []byte("\n"))
		line = bytes.TrimRight(line, "\r")
		switch {
		case len(bytes.TrimSpace(line)) == 0:
		case !header && isHeaderOf(line, cols):
			header = true
		default:
			return line, header
		}
	}
	return nil, header
}

// countOf reads a count (or whole seconds) written as an integer or as an
// integral float: re-exports that went through a float column write 1 as
// "1.0" (or "1e3"). A fraction ("1.5") is not a count.
func countOf(b []byte) (int64, bool) {
	if n, ok := plainInt(b); ok {
		return n, true
	}
	if len(b) == 0 || b[0] == '-' || b[0] == '+' {
		return 0, false
	}
	x, err := parseFloat(b)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 || x >= 1<<53 || x != math.Trunc(x) {
		return 0, false
	}
	return int64(x), true
}

// headerSkipper returns a lineRecords header check for cols that counts
// the header it skips, for the notes.
func headerSkipper(cols []string, skipped *bool) func([]byte) bool {
	return func(line []byte) bool {
		if isHeaderOf(line, cols) {
			*skipped = true
			return true
		}
		return false
	}
}

const alibabaHeaderNote = "a header line naming the schema's columns was skipped"

// alibabaSplit splits a line of the Alibaba table of cols into r's
// fields: one a column, and the columns at required not empty.
func (r *csvRow) alibabaSplit(line []byte, lineNo int64, cols []string, required ...int) (*ParseError, func(int, error) *ParseError) {
	bad, reject := r.splitAny(line, lineNo)
	if bad != nil {
		return bad, reject
	}
	if len(r.fields) != len(cols) {
		return reject(0, fmt.Errorf("%d fields, want %d (%s)", len(r.fields), len(cols), strings.Join(cols, ","))), reject
	}
	for _, i := range required {
		if len(r.fields[i]) == 0 {
			return reject(r.cols[i], fmt.Errorf("empty %s", cols[i])), reject
		}
	}
	return nil, reject
}

// alibabaUtil reads cpu_util_percent and mem_util_percent, columns col
// and col+1 of machine_usage and container_usage, as fractions: memory is
// NaN (unknown) when empty, an empty cpu a reject.
func alibabaUtil(f [][]byte, c []int, col int, reject func(int, error) *ParseError) (cpu, mem float64, perr *ParseError) {
	cpu, err := percentField(f[col], "cpu_util_percent")
	if err != nil {
		return 0, 0, reject(c[col], err)
	}
	mem = math.NaN()
	if len(f[col+1]) > 0 {
		if mem, err = percentField(f[col+1], "mem_util_percent"); err != nil {
			return 0, 0, reject(c[col+1], err)
		}
	}
	return cpu, mem, nil
}

// alibabaSpan reads batch_task's and batch_instance's start_time and
// end_time (columns 5 and 6: whole seconds from the trace start at
// startMs; empty or 0, outside the trace's 8 days, is NoTime) and
// refuses an end before the start.
func alibabaSpan(f [][]byte, c []int, startMs int64, reject func(int, error) *ParseError) ([2]int64, *ParseError) {
	times := [2]int64{dataset.NoTime, dataset.NoTime}
	for k, col := range [2]int{5, 6} {
		if len(f[col]) == 0 {
			continue
		}
		t, ok := countOf(f[col])
		if !ok || t > 1e11 {
			return times, reject(c[col], fmt.Errorf("%s %q is not seconds from the trace start", [2]string{"start_time", "end_time"}[k], f[col]))
		}
		if t > 0 { // 0: before or after the trace's 8 days
			times[k] = startMs + t*1000
		}
	}
	if times[0] != dataset.NoTime && times[1] != dataset.NoTime && times[1] < times[0] {
		return times, reject(c[6], fmt.Errorf("end_time %s is before start_time %s", f[6], f[5]))
	}
	return times, nil
}

// alibabaStage is the stage and parents of a task_name (col its column):
// the task number and the tasks it waits for, or the whole name for a
// name that carries no DAG; a task that waits for itself is a reject.
func alibabaStage(name string, col int, reject func(int, error) *ParseError) (string, []string, *ParseError) {
	stage, parents, dag := parseTaskName(name)
	if !dag {
		stage = name
	}
	for _, q := range parents {
		if q == stage {
			return "", nil, reject(col, fmt.Errorf("task_name %q: task %s waits for itself", name, stage))
		}
	}
	return stage, parents, nil
}

// parseTaskName splits a DAG task name into its stage and parents; ok is
// false for names that carry no DAG.
func parseTaskName(name string) (stage string, parents []string, ok bool) {
	i := 0
	for i < len(name) && (name[i] < '0' || name[i] > '9') {
		if name[i] == '_' {
			return "", nil, false
		}
		i++
	}
	if i == 0 || i == len(name) {
		return "", nil, false
	}
	parts := strings.Split(name[i:], "_")
	for _, p := range parts {
		if p == "" {
			return "", nil, false
		}
		for _, c := range []byte(p) {
			if c < '0' || c > '9' {
				return "", nil, false
			}
		}
	}
	norm := func(p string) string { // "03" and "3" are one task
		if n, err := strconv.ParseInt(p, 10, 64); err == nil {
			return strconv.FormatInt(n, 10)
		}
		return p
	}
	for _, p := range parts[1:] {
		parents = append(parents, norm(p))
	}
	return norm(parts[0]), parents, true
}

// statusWord: letters and underscores, as USING.
func statusWord(b []byte) bool {
	if len(b) == 0 || len(b) > 32 {
		return false
	}
	for _, c := range b {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '_') {
			return false
		}
	}
	return true
}

// drainAlibaba reads one Alibaba table into w: every line through parse,
// a first line naming the schema's columns (cols) skipped and noted.
func drainAlibaba[T any](ctx context.Context, s *sink, in *Input, cols []string, parse func([]byte, int64, *T) *ParseError, w appender[T]) error {
	r := newLineRecords(in, parse)
	var header bool
	r.header = headerSkipper(cols, &header)
	err := drain[T](ctx, s, r, w)
	if header {
		s.notes = append(s.notes, alibabaHeaderNote)
	}
	return err
}
