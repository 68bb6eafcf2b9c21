package ingest

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // America/New_York without relying on the host's zoneinfo
)

// checkFloat compares parseFloat with strconv.ParseFloat, the oracle: both
// fail, or both give the same bits (NaN matches NaN).
func checkFloat(t *testing.T, s string) {
	t.Helper()
	want, werr := strconv.ParseFloat(s, 64)
	got, gerr := parseFloat([]byte(s))
	if werr != nil {
		if gerr == nil {
			t.Fatalf("parseFloat(%q) = %v, want an error (strconv: %v)", s, got, werr)
		}
		return
	}
	if gerr != nil {
		t.Fatalf("parseFloat(%q): %v, want %v", s, gerr, want)
	}
	if math.IsNaN(want) {
		if !math.IsNaN(got) {
			t.Fatalf("parseFloat(%q) = %v, want NaN", s, got)
		}
		return
	}
	if math.Float64bits(got) != math.Float64bits(want) {
		t.Fatalf("parseFloat(%q) = %v (%#x), want %v (%#x)", s, got, math.Float64bits(got), want, math.Float64bits(want))
	}
}

func TestParseFloatCases(t *testing.T) {
	cases := []string{
		"0", "1", "-1", "+1", "-0", "+0", "0.0", "-0.0", "00", "007", "-007.50", "000.000",
		"0.5", ".5", "-.5", "+.5", "5.", "-5.", "1.", "0.25", "0.1", "0.2", "0.3", "0.30000000000000004",
		"37.5", "100", "99.99", "1e3", "1E3", "1e-3", "2.5e+2", "-2.5E-2", "1e308", "1e309", "-1e309",
		"1e-320", "4.9e-324", "2e-324",
		"123456789012345", "1234567890123456", "12345678901234567890123", "0.123456789012345",
		"0.1234567890123456", "9007199254740993", "0.000000000000000000001", "0.0000000000000000000001",
		"0.00000000000000000000001", "1.0000000000000000000000", "100000000000000000000000",
		"3.14159265358979323846264338327950288", "000000000000000000000000000001.5",
		"NaN", "nan", "inf", "Inf", "+Inf", "-inf", "infinity", "-Infinity",
		"", ".", "-", "+", "-.", "+.", "..", "1.2.3", "1..2", "--1", "+-1", "1-", "1e", "1e+", "e5",
		" 1", "1 ", "1,5", "0x10", "0x1p-2", "1_000", "abc", "1.5x", "½",
	}
	for _, s := range cases {
		checkFloat(t, s)
	}
	// Spot checks that do not depend on the oracle.
	for s, want := range map[string]float64{"0.25": 0.25, "-007.50": -7.5, ".5": 0.5, "37.5": 37.5, "1e3": 1000} {
		if got, err := parseFloat([]byte(s)); err != nil || got != want {
			t.Errorf("parseFloat(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	if got, _ := parseFloat([]byte("-0")); !math.Signbit(got) {
		t.Errorf("parseFloat(-0) lost the sign")
	}
	for _, s := range []string{"", ".", "-", "1.2.3", "abc"} {
		if _, err := parseFloat([]byte(s)); err == nil {
			t.Errorf("parseFloat(%q): no error", s)
		}
	}
}

func randDigits(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteByte(byte('0' + r.IntN(10)))
	}
	return b.String()
}

// randDecimal builds a decimal that exercises both paths of parseFloat:
// signs, leading zeros, up to 25 digits on each side of the point, and
// exponents, plus the occasional malformed string.
func randDecimal(r *rand.Rand) string {
	var b strings.Builder
	switch r.IntN(4) {
	case 0:
		b.WriteByte('-')
	case 1:
		b.WriteByte('+')
	}
	if r.IntN(4) == 0 {
		b.WriteString(strings.Repeat("0", 1+r.IntN(5)))
	}
	maxDigits := 8
	if r.IntN(3) == 0 {
		maxDigits = 25 // past 15 significant digits: the slow path
	}
	b.WriteString(randDigits(r, r.IntN(maxDigits)))
	if r.IntN(3) != 0 {
		b.WriteByte('.')
		if r.IntN(4) == 0 {
			b.WriteString(strings.Repeat("0", r.IntN(20)))
		}
		b.WriteString(randDigits(r, r.IntN(maxDigits)))
	}
	if r.IntN(6) == 0 {
		b.WriteByte("eE"[r.IntN(2)])
		switch r.IntN(3) {
		case 0:
			b.WriteByte('-')
		case 1:
			b.WriteByte('+')
		}
		b.WriteString(strconv.Itoa(r.IntN(340)))
	}
	s := b.String()
	if r.IntN(20) == 0 && len(s) > 0 { // corrupt one byte
		i := r.IntN(len(s))
		s = s[:i] + string(".-+eX "[r.IntN(6)]) + s[i+1:]
	}
	return s
}

func TestParseFloatOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200000; i++ {
		checkFloat(t, randDecimal(r))
	}
	// Shortest representations of random doubles, as strconv writes them:
	// the round trip must be exact.
	for i := 0; i < 100000; i++ {
		f := math.Float64frombits(r.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		for _, s := range []string{strconv.FormatFloat(f, 'g', -1, 64), strconv.FormatFloat(f, 'f', -1, 64)} {
			got, err := parseFloat([]byte(s))
			if err != nil || math.Float64bits(got) != math.Float64bits(f) {
				t.Fatalf("parseFloat(%q) = %v, %v; want %v", s, got, err, f)
			}
		}
		u := r.Float64() // typical utilisation values
		s := strconv.FormatFloat(u, 'f', r.IntN(17), 64)
		checkFloat(t, s)
	}
}

func mustLoc(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func TestParseTimestampCases(t *testing.T) {
	ms := func(y int, mo time.Month, d, h, mi, s, ns int, loc *time.Location) int64 {
		return time.Date(y, mo, d, h, mi, s, ns, loc).UnixMilli()
	}
	ist := time.FixedZone("", 5*3600+30*60)
	pst := time.FixedZone("", -8*3600)
	cases := []struct {
		in   string
		want int64
	}{
		{"2024-01-31T12:00:00Z", ms(2024, 1, 31, 12, 0, 0, 0, time.UTC)},
		{"2024-01-31t12:00:00z", ms(2024, 1, 31, 12, 0, 0, 0, time.UTC)},
		{"2024-01-31T12:00:00+05:30", ms(2024, 1, 31, 12, 0, 0, 0, ist)},
		{"2024-01-31T12:00:00-08:00", ms(2024, 1, 31, 12, 0, 0, 0, pst)},
		{"2024-01-31T12:00:00+00:00", ms(2024, 1, 31, 12, 0, 0, 0, time.UTC)},
		{"2024-01-31T12:00:00-00:00", ms(2024, 1, 31, 12, 0, 0, 0, time.UTC)},
		{"2024-01-31T12:00:00.5Z", ms(2024, 1, 31, 12, 0, 0, 500e6, time.UTC)},
		{"2024-01-31T12:00:00.123Z", ms(2024, 1, 31, 12, 0, 0, 123e6, time.UTC)},
		{"2024-01-31T12:00:00,123Z", ms(2024, 1, 31, 12, 0, 0, 123e6, time.UTC)},
		{"2024-01-31T12:00:00.123999999Z", ms(2024, 1, 31, 12, 0, 0, 123e6, time.UTC)},     // truncated, like time.UnixMilli
		{"2024-01-31T12:00:00.1239999999999Z", ms(2024, 1, 31, 12, 0, 0, 123e6, time.UTC)}, // more than 9 digits
		{"2024-01-31T12:00:00.987-08:00", ms(2024, 1, 31, 12, 0, 0, 987e6, pst)},
		{"2024-01-31 12:00:00Z", ms(2024, 1, 31, 12, 0, 0, 0, time.UTC)},
		{"2024-01-31 12:00:00", ms(2024, 1, 31, 12, 0, 0, 0, time.UTC)},
		{"2024-01-31T12:00:00", ms(2024, 1, 31, 12, 0, 0, 0, time.UTC)},
		{"2024-01-31 12:00:00.250", ms(2024, 1, 31, 12, 0, 0, 250e6, time.UTC)},
		{"2024-01-31", ms(2024, 1, 31, 0, 0, 0, 0, time.UTC)},
		{"2024-02-29T23:59:59Z", ms(2024, 2, 29, 23, 59, 59, 0, time.UTC)},
		{"2000-02-29T00:00:00Z", ms(2000, 2, 29, 0, 0, 0, 0, time.UTC)},
		{"1969-12-31T23:59:59.999Z", -1},
		{"1900-01-01T00:00:00Z", ms(1900, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"0000-01-01T00:00:00Z", ms(0, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"9999-12-31T23:59:59.999Z", ms(9999, 12, 31, 23, 59, 59, 999e6, time.UTC)},
		// epoch seconds and milliseconds, told apart at 1e11
		{"0", 0},
		{"1", 1000},
		{"1700000000", 1700000000000},
		{"99999999999", 99999999999000},
		{"100000000000", 100000000000},
		{"1700000000123", 1700000000123},
		{"1000000000000000", 1e15},
		{"1700000000.5", 1700000000500},
		{"1700000000.123", 1700000000123},
		{"1700000000.0004", 1700000000000}, // rounded to the millisecond
		{"1700000000.0006", 1700000000001},
		{"+1700000000", 1700000000000},
		{"-1", -1000},
		{"-1.5", -1500},
		{"-100000000000", -100000000000},
		{"1.7e9", 1700000000000},
		{"1.7e12", 1700000000000},
		{"1700000000123.4", 1700000000123},
		{"001700000000", 1700000000000},
	}
	for _, c := range cases {
		got, err := parseTimestamp([]byte(c.in), time.UTC)
		if err != nil || got != c.want {
			t.Errorf("parseTimestamp(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}

	bad := []string{
		"", "garbage", "NaN", "inf", "-inf", "2023-02-29T00:00:00Z", "2100-02-29T00:00:00Z", "2024-04-31T00:00:00Z",
		"2024-13-01T00:00:00Z", "2024-00-10T00:00:00Z", "2024-01-00T00:00:00Z", "2024-01-32T00:00:00Z",
		"2024-01-31T24:00:00Z", "2024-01-31T23:60:00Z", "2024-01-31T23:59:60Z",
		"2024-01-31T12:00Z", "2024-01-31T12:00:00+0530", "2024-01-31T12:00:00+05", "2024-01-31T12:00:00+24:00",
		"2024-01-31T12:00:00+05:60", "2024-01-31T12:00:00ZZ", "2024-01-31T12:00:00 Z", "2024-01-31T12:00:00.Z",
		"2024-01-31X12:00:00Z", "2024-1-31T12:00:00Z", "2024-01-3", "2024/01/31T12:00:00Z", "abcd-01-31T12:00:00Z",
		"2024-01-31T1a:00:00Z", "2024-01-31T12:00:00GMT", " 1700000000", "1700000000 ", "1,700,000,000",
		"1000000000000001", "12345678901234567890", "1e16", "-1e16", "1700000000s", "0x10",
	}
	for _, s := range bad {
		if got, err := parseTimestamp([]byte(s), time.UTC); err == nil {
			t.Errorf("parseTimestamp(%q) = %d, want an error", s, got)
		}
	}
	if _, err := parseTimestamp([]byte("2023-02-29T00:00:00Z"), time.UTC); err == nil || !strings.Contains(err.Error(), "RFC 3339") {
		t.Errorf("invalid date: error %v should explain the expected form", err)
	}
	if _, err := parseTimestamp([]byte("1000000000000001"), time.UTC); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("microseconds: error %v should say out of range", err)
	}
}

func TestParseTimestampLocation(t *testing.T) {
	ny := mustLoc(t, "America/New_York")
	layouts := map[string]string{
		"2024-01-31T12:00:00":     "2006-01-02T15:04:05",
		"2024-07-04 09:30:15":     "2006-01-02 15:04:05",
		"2024-07-04 09:30:15.250": "2006-01-02 15:04:05",
		"2024-03-10T02:30:00":     "2006-01-02T15:04:05", // does not exist in New York (DST gap)
		"2024-11-03T01:30:00":     "2006-01-02T15:04:05", // happens twice in New York
		"1950-06-01T00:00:00":     "2006-01-02T15:04:05",
		"2024-01-31":              "2006-01-02",
	}
	for s, layout := range layouts {
		want, err := time.ParseInLocation(layout, s, ny)
		if err != nil {
			t.Fatal(err)
		}
		got, err := parseTimestamp([]byte(s), ny)
		if err != nil || got != want.UnixMilli() {
			t.Errorf("parseTimestamp(%q, New York) = %d, %v; want %d", s, got, err, want.UnixMilli())
		}
		utc, _ := parseTimestamp([]byte(s), time.UTC)
		if off := got - utc; off != 4*3600e3 && off != 5*3600e3 {
			t.Errorf("%q: New York is %d ms from UTC, want 4 or 5 hours", s, off)
		}
	}
	// An explicit offset or Z wins over the location; epoch numbers ignore it.
	for _, s := range []string{"2024-01-31T12:00:00Z", "2024-01-31T12:00:00+05:30", "1700000000", "1700000000123"} {
		a, err1 := parseTimestamp([]byte(s), ny)
		b, err2 := parseTimestamp([]byte(s), time.UTC)
		if err1 != nil || err2 != nil || a != b {
			t.Errorf("%q: New York %d %v, UTC %d %v; the location must not matter", s, a, err1, b, err2)
		}
	}
	// nil location is UTC.
	if a, err := parseTimestamp([]byte("2024-01-31T12:00:00"), nil); err != nil || a != time.Date(2024, 1, 31, 12, 0, 0, 0, time.UTC).UnixMilli() {
		t.Errorf("nil location: %d, %v", a, err)
	}
	// Invalid local dates are rejected in any location.
	if _, err := parseTimestamp([]byte("2023-02-29 10:00:00"), ny); err == nil {
		t.Errorf("2023-02-29 in New York accepted")
	}
}

// TestParseTimestampOracle formats random instants between 1900 and 2200 in
// random zones and layouts and checks parseTimestamp against time.Parse.
func TestParseTimestampOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	ny := mustLoc(t, "America/New_York")
	lo := time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	hi := time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	type layout struct {
		format, parse string
		ms            bool // the format keeps milliseconds
	}
	zoned := []layout{
		{time.RFC3339, time.RFC3339, false},
		{time.RFC3339Nano, time.RFC3339, true},
		{"2006-01-02T15:04:05.000Z07:00", time.RFC3339, true},
		{"2006-01-02T15:04:05.000000Z07:00", time.RFC3339, true},
		{"2006-01-02 15:04:05Z07:00", "2006-01-02 15:04:05Z07:00", false},
		{"2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05Z07:00", true},
	}
	local := []layout{
		{"2006-01-02T15:04:05", "2006-01-02T15:04:05", false},
		{"2006-01-02 15:04:05.999999999", "2006-01-02 15:04:05", true},
		{"2006-01-02T15:04:05.000", "2006-01-02T15:04:05", true},
	}
	for i := 0; i < 100000; i++ {
		inst := time.Unix(lo+r.Int64N(hi-lo), 0)
		switch r.IntN(3) {
		case 1:
			inst = inst.Add(time.Duration(r.IntN(1000)) * time.Millisecond)
		case 2:
			inst = inst.Add(time.Duration(r.IntN(1e9)))
		}
		var zone *time.Location
		switch r.IntN(3) {
		case 0:
			zone = time.UTC
		case 1:
			zone = time.FixedZone("", (r.IntN(2*14*60+1)-14*60)*60) // ±14:00 in minutes
		default:
			zone = ny
		}
		inst = inst.In(zone)

		l := zoned[r.IntN(len(zoned))]
		s := inst.Format(l.format)
		want, err := time.Parse(l.parse, s)
		if err != nil {
			t.Fatalf("oracle cannot parse %q: %v", s, err)
		}
		got, err := parseTimestamp([]byte(s), time.UTC)
		if err != nil || got != want.UnixMilli() {
			t.Fatalf("parseTimestamp(%q) = %d, %v; want %d", s, got, err, want.UnixMilli())
		}
		if l.ms && got != inst.UnixMilli() {
			t.Fatalf("parseTimestamp(%q) = %d; the instant was %d", s, got, inst.UnixMilli())
		}

		// Without an offset, in the reader's location.
		l = local[r.IntN(len(local))]
		s = inst.Format(l.format)
		want, err = time.ParseInLocation(l.parse, s, zone)
		if err != nil {
			t.Fatalf("oracle cannot parse %q: %v", s, err)
		}
		got, err = parseTimestamp([]byte(s), zone)
		if err != nil || got != want.UnixMilli() {
			t.Fatalf("parseTimestamp(%q, %v) = %d, %v; want %d", s, zone, got, err, want.UnixMilli())
		}

		// Epoch seconds, fractional seconds and milliseconds of the same
		// instant (ms only above the 1e11 threshold, i.e. after March 1973).
		ms := inst.UnixMilli()
		if got, err := parseTimestamp([]byte(strconv.FormatInt(inst.Unix(), 10)), time.UTC); err != nil || got != inst.Unix()*1000 {
			t.Fatalf("epoch seconds %d: %d, %v", inst.Unix(), got, err)
		}
		if ms >= epochMsThreshold {
			if got, err := parseTimestamp([]byte(strconv.FormatInt(ms, 10)), time.UTC); err != nil || got != ms {
				t.Fatalf("epoch ms %d: %d, %v", ms, got, err)
			}
		}
		frac := strconv.FormatFloat(float64(ms)/1000, 'f', 3, 64)
		if got, err := parseTimestamp([]byte(frac), time.UTC); err != nil || got != ms {
			t.Fatalf("fractional epoch seconds %s: %d, %v; want %d", frac, got, err, ms)
		}
	}
}

func TestDaysFromCivil(t *testing.T) {
	check := func(y, m, d int) {
		t.Helper()
		want := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Unix() / 86400
		if got := daysFromCivil(y, m, d); got != want {
			t.Fatalf("daysFromCivil(%d, %d, %d) = %d, want %d", y, m, d, got, want)
		}
	}
	for _, c := range [][3]int{{1970, 1, 1}, {1969, 12, 31}, {1970, 3, 1}, {2000, 2, 29}, {2000, 3, 1},
		{1900, 2, 28}, {1900, 3, 1}, {1600, 2, 29}, {2400, 2, 29}, {1, 1, 1}, {0, 1, 1}, {0, 2, 29},
		{-1, 12, 31}, {-400, 3, 1}, {-401, 2, 28}, {9999, 12, 31}} {
		check(c[0], c[1], c[2])
	}
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 200000; i++ {
		y := r.IntN(4000) - 1000 // 1000 BC to AD 3000, well before and after 1970
		if i%2 == 0 {
			y = 1800 + r.IntN(400)
		}
		m := 1 + r.IntN(12)
		d := 1 + r.IntN(daysIn(y, m))
		check(y, m, d)
	}
	// daysIn agrees with time.Date's normalisation.
	for y := 1890; y <= 2110; y++ {
		for m := 1; m <= 12; m++ {
			want := time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
			if got := daysIn(y, m); got != want {
				t.Fatalf("daysIn(%d, %d) = %d, want %d", y, m, got, want)
			}
		}
	}
}

// TestParseRFC3339Damaged: every prefix of a valid instant, and every
// single-byte change of one, is an error or an instant, never a panic
// (issue 22 #15: "2024" as an OpenLineage nominalStartTime sliced past
// its end and aborted the whole file).
func TestParseRFC3339Damaged(t *testing.T) {
	for _, v := range []string{"2024-01-31T12:00:00Z", "2024-01-31 12:00:00,123", "2024-01-31T12:00:00.5+05:30", "2024-02-29"} {
		for n := 0; n <= len(v); n++ {
			b := []byte(v[:n])
			_, err := parseRFC3339(b, time.UTC)
			if n < 10 && err == nil {
				t.Errorf("%q: accepted", b)
			}
			for i := range b {
				for _, c := range []byte{0, '-', ':', '9', 'T', 0xff} {
					d := append([]byte(nil), b...)
					d[i] = c
					_, _ = parseRFC3339(d, time.UTC)
				}
			}
		}
	}
	if _, err := parseRFC3339([]byte("2024x01-31"), time.UTC); err == nil {
		t.Error("2024x01-31: accepted")
	}
}
