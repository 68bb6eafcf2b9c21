package ingest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/wlprof/wlprof/dataset"
)

// readResult is everything a usageCSV yields for one input.
type readResult struct {
	recs     []dataset.Usage
	rejects  []ParseError
	order    []bool // true: the next item was a record, false: a reject
	notes    []string
	parallel bool   // the parallel chunk parser was used
	sha      string // Input.SHA256 after reading
	comp     string // Input.Compression
}

// readCSV reads path with newUsageCSV. A non-nil error is newUsageCSV's
// (header) error or the reader's I/O error.
func readCSV(t testing.TB, path string, unit CPUUnit, loc *time.Location) (*readResult, error) {
	t.Helper()
	in, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return readCSVInput(t, in, unit, loc)
}

// readCSVInput is readCSV of an opened input (closed here).
func readCSVInput(t testing.TB, in *Input, unit CPUUnit, loc *time.Location) (*readResult, error) {
	t.Helper()
	path := in.Path
	defer in.Close()
	r, err := newUsageCSV(in, unit, loc)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	res := &readResult{comp: in.Compression}
	for r.Scan() {
		rec, perr := r.Record()
		if (rec == nil) == (perr == nil) {
			t.Fatalf("%s: Record returned %v, %v: want exactly one", path, rec, perr)
		}
		if perr != nil {
			res.rejects = append(res.rejects, *perr)
			res.order = append(res.order, false)
			continue
		}
		res.recs = append(res.recs, *rec)
		res.order = append(res.order, true)
	}
	if r.Scan() {
		t.Fatalf("%s: Scan returned true after the end", path)
	}
	res.notes = r.Notes()
	res.parallel = r.par != nil
	if err := r.Err(); err != nil {
		return res, err
	}
	if res.sha, err = in.SHA256(); err != nil {
		t.Fatal(err)
	}
	return res, nil
}

// mustReadCSV is readCSV that expects no error.
func mustReadCSV(t testing.TB, path string, unit CPUUnit) *readResult {
	t.Helper()
	res, err := readCSV(t, path, unit, time.UTC)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return res
}

func writeFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func gzipBytes(t testing.TB, data []byte) []byte {
	return compressBytes(t, data, func(w io.Writer) (io.WriteCloser, error) { return gzip.NewWriterLevel(w, gzip.BestSpeed) })
}

func zstdBytes(t testing.TB, data []byte) []byte {
	return compressBytes(t, data, func(w io.Writer) (io.WriteCloser, error) {
		return zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	})
}

func compressBytes(t testing.TB, data []byte, newWriter func(io.Writer) (io.WriteCloser, error)) []byte {
	t.Helper()
	var b bytes.Buffer
	zw, err := newWriter(&b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func sameFloat(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Float64bits(a) == math.Float64bits(b)
}

func sameUsage(a, b dataset.Usage) bool {
	return a.Tenant == b.Tenant && a.Server == b.Server && a.TimeMs == b.TimeMs && sameFloat(a.CPU, b.CPU) && sameFloat(a.Memory, b.Memory)
}

func checkRecords(t testing.TB, what string, got, want []dataset.Usage) {
	t.Helper()
	for i := 0; i < min(len(got), len(want)); i++ {
		if !sameUsage(got[i], want[i]) {
			t.Fatalf("%s: record %d:\n got %+v\nwant %+v", what, i, got[i], want[i])
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d records, want %d", what, len(got), len(want))
	}
}

// wantReject describes an expected reject.
type wantReject struct {
	line   int64
	col    int
	reason string // a substring of the reason
}

func checkRejects(t testing.TB, what, file string, got []ParseError, want []wantReject) {
	t.Helper()
	for i := 0; i < min(len(got), len(want)); i++ {
		g, w := got[i], want[i]
		if g.File != file || g.Line != w.line || g.Col != w.col || !strings.Contains(g.Err.Error(), w.reason) {
			t.Errorf("%s: reject %d = %s:%d:%d %q (record %q)\nwant %s:%d:%d containing %q",
				what, i, g.File, g.Line, g.Col, g.Err, g.Record, file, w.line, w.col, w.reason)
		}
	}
	if len(got) != len(want) {
		for _, g := range got {
			t.Logf("reject: %v (%q)", &g, g.Record)
		}
		t.Fatalf("%s: %d rejects, want %d", what, len(got), len(want))
	}
}

// sameRejects compares two readers' rejects, ignoring the file name.
func sameRejects(t testing.TB, what string, a, b []ParseError) {
	t.Helper()
	for i := 0; i < min(len(a), len(b)); i++ {
		x, y := a[i], b[i]
		if x.Line != y.Line || x.Col != y.Col || x.Err.Error() != y.Err.Error() || x.Record != y.Record {
			t.Fatalf("%s: reject %d differs:\n%d:%d %v %q\n%d:%d %v %q", what, i,
				x.Line, x.Col, x.Err, x.Record, y.Line, y.Col, y.Err, y.Record)
		}
	}
	if len(a) != len(b) {
		t.Fatalf("%s: %d rejects vs %d", what, len(a), len(b))
	}
}

func hasNote(notes []string, want string) bool {
	for _, n := range notes {
		if n == want {
			return true
		}
	}
	return false
}

func ms(s string) int64 {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t.UnixMilli()
}

var nan = math.NaN()

func TestCSVHeaderOrderAndAliases(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, header string
		row          func(tenant, server, ts, cpu, mem string) string
		hasMem       bool
		extra        string
	}{
		{"canonical", "tenant,server,timestamp,cpu,memory",
			func(tn, s, ts, c, m string) string { return strings.Join([]string{tn, s, ts, c, m}, ",") }, true, ""},
		{"aliases-reordered", "Host, TIME ,cpu,mem,Tenant,region",
			func(tn, s, ts, c, m string) string { return strings.Join([]string{s, ts, c, m, tn, "eu"}, ",") }, true, "region"},
		{"machine-ts", "ts,cpu_util,machine,tenant",
			func(tn, s, ts, c, m string) string { return strings.Join([]string{ts, c, s, tn}, ",") }, false, ""},
		{"quoted-header", `"memory_util","cpu_utilization","time","server","tenant","x","y"`,
			func(tn, s, ts, c, m string) string { return strings.Join([]string{m, c, ts, s, tn, "1", "2"}, ",") }, true, "x, y"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := c.header + "\n" +
				c.row("t1", "s1", "1700000000", "0.5", "0.25") + "\n" +
				c.row("t2", "s2", "2024-01-31T12:00:00Z", "0.75", "") + "\n"
			path := writeFile(t, dir, c.name+".csv", []byte(body))
			res := mustReadCSV(t, path, UnitAuto)
			mem := 0.25
			if !c.hasMem {
				mem = nan
			}
			checkRecords(t, c.name, res.recs, []dataset.Usage{
				{Tenant: "t1", Server: "s1", TimeMs: 1700000000000, CPU: 0.5, Memory: mem},
				{Tenant: "t2", Server: "s2", TimeMs: ms("2024-01-31T12:00:00Z"), CPU: 0.75, Memory: nan},
			})
			checkRejects(t, c.name, path, res.rejects, nil)
			if c.extra != "" && !hasNote(res.notes, "ignored column(s): "+c.extra) {
				t.Errorf("notes %q lack the ignored columns %q", res.notes, c.extra)
			}
			if c.extra == "" {
				for _, n := range res.notes {
					if strings.HasPrefix(n, "ignored") {
						t.Errorf("unexpected note %q", n)
					}
				}
			}
		})
	}
}

func TestCSVHeaderErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, body string
		line       int64 // 0: not a ParseError
		want       []string
	}{
		{"empty", "", 0, []string{"empty file"}},
		{"blank-only", "\n\r\n\n", 0, []string{"empty file"}},
		{"bom-only", "\xef\xbb\xbf", 0, []string{"empty file"}},
		{"no-timestamp", "tenant,server,cpu\nt,s,0.5\n", 1, []string{"lacks column(s) timestamp", `"tenant,server,cpu"`}},
		{"no-tenant-cpu", "\n\nserver,timestamp,memory\n", 3, []string{"lacks column(s) tenant, cpu"}},
		{"nothing-known", "a,b\n1,2\n", 1, []string{"tenant, server, timestamp, cpu"}},
		{"data-first", "t1,s1,1700000000,0.5\n", 1, []string{"tenant, server, timestamp, cpu"}},
		{"bad-quote", "\"tenant,server,timestamp,cpu\n", 1, []string{"header", "unterminated"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeFile(t, dir, c.name+".csv", []byte(c.body))
			_, err := readCSV(t, path, UnitAuto, time.UTC)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the file", err)
			}
			var perr *ParseError
			if c.line > 0 {
				if !errors.As(err, &perr) || perr.Line != c.line {
					t.Errorf("error %#v: want a ParseError at line %d", err, c.line)
				}
			}
		})
	}
}

