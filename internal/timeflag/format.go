package timeflag

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// FormatDuration writes a duration the way ParseDuration reads it back,
// for every output wlprof prints: days, hours, minutes and seconds with
// the zero ones left out (1d, 2h30m, 41m5s, 1d1h), a minus sign when
// negative. Below a minute it keeps milliseconds (12.345s, 250ms); from a
// minute on it is rounded to the second.
func FormatDuration(d time.Duration) string {
	if d < 0 {
		if d == math.MinInt64 {
			d++ // -d would overflow
		}
		return "-" + FormatDuration(-d)
	}
	if d < time.Minute {
		return d.Round(time.Millisecond).String()
	}
	d = d.Round(time.Second)
	var b strings.Builder
	for _, u := range []struct {
		suffix string
		size   time.Duration
	}{{"d", 24 * time.Hour}, {"h", time.Hour}, {"m", time.Minute}, {"s", time.Second}} {
		if n := d / u.size; n > 0 {
			b.WriteString(strconv.FormatInt(int64(n), 10))
			b.WriteString(u.suffix)
			d -= n * u.size
		}
	}
	return b.String()
}

// FormatSeconds is FormatDuration of s seconds ("NaN" and "±Inf" as such).
func FormatSeconds(s float64) string {
	if math.IsNaN(s) || math.IsInf(s, 0) || math.Abs(s) > float64(math.MaxInt64/int64(time.Second)) {
		return strconv.FormatFloat(s, 'g', -1, 64) + "s"
	}
	return FormatDuration(time.Duration(math.Round(s * float64(time.Second))))
}

// FormatOffset writes an offset from an instant with its sign, + or −
// (+2h, -41m5s): an SLO's arrival and deadline from their period's start.
func FormatOffset(s float64) string {
	f := FormatSeconds(s)
	if strings.HasPrefix(f, "-") {
		return f
	}
	return "+" + f
}
