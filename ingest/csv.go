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
	UnitRaw      CPUUnit = "raw"      // not utilisation: series-csv scales by the file's maximum
)

// ParseCPUUnit checks a --cpu-unit value.
func ParseCPUUnit(s string) (CPUUnit, error) {
	switch u := CPUUnit(s); u {
	case UnitAuto, UnitFraction, UnitPercent, UnitRaw:
		return u, nil
	}
	return "", fmt.Errorf("cpu unit %q: want auto, fraction or percent (or raw, series-csv only)", s)
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
//
// When the unit is not declared, the first detectRows records are parsed and
// held back until the largest value tells fraction from percent. A mapped
// (uncompressed) input is then parsed in parallel chunks, delivered in order.
type usageCSV struct {
	file  string
	in    *Input
	lr    lineReader
	p     csvParser
	notes []string

	// auto detection holds back the first records until the unit is known
	pending []pendingRow
	pos     int

	par *parallelCSV // parallel chunk parsing, once started

	rec  dataset.Usage
	cur  *dataset.Usage // the current record: &rec, or one in a parsed chunk
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

// csvParser turns one line into a record. Each parallel worker has its own.
type csvParser struct {
	file    string
	loc     *time.Location
	idx     [5]int // field index of tenant, server, timestamp, cpu, memory (-1: absent)
	nfields int
	unit    CPUUnit
	scale   float64 // multiplier from the file's unit to a fraction
	unitWhy string

	fields  [][]byte
	cols    []int
	scratch []byte
	tenants *strtab.Table
	servers *strtab.Table
	// ids of the last parsed record's tenant and server in the tables
	tenantID, serverID int32
	// The fast path's "tenant,server" pairs (csvfastrow.go): their ids
	// in tenants and servers (-1: not UTF-8) and the lengths of the two
	// names; the last line's pair.
	pairs    *strtab.Table
	pairIDs  [][4]int32
	lastPair int32
	lastTime timeField // the fast path's last timestamp
}

func (p *csvParser) clone() *csvParser {
	c := &csvParser{file: p.file, loc: p.loc, idx: p.idx, nfields: p.nfields, unit: p.unit, scale: p.scale, unitWhy: p.unitWhy,
		tenants: strtab.New(), servers: strtab.New()}
	return c
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
	r := &usageCSV{file: in.Path, in: in, lr: newLineReader(in),
		p: csvParser{file: in.Path, loc: loc, unit: unit, tenants: strtab.New(), servers: strtab.New()}}
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
	p := &r.p
	p.idx = [5]int{-1, -1, -1, -1, -1}
	percentHint, fractionHint := false, false
	var extra []string
	for i, f := range fields {
		name := strings.ToLower(strings.TrimSpace(string(f)))
		matched := false
		for c, names := range usageColumnNames {
			for _, n := range names {
				if name == n && p.idx[c] < 0 {
					p.idx[c] = i
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
		if p.idx[c] < 0 {
			missing = append(missing, usageColumnNames[c][0])
		}
	}
	if len(missing) > 0 {
		return nil, &ParseError{File: in.Path, Line: r.lr.line,
			Err: fmt.Errorf("header %q lacks column(s) %s: want tenant,server,timestamp,cpu[,memory]", recordText(header), strings.Join(missing, ", "))}
	}
	p.nfields = len(fields)
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
	r.p.unit = u
	r.p.scale = 1
	if u == UnitPercent {
		r.p.scale = 0.01
	}
	r.p.unitWhy = fmt.Sprintf("cpu unit: %s (%s)", u, why)
	r.notes = append(r.notes, r.p.unitWhy)
}

// Notes reports what the reader decided about its input.
func (r *usageCSV) Notes() []string { return r.notes }

func (r *usageCSV) Err() error { return r.err }

// Close stops parallel workers when the caller gives up early.
func (r *usageCSV) Close() {
	if r.par != nil {
		r.par.close()
	}
}

// Line is where the reader is: the current record's line (or row).
func (r *usageCSV) Line() int64 { return r.lr.line }

func (r *usageCSV) Record() (*dataset.Usage, *ParseError) {
	if r.bad {
		return nil, &r.perr
	}
	return r.cur, nil
}

func (r *usageCSV) Scan() bool {
	r.cur = &r.rec
	if r.p.unit == UnitAuto {
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
			if perr := r.p.checkRange(&r.rec, p.line, p.text); perr != nil {
				r.bad, r.perr = true, *perr
			}
		}
		return true
	}
	r.pending = nil
	if r.par == nil && r.lr.data != nil && len(r.lr.data)-r.lr.off > parallelMinBytes {
		r.par = startParallel(r, false)
	}
	if r.par != nil {
		return r.par.scan(r)
	}
	line, ok := r.scanRaw()
	if ok && !r.bad {
		if perr := r.p.checkRange(&r.rec, r.lr.line, ""); perr != nil {
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
			r.bad = true
			r.perr = ParseError{File: r.file, Line: r.lr.line, Err: err, Record: recordText(line)}
			return line, true
		}
		if len(line) == 0 {
			continue // blank lines carry nothing
		}
		if perr := r.p.parse(line, r.lr.line, &r.rec); perr != nil {
			r.bad, r.perr = true, *perr
		} else {
			r.bad = false
		}
		return line, true
	}
}

// detect reads up to detectRows records, decides the cpu unit from the
// largest value, and keeps the records so Scan replays them; an input that
// will be parsed in parallel is only looked at (detectAhead).
func (r *usageCSV) detect() {
	if r.parallelAhead() {
		r.detectAhead()
		return
	}
	maxCPU := math.Inf(-1)
	if r.lr.data != nil {
		// A mapped input: room for the rows at once (a line is more than
		// 16 bytes), instead of copying 6 MB of rows while doubling.
		r.pending = make([]pendingRow, 0, min(detectRows, (len(r.lr.data)-r.lr.off)/16+1))
		if len(r.lr.data)-r.lr.off > parallelMinBytes {
			// It will be parsed in parallel and hashed on the hasher's
			// goroutine (Input.hashTo): that starts now, with the part
			// detection reads, on the core detection leaves idle.
			r.in.hashTo(min(len(r.lr.data), r.lr.off+parallelMinBytes))
		}
	}
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
			p.rec = r.rec
			if c, m := r.rec.CPU, r.rec.Memory; !(c >= 0 && c <= 1) || m < 0 || m > 1 || math.IsInf(m, 0) {
				// Only a row that checkRange may reject under some unit
				// needs its text; cpu and memory within [0, 1] pass
				// under both.
				p.text = recordText(line)
			}
			// A value that no unit accepts (NaN, +Inf, above 100) is
			// rejected either way and must not decide the others' unit.
			if c := r.rec.CPU; c <= 100 {
				maxCPU = math.Max(maxCPU, c)
			}
		}
		r.pending = append(r.pending, p)
	}
	r.decideUnit(maxCPU, len(r.pending))
}

// decideUnit sets the unit from the largest cpu value of the first records
// records.
func (r *usageCSV) decideUnit(maxCPU float64, records int) {
	u, why := UnitFraction, "detected: no value above 1"
	if maxCPU > 1 {
		u, why = UnitPercent, fmt.Sprintf("detected: values up to %g", maxCPU)
	}
	if records == detectRows {
		why += fmt.Sprintf(" in the first %d records", detectRows)
	}
	r.setUnit(u, why+"; override with --cpu-unit")
}

// parallelAhead reports whether the rest of the input is mapped and large
// enough to be parsed in parallel chunks.
func (r *usageCSV) parallelAhead() bool {
	return r.lr.data != nil && len(r.lr.data)-r.lr.off > parallelMinBytes
}

// detectAhead is detect for an input that the parallel workers will parse
// from its first record: it finds the largest cpu value of the first
// detectRows records, as detect does, without keeping them and without
// moving the line reader. The workers then parse those records like the
// rest, instead of this goroutine parsing them in full, alone, and
// handing them to the writer one by one while the workers start. Lines
// are cut and parsed as a parse worker does (parseChunk), the common ones
// by fastRow at scale 1; a value it gives as 1 or more may be one it
// clamped, so its line is parsed again the general way for the exact one.
func (r *usageCSV) detectAhead() {
	// Hashing starts now, with the part detection reads, on the core
	// detection leaves idle (Input.hashTo).
	r.in.hashTo(min(len(r.lr.data), r.lr.off+parallelMinBytes))
	p := r.p.clone()
	p.unit, p.scale = UnitFraction, 1
	fast := p.fastLayout()
	maxCPU := math.Inf(-1)
	data := r.lr.data[r.lr.off:]
	records := 0
	var rec dataset.Usage
	for records < detectRows && len(data) > 0 {
		if fast {
			if _, cpu, _, used, ok := p.fastRow(data); ok && cpu < 1 {
				records++
				maxCPU = math.Max(maxCPU, cpu)
				data = data[used:]
				continue
			}
		}
		var l []byte
		var simple bool
		l, data, p.fields, p.cols, simple = splitLine(data, p.fields, p.cols)
		if len(l) == 0 {
			continue // blank lines are not records
		}
		records++
		if len(l) >= MaxLineBytes {
			continue // rejected whatever the unit
		}
		var perr *ParseError
		if simple {
			perr = p.parseFields(l, 0, &rec)
		} else {
			perr = p.parse(l, 0, &rec)
		}
		// A value that no unit accepts (NaN, +Inf, above 100) is
		// rejected either way and must not decide the others' unit.
		if c := rec.CPU; perr == nil && c <= 100 {
			maxCPU = math.Max(maxCPU, c)
		}
	}
	r.decideUnit(maxCPU, records)
}

// parse reads one non-blank line into rec, without unit scaling or range
// checks (checkRange does those once the unit is known).
func (p *csvParser) parse(line []byte, lineNo int64, rec *dataset.Usage) *ParseError {
	var err error
	p.fields, p.cols, p.scratch, err = splitCSV(line, p.fields, p.cols, p.scratch)
	if err != nil {
		return &ParseError{File: p.file, Line: lineNo, Err: err, Record: recordText(line)}
	}
	return p.parseFields(line, lineNo, rec)
}

// parseFields is parse once p.fields and p.cols hold the fields of line
// (split by splitCSV, or by splitLine when the line has no quote).
func (p *csvParser) parseFields(line []byte, lineNo int64, rec *dataset.Usage) *ParseError {
	reject := func(col int, err error) *ParseError {
		return &ParseError{File: p.file, Line: lineNo, Col: col, Err: err, Record: recordText(line)}
	}
	var err error
	if len(p.fields) != p.nfields {
		return reject(0, fmt.Errorf("%d fields, the header has %d", len(p.fields), p.nfields))
	}
	f, c := p.fields, p.cols
	t, s := f[p.idx[colTenant]], f[p.idx[colServer]]
	if len(t) == 0 {
		return reject(c[p.idx[colTenant]], errors.New("empty tenant"))
	}
	if len(s) == 0 {
		return reject(c[p.idx[colServer]], errors.New("empty server"))
	}
	ts, err := parseTimestamp(f[p.idx[colTime]], p.loc)
	if err != nil {
		return reject(c[p.idx[colTime]], err)
	}
	cpu, err := parseFloat(f[p.idx[colCPU]])
	if err != nil {
		return reject(c[p.idx[colCPU]], fmt.Errorf("cpu: %v", err))
	}
	mem := math.NaN()
	if i := p.idx[colMemory]; i >= 0 && len(f[i]) > 0 {
		if mem, err = parseFloat(f[i]); err != nil {
			return reject(c[i], fmt.Errorf("memory: %v", err))
		}
		if math.IsNaN(mem) {
			return reject(c[i], errors.New("memory is NaN"))
		}
	}
	// Names that are not UTF-8 would make the usage table unreadable to
	// DuckDB and others.
	tenantID, tenant, ok := p.tenants.ValidBytes(t)
	if !ok {
		return reject(c[p.idx[colTenant]], errors.New("tenant is not valid UTF-8"))
	}
	serverID, server, ok := p.servers.ValidBytes(s)
	if !ok {
		return reject(c[p.idx[colServer]], errors.New("server is not valid UTF-8"))
	}
	p.tenantID, p.serverID = tenantID, serverID
	*rec = dataset.Usage{Tenant: tenant, Server: server, TimeMs: ts, CPU: cpu, Memory: mem}
	return nil
}

// checkRange scales rec to fractions and rejects values outside [0,1].
func (p *csvParser) checkRange(rec *dataset.Usage, lineNo int64, text string) *ParseError {
	raw := rec.CPU
	rec.CPU *= p.scale
	if !math.IsNaN(rec.Memory) {
		rec.Memory *= p.scale
	}
	var why error
	switch {
	case raw != raw || math.IsInf(raw, 0):
		why = fmt.Errorf("cpu is %v", raw)
	case raw < 0:
		why = fmt.Errorf("cpu %g is negative", raw)
	case rec.CPU > 1+1e-9 && p.unit == UnitFraction && raw <= 100:
		why = fmt.Errorf("cpu %g is above 1 but the file's unit is fraction (%s); pass --cpu-unit percent if it is percent", raw, p.unitWhy)
	case rec.CPU > 1+1e-9:
		why = fmt.Errorf("cpu %g is above 100%% of a server", raw)
	case rec.Memory < 0 || rec.Memory > 1+1e-9 || math.IsInf(rec.Memory, 0): // false for NaN
		why = fmt.Errorf("memory %g is outside [0, 100%%] of a server", rec.Memory/p.scale)
	default:
		if rec.CPU > 1 {
			rec.CPU = 1
		}
		if rec.Memory > 1 {
			rec.Memory = 1
		}
		return nil
	}
	return &ParseError{File: p.file, Line: lineNo, Err: why, Record: text}
}