// TestCSVLinesAndQuoting covers CRLF, a BOM, blank lines (skipped but
// counted), quoting, and a last line without a newline, in all three read
// paths: mapped, gzip and zstd.
func TestCSVLinesAndQuoting(t *testing.T) {
	body := "\xef\xbb\xbftenant,server,timestamp,cpu,memory\r\n" + // 1
		"\r\n" + // 2 blank
		"t1,s1,1700000000,0.5,0.25\r\n" + // 3
		"\n" + // 4 blank
		"\"a,b\",\"say \"\"hi\"\"\",\"1700000060\",\"0.125\",\"\"\n" + // 5 quoted, commas and "" escapes
		"\"\",s1,1700000000,0.5,\n" + // 6 empty quoted tenant: reject col 1
		"\"unterminated,s1,1700000000,0.5,\n" + // 7 reject
		"\"t\"x,s1,1700000000,0.5,\n" + // 8 junk after a quoted field
		"t1,s1,1700000000,0.5\n" + // 9 four fields
		"t1,s1,1700000000,0.5,0.1,extra\r\n" + // 10 six fields
		"\n\n\n" + // 11-13 blank
		"t\"q,s,1700000120,1,0\n" + // 14 bare quote inside an unquoted field is kept
		",\"\",,,\n" + // 15 empty tenant first
		"t3,s3,1700000180,0,1" // 16 no newline at the end
	wantRecs := []dataset.Usage{
		{Tenant: "t1", Server: "s1", TimeMs: 1700000000000, CPU: 0.5, Memory: 0.25},
		{Tenant: "a,b", Server: `say "hi"`, TimeMs: 1700000060000, CPU: 0.125, Memory: nan},
		{Tenant: `t"q`, Server: "s", TimeMs: 1700000120000, CPU: 1, Memory: 0},
		{Tenant: "t3", Server: "s3", TimeMs: 1700000180000, CPU: 0, Memory: 1},
	}
	wantRejects := []wantReject{
		{6, 1, "empty tenant"},
		{7, 0, "unterminated quoted field"},
		{8, 0, "unexpected 'x' after a quoted field"},
		{9, 0, "4 fields, the header has 5"},
		{10, 0, "6 fields, the header has 5"},
		{15, 1, "empty tenant"},
	}
	wantOrder := []bool{true, true, false, false, false, false, false, true, false, true}
	dir := t.TempDir()
	paths := map[string]string{
		"":     writeFile(t, dir, "plain.csv", []byte(body)),
		"gzip": writeFile(t, dir, "data.gz", gzipBytes(t, []byte(body))),
		"zstd": writeFile(t, dir, "data.zst", zstdBytes(t, []byte(body))),
		// A gzip name on a plain file: the magic bytes decide, not the name.
		"lying": writeFile(t, dir, "plain.csv.gz", []byte(body)),
	}
	for comp, path := range paths {
		for _, unit := range []CPUUnit{UnitAuto, UnitFraction} {
			what := fmt.Sprintf("%s/%s", filepath.Base(path), unit)
			res := mustReadCSV(t, path, unit)
			checkRecords(t, what, res.recs, wantRecs)
			checkRejects(t, what, path, res.rejects, wantRejects)
			if fmt.Sprint(res.order) != fmt.Sprint(wantOrder) {
				t.Errorf("%s: order %v, want %v", what, res.order, wantOrder)
			}
			wantComp := comp
			if comp == "lying" {
				wantComp = ""
			}
			if res.comp != wantComp {
				t.Errorf("%s: compression %q, want %q", what, res.comp, wantComp)
			}
			raw, _ := os.ReadFile(path)
			if sum := sha256.Sum256(raw); res.sha != hex.EncodeToString(sum[:]) {
				t.Errorf("%s: SHA-256 %s is not the file's", what, res.sha)
			}
		}
	}
	// ParseError renders as file:line:col.
	res := mustReadCSV(t, paths[""], UnitAuto)
	if got, want := res.rejects[0].Error(), paths[""]+":6:1: empty tenant"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if got, want := res.rejects[1].Error(), paths[""]+":7: column 1: unterminated quoted field"; !strings.HasPrefix(got, want) {
		t.Errorf("Error() = %q, want prefix %q", got, want)
	}
	if res.rejects[0].Record != `"",s1,1700000000,0.5,` {
		t.Errorf("Record = %q", res.rejects[0].Record)
	}
	if !errors.Is(&res.rejects[0], res.rejects[0].Err) {
		t.Errorf("ParseError does not unwrap")
	}
}

