package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/strtab"
)

// CPUUnit says how utilisation values are written in an input.
type CPUUnit string

const (
	UnitAuto     CPUUnit = "auto"     // decide from the header name or the values
	UnitFraction CPUUnit = "fraction" // 0.25 is a quarter of the server
	UnitPercent  CPUUnit = "percent"  // 25 is a quarter of the server
)

// ParseCPUUnit checks a --cpu-unit value.
func ParseCPUUnit(s string) (CPUUnit, error) {
	switch u := CPUUnit(s); u {
	case UnitAuto, UnitFraction, UnitPercent:
		return u, nil
	}
	return "", fmt.Errorf("cpu unit %q: want auto, fraction or percent", s)
}

// detectRows is how many leading records auto unit detection looks at.
const detectRows = 1 << 16

// usageCSV reads the generic utilisation CSV:
//
//	tenant,server,timestamp,cpu[,memory]
//
// The header is required; columns are matched by name in any order (aliases:
// time/ts for timestamp, host/machine for server, mem for memory; a name
// ending in _pct/_percent declares percent). Extra columns are ignored and
// noted. Memory uses the same unit as cpu.
type usageCSV struct {
	file string
	lr   lineReader
	loc  *time.Location

	idx     [5]int // field index of tenant, server, timestamp, cpu, memory (-1: absent)
	nfields int
	unit    CPUUnit
	scale   float64 // multiplier from the file's unit to a fraction
	notes   []string

	// auto detection buffers the first records until the unit is known
	pending []pendingRow
	pos     int

	fields  [][]byte
	cols    []int
	scratch []byte
	tenants *strtab.Table
	servers *strtab.Table

	rec  dataset.Usage
	perr ParseError
	bad  bool
	err  error
	eof  bool
}

type pendingRow struct {
	rec  dataset.Usage
	perr *ParseError
	line int64
	text string
}

const (
	colTenant = iota
	colServer
	colTime
	colCPU
	colMemory
)

var usageColumnNames = [5][]string{
	{"tenant"},
	{"server", "host", "machine"},
	{"timestamp", "time", "ts"},
	{"cpu", "cpu_util", "cpu_utilization", "cpu_frac", "cpu_fraction", "cpu_pct", "cpu_percent"},
	{"memory", "mem", "mem_util", "memory_util", "memory_frac", "mem_pct", "memory_pct", "memory_percent", "mem_percent"},
}

// newUsageCSV reads the header and prepares to read records.
func newUsageCSV(in *Input, unit CPUUnit, loc *time.Location) (*usageCSV, error) {
	r := &usageCSV{file: in.Path, lr: newLineReader(in), loc: loc, unit: unit, tenants: strtab.New(), servers: strtab.New()}
	var header []byte
	for {
		line, err := r.lr.next()
		if err == io.EOF {
			return nil, fmt.Errorf("%s: empty file: want a header tenant,server,timestamp,cpu[,memory]", in.Path)
		}
		if err != nil && err != errLineTooLong {
			return nil, err
		}
		if len(bytes.TrimSpace(line)) > 0 {
			header = line
			break
		}
	}
	fields, _, _, err := splitCSV(header, nil, nil, nil)
	if err != nil {
		return nil, &ParseError{File: in.Path, Line: r.lr.line, Err: fmt.Errorf("header: %w", err)}
	}
	r.idx = [5]int{-1, -1, -1, -1, -1}
	percentHint, fractionHint := false, false
	var extra []string
	for i, f := range fields {
		name := strings.ToLower(strings.TrimSpace(string(f)))
		matched := false
		for c, names := range usageColumnNames {
			for _, n := range names {
				if name == n && r.idx[c] < 0 {
					r.idx[c] = i
					matched = true
					if c == colCPU {
						percentHint = strings.HasSuffix(n, "_pct") || strings.HasSuffix(n, "_percent")
						fractionHint = strings.HasSuffix(n, "_frac") || strings.HasSuffix(n, "_fraction")
					}
				}
			}
		}
		if !matched {
			extra = append(extra, name)
		}
	}
	var missing []string
	for c := colTenant; c <= colCPU; c++ {
		if r.idx[c] < 0 {
			missing = append(missing, usageColumnNames[c][0])
		}
	}
	if len(missing) > 0 {
		return nil, &ParseError{File: in.Path, Line: r.lr.line,
			Err: fmt.Errorf("header %q lacks column(s) %s: want tenant,server,timestamp,cpu[,memory]", recordText(header), strings.Join(missing, ", "))}
	}
	r.nfields = len(fields)
	if len(extra) > 0 {
		r.notes = append(r.notes, "ignored column(s): "+strings.Join(extra, ", "))
	}
	switch {
	case unit == UnitAuto && percentHint:
		r.setUnit(UnitPercent, "from the header name")
	case unit == UnitAuto && fractionHint:
		r.setUnit(UnitFraction, "from the header name")
	case unit != UnitAuto:
		r.setUnit(unit, "as declared")
	}
	return r, nil
}

