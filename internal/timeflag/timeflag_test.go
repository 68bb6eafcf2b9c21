package timeflag

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseInstant(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64 // epoch ms
		err  string
	}{
		{"2024-01-14T12:00:00Z", 1705233600000, ""},
		{"2024-01-14T13:00:00+01:00", 1705233600000, ""},
		{"2024-01-14T12:00:00.250Z", 1705233600250, ""},
		{"1705233600s", 1705233600000, ""},
		{"1705233600000ms", 1705233600000, ""},
		{"-1s", -1000, ""},
		{"1705233600", 0, `needs its unit: 1705233600s (seconds) or 1705233600ms`},
		{"yesterday", 0, "want RFC 3339"},
		{"12xs", 0, "want RFC 3339"},
		{"", 0, "want RFC 3339"},
		{"99999999999999999s", 0, "out of range"},
	} {
		got, err := ParseInstant(c.in)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: error %v, want %q", c.in, err, c.err)
		case c.err == "" && (err != nil || got.UnixMilli() != c.want):
			t.Errorf("%q: %v (%d), %v; want %d", c.in, got, got.UnixMilli(), err, c.want)
		}
	}
}

func TestParseDuration(t *testing.T) {
	day := 24 * time.Hour
	for _, c := range []struct {
		in   string
		want time.Duration
		bad  bool
	}{
		{"90s", 90 * time.Second, false}, {"1h30m", 90 * time.Minute, false}, {"250ms", 250 * time.Millisecond, false},
		{"1d", day, false}, {"2w", 14 * day, false}, {"1w2d3h", 9*day + 3*time.Hour, false}, {"1d12h", 36 * time.Hour, false},
		{"-1d", -day, false}, {"0", 0, false}, {"1.5d", 0, true}, {"1h1d", 0, true}, {"d", 0, true}, {"1x", 0, true},
		{"99999999999999w", 0, true}, {"1d-1h", 0, true},
	} {
		got, err := ParseDuration(c.in)
		if (err != nil) != c.bad || (!c.bad && got != c.want) {
			t.Errorf("%q: %v, %v; want %v (error %v)", c.in, got, err, c.want, c.bad)
		}
	}
}

// Go's own durations parse as Go parses them, and every duration reads
// back from the days-and-weeks form written from it.
func TestParseDurationProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for i := 0; i < 2000; i++ {
		d := time.Duration(rng.Int64N(int64(400 * 24 * time.Hour)))
		got, err := ParseDuration(d.String())
		if err != nil || got != d {
			t.Fatalf("%s: %v, %v", d, got, err)
		}
		weeks, days := d/(7*24*time.Hour), d%(7*24*time.Hour)/(24*time.Hour)
		s := strconv.FormatInt(int64(weeks), 10) + "w" + strconv.FormatInt(int64(days), 10) + "d"
		if rest := d % (24 * time.Hour); rest != 0 {
			s += rest.String()
		}
		if got, err := ParseDuration(s); err != nil || got != d {
			t.Fatalf("%s (%s): %v, %v", s, d, got, err)
		}
	}
}

// The flag values parse when set and print defaults as Go durations, as
// pflag's own duration flags do.
func TestFlagValues(t *testing.T) {
	var d time.Duration
	v := NewDuration(&d, 24*time.Hour)
	if v.String() != "24h0m0s" || v.Type() != "duration" {
		t.Errorf("default %q type %q", v.String(), v.Type())
	}
	if err := v.Set("2w"); err != nil || d != 14*24*time.Hour {
		t.Errorf("2w: %v %v", d, err)
	}
	if err := v.Set("soon"); err == nil {
		t.Error("soon accepted")
	}
	var ms int64
	i := NewInstant(&ms)
	if i.Given || i.String() != "" {
		t.Error("an instant not given")
	}
	if err := i.Set("1700000000s"); err != nil || !i.Given || ms != 1700000000000 || i.String() != "2023-11-14T22:13:20Z" {
		t.Errorf("instant %d %v %q", ms, err, i.String())
	}
}

// Seconds reads durations and bare seconds, and refuses the rest.
func TestSeconds(t *testing.T) {
	var v float64
	f := NewSeconds(&v, 60)
	if f.String() != "1m" {
		t.Errorf("default prints %q", f.String())
	}
	for in, want := range map[string]float64{"90": 90, "1.5": 1.5, "90s": 90, "1m30s": 90, "1d": 86400, "0": 0} {
		if err := f.Set(in); err != nil || v != want {
			t.Errorf("Set(%q): %v, %v; want %v", in, v, err, want)
		}
	}
	for _, in := range []string{"", "NaN", "+Inf", "1x", "one minute"} {
		if err := f.Set(in); err == nil {
			t.Errorf("Set(%q) accepted: %v", in, v)
		}
	}
}
