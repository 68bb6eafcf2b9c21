package timeflag

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestFormatDuration(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"}, {250 * time.Millisecond, "250ms"}, {12345 * time.Millisecond, "12.345s"},
		{time.Minute, "1m"}, {90 * time.Minute, "1h30m"}, {41*time.Minute + 5*time.Second + 400*time.Millisecond, "41m5s"},
		{24 * time.Hour, "1d"}, {25 * time.Hour, "1d1h"}, {7 * 24 * time.Hour, "7d"},
		{-2465 * time.Second, "-41m5s"}, {-10800 * time.Second, "-3h"},
	} {
		if got := FormatDuration(c.d); got != c.want {
			t.Errorf("%v: %q, want %q", c.d, got, c.want)
		}
	}
	if got := FormatOffset(-2465); got != "-41m5s" {
		t.Errorf("offset -2465 s: %q", got)
	}
	if got := FormatOffset(7542); got != "+2h5m42s" {
		t.Errorf("offset 7542 s: %q", got)
	}
	if got := FormatSeconds(1.5); got != "1.5s" {
		t.Errorf("1.5 s: %q", got)
	}
}

// What is printed reads back: ParseDuration of FormatDuration is the
// duration, rounded as FormatDuration rounds it.
func TestFormatParsesBack(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for i := 0; i < 5000; i++ {
		d := time.Duration(rng.Int64N(int64(60*24*time.Hour))) - 30*24*time.Hour
		s := FormatDuration(d)
		got, err := ParseDuration(s)
		want := d.Round(time.Second)
		if d > -time.Minute && d < time.Minute {
			want = d.Round(time.Millisecond)
		}
		if err != nil || got != want {
			t.Fatalf("%v → %q → %v, %v; want %v", d, s, got, err, want)
		}
	}
}
