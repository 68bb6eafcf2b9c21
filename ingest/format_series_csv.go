// Format "series-csv". Package doc (doc.go, "Utilisation traces") gives what
// all trace formats share.
//
// series-csv: one series per file, two columns, an optional header of two
// names (timestamp,value for NAB; offset_seconds,avg_cpu_percent for the
// Azure single-VM files; a time column named offset, offset_s or
// offset_seconds holds seconds from the trace start). Tenant = server =
// the file name without extension; with --tenant every file is one server
// of that tenant. Calendar times without an offset are read in
// Options.Location (--tz) through the daylight-saving rules: a wall time
// in the skipped spring hour does not exist and is rejected; in the
// repeated autumn hour the first pass is the earlier instant and, once the
// wall time goes backwards inside that hour, the rest of the hour is the
// second pass (the later instant) — see localClock. Two rows at the same
// instant: the later is a reject (NAB repeats 03:00:00 twelve times at a
// spring change). Out-of-order rows are accepted. The unit is --cpu-unit,
// else a header suffix (_percent/_pct, _frac/_fraction), else the values:
// none above 1 is a fraction; mostly (more than half) above 100 is not
// utilisation at all (NAB's NYC taxi passenger counts) and reads as "raw":
// divided by the file's maximum so that 1 is the file's peak, with a note
// in the source, so that pattern classification still runs on it; else
// percent, and values above 100 are rejected pointing at --cpu-unit raw.
// The file is read whole (one series is small).

package ingest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

const seriesCSVFormat = "series-csv"

func init() {
	register(&Format{
		Name:        seriesCSVFormat,
		Table:       dataset.UsageTable.Name,
		Description: "one series per file: timestamp,value (NAB) or offset_seconds,cpu; tenant = file name unless --tenant",
		Detect:      detectSeriesCSV,
		ingest: func(ctx context.Context, in *Input, s *sink) error {
			r, err := newSeriesCSV(in, s.opts)
			if err != nil {
				return err
			}
			return drain[dataset.Usage](ctx, s, r, s.tx.Usage())
		},
	})
}