// TestCSVLastLine checks the end of input in every form: a final newline,
// none, a final "\r" without "\n", and a bad last line without a newline.
func TestCSVLastLine(t *testing.T) {
	head := "tenant,server,timestamp,cpu\nt,s,1700000000,0.5\n"
	cases := []struct {
		tail    string
		recs    int
		rejects []wantReject
	}{
		{"t,s,1700000001,0.25\n", 2, nil},
		{"t,s,1700000001,0.25", 2, nil},
		{"t,s,1700000001,0.25\r", 2, nil},
		{"t,s,1700000001,0.25\r\n\n\n", 2, nil},
		{"t,s,1700000001", 1, []wantReject{{3, 0, "3 fields"}}},
		{"\n\nt,s,1700000001,zz", 1, []wantReject{{5, 16, "cpu"}}},
		{"", 1, nil},
	}
	dir := t.TempDir()
	for i, c := range cases {
		body := []byte(head + c.tail)
		for _, path := range []string{
			writeFile(t, dir, fmt.Sprintf("%d.csv", i), body),
			writeFile(t, dir, fmt.Sprintf("%d.csv.gz", i), gzipBytes(t, body)),
		} {
			res := mustReadCSV(t, path, UnitAuto)
			if len(res.recs) != c.recs {
				t.Errorf("%q (%s): %d records, want %d", c.tail, path, len(res.recs), c.recs)
			}
			if c.recs == 2 && (res.recs[1].CPU != 0.25 || res.recs[1].TimeMs != 1700000001000) {
				t.Errorf("%q (%s): last record %+v", c.tail, path, res.recs[1])
			}
			checkRejects(t, fmt.Sprintf("%q", c.tail), path, res.rejects, c.rejects)
		}
	}
}

func TestCSVRejects(t *testing.T) {
	lines := []struct {
		line   string
		col    int
		reason string // "" for an accepted line
	}{
		{"t,s,1700000000,0.5,0.25", 0, ""},
		{",s,1700000000,0.5,", 1, "empty tenant"},
		{"t,,1700000000,0.5,", 3, "empty server"},
		{"t,s,notatime,0.5,", 5, "timestamp \"notatime\""},
		{"t,s,2023-02-29T00:00:00Z,0.5,", 5, "out of range"},
		{"t,s,,0.5,", 5, "empty timestamp"},
		{"t,s,1700000000,abc,", 16, "cpu: \"abc\" is not a number"},
		{"t,s,1700000000,,", 16, "cpu: empty number"},
		{"t,s,1700000000,NaN,", 0, "cpu is NaN"},
		{"t,s,1700000000,inf,", 0, "cpu is +Inf"},
		{"t,s,1700000000,-inf,", 0, "cpu is -Inf"},
		{"t,s,1700000000,-0.1,", 0, "cpu -0.1 is negative"},
		{"t,s,1700000000,250,", 0, "cpu 250 is above 100% of a server"},
		{"t,s,1700000000,1e9,", 0, "above 100% of a server"},
		{"t,s,1700000000,0.5,NaN", 20, "memory is NaN"},
		{"t,s,1700000000,0.5,x", 20, "memory: \"x\" is not a number"},
		{"t,s,1700000000,0.5,1.5", 0, "memory 1.5 is outside [0, 100%]"},
		{"t,s,1700000000,0.5,-0.5", 0, "memory -0.5 is outside"},
		{"t,s,1700000000,0.5,inf", 0, "memory +Inf is outside"},
		{"t,s,1700000000", 0, "3 fields, the header has 5"},
		{"t,s,1700000000,0.5,0.1,extra", 0, "6 fields, the header has 5"},
		{"t,s,1700000000,1.0000000001,", 0, ""}, // rounding slack: clamped to 1
		{"t,s,1700000000,1.1,", 0, "pass --cpu-unit percent"},
		{"t,s,1700000000,-0,", 0, ""},
		{"   ", 0, "1 fields"}, // whitespace is not a blank line
	}
	var b strings.Builder
	b.WriteString("tenant,server,timestamp,cpu,memory\n")
	var want []wantReject
	accepted := 0
	for i, l := range lines {
		b.WriteString(l.line + "\n")
		if l.reason == "" {
			accepted++
		} else {
			want = append(want, wantReject{int64(i + 2), l.col, l.reason})
		}
	}
	path := writeFile(t, t.TempDir(), "rejects.csv", []byte(b.String()))
	res := mustReadCSV(t, path, UnitFraction)
	checkRejects(t, "rejects", path, res.rejects, want)
	if len(res.recs) != accepted {
		t.Fatalf("%d records, want %d", len(res.recs), accepted)
	}
	if res.recs[1].CPU != 1 {
		t.Errorf("cpu 1.0000000001 read as %v, want clamped to 1", res.recs[1].CPU)
	}
	for _, r := range res.rejects {
		if r.Record == "" {
			t.Errorf("reject %v keeps no record", &r)
		}
	}
	// The record kept with a reject is truncated to maxRecordText bytes
	// without splitting a rune.
	long := "t,s,1700000000,x," + strings.Repeat("é", 300)
	path = writeFile(t, t.TempDir(), "long.csv", []byte("tenant,server,timestamp,cpu,memory\n"+long+"\n"))
	res = mustReadCSV(t, path, UnitFraction)
	if len(res.rejects) != 1 {
		t.Fatalf("%d rejects", len(res.rejects))
	}
	if rec := res.rejects[0].Record; len(rec) > maxRecordText || len(rec) < maxRecordText-3 || !strings.HasPrefix(long, rec) || !isValidUTF8(rec) {
		t.Errorf("truncated record %q (%d bytes)", rec, len(rec))
	}
}

