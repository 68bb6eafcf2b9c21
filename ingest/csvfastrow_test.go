package ingest

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wlprof/wlprof/internal/synth"
)

// chunkResult is what a worker makes of one chunk, with names resolved.
type chunkResult struct {
	Tenant, Server []string
	TimeMs         []int64
	CPU, Memory    []string // %v of the bits: NaN equals NaN, -0 differs from 0
	Rejects        []chunkReject
	Lines          int64
}

// parseWhole parses the body of data (after its header) as one chunk, the
// fast path on or off.
func parseWhole(t testing.TB, data []byte, unit CPUUnit, fast bool) chunkResult {
	t.Helper()
	defer func(old bool) { csvFastPath = old }(csvFastPath)
	csvFastPath = fast
	in, ok := openMemory("body.csv", data)
	if !ok {
		t.Fatalf("openMemory refused %q", data)
	}
	r, err := newUsageCSV(in, unit, time.UTC)
	if err != nil {
		t.Fatalf("%q: %v", data, err)
	}
	pc := &parallelCSV{data: r.lr.data, columnar: true}
	c := &csvChunk{start: r.lr.off, end: len(r.lr.data)}
	p := r.p.clone()
	pc.parseChunk(p, c)
	if c.fault != nil {
		t.Fatalf("%q: fault %v at %s", data, c.fault, c.faultAt)
	}
	res := chunkResult{TimeMs: c.cols.TimeMs, Rejects: c.rejects, Lines: c.lines}
	for i := range c.cols.TimeMs {
		res.Tenant = append(res.Tenant, c.cols.Tenants[c.cols.Tenant[i]])
		res.Server = append(res.Server, c.cols.Servers[c.cols.Server[i]])
		res.CPU = append(res.CPU, fmt.Sprint(math.Float64bits(c.cols.CPU[i])))
		m := math.NaN() // no memory column: the column stays empty
		if len(c.cols.Memory) > 0 {
			m = c.cols.Memory[i]
		}
		res.Memory = append(res.Memory, fmt.Sprint(math.Float64bits(m)))
	}
	return res
}

// The pieces of the random lines: what the fast path takes, and the near
// misses it must leave to the general path (signs, exponents, dates,
// quotes, empty fields, values just within and just beyond 1 + 1e-9 of a
// server, long runs of zeros, names that are not UTF-8, stray carriage
// returns).
var (
	fastNames = []string{"t0", "t1", "t0000s0", "a b", "", "\"q\"", "é", "\xff", strings.Repeat("n", 300), " t1",
		"tenant-8", "tenant-09", "t23456789abcdef\r", "tenant-0123456789", "x\"yyyyyyyyy", strings.Repeat("n", 255),
		strings.Repeat("n", 256), strings.Repeat("n", 257), strings.Repeat("n", 263)}
	fastTimes = []string{"1704067200", "1704067200123", "0001704067200", "", "-5", "1e9", "+1704067200",
		"2024-01-01T00:00:00Z", "9999999999999999", "100000000000", "99999999999", "1704067200.5", "0"}
	fastNums = []string{"0.5", "1", "1.0", "1.0000000001", "1.000000002", "1.5", "100.0000001", "100", "50", "0", "-0", "+0.5", ".5", "5.",
		".", "", "0.12345678901234567", "nan", "NaN", "1e-2", "00000.5", "0.000000000000000000000001", "12.5.1",
		strings.Repeat("0", 80) + "1", "0.2097", "99.99"}
	fastEnds = []string{"\n", "\n", "\n", "\r\n", "\r\r\n", "\r", "\n\n", ",\n", ",x\n"}
)

func randomBody(r *rand.Rand, mem bool) string {
	var b strings.Builder
	pick := func(s []string) string {
		if r.IntN(4) > 0 { // mostly the first, well-formed choices
			return s[r.IntN(min(3, len(s)))]
		}
		return s[r.IntN(len(s))]
	}
	for n := r.IntN(30); n > 0; n-- {
		line := fmt.Sprintf("%s,%s,%s,%s", pick(fastNames), pick(fastNames), pick(fastTimes), pick(fastNums))
		if mem {
			line += "," + pick(fastNums)
		}
		if r.IntN(4) == 0 && len(line) > 0 {
			// A stray separator, quote or sign anywhere: a comma lost
			// to a quote must not shift the fields the fast path sees.
			k := r.IntN(len(line))
			line = line[:k] + string("\",\n\r.-e "[r.IntN(8)]) + line[k+1:]
		}
		b.WriteString(line + pick(fastEnds))
	}
	return b.String()
}