// detectSeriesCSV claims two-column text whose first data line is a time
// and a number, under an optional header of two names.
func detectSeriesCSV(_ string, head []byte) bool {
	lines := 0
	for len(head) > 0 && lines < 2 {
		var line []byte
		line, head, _ = bytes.Cut(head, []byte("\n"))
		line = bytes.TrimRight(bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")), "\r")
		if len(line) == 0 {
			continue
		}
		lines++
		f := fieldsOf(line, 2)
		if f == nil {
			return false
		}
		_, terr := parseTimestamp(f[0], time.UTC)
		_, verr := parseFloat(f[1])
		if terr == nil && verr == nil {
			return true
		}
		if lines == 2 || len(f[0]) == 0 || len(f[1]) == 0 || verr == nil {
			return false // not data, and not a header of two names either
		}
	}
	return false
}

// seriesTimeLike reports whether a first field reads as a time, so that its
// line is data (perhaps with a bad value), never a header to skip.
func seriesTimeLike(f []byte) bool {
	f = bytes.TrimSpace(f)
	if _, err := parseTimestamp(f, time.UTC); err == nil {
		return true
	}
	_, err := parseFloat(f)
	return err == nil
}

// seriesItem is one data line of a single-series file: a parsed sample or
// the reason it is rejected.
type seriesItem struct {
	line int64
	ms   int64
	val  float64
	col  int // of the value
	text string
	perr *ParseError
}

// seriesCSV reads one single-series file. The file is read whole (one
// series is small) because the unit may depend on every value (raw scales
// by the maximum) and duplicate instants are found across the file.
type seriesCSV struct {
	items  []seriesItem
	pos    int
	rec    dataset.Usage
	perr   *ParseError
	notes  []string
	tenant string
	server string
}

// seriesOffsetNames are the time column names read as seconds from the
// trace start.
var seriesOffsetNames = map[string]bool{"offset": true, "offset_s": true, "offset_seconds": true, "seconds": true}

func newSeriesCSV(in *Input, opts Options) (*seriesCSV, error) {
	r := &seriesCSV{server: baseName(in.Path)}
	r.tenant = r.server
	if opts.Tenant != "" {
		r.tenant = opts.Tenant
		r.notes = append(r.notes, fmt.Sprintf("tenant %s (--tenant), server %s (the file name)", r.tenant, r.server))
	} else {
		r.notes = append(r.notes, fmt.Sprintf("tenant and server %s (the file name; --tenant names the tenant)", r.tenant))
	}
	lr := newLineReader(in)
	var (
		fields  [][]byte
		cols    []int
		scratch []byte
		header  = true // the first non-blank line may be a header
		offsets bool
		hint    CPUUnit
		clock   = localClock{loc: opts.Location}
		start   = traceStartMs(opts, unixEpoch)
		local   = opts.Location != nil && opts.Location != time.UTC
		second  int
	)
	for {
		line, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil && err != errLineTooLong {
			return nil, fmt.Errorf("%s: %w", in.Path, err)
		}
		if len(line) == 0 {
			continue
		}
		reject := func(col int, why error) {
			r.items = append(r.items, seriesItem{line: lr.line,
				perr: &ParseError{File: in.Path, Line: lr.line, Col: col, Err: why, Record: recordText(line)}})
		}
		if err == errLineTooLong {
			reject(0, err)
			continue
		}
		fields, cols, scratch, err = splitCSV(line, fields, cols, scratch)
		if err != nil {
			reject(0, err)
			continue
		}
		if header {
			header = false
			if len(fields) == 2 && !seriesTimeLike(fields[0]) {
				if _, err := parseFloat(fields[1]); err != nil {
					t := strings.ToLower(strings.TrimSpace(string(fields[0])))
					v := strings.ToLower(strings.TrimSpace(string(fields[1])))
					offsets = seriesOffsetNames[t]
					switch {
					case strings.HasSuffix(v, "_pct") || strings.HasSuffix(v, "_percent") || v == "percent":
						hint = UnitPercent
					case strings.HasSuffix(v, "_frac") || strings.HasSuffix(v, "_fraction") || v == "fraction":
						hint = UnitFraction
					}
					continue
				}
			}
		}
		if len(fields) != 2 {
			reject(0, fmt.Errorf("%d fields, want 2 (time,value)", len(fields)))
			continue
		}
		it := seriesItem{line: lr.line, col: cols[1], text: recordText(line)}
		tf := bytes.TrimSpace(fields[0])
		switch {
		case offsets:
			s, err := parseFloat(tf)
			if err != nil || math.IsNaN(s) || math.IsInf(s, 0) || math.Abs(s) > 1e12 {
				reject(cols[0], fmt.Errorf("offset %q is not a number of seconds", tf))
				continue
			}
			it.ms = start + int64(math.Round(s*1000))
		case local && isLocalTimestamp(tf):
			wall, err := parseTimestamp(tf, time.UTC)
			if err == nil {
				it.ms, err = clock.instant(wall, string(tf))
				if err == nil && clock.prevAmbig && clock.prevSecond {
					second++
				}
			}
			if err != nil {
				reject(cols[0], err)
				continue
			}
		default:
			it.ms, err = parseTimestamp(tf, opts.Location)
			if err != nil {
				reject(cols[0], err)
				continue
			}
		}
		it.val, err = parseFloat(bytes.TrimSpace(fields[1]))
		if err != nil {
			reject(cols[1], fmt.Errorf("value: %v", err))
			continue
		}
		r.items = append(r.items, it)
	}
	if local {
		n := fmt.Sprintf("local times read in %s", opts.Location)
		if second > 0 {
			n += fmt.Sprintf("; %d in the repeated daylight-saving hour taken as its second pass", second)
		}
		r.notes = append(r.notes, n)
	}
	if offsets {
		r.notes = append(r.notes, fmt.Sprintf("time column holds seconds from the trace start, %s", time.UnixMilli(start).UTC().Format(time.RFC3339)))
	}
	r.finish(in.Path, opts.CPUUnit, hint)
	return r, nil
}

// finish decides the unit, scales, range-checks and rejects duplicates.
func (r *seriesCSV) finish(file string, unit, hint CPUUnit) {
	maxV, n, over := math.Inf(-1), 0, 0
	for _, it := range r.items {
		if it.perr == nil && it.val >= 0 && !math.IsInf(it.val, 0) {
			maxV = math.Max(maxV, it.val)
			n++
			if it.val > 100 {
				over++
			}
		}
	}
	why := "as declared"
	switch {
	case unit != UnitAuto:
	case hint != "":
		unit, why = hint, "from the header name"
	case n == 0 || maxV <= 1:
		unit, why = UnitFraction, "detected: no value above 1"
	case 2*over > n: // mostly above 100: counts, not a few bad percentages
		unit, why = UnitRaw, fmt.Sprintf("detected: %d of %d values above 100 are not utilisation", over, n)
	default:
		unit, why = UnitPercent, fmt.Sprintf("detected: values up to %g", maxV)
	}
	scale := 1.0
	switch unit {
	case UnitPercent:
		scale = 0.01
	case UnitRaw:
		if maxV > 0 {
			scale = 1 / maxV
		}
		why += fmt.Sprintf("; divided by the file's maximum %g, so 1 is its peak, not a full server", maxV)
	}
	unitWhy := fmt.Sprintf("cpu unit: %s (%s)", unit, why)
	if strings.HasPrefix(why, "detected") {
		unitWhy += "; override with --cpu-unit"
	}
	r.notes = append(r.notes, unitWhy)
	seen := make(map[int64]int64, len(r.items))
	for i := range r.items {
		it := &r.items[i]
		if it.perr != nil {
			continue
		}
		raw := it.val
		v := raw * scale
		var bad error
		switch {
		case math.IsNaN(raw) || math.IsInf(raw, 0):
			bad = fmt.Errorf("value is %v", raw)
		case raw < 0:
			bad = fmt.Errorf("value %g is negative", raw)
		case v > 1+1e-9 && unit == UnitFraction && raw <= 100:
			bad = fmt.Errorf("value %g is above 1 but the file's unit is fraction (%s); pass --cpu-unit percent if it is percent", raw, unitWhy)
		case v > 1+1e-9:
			bad = fmt.Errorf("value %g is above 100%% of a server (%s); pass --cpu-unit raw if it is not utilisation", raw, unitWhy)
		}
		if bad == nil {
			if first, dup := seen[it.ms]; dup {
				bad = fmt.Errorf("duplicate timestamp: the same instant as line %d", first)
			} else {
				seen[it.ms] = it.line
			}
		}
		if bad != nil {
			col := it.col
			if strings.HasPrefix(bad.Error(), "duplicate") {
				col = 1
			}
			it.perr = &ParseError{File: file, Line: it.line, Col: col, Err: bad, Record: it.text}
			continue
		}
		it.val = math.Min(v, 1)
	}
}

func (r *seriesCSV) Scan() bool {
	if r.pos >= len(r.items) {
		r.items = nil
		return false
	}
	it := &r.items[r.pos]
	r.pos++
	r.perr = it.perr
	if it.perr == nil {
		r.rec = dataset.Usage{Tenant: r.tenant, Server: r.server, TimeMs: it.ms, CPU: it.val, Memory: math.NaN()}
	}
	return true
}

func (r *seriesCSV) Record() (*dataset.Usage, *ParseError) {
	if r.perr != nil {
		return nil, r.perr
	}
	return &r.rec, nil
}

func (r *seriesCSV) Err() error      { return nil }
func (r *seriesCSV) Notes() []string { return r.notes }