func isValidUTF8(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

func TestCSVTimestampsInLocation(t *testing.T) {
	ny := mustLoc(t, "America/New_York")
	body := "tenant,server,timestamp,cpu\n" +
		"t,s,2024-07-04 09:30:00,0.5\n" +
		"t,s,2024-01-04T09:30:00.250,0.5\n" +
		"t,s,2024-07-04T09:30:00Z,0.5\n" +
		"t,s,1700000000,0.5\n"
	path := writeFile(t, t.TempDir(), "ny.csv", []byte(body))
	res, err := readCSV(t, path, UnitAuto, ny)
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{
		time.Date(2024, 7, 4, 9, 30, 0, 0, ny).UnixMilli(),
		time.Date(2024, 1, 4, 9, 30, 0, 250e6, ny).UnixMilli(),
		ms("2024-07-04T09:30:00Z"),
		1700000000000,
	}
	if len(res.recs) != len(want) {
		t.Fatalf("%d records", len(res.recs))
	}
	for i, w := range want {
		if res.recs[i].TimeMs != w {
			t.Errorf("record %d: time %d, want %d", i, res.recs[i].TimeMs, w)
		}
	}
}

// closeTo compares scaled values, allowing for the rounding of the percent
// scale factor.
func closeTo(a, b float64) bool { return math.Abs(a-b) <= 1e-15 }

func TestCSVUnits(t *testing.T) {
	dir := t.TempDir()
	fraction := "tenant,server,timestamp,cpu,memory\nt,s,1,0.25,0.5\nt,s,2,1,\nt,s,3,0,0\n"
	percent := "tenant,server,timestamp,cpu,memory\nt,s,1,25,50\nt,s,2,100,\nt,s,3,0.5,0\n"
	cases := []struct {
		name, body string
		unit       CPUUnit
		note       string
		cpu, mem   []float64
		rejects    []wantReject
	}{
		{"fraction-detected", fraction, UnitAuto, "cpu unit: fraction (detected: no value above 1; override with --cpu-unit)",
			[]float64{0.25, 1, 0}, []float64{0.5, nan, 0}, nil},
		{"percent-detected", percent, UnitAuto, "cpu unit: percent (detected: values up to 100; override with --cpu-unit)",
			[]float64{0.25, 1, 0.005}, []float64{0.5, nan, 0}, nil},
		{"percent-declared", fraction, UnitPercent, "cpu unit: percent (as declared)",
			[]float64{0.0025, 0.01, 0}, []float64{0.005, nan, 0}, nil},
		{"fraction-declared", percent, UnitFraction, "cpu unit: fraction (as declared)",
			[]float64{0.5}, []float64{0}, []wantReject{
				{2, 0, "cpu 25 is above 1 but the file's unit is fraction (cpu unit: fraction (as declared)); pass --cpu-unit percent"},
				{3, 0, "cpu 100 is above 1"}}},
		{"header-pct", strings.Replace(fraction, "cpu,", "cpu_pct,", 1), UnitAuto, "cpu unit: percent (from the header name)",
			[]float64{0.0025, 0.01, 0}, []float64{0.005, nan, 0}, nil},
		{"header-percent", strings.Replace(fraction, "cpu,", "CPU_Percent,", 1), UnitAuto, "cpu unit: percent (from the header name)",
			[]float64{0.0025, 0.01, 0}, []float64{0.005, nan, 0}, nil},
		{"header-frac", strings.Replace(percent, "cpu,", "cpu_frac,", 1), UnitAuto, "cpu unit: fraction (from the header name)",
			[]float64{0.5}, []float64{0}, []wantReject{{2, 0, "pass --cpu-unit percent"}, {3, 0, "pass --cpu-unit percent"}}},
		{"declared-beats-header", strings.Replace(fraction, "cpu,", "cpu_pct,", 1), UnitFraction, "cpu unit: fraction (as declared)",
			[]float64{0.25, 1, 0}, []float64{0.5, nan, 0}, nil},
		{"empty-body", "tenant,server,timestamp,cpu\n", UnitAuto, "cpu unit: fraction (detected: no value above 1; override with --cpu-unit)",
			nil, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeFile(t, dir, c.name+".csv", []byte(c.body))
			res := mustReadCSV(t, path, c.unit)
			if !hasNote(res.notes, c.note) {
				t.Errorf("notes %q lack %q", res.notes, c.note)
			}
			units := 0
			for _, note := range res.notes {
				if strings.HasPrefix(note, "cpu unit:") {
					units++
				}
			}
			if units != 1 {
				t.Errorf("notes %q: want exactly one cpu unit note", res.notes)
			}
			checkRejects(t, c.name, path, res.rejects, c.rejects)
			if len(res.recs) != len(c.cpu) {
				t.Fatalf("%d records, want %d", len(res.recs), len(c.cpu))
			}
			for i, r := range res.recs {
				if !closeTo(r.CPU, c.cpu[i]) || !(closeTo(r.Memory, c.mem[i]) || math.IsNaN(r.Memory) && math.IsNaN(c.mem[i])) {
					t.Errorf("record %d: cpu %v memory %v, want %v %v", i, r.CPU, r.Memory, c.cpu[i], c.mem[i])
				}
			}
		})
	}
	if _, err := ParseCPUUnit("percent"); err != nil {
		t.Error(err)
	}
	if _, err := ParseCPUUnit("pct"); err == nil || !strings.Contains(err.Error(), "auto, fraction or percent") {
		t.Errorf("ParseCPUUnit(pct): %v", err)
	}
}

