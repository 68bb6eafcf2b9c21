// Package timeflag is wlprof's one parser of instants and durations, for
// every command-line flag that takes one:
//
//   - an instant is RFC 3339 (2024-01-14T12:00:00Z, or with an offset), or
//     epoch time with an explicit unit: 1700000000s, 1700000000000ms. A bare
//     number is refused: seconds and milliseconds differ by a factor a
//     thousand, and a guess would be silently wrong;
//   - a duration is a Go duration (90s, 1h30m, 250ms) whose terms may also be
//     days and weeks: 1d, 2w, 1d12h (a day is 24 hours, a week 7 days).
//
// Instant and Duration are pflag values, so a flag parses its argument when
// cobra reads it and a bad one is a usage error naming the flag.
package timeflag

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Help says how instants and durations are written, for --help texts.
const Help = `Instants are RFC 3339 (2024-01-14T12:00:00Z) or epoch time with a unit
(1700000000s, 1700000000000ms); durations are Go durations (90s, 1h30m)
whose terms may also be days and weeks (1d, 2w, 1d12h).`

// ParseInstant reads an instant: RFC 3339, or epoch seconds or
// milliseconds with their unit (s, ms).
func ParseInstant(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	unit, num := time.Duration(0), ""
	switch {
	case strings.HasSuffix(s, "ms"):
		unit, num = time.Millisecond, strings.TrimSuffix(s, "ms")
	case strings.HasSuffix(s, "s"):
		unit, num = time.Second, strings.TrimSuffix(s, "s")
	}
	if unit == 0 {
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			return time.Time{}, fmt.Errorf("%q: an epoch time needs its unit: %ss (seconds) or %sms (milliseconds)", s, s, s)
		}
		return time.Time{}, fmt.Errorf("%q: want RFC 3339 (2024-01-14T12:00:00Z) or epoch time with a unit (1700000000s, 1700000000000ms)", s)
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q: want RFC 3339 (2024-01-14T12:00:00Z) or epoch time with a unit (1700000000s, 1700000000000ms)", s)
	}
	if unit == time.Second {
		if n > 1<<53 || n < -(1<<53) {
			return time.Time{}, fmt.Errorf("%q: epoch seconds out of range", s)
		}
		return time.Unix(n, 0).UTC(), nil
	}
	return time.UnixMilli(n).UTC(), nil
}

// ParseDuration reads a Go duration whose terms may also be days (d) and
// weeks (w): 1d, 2w, 1w2d3h, -1d.
func ParseDuration(s string) (time.Duration, error) {
	in := strings.TrimSpace(s)
	if !strings.ContainsAny(in, "dw") {
		return time.ParseDuration(in)
	}
	rest, neg := in, false
	if rest != "" && (rest[0] == '-' || rest[0] == '+') {
		neg, rest = rest[0] == '-', rest[1:]
	}
	var total time.Duration
	// Days and weeks come first, each an integer with its unit; the rest
	// is a Go duration.
	for rest != "" {
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 0 || i == len(rest) || (rest[i] != 'd' && rest[i] != 'w') {
			break
		}
		n, err := strconv.ParseInt(rest[:i], 10, 64)
		unit := 24 * time.Hour
		if rest[i] == 'w' {
			unit *= 7
		}
		if err != nil || n > int64(1<<62)/int64(unit) {
			return 0, fmt.Errorf("time: invalid duration %q", s)
		}
		total += time.Duration(n) * unit
		rest = rest[i+1:]
	}
	if rest != "" {
		if strings.ContainsAny(rest, "dw") {
			return 0, fmt.Errorf("time: invalid duration %q (days and weeks come first: 1w2d3h)", s)
		}
		d, err := time.ParseDuration(rest)
		if err != nil || d < 0 {
			return 0, fmt.Errorf("time: invalid duration %q", s)
		}
		total += d
	}
	if total < 0 {
		return 0, errors.New("time: duration overflows")
	}
	if neg {
		total = -total
	}
	return total, nil
}

// Duration is a pflag value for a duration written as ParseDuration reads
// it; it prints as Go prints durations, so defaults read as before, and 0
// as "0", which --help leaves out as pflag does a zero duration.
type Duration struct{ D *time.Duration }

// NewDuration sets *p to def and returns the flag value that sets it.
func NewDuration(p *time.Duration, def time.Duration) *Duration {
	*p = def
	return &Duration{p}
}

func (d *Duration) String() string {
	if d.D == nil || *d.D == 0 {
		return "0"
	}
	return d.D.String()
}

// Set parses a flag's argument.
func (d *Duration) Set(s string) error {
	v, err := ParseDuration(s)
	if err != nil {
		return err
	}
	*d.D = v
	return nil
}

// Type names the value in --help.
func (d *Duration) Type() string { return "duration" }

// Instant is a pflag value for an instant written as ParseInstant reads
// it, kept as epoch milliseconds; Given is false until the flag is given.
type Instant struct {
	Ms    *int64
	Given bool
}

// NewInstant returns the flag value that sets *p (epoch milliseconds).
func NewInstant(p *int64) *Instant { return &Instant{Ms: p} }

func (i *Instant) String() string {
	if i.Ms == nil || !i.Given {
		return ""
	}
	return time.UnixMilli(*i.Ms).UTC().Format(time.RFC3339Nano)
}

// Set parses a flag's argument.
func (i *Instant) Set(s string) error {
	t, err := ParseInstant(s)
	if err != nil {
		return err
	}
	*i.Ms, i.Given = t.UnixMilli(), true
	return nil
}

// Type names the value in --help.
func (i *Instant) Type() string { return "instant" }

// Seconds is a pflag value for a duration kept as float64 seconds (an
// option whose JSON field is in seconds): it reads what ParseDuration
// reads (90s, 1m30s, 1d) and, as before it was a duration, a bare number
// of seconds (60).
type Seconds struct{ S *float64 }

// NewSeconds sets *p to def seconds and returns the flag value that sets it.
func NewSeconds(p *float64, def float64) *Seconds {
	*p = def
	return &Seconds{p}
}

func (s *Seconds) String() string {
	if s.S == nil || *s.S == 0 {
		return "0"
	}
	return FormatSeconds(*s.S)
}

// Set parses a flag's argument.
func (s *Seconds) Set(v string) error {
	if x, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%q: want a duration (90s, 1m30s) or a number of seconds", v)
		}
		*s.S = x
		return nil
	}
	d, err := ParseDuration(v)
	if err != nil {
		return fmt.Errorf("%q: want a duration (90s, 1m30s) or a number of seconds", v)
	}
	*s.S = d.Seconds()
	return nil
}

// Type names the value in --help.
func (s *Seconds) Type() string { return "duration" }
