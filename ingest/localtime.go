package ingest

import (
	"fmt"
	"time"
)

// localClock turns wall-clock readings of one file, in file order, into
// instants in a time zone with daylight saving.
//
// A wall time in the hour the clock skips in spring does not exist: it is
// an error (the row is rejected), never silently moved. A wall time in the
// hour repeated in autumn has two instants. A logger writing in local time
// passes through that hour twice, so the reading is taken as the first pass
// (the earlier, summer-time instant) until the wall time goes backwards
// inside the repeated hour; from there on, to the end of the hour, it is the
// second pass (the later, winter-time instant). A file that never goes back
// (an hour merged or missing) gets the first pass only. Rows repeating the
// same wall time stay in the same pass, and so are duplicates.
type localClock struct {
	loc        *time.Location
	prevAmbig  bool  // the previous accepted row was in a repeated hour
	prevWall   int64 // its wall time, as if UTC, ms
	prevSecond bool  // and it was the second pass
}

// errNoSuchLocalTime is wrapped in the rejection of a skipped wall time.
type errNoSuchLocalTime struct {
	wall string
	loc  *time.Location
}

func (e errNoSuchLocalTime) Error() string {
	return fmt.Sprintf("local time %s does not exist in %s (the clock skipped it at a daylight-saving change)", e.wall, e.loc)
}

// offsetAt is the zone's UTC offset in ms at instant ms.
func offsetAt(loc *time.Location, ms int64) int64 {
	_, off := time.UnixMilli(ms).In(loc).Zone()
	return int64(off) * 1000
}

// candidates returns the instants whose wall clock in loc reads wall (ms,
// as if UTC): none in a skipped hour, two in a repeated one, sorted.
func candidates(loc *time.Location, wall int64) (out [2]int64, n int) {
	const day = 86400 * 1000
	a, b := offsetAt(loc, wall-day), offsetAt(loc, wall+day)
	for _, off := range [2]int64{a, b} {
		u := wall - off
		if offsetAt(loc, u) != off || (n == 1 && out[0] == u) {
			continue
		}
		out[n] = u
		n++
	}
	if n == 2 && out[0] > out[1] {
		out[0], out[1] = out[1], out[0]
	}
	return out, n
}

// instant resolves the next accepted row's wall time; text is for errors.
func (c *localClock) instant(wall int64, text string) (int64, error) {
	cand, n := candidates(c.loc, wall)
	switch n {
	case 0:
		c.prevAmbig = false
		return 0, errNoSuchLocalTime{wall: text, loc: c.loc}
	case 1:
		c.prevAmbig = false
		return cand[0], nil
	}
	fold := cand[1] - cand[0] // length of the repeated hour
	second := false
	if c.prevAmbig && abs64(wall-c.prevWall) <= fold {
		second = c.prevSecond || wall < c.prevWall
	}
	c.prevAmbig, c.prevWall, c.prevSecond = true, wall, second
	if second {
		return cand[1], nil
	}
	return cand[0], nil
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// isLocalTimestamp reports whether b is a calendar timestamp without a UTC
// offset ("2014-02-14 14:30:00", "2014-02-14T14:30:00.5", "2014-02-14"),
// which is read in a time zone.
func isLocalTimestamp(b []byte) bool {
	n := len(b)
	if n < 10 || b[4] != '-' {
		return false
	}
	if b[n-1] == 'Z' || b[n-1] == 'z' {
		return false
	}
	if n >= 16 && (b[n-6] == '+' || b[n-6] == '-') && b[n-3] == ':' {
		return false
	}
	return true
}