// TestCSVDetectionWindow: auto detection looks at the first detectRows
// records only. A fraction file with a percent-looking value after them
// keeps the fraction unit and rejects the value, pointing at --cpu-unit.
func TestCSVDetectionWindow(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("tenant,server,timestamp,cpu\n")
	for i := 0; i < detectRows+100; i++ {
		fmt.Fprintf(&b, "t%d,s,%d,0.%d\n", i%7, 1700000000+i, i%10)
	}
	late := int64(detectRows + 100 + 2)
	b.WriteString("t,s,1700000000,37.5\n")
	b.WriteString("t,s,1700000000,150\n")
	b.WriteString("t,s,1700000000,0.75\n")
	data := b.Bytes()
	dir := t.TempDir()
	for _, path := range []string{writeFile(t, dir, "window.csv", data), writeFile(t, dir, "window.csv.zst", zstdBytes(t, data))} {
		res := mustReadCSV(t, path, UnitAuto)
		note := fmt.Sprintf("cpu unit: fraction (detected: no value above 1 in the first %d records; override with --cpu-unit)", detectRows)
		if !hasNote(res.notes, note) {
			t.Errorf("notes %q lack %q", res.notes, note)
		}
		checkRejects(t, "window", path, res.rejects, []wantReject{
			{late, 0, "cpu 37.5 is above 1 but the file's unit is fraction (" + note + "); pass --cpu-unit percent if it is percent"},
			{late + 1, 0, "cpu 150 is above 100% of a server"},
		})
		if len(res.recs) != detectRows+101 || res.recs[len(res.recs)-1].CPU != 0.75 || res.recs[9].CPU != 0.9 {
			t.Errorf("%d records, last %+v", len(res.recs), res.recs[len(res.recs)-1])
		}
		if res.rejects[0].Record != "t,s,1700000000,37.5" {
			t.Errorf("record %q", res.rejects[0].Record)
		}
	}

	// Inside the window the same value makes the file percent.
	path := writeFile(t, dir, "early.csv", []byte("tenant,server,timestamp,cpu\nt,s,1,0.5\nt,s,2,37.5\n"))
	res := mustReadCSV(t, path, UnitAuto)
	if !hasNote(res.notes, "cpu unit: percent (detected: values up to 37.5; override with --cpu-unit)") || len(res.recs) != 2 ||
		!closeTo(res.recs[0].CPU, 0.005) || !closeTo(res.recs[1].CPU, 0.375) {
		t.Errorf("notes %q records %+v", res.notes, res.recs)
	}
}

// TestCSVDetectionIgnoresInvalid: values that no unit accepts (NaN, ±Inf,
// above 100, negative) are rejected whatever the unit, so they must not
// decide it: one corrupt row must not turn every other value of a fraction
// file into a hundredth of itself.
func TestCSVDetectionIgnoresInvalid(t *testing.T) {
	body := "tenant,server,timestamp,cpu\nt,s,1,0.5\nt,s,2,inf\nt,s,3,1e9\nt,s,4,NaN\nt,s,5,-50\nt,s,6,0.25\n"
	path := writeFile(t, t.TempDir(), "corrupt.csv", []byte(body))
	res := mustReadCSV(t, path, UnitAuto)
	if !hasNote(res.notes, "cpu unit: fraction (detected: no value above 1; override with --cpu-unit)") {
		t.Errorf("notes %q: want the fraction unit", res.notes)
	}
	checkRecords(t, "corrupt", res.recs, []dataset.Usage{
		{Tenant: "t", Server: "s", TimeMs: 1000, CPU: 0.5, Memory: nan},
		{Tenant: "t", Server: "s", TimeMs: 6000, CPU: 0.25, Memory: nan},
	})
	checkRejects(t, "corrupt", path, res.rejects, []wantReject{
		{3, 0, "cpu is +Inf"}, {4, 0, "above 100% of a server"}, {5, 0, "cpu is NaN"}, {6, 0, "negative"}})
}

func TestCSVMultistreamGzip(t *testing.T) {
	a := []byte("tenant,server,timestamp,cpu\nt,s,1,0.5\nt,s,")
	b := []byte("2,0.25\nt,s,3,x\n")
	data := append(gzipBytes(t, a), gzipBytes(t, b)...)
	path := writeFile(t, t.TempDir(), "multi.gz", data)
	res := mustReadCSV(t, path, UnitAuto)
	checkRecords(t, "multistream", res.recs, []dataset.Usage{
		{Tenant: "t", Server: "s", TimeMs: 1000, CPU: 0.5, Memory: nan},
		{Tenant: "t", Server: "s", TimeMs: 2000, CPU: 0.25, Memory: nan},
	})
	checkRejects(t, "multistream", path, res.rejects, []wantReject{{4, 7, "cpu"}})
}

