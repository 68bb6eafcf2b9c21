package skyline

import (
	"testing"
	"time"

	"github.com/wlprof/wlprof/profile"
)

// unixMs is the instant s (RFC 3339) in Unix milliseconds.
func unixMs(t *testing.T, s string) int64 {
	t.Helper()
	tm, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return tm.UnixMilli()
}

// NextWindow counts the SLO's offsets from the slo stage's own
// period starts: a weekly job's periods start on Mondays (whole weeks from
// the Unix epoch start on Thursdays), a phase-anchored period anywhere.
// Without an anchor for the job's period it falls back to one period after
// the last run, with no deadline.
func TestReservationWindowUsesTheSLOAnchor(t *testing.T) {
	ms := func(s string) int64 { return unixMs(t, s) }
	slo := &profile.SLO{Actionable: true, ArrivalS: &profile.Number{Value: 3600}, DeadlineS: &profile.Number{Value: 7200}}
	week := int64(7 * 86400 * 1000)
	monday := ms("1970-01-05T00:00:00Z")
	cases := []struct {
		name                 string
		periodS              float64
		last                 int64
		a                    *Anchor
		arrival, deadline, p int64
	}{
		{"weekly, last run on a Wednesday: the next Monday", 7 * 86400, ms("2024-03-06T10:00:00Z"), &Anchor{week, monday},
			ms("2024-03-11T01:00:00Z"), ms("2024-03-11T02:00:00Z"), week},
		{"phase anchor after the last run", 5400, ms("2024-03-06T10:00:00Z"), &Anchor{5400_000, ms("2024-03-07T00:10:00Z")},
			ms("2024-03-06T11:40:00Z"), ms("2024-03-06T12:40:00Z"), 5400_000}, // starts …09:10, 10:40, …
		{"anchor of another period: fallback", 86400, ms("2024-03-06T10:00:00Z"), &Anchor{week, monday},
			ms("2024-03-07T10:00:00Z"), 0, 86400_000},
		{"no anchor: fallback", 86400, ms("2024-03-06T10:00:00Z"), nil,
			ms("2024-03-07T10:00:00Z"), 0, 86400_000},
	}
	for _, c := range cases {
		a, d, p := NextWindow(c.periodS, c.last, 0, slo, c.a)
		if a != c.arrival || d != c.deadline || p != c.p {
			t.Errorf("%s: arrival %s deadline %d period %d, want %s %d %d", c.name,
				time.UnixMilli(a).UTC().Format(time.RFC3339), d, p, time.UnixMilli(c.arrival).UTC().Format(time.RFC3339), c.deadline, c.p)
		}
	}
}

// A reservation never starts before the data it was fitted on ends: with
// now (the dataset's last instant) days after the last run, the window
// moves to the first occurrence whose arrival is at or after now, on the
// same grid of periods; a now before the next occurrence changes nothing.
func TestReservationWindowNotBeforeNow(t *testing.T) {
	ms := func(s string) int64 { return unixMs(t, s) }
	slo := &profile.SLO{Actionable: true, ArrivalS: &profile.Number{Value: 3600}, DeadlineS: &profile.Number{Value: 7200}}
	day := int64(86400_000)
	last := ms("2024-03-06T10:00:00Z")
	anchor := &Anchor{day, ms("1970-01-01T00:00:00Z")}
	cases := []struct {
		name              string
		now               int64
		a                 *Anchor
		arrival, deadline int64
	}{
		{"SLO, now before the next arrival", ms("2024-03-07T00:30:00Z"), anchor, ms("2024-03-07T01:00:00Z"), ms("2024-03-07T02:00:00Z")},
		{"SLO, now exactly at the next arrival", ms("2024-03-07T01:00:00Z"), anchor, ms("2024-03-07T01:00:00Z"), ms("2024-03-07T02:00:00Z")},
		{"SLO, now just after it: the day after", ms("2024-03-07T01:00:01Z"), anchor, ms("2024-03-08T01:00:00Z"), ms("2024-03-08T02:00:00Z")},
		{"SLO, data ends ten days later", ms("2024-03-16T12:00:00Z"), anchor, ms("2024-03-17T01:00:00Z"), ms("2024-03-17T02:00:00Z")},
		{"no SLO, data ends ten days later", ms("2024-03-16T12:00:00Z"), nil, ms("2024-03-17T10:00:00Z"), 0},
		{"no SLO, now before the next start", ms("2024-03-06T12:00:00Z"), nil, ms("2024-03-07T10:00:00Z"), 0},
	}
	for _, c := range cases {
		a, d, _ := NextWindow(86400, last, c.now, slo, c.a)
		if a != c.arrival || d != c.deadline || a < c.now {
			t.Errorf("%s: arrival %s deadline %d, want %s %d (not before %s)", c.name,
				time.UnixMilli(a).UTC().Format(time.RFC3339), d, time.UnixMilli(c.arrival).UTC().Format(time.RFC3339), c.deadline,
				time.UnixMilli(c.now).UTC().Format(time.RFC3339))
		}
	}
}