func (r *usageCSV) setUnit(u CPUUnit, why string) {
	r.unit = u
	r.scale = 1
	if u == UnitPercent {
		r.scale = 0.01
	}
	r.notes = append(r.notes, fmt.Sprintf("cpu unit: %s (%s)", u, why))
}

// Notes reports what the reader decided about its input.
func (r *usageCSV) Notes() []string { return r.notes }

func (r *usageCSV) Err() error { return r.err }

func (r *usageCSV) Record() (*dataset.Usage, *ParseError) {
	if r.bad {
		return nil, &r.perr
	}
	return &r.rec, nil
}

func (r *usageCSV) Scan() bool {
	if r.unit == UnitAuto {
		r.detect()
	}
	if r.pos < len(r.pending) {
		p := &r.pending[r.pos]
		r.pos++
		r.bad = p.perr != nil
		if r.bad {
			r.perr = *p.perr
		} else {
			r.rec = p.rec
			if perr := r.checkRange(p.line, p.text); perr != nil {
				r.bad, r.perr = true, *perr
			}
		}
		return true
	}
	r.pending = nil
	line, ok := r.scanRaw()
	if ok && !r.bad {
		if perr := r.checkRange(r.lr.line, ""); perr != nil {
			perr.Record = recordText(line)
			r.bad, r.perr = true, *perr
		}
	}
	return ok
}

// scanRaw reads and parses the next non-blank line into r.rec without
// scaling or range checks, or sets r.perr.
func (r *usageCSV) scanRaw() ([]byte, bool) {
	if r.eof {
		return nil, false
	}
	for {
		line, err := r.lr.next()
		if err == io.EOF {
			r.eof = true
			return nil, false
		}
		if err != nil && err != errLineTooLong {
			r.err = fmt.Errorf("%s: %w", r.file, err)
			r.eof = true
			return nil, false
		}
		if err == errLineTooLong {
			r.reject(line, 0, err)
			return line, true
		}
		if len(line) == 0 {
			continue // blank lines carry nothing
		}
		r.parse(line)
		return line, true
	}
}

// detect reads up to detectRows records, decides the cpu unit from the
// largest value, and keeps the records so Scan replays them.
func (r *usageCSV) detect() {
	maxCPU := math.Inf(-1)
	for len(r.pending) < detectRows {
		line, ok := r.scanRaw()
		if !ok {
			break
		}
		p := pendingRow{line: r.lr.line}
		if r.bad {
			perr := r.perr
			p.perr = &perr
		} else {
			p.rec, p.text = r.rec, recordText(line)
			if !math.IsNaN(r.rec.CPU) {
				maxCPU = math.Max(maxCPU, r.rec.CPU)
			}
		}
		r.pending = append(r.pending, p)
	}
	u, why := UnitFraction, "detected: no value above 1"
	if maxCPU > 1 {
		u, why = UnitPercent, fmt.Sprintf("detected: values up to %g", maxCPU)
	}
	if len(r.pending) == detectRows {
		why += fmt.Sprintf(" in the first %d records", detectRows)
	}
	r.setUnit(u, why+"; override with --cpu-unit")
}