// bigCSV builds a CSV of at least size bytes with bad and blank lines at
// known places, and what a reader must make of it.
func bigCSV(size int) (data []byte, recs []dataset.Usage, rejects []wantReject) {
	r := rand.New(rand.NewPCG(9, 10))
	var b bytes.Buffer
	b.Grow(size + 1<<10)
	b.WriteString("tenant,server,timestamp,cpu,memory\n")
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	line := int64(1)
	bad := []struct{ text, reason string }{
		{"t1,s1,1700000000,oops,", "cpu: \"oops\" is not a number"},
		{",s1,1700000000,0.5,", "empty tenant"},
		{"t1,s1,1700000000,0.5", "4 fields, the header has 5"},
		{"\"t1,s1,1700000000,0.5,", "unterminated"},
		{"t1,s1,1700000000,-0.5,", "negative"},
		{"t1,s1,2024-02-30T00:00:00Z,0.5,", "out of range"},
		{"t1,s1,1700000000,0.5,2", "memory 2 is outside"},
		{"t1,s1,1700000000,NaN,", "cpu is NaN"},
	}
	cols := map[string]int{"cpu:": 18, "empty tenant": 1, "out of range": 7}
	for i := 0; b.Len() < size; i++ {
		line++
		switch {
		case line%1009 == 0 || line%65537 == 0:
			k := bad[int(line/1009)%len(bad)]
			b.WriteString(k.text)
			b.WriteString("\n")
			col := 0
			for p, c := range cols {
				if strings.HasPrefix(k.reason, p) {
					col = c
				}
			}
			rejects = append(rejects, wantReject{line, col, k.reason})
			continue
		case line%997 == 0:
			if line%2 == 0 {
				b.WriteString("\r\n")
			} else {
				b.WriteString("\n")
			}
			continue
		}
		u := dataset.Usage{
			Tenant: fmt.Sprintf("tenant-%03d", r.IntN(300)),
			Server: fmt.Sprintf("srv%d", r.IntN(5)),
			TimeMs: base.Add(time.Duration(i) * 30 * time.Second).UnixMilli(),
			Memory: nan,
		}
		cpu := strconv.FormatFloat(r.Float64(), 'f', 1+r.IntN(6), 64)
		u.CPU, _ = strconv.ParseFloat(cpu, 64)
		mem := ""
		if r.IntN(3) > 0 {
			mem = strconv.FormatFloat(r.Float64(), 'g', -1, 64)
			u.Memory, _ = strconv.ParseFloat(mem, 64)
		}
		var ts string
		switch i % 3 {
		case 0:
			ts = strconv.FormatInt(u.TimeMs/1000, 10)
		case 1:
			ts = strconv.FormatInt(u.TimeMs, 10)
		default:
			ts = time.UnixMilli(u.TimeMs).UTC().Format(time.RFC3339)
		}
		tenant := u.Tenant
		if i%101 == 0 {
			u.Tenant = "acme, inc. \"east\""
			tenant = `"acme, inc. ""east"""`
		}
		b.WriteString(tenant + "," + u.Server + "," + ts + "," + cpu + "," + mem)
		if i%5 == 0 {
			b.WriteString("\r")
		}
		b.WriteString("\n")
		recs = append(recs, u)
	}
	// A bad last line without a newline.
	line++
	b.WriteString("t9,s9,1700000000,0.5,0.5,0.5")
	rejects = append(rejects, wantReject{line, 0, "6 fields, the header has 5"})
	return b.Bytes(), recs, rejects
}

// TestCSVParallel reads a file bigger than parallelMinBytes, which the
// mapped path parses in parallel chunks, and checks that it yields exactly
// what the sequential streaming path (the same content gzip-compressed)
// yields: the same records and rejects, in the same order, with the same
// absolute line numbers.
func TestCSVParallel(t *testing.T) {
	data, wantRecs, wantRejects := bigCSV(14 << 20)
	if len(data) < parallelMinBytes+4<<20 {
		t.Fatalf("input of %d bytes is too small", len(data))
	}
	dir := t.TempDir()
	plain := writeFile(t, dir, "big.csv", data)
	gz := writeFile(t, dir, "big.csv.gz", gzipBytes(t, data))
	for _, unit := range []CPUUnit{UnitAuto, UnitFraction} {
		p := mustReadCSV(t, plain, unit)
		s := mustReadCSV(t, gz, unit)
		if !p.parallel {
			t.Fatalf("%s: the mapped input was not parsed in parallel", unit)
		}
		if s.parallel {
			t.Fatalf("%s: the gzip input was parsed in parallel", unit)
		}
		checkRecords(t, string(unit)+" parallel vs expected", p.recs, wantRecs)
		checkRecords(t, string(unit)+" sequential vs expected", s.recs, wantRecs)
		checkRejects(t, string(unit)+" parallel", plain, p.rejects, wantRejects)
		checkRejects(t, string(unit)+" sequential", gz, s.rejects, wantRejects)
		sameRejects(t, string(unit)+" parallel vs sequential", p.rejects, s.rejects)
		if fmt.Sprint(p.order) != fmt.Sprint(s.order) {
			t.Fatalf("%s: records and rejects interleave differently", unit)
		}
		if fmt.Sprint(p.notes) != fmt.Sprint(s.notes) {
			t.Errorf("%s: notes %q vs %q", unit, p.notes, s.notes)
		}
		sum := sha256.Sum256(data)
		if p.sha != hex.EncodeToString(sum[:]) {
			t.Errorf("%s: SHA-256 of the mapped input is wrong", unit)
		}
	}
}

