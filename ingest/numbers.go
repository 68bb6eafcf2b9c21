package ingest

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
	"unsafe"
)

// pow10 holds the exactly representable powers of ten used by parseFloat.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseFloat parses a decimal number. Plain decimals with at most 15
// significant digits take Clinger's fast path, which is exact (the mantissa
// and the power of ten are both exact doubles, so one division rounds
// correctly); everything else goes to strconv.ParseFloat.
func parseFloat(b []byte) (float64, error) {
	i, neg := 0, false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		i = 1
	}
	var mant uint64
	digits, frac := 0, 0
	seenDot := false
	start := i
	for ; i < len(b); i++ {
		c := b[i]
		if c >= '0' && c <= '9' {
			if mant == 0 && c == '0' && !seenDot {
				continue // leading zeros are not significant
			}
			mant = mant*10 + uint64(c-'0')
			if mant != 0 {
				digits++
			}
			if seenDot {
				frac++
			}
			continue
		}
		if c == '.' && !seenDot {
			seenDot = true
			continue
		}
		return slowFloat(b)
	}
	if i == start || (seenDot && i == start+1) || digits > 15 || frac > 22 {
		return slowFloat(b)
	}
	f := float64(mant) / pow10[frac]
	if neg {
		f = -f
	}
	return f, nil
}

func slowFloat(b []byte) (float64, error) {
	if len(b) == 0 {
		return 0, errors.New("empty number")
	}
	f, err := strconv.ParseFloat(unsafe.String(&b[0], len(b)), 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", b)
	}
	return f, nil
}

// epochMsThreshold separates epoch seconds from epoch milliseconds: 1e11 s
// is the year 5138, while 1e11 ms is March 1973. Traces in seconds are
// below it and traces in milliseconds above it.
const epochMsThreshold = 1e11

// parseTimestamp reads an RFC 3339 instant (with 'T' or a space, optional
// fraction, 'Z' or an offset; without an offset it is read in loc) or an
// epoch number in seconds or milliseconds (told apart by magnitude), and
// returns milliseconds since the epoch.
func parseTimestamp(b []byte, loc *time.Location) (int64, error) {
	if len(b) == 0 {
		return 0, errors.New("empty timestamp")
	}
	if len(b) >= 10 && b[4] == '-' {
		return parseRFC3339(b, loc)
	}
	var f float64
	if v, ok := plainInt(b); ok { // the common epoch case: no float parse
		// What the float path below gives for an integer, without it.
		switch {
		case v < epochMsThreshold:
			return v * 1000, nil
		case v <= 1e15:
			return v, nil
		}
		f = float64(v) // exact below 2^53, far above the 1e15 limit
	} else {
		var err error
		f, err = parseFloat(b)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, fmt.Errorf("timestamp %q is neither RFC 3339 nor epoch seconds/milliseconds", b)
		}
	}
	switch a := math.Abs(f); {
	case a > 1e15:
		return 0, fmt.Errorf("timestamp %q is out of range (microseconds? use a trace-specific format)", b)
	case a >= epochMsThreshold:
		return int64(math.Round(f)), nil
	}
	return int64(math.Round(f * 1000)), nil
}

// plainInt reads an unsigned decimal integer of at most 18 digits.
func plainInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

func digits(b []byte, n int) (int, bool) {
	if len(b) < n {
		return 0, false
	}
	v := 0
	for i := 0; i < n; i++ {
		c := b[i] - '0'
		if c > 9 {
			return 0, false
		}
		v = v*10 + int(c)
	}
	return v, true
}

func parseRFC3339(b []byte, loc *time.Location) (int64, error) {
	bad := func(why string) (int64, error) {
		return 0, fmt.Errorf("timestamp %q: %s (want RFC 3339 like 2024-01-31T12:00:00Z)", b, why)
	}
	if len(b) < 10 {
		return bad("too short for a date")
	}
	year, ok1 := digits(b, 4)
	month, ok2 := digits(b[5:], 2)
	if !ok1 || !ok2 || b[4] != '-' || b[7] != '-' {
		return bad("bad date")
	}
	day, ok := digits(b[8:], 2)
	if !ok {
		return bad("bad date")
	}
	var hour, min, sec, nanos int
	rest := b[10:]
	if len(rest) > 0 {
		if rest[0] != 'T' && rest[0] != 't' && rest[0] != ' ' {
			return bad("bad date/time separator")
		}
		if len(rest) < 9 || rest[3] != ':' || rest[6] != ':' {
			return bad("bad time of day")
		}
		var okh, okm, oks bool
		hour, okh = digits(rest[1:], 2)
		min, okm = digits(rest[4:], 2)
		sec, oks = digits(rest[7:], 2)
		if !okh || !okm || !oks {
			return bad("bad time of day")
		}
		rest = rest[9:]
		if len(rest) > 0 && (rest[0] == '.' || rest[0] == ',') {
			j := 1
			scale := 100000000
			for ; j < len(rest) && rest[j] >= '0' && rest[j] <= '9'; j++ {
				nanos += int(rest[j]-'0') * scale
				scale /= 10
			}
			if j == 1 {
				return bad("empty fraction of a second")
			}
			rest = rest[j:]
		}
	}
	if month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || min > 59 || sec > 59 {
		return bad("field out of range")
	}
	offset := 0 // seconds east of UTC
	switch {
	case len(rest) == 0:
		if loc != time.UTC && loc != nil {
			t := time.Date(year, time.Month(month), day, hour, min, sec, nanos, loc)
			return t.UnixMilli(), nil
		}
	case len(rest) == 1 && (rest[0] == 'Z' || rest[0] == 'z'):
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		oh, ok1 := digits(rest[1:], 2)
		om, ok2 := digits(rest[4:], 2)
		if !ok1 || !ok2 || oh > 23 || om > 59 {
			return bad("bad UTC offset")
		}
		offset = oh*3600 + om*60
		if rest[0] == '-' {
			offset = -offset
		}
	default:
		return bad("bad UTC offset")
	}
	days := daysFromCivil(year, month, day)
	secs := days*86400 + int64(hour*3600+min*60+sec) - int64(offset)
	return secs*1000 + int64(nanos/1e6), nil
}

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func daysIn(y, m int) int {
	switch m {
	case 2:
		if isLeap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil is the number of days from 1970-01-01 to y-m-d in the
// proleptic Gregorian calendar (H. Hinnant's algorithm).
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

// isNumber reports whether b reads as a decimal number.
func isNumber(b []byte) bool {
	_, err := parseFloat(b)
	return err == nil
}

// traceSecondsMs reads seconds from the trace start, as Azure and Alibaba
// write them (a number, fractions allowed), as the instant startMs + that
// many seconds in ms; false for what is not a number of seconds in
// [0, 1e12].
func traceSecondsMs(b []byte, startMs int64) (int64, bool) {
	v, err := parseFloat(b)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > 1e12 {
		return 0, false
	}
	return startMs + int64(math.Round(v*1000)), true
}

// percentField reads a CPU percent in [0,100] as a fraction.
func percentField(b []byte, name string) (float64, error) {
	v, err := parseFloat(b)
	switch {
	case err != nil:
		return 0, fmt.Errorf("%s: %v", name, err)
	case math.IsNaN(v) || math.IsInf(v, 0):
		return 0, fmt.Errorf("%s is %v", name, v)
	case v < 0:
		return 0, fmt.Errorf("%s %g is negative", name, v)
	case v > 100:
		return 0, fmt.Errorf("%s %g is above 100%%", name, v)
	}
	return v / 100, nil
}