// TestFastRowAgrees: the one-pass parser of common lines gives the same
// rows, rejects and line count as the general path, on seeded random
// files of well-formed lines and near misses, in both units, with and
// without a memory column.
func TestFastRowAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 29))
	fastRows := 0
	for trial := 0; trial < 4000; trial++ {
		mem := trial%2 == 1
		header := "tenant,server,timestamp,cpu\n"
		if mem {
			header = "tenant,server,timestamp,cpu,memory\n"
		}
		unit := UnitFraction
		if trial%3 == 2 {
			unit = UnitPercent
		}
		data := []byte(header + randomBody(r, mem))
		got, want := parseWhole(t, data, unit, true), parseWhole(t, data, unit, false)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q (%s): fast path\n%+v\ngeneral path\n%+v", data, unit, got, want)
		}
		fastRows += len(got.TimeMs)
	}
	if fastRows < 10000 {
		t.Fatalf("only %d rows accepted: the generator hardly reaches the fast path", fastRows)
	}
}

func FuzzFastRow(f *testing.F) {
	f.Add([]byte("t0,t0s0,1704067200,0.2097\nt1,t1s0,1704067200,0.1\r\n"), false)
	f.Add([]byte("t0,t0s0,1704067200,0.5,\nt0,t0s0,1704067320,0.5,0.25\r\n"), true)
	f.Fuzz(func(t *testing.T, body []byte, mem bool) {
		header := "tenant,server,timestamp,cpu\n"
		if mem {
			header = "tenant,server,timestamp,cpu,memory\n"
		}
		data := append([]byte(header), body...)
		for _, unit := range []CPUUnit{UnitFraction, UnitPercent} {
			got, want := parseWhole(t, data, unit, true), parseWhole(t, data, unit, false)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%q (%s): fast path\n%+v\ngeneral path\n%+v", data, unit, got, want)
			}
		}
	})
}

// TestEpochField: epochField reads what plainInt reads (and the
// milliseconds parseTimestamp makes of it) for 1 to 15 digits, eight at a
// time or one at a time, on seeded digit strings with and without a
// terminator and with a non-digit at every place.
func TestEpochField(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 11))
	for trial := 0; trial < 200000; trial++ {
		b := make([]byte, 1+r.IntN(17))
		for i := range b {
			b[i] = byte('0' + r.IntN(10))
		}
		if r.IntN(4) == 0 {
			b[r.IntN(len(b))] = "/:a,.-\x00\xff"[r.IntN(8)]
		}
		digits := 0
		for digits < len(b) && b[digits] >= '0' && b[digits] <= '9' {
			digits++
		}
		ms, n, ok := epochField(b)
		v, plain := plainInt(b[:digits])
		wantOK := plain && digits >= 1 && digits <= 15
		if ok != wantOK {
			t.Fatalf("%q: ok %v, want %v", b, ok, wantOK)
		}
		if !ok {
			continue
		}
		want, err := parseTimestamp(b[:digits], time.UTC)
		if n != digits || err != nil || ms != want {
			t.Fatalf("%q (%d): %d ms over %d bytes, want %d over %d (%v)", b, v, ms, n, want, digits, err)
		}
	}
}