// TestCSVParallelEarlyClose stops reading a parallel parse early; Close
// must stop the workers without hanging.
func TestCSVParallelEarlyClose(t *testing.T) {
	data, _, _ := bigCSV(10 << 20)
	path := writeFile(t, t.TempDir(), "big.csv", data)
	in, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	r, err := newUsageCSV(in, UnitFraction, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 1000 && r.Scan(); i++ {
	}
	if r.par == nil {
		t.Fatal("not parallel")
	}
	done := make(chan struct{})
	go func() { r.Close(); r.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close hangs")
	}
}

// TestCSVLongLines: a line of MaxLineBytes or more is a reject, not an I/O
// error, in the mapped parallel and streaming paths alike (a mapped input
// with such a line is too large for the sequential one, also when its unit
// is detected: detectAhead), and the lines after it keep their numbers.
func TestCSVLongLines(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: this test writes a 32 MiB input; make test runs it (no -short)")
	}
	var b bytes.Buffer
	b.WriteString("tenant,server,timestamp,cpu\n")
	b.WriteString("t,s,1700000000,0.5\n")
	suffix := ",s,1700000001,0.5"
	b.WriteString(strings.Repeat("a", MaxLineBytes-len(suffix)) + suffix + "\n") // exactly MaxLineBytes: line 3
	b.WriteString("t,s,1700000002,0.5\n")
	b.WriteString(strings.Repeat("b", MaxLineBytes+10) + suffix + "\n") // longer: line 5
	b.WriteString("t,s,1700000003,0.5")
	data := b.Bytes()
	dir := t.TempDir()
	plain := writeFile(t, dir, "long.csv", data)
	gz := writeFile(t, dir, "long.csv.gz", gzipBytes(t, data))
	want := []wantReject{{3, 0, "line longer than"}, {5, 0, "line longer than"}}
	var results []*readResult
	for _, c := range []struct {
		path     string
		unit     CPUUnit
		parallel bool
	}{{plain, UnitAuto, true}, {plain, UnitFraction, true}, {gz, UnitAuto, false}, {gz, UnitFraction, false}} {
		res := mustReadCSV(t, c.path, c.unit)
		what := fmt.Sprintf("%s/%s", filepath.Base(c.path), c.unit)
		if res.parallel != c.parallel {
			t.Errorf("%s: parallel %v, want %v", what, res.parallel, c.parallel)
		}
		checkRejects(t, what, c.path, res.rejects, want)
		if len(res.recs) != 3 || res.recs[2].TimeMs != 1700000003000 {
			t.Errorf("%s: records %d", what, len(res.recs))
		}
		if len(res.rejects[0].Record) > maxRecordText {
			t.Errorf("%s: reject keeps %d bytes", what, len(res.rejects[0].Record))
		}
		results = append(results, res)
	}
	for _, res := range results[1:] {
		sameRejects(t, "long lines", results[0].rejects, res.rejects)
	}
}

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(filepath.Join(dir, "missing.csv")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: %v", err)
	}
	// A file with a gzip magic but no valid gzip header.
	path := writeFile(t, dir, "bad.gz", []byte{0x1f, 0x8b, 0, 0, 0})
	if _, err := Open(path); err == nil || !strings.Contains(err.Error(), "gzip") {
		t.Errorf("corrupt gzip: %v", err)
	}
	// Tiny files are streamed, not mapped, and still read.
	path = writeFile(t, dir, "tiny", []byte("ab\n"))
	in, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if in.Mapped() != nil || string(in.Head(10)) != "ab\n" || in.Size != 3 {
		t.Errorf("tiny file: mapped %v head %q size %d", in.Mapped() != nil, in.Head(10), in.Size)
	}
}

// TestCSVParallelChunkEdges puts rejects where the parallel parser cuts its
// chunks: on the first and last line of every chunk, and fills one chunk
// with rejects only. Records and rejects must still interleave exactly as
// in the sequential read. The chunk boundaries are found the way the
// parser cuts them: after the first newline at least chunkBytes into the
// chunk.
func TestCSVParallelChunkEdges(t *testing.T) {
	const header = "tenant,server,timestamp,cpu\n"
	good := func(i int) string { return fmt.Sprintf("t%06d,s1,%d,0.5%05d\n", i%1000, 1700000000+i, i%100000) }
	bad := func(i int) string { return fmt.Sprintf("t%06d,s1,%d,x.5%05d\n", i%1000, 1700000000+i, i%100000) }
	lineLen := len(good(0))
	n := (parallelMinBytes + 3*chunkBytes) / lineLen
	// Offsets are fixed (every line has the same length), so the chunk
	// boundaries can be found before the lines are chosen.
	isBad := make([]bool, n)
	start, chunk := len(header), 0
	total := len(header) + n*lineLen
	for start < total {
		end := start + chunkBytes
		if end >= total {
			end = total
		} else {
			end += lineLen - (end-len(header))%lineLen // just past the next newline
		}
		first, last := (start-len(header))/lineLen, (end-len(header))/lineLen-1
		isBad[first], isBad[last] = true, true
		if first+1 < n {
			isBad[first+1] = true
		}
		if chunk == 2 { // a chunk of rejects only
			for i := first; i <= last; i++ {
				isBad[i] = true
			}
		}
		start, chunk = end, chunk+1
	}
	if chunk < 5 {
		t.Fatalf("only %d chunks", chunk)
	}
	var b bytes.Buffer
	b.WriteString(header)
	var want []wantReject
	for i := 0; i < n; i++ {
		if isBad[i] {
			b.WriteString(bad(i))
			want = append(want, wantReject{int64(i + 2), 23, "cpu"})
		} else {
			b.WriteString(good(i))
		}
	}
	data := b.Bytes()
	if len(data) != total {
		t.Fatalf("lines are not of the same length")
	}
	dir := t.TempDir()
	plain := writeFile(t, dir, "edges.csv", data)
	gz := writeFile(t, dir, "edges.csv.gz", gzipBytes(t, data))
	p := mustReadCSV(t, plain, UnitFraction)
	s := mustReadCSV(t, gz, UnitFraction)
	if !p.parallel || s.parallel {
		t.Fatalf("parallel: plain %v, gzip %v", p.parallel, s.parallel)
	}
	checkRejects(t, "parallel", plain, p.rejects, want)
	checkRejects(t, "sequential", gz, s.rejects, want)
	checkRecords(t, "parallel vs sequential", p.recs, s.recs)
	if len(p.recs) != n-len(want) {
		t.Fatalf("%d records, want %d", len(p.recs), n-len(want))
	}
	for i, isRec := range p.order {
		if isRec == isBad[i] || s.order[i] != isRec {
			t.Fatalf("item %d: record %v (sequential %v), line %d bad %v", i, isRec, s.order[i], i+2, isBad[i])
		}
	}
}