func (r *usageCSV) reject(line []byte, col int, err error) {
	r.bad = true
	r.perr = ParseError{File: r.file, Line: r.lr.line, Col: col, Err: err, Record: recordText(line)}
}

func (r *usageCSV) parse(line []byte) {
	r.bad = false
	var err error
	r.fields, r.cols, r.scratch, err = splitCSV(line, r.fields, r.cols, r.scratch)
	if err != nil {
		r.reject(line, 0, err)
		return
	}
	if len(r.fields) != r.nfields {
		r.reject(line, 0, fmt.Errorf("%d fields, the header has %d", len(r.fields), r.nfields))
		return
	}
	f, c := r.fields, r.cols
	t, s := f[r.idx[colTenant]], f[r.idx[colServer]]
	if len(t) == 0 {
		r.reject(line, c[r.idx[colTenant]], errors.New("empty tenant"))
		return
	}
	if len(s) == 0 {
		r.reject(line, c[r.idx[colServer]], errors.New("empty server"))
		return
	}
	ts, err := parseTimestamp(f[r.idx[colTime]], r.loc)
	if err != nil {
		r.reject(line, c[r.idx[colTime]], err)
		return
	}
	cpu, err := parseFloat(f[r.idx[colCPU]])
	if err != nil {
		r.reject(line, c[r.idx[colCPU]], fmt.Errorf("cpu: %v", err))
		return
	}
	mem := math.NaN()
	if i := r.idx[colMemory]; i >= 0 && len(f[i]) > 0 {
		if mem, err = parseFloat(f[i]); err != nil {
			r.reject(line, c[i], fmt.Errorf("memory: %v", err))
			return
		}
		if math.IsNaN(mem) {
			r.reject(line, c[i], errors.New("memory is NaN"))
			return
		}
	}
	_, tenant := r.tenants.Bytes(t)
	_, server := r.servers.Bytes(s)
	r.rec = dataset.Usage{Tenant: tenant, Server: server, TimeMs: ts, CPU: cpu, Memory: mem}
}

// checkRange scales r.rec to fractions and rejects values outside [0,1].
func (r *usageCSV) checkRange(lineNo int64, text string) *ParseError {
	rec := &r.rec
	raw := rec.CPU
	rec.CPU *= r.scale
	if !math.IsNaN(rec.Memory) {
		rec.Memory *= r.scale
	}
	var why error
	switch {
	case math.IsNaN(raw) || math.IsInf(raw, 0):
		why = fmt.Errorf("cpu is %v", raw)
	case raw < 0:
		why = fmt.Errorf("cpu %g is negative", raw)
	case rec.CPU > 1+1e-9 && r.unit == UnitFraction && raw <= 100:
		why = fmt.Errorf("cpu %g is above 1 but the file's unit is fraction (%s); pass --cpu-unit percent if it is percent", raw, r.noteFor())
	case rec.CPU > 1+1e-9:
		why = fmt.Errorf("cpu %g is above 100%% of a server", raw)
	case !math.IsNaN(rec.Memory) && (rec.Memory < 0 || rec.Memory > 1+1e-9 || math.IsInf(rec.Memory, 0)):
		why = fmt.Errorf("memory %g is outside [0, 100%%] of a server", rec.Memory/r.scale)
	default:
		rec.CPU = math.Min(rec.CPU, 1)
		rec.Memory = math.Min(rec.Memory, 1)
		return nil
	}
	return &ParseError{File: r.file, Line: lineNo, Err: why, Record: text}
}

func (r *usageCSV) noteFor() string {
	for _, n := range r.notes {
		if strings.HasPrefix(n, "cpu unit:") {
			return n
		}
	}
	return "cpu unit: fraction"
}