// TestHashFaultIsAnError: a mapped input that shrinks while its hasher
// goroutine reads it gives an error from SHA256 (the file changed), not a
// crash, and Close still returns.
func TestHashFaultIsAnError(t *testing.T) {
	data := bytes.Repeat([]byte("t0,t0s0,1704067200,0.5\n"), 40000)
	path := writeFile(t, t.TempDir(), "shrinks.csv", data)
	in, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if in.Mapped() == nil {
		t.Fatal("the input was not mapped: Open maps every regular file of 4 bytes or more")
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	in.hashTo(len(data))
	if _, err := in.SHA256(); err == nil || !strings.Contains(err.Error(), "the file changed while it was read") {
		t.Fatalf("SHA256 of a file truncated under its hasher: %v", err)
	}
}

// BenchmarkParseChunk: a worker's parse of a 2 MiB chunk of the
// benchmark world (1000 tenants, compact names) into columns; ns/op is per
// chunk.
func BenchmarkParseChunk(b *testing.B) {
	o := synth.Default()
	o.Tenants, o.Compact, o.Seed, o.Days = 1000, true, 3, 0.2
	var buf bytes.Buffer
	if _, _, err := synth.Generate(&buf, o); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	end := min(len(data), 2<<20)
	end += bytes.IndexByte(data[end:], '\n') + 1
	data = data[:end]
	in, ok := openMemory("bench.csv", data)
	if !ok {
		b.Fatal("openMemory refused the world")
	}
	r, err := newUsageCSV(in, UnitFraction, time.UTC)
	if err != nil {
		b.Fatal(err)
	}
	pc := &parallelCSV{data: r.lr.data, columnar: true}
	p := r.p.clone()
	b.SetBytes(int64(len(data) - r.lr.off))
	for i := 0; i < b.N; i++ {
		c := &csvChunk{start: r.lr.off, end: len(r.lr.data)}
		pc.parseChunk(p, c)
		if len(c.rejects) > 0 || c.fault != nil {
			b.Fatalf("%d rejects, fault %v", len(c.rejects), c.fault)
		}
		pc.recycle(c)
	}
}

// TestDecimalFieldLoops: decimalField's two loops give what the reading
// one character at a time (slowDecimal, decimalField before them) gives,
// on seeded strings of digits, dots and terminators of every length
// around their 18-digit bound, and around 15 significant digits.
func TestDecimalFieldLoops(t *testing.T) {
	r := rand.New(rand.NewPCG(38, 5))
	alphabets := []string{"0123456789", "0123456789.", "0123456789.,\n", "00000.123456789,", "0123456789.e-+ \x00\xff"}
	for trial := 0; trial < 300_000; trial++ {
		abc := alphabets[trial%len(alphabets)]
		b := make([]byte, r.IntN(24))
		for i := range b {
			b[i] = abc[r.IntN(len(abc))]
		}
		if trial%3 == 0 && len(b) > 0 { // at most one dot, like most numbers
			k := r.IntN(len(b))
			for i := range b {
				if b[i] == '.' && i != k {
					b[i] = '7'
				}
			}
		}
		f, n, ok := decimalField(b)
		wf, wn, wok := slowDecimal(b)
		if ok != wok || ok && (n != wn || math.Float64bits(f) != math.Float64bits(wf)) {
			t.Fatalf("decimalField(%q) = %v, %d, %v; want %v, %d, %v", b, f, n, ok, wf, wn, wok)
		}
	}
}

// TestTimeFieldRemembers: timeField.read, which recognises the last
// timestamp by its bytes, gives what epochField and the comma check give,
// on seeded runs of timestamps that repeat, differ in one digit, in
// length or in what follows them, with inputs shorter and longer than its
// two words.
func TestTimeFieldRemembers(t *testing.T) {
	r := rand.New(rand.NewPCG(38, 11))
	stamps := []string{"1704067200", "1704067201", "170406720", "17040672000", "1704067200123", "1", "12345678", "123456789012345",
		"1234567890123456", "1704067200.5", "1704067200x", "", "17040672OO"}
	var tf timeField
	for trial := 0; trial < 200_000; trial++ {
		s := stamps[r.IntN(3)] // mostly a few, repeating
		if r.IntN(4) == 0 {
			s = stamps[r.IntN(len(stamps))]
		}
		tail := ",0.2097\nt0,t0s0,1704067200"
		if r.IntN(5) == 0 {
			tail = string("\n,;0"[r.IntN(4)]) + tail[1:]
		}
		b := []byte(s + tail[:r.IntN(len(tail)+1)])
		ms, n, ok := tf.read(b)
		wms, wn, wok := epochField(b)
		wok = wok && wn < len(b) && b[wn] == ','
		if ok != wok || ok && (ms != wms || n != wn) {
			t.Fatalf("trial %d: read(%q) = %d, %d, %v; want %d, %d, %v", trial, b, ms, n, ok, wms, wn, wok)
		}
	}
}