// TestCSVDetectAhead: a mapped input large enough for the parallel parse
// has its unit detected without its first records being kept
// (detectAhead), and must come out as the same content gzip-compressed,
// which detect reads and holds back record by record: the same unit note,
// records, rejects and order. The cases put in the detection window what
// decides the unit: percent values and ones no unit accepts, a value just
// above 1 that fastRow at scale 1 would clamp to 1 (the file is then
// percent), columns in another order (no fast path), blank lines, CRLF
// and lines that are rejected.
func TestCSVDetectAhead(t *testing.T) {
	cases := []struct {
		name, header, note string
		row                func(r *rand.Rand, i int) string
	}{
		{"percent", "tenant,server,timestamp,cpu", "cpu unit: percent (detected: values up to 100 in the first 65536 records; override with --cpu-unit)",
			func(r *rand.Rand, i int) string {
				return fmt.Sprintf("t%d,s%d,%d,%d.%d", r.IntN(50), r.IntN(4), 1700000000+i/50, r.IntN(101), r.IntN(10))
			}},
		{"just-above-1", "tenant,server,timestamp,cpu,memory", "cpu unit: percent (detected: values up to 1.0000000005 in the first 65536 records; override with --cpu-unit)",
			func(r *rand.Rand, i int) string {
				if i == 40_000 {
					return fmt.Sprintf("t1,s1,%d,1.0000000005,0.5", 1700000000+i/50)
				}
				return fmt.Sprintf("t%d,s%d,%d,0.%04d,0.%d", r.IntN(50), r.IntN(4), 1700000000+i/50, r.IntN(10000), r.IntN(10))
			}},
		{"fraction", "tenant,server,timestamp,cpu", "cpu unit: fraction (detected: no value above 1 in the first 65536 records; override with --cpu-unit)",
			func(r *rand.Rand, i int) string {
				if i == 60_000 {
					return fmt.Sprintf("t1,s1,%d,1.0", 1700000000+i/50)
				}
				return fmt.Sprintf("t%d,s%d,%d,0.%04d", r.IntN(50), r.IntN(4), 1700000000+i/50, r.IntN(10000))
			}},
		{"reordered", "cpu,timestamp,server,tenant", "cpu unit: percent (detected: values up to 99.9 in the first 65536 records; override with --cpu-unit)",
			func(r *rand.Rand, i int) string {
				return fmt.Sprintf("%d.9,%d,s%d,t%d", r.IntN(100), 1700000000+i/50, r.IntN(4), r.IntN(50))
			}},
	}
	bad := []string{"t1,s1,1700000000,NaN", "t1,s1,1700000000,150", "t1,s1,1700000000,-5", "t1,s1,oops,0.5", "\"t1\",s1,1700000000,0.25", "", "t1,s1"}
	badReordered := []string{"NaN,1700000000,s1,t1", "150,1700000000,s1,t1", "-5,1700000000,s1,t1", "0.5,oops,s1,t1", "0.25,1700000000,s1,\"t1\"", "", "0.5,1"}
	dir := t.TempDir()
	for k, c := range cases {
		r := rand.New(rand.NewPCG(uint64(k), 41))
		var b bytes.Buffer
		b.WriteString(c.header + "\n")
		for i := 0; b.Len() < parallelMinBytes+2<<20; i++ {
			row := c.row(r, i)
			if i%997 == 0 {
				row = bad[(i/997)%len(bad)]
				if c.name == "reordered" {
					row = badReordered[(i/997)%len(bad)]
				}
			}
			b.WriteString(row)
			if i%1201 == 0 {
				b.WriteString("\r")
			}
			b.WriteString("\n")
		}
		data := b.Bytes()
		plain := writeFile(t, dir, c.name+".csv", data)
		gz := writeFile(t, dir, c.name+".csv.gz", gzipBytes(t, data))
		p, s := mustReadCSV(t, plain, UnitAuto), mustReadCSV(t, gz, UnitAuto)
		if !p.parallel || s.parallel {
			t.Fatalf("%s: parallel %v and %v, want the mapped input only", c.name, p.parallel, s.parallel)
		}
		if !hasNote(s.notes, c.note) {
			t.Fatalf("%s: the stream's notes %q lack %q", c.name, s.notes, c.note)
		}
		if fmt.Sprint(p.notes) != fmt.Sprint(s.notes) {
			t.Fatalf("%s: notes %q, the stream's %q", c.name, p.notes, s.notes)
		}
		checkRecords(t, c.name, p.recs, s.recs)
		sameRejects(t, c.name, p.rejects, s.rejects)
		if len(s.rejects) == 0 || fmt.Sprint(p.order) != fmt.Sprint(s.order) {
			t.Fatalf("%s: %d rejects; records and rejects interleave differently", c.name, len(s.rejects))
		}
	}
}
