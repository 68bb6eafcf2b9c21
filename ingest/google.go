// What the Google ClusterData readers share: the 2019 and 2011 trace
// clocks, the 5-minute usage window, Parquet detection, and the row parser
// of the 2011 CSV tables.

package ingest

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// googleTraceStart is where we put offset 600 s of a ClusterData2019
// clock. The v3 schema document counts timestamps in microseconds from 600
// seconds before the start of the trace window, which covers May 2019; we
// take the window to start at midnight US Pacific (PDT) on 1 May 2019. The
// document's exact start instant is an assumption here: --trace-start
// moves it, and only instants (not periods or patterns) depend on it.
var googleTraceStart = time.Date(2019, 5, 1, 0, 0, 0, 0, time.FixedZone("PDT", -7*3600))

// googleOffsetUs is the 600 s by which ClusterData timestamps precede the
// trace window.
const googleOffsetUs = 600 * 1e6

// googleWindowUs is the 5-minute measurement window of instance_usage. The
// usage table's time is the start of an aligned window [k·300 s,
// (k+1)·300 s) of the trace clock, as Google's analysis colab groups rows
// (FLOOR(start_time / 300 s)); googleOffsetUs is a multiple of it, so the
// windows are aligned on the trace window's start too.
const googleWindowUs = 300 * 1e6

// googleMaxSpanUs bounds end_time − start_time. The v3 schema's windows are
// at most 300 s ("typically 300s, but may be shorter"); a longer row is
// split over the windows it covers, and one longer than an hour is not a
// measurement window at all: it is rejected rather than spread (which
// would also let one bad row add millions of rows to sum).
const googleMaxSpanUs = 3600 * 1e6

// googleLastUs is the latest start_time read: 2^63-1 marks "after the
// trace window", and windows past it would overflow.
const googleLastUs = math.MaxInt64 - googleMaxSpanUs - 2*googleWindowUs

var parquetMagic = []byte("PAR1")

// google2019Detect tells a ClusterData2019 table: a Parquet shard by its
// file name (table in it), a JSON line by the keys it holds (keys asks
// has, which says whether the first line names a key). The BigQuery
// export leaves null fields out, so keys says which are enough.
func google2019Detect(table string, keys func(has func(key string) bool) bool) func(name string, head []byte) bool {
	return func(name string, head []byte) bool {
		if bytes.HasPrefix(head, parquetMagic) {
			return strings.Contains(name, table)
		}
		line := firstLine(head)
		if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("{")) {
			return false
		}
		return keys(func(k string) bool { return bytes.Contains(line, []byte(`"`+k+`"`)) })
	}
}

// drainGoogle2019 drains a ClusterData2019 table into w: a Parquet shard
// through the reader open returns, JSON lines through parse (a line it
// refuses is a reject whose record is the line).
func drainGoogle2019[T any](ctx context.Context, s *sink, in *Input, open func() (parquetReader[T], error), parse func(line []byte, rec *T) error, w appender[T]) error {
	if bytes.HasPrefix(in.Head(4), parquetMagic) {
		return drainParquet(ctx, s, in, open, w)
	}
	r := newLineRecords(in, func(line []byte, lineNo int64, rec *T) *ParseError {
		if err := parse(line, rec); err != nil {
			return &ParseError{File: in.Path, Line: lineNo, Err: err, Record: recordText(line)}
		}
		return nil
	})
	return drain[T](ctx, s, r, w)
}

// googleWindowMs is the usage time of the aligned window that holds us (a
// positive instant of the trace clock): its start, in ms from the epoch
// when the trace window starts at startMs. Window starts and the offset
// are whole seconds, so the division is exact.
func googleWindowMs(startMs, us int64) int64 {
	return startMs + (us-us%googleWindowUs-googleOffsetUs)/1000
}

// google2011TraceStart is offset 600 s of the ClusterData2011 clock: the
// trace "starts at 19:00 EDT on Sunday May 1, 2011" (ClusterData2011_2.md).
var google2011TraceStart = time.Date(2011, 5, 1, 19, 0, 0, 0, time.FixedZone("EDT", -4*3600))

// g2011 parses the 2011 CSV tables.
type g2011 struct {
	csvRow
	start int64
}

func (p *g2011) int(i int, name string, reject func(int, error) *ParseError) (int64, *ParseError) {
	v, err := strconv.ParseInt(string(p.fields[i]), 10, 64)
	if err != nil {
		return 0, reject(p.cols[i], fmt.Errorf("%s %q is not an integer", name, p.fields[i]))
	}
	return v, nil
}

func (p *g2011) float(i int, name string, reject func(int, error) *ParseError) (float64, *ParseError) {
	if len(p.fields[i]) == 0 {
		return math.NaN(), nil
	}
	v, err := parseFloat(p.fields[i])
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, reject(p.cols[i], fmt.Errorf("%s %q is not a non-negative number", name, p.fields[i]))
	}
	return v, nil
}
