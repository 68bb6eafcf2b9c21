package ingest

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/wlprof/wlprof/dataset"
)

// fuzzHeader precedes every fuzz input.
const fuzzHeader = "tenant,server,timestamp,cpu,memory\n"

// dataLines returns the numbers of the non-blank lines of body, counting
// the header as line 1. A line is blank when nothing is left of it after
// its "\n" and one "\r" are removed (that is what the reader skips).
func dataLines(body []byte) []int64 {
	var out []int64
	line := int64(1)
	for len(body) > 0 {
		line++
		l, rest, _ := bytes.Cut(body, []byte("\n"))
		body = rest
		l = bytes.TrimSuffix(l, []byte("\r"))
		if len(l) > 0 {
			out = append(out, line)
		}
	}
	return out
}

// quoteCSV always quotes, doubling quotes inside.
func quoteCSV(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// epochText writes an instant as epoch milliseconds, or as fractional epoch
// seconds where milliseconds would be read as seconds (below 1e11 ms, i.e.
// between 1966 and 1973).
func epochText(ms int64) string {
	if ms >= epochMsThreshold || ms <= -epochMsThreshold {
		return strconv.FormatInt(ms, 10)
	}
	sign := ""
	if ms < 0 {
		sign, ms = "-", -ms
	}
	return fmt.Sprintf("%s%d.%03d", sign, ms/1000, ms%1000)
}

// writeUsageCSV writes records in the generic CSV, fraction unit.
func writeUsageCSV(recs []dataset.Usage) []byte {
	var b bytes.Buffer
	b.WriteString("tenant,server,timestamp,cpu,memory\n")
	for _, r := range recs {
		mem := ""
		if !math.IsNaN(r.Memory) {
			mem = strconv.FormatFloat(r.Memory, 'g', -1, 64)
		}
		fmt.Fprintf(&b, "%s,%s,%s,%s,%s\n", quoteCSV(r.Tenant), quoteCSV(r.Server), epochText(r.TimeMs),
			strconv.FormatFloat(r.CPU, 'g', -1, 64), mem)
	}
	return b.Bytes()
}

func FuzzUsageCSV(f *testing.F) {
	for _, s := range []string{
		"t,s,1700000000,0.5,0.25\n",
		"t,s,2024-01-31T12:00:00Z,50,\nt2,s2,2024-01-31 12:00:00.5+05:30,100,100\n",
		"\"a,b\",\"q\"\"z\",1700000000123,1,1\r\n\r\n",
		",,,,\nbad\n\"unterminated,s,1,0.5,\n",
		"t,s,1,NaN,\nt,s,1,inf,\nt,s,1,-0,\nt,s,-1.5,0.5,0.5\nt,s,1e14,1e-7,\n",
		"t,s,0000-01-01T00:00:00+01:00,0.1,",
		"t\"q,s,99999999999,0.3,0.30000000000000004\n",
		"\xef\xbb\xbft,s,1,0.5,\n \n\r\n\r\r\n",
		"t,s,1700000000,1.0000000001,\nt,s,1700000000,37.5,\nt,s,1700000000,150,2\n",
		"t,s,9999-12-31T23:59:59.999999Z,0.000001,\nt,s,-99999999999.9995,1e-300,0\n",
		"\"t\"x,s,1,0.5,\n\"\",s,1,0.5,\nt,\"\",1,0.5,\nt,s,1,0.5,0.5,0.5\n",
		"tenant-with-a-long-name,server.example.com,2024-01-31T12:00:00.123-08:00,0.123456789012345678,0.5\n",
	} {
		f.Add([]byte(s))
	}
	// The inputs are read from memory (openMemory: as a mapped file reads,
	// and the gzip copy through Open's own decompression), compressed by
	// one reused writer: a directory and three files per execution kept
	// the target under 1,000 executions a second, and so did a new gzip
	// writer (800 KB of tables) per execution; writing and opening the
	// gzip copy as a file was still 1.7 ms of each execution's CPU.
	dir := f.TempDir()
	var gzBuf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&gzBuf, gzip.BestSpeed)
	if err != nil {
		f.Fatal(err)
	}
	gzipData := func(t *testing.T, data []byte) []byte {
		gzBuf.Reset()
		zw.Reset(&gzBuf)
		if _, err := zw.Write(data); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		return gzBuf.Bytes()
	}
	read := func(t *testing.T, path string, data []byte, unit CPUUnit) *readResult {
		in := fuzzInput(t, path, data)
		res, err := readCSVInput(t, in, unit, time.UTC)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return res
	}
	fuzzBodies(f, 2048, func(t *testing.T, body []byte) {
		// Bodies up to 2 KB (about 30 lines): each is read three times
		// (mapped, gzipped, round trip), and the 10-minute run's corpus
		// grew until it managed 262/s. Long inputs are the unit tests'
		// (csv_test.go: lines past the buffer, 16 MiB lines, big files).
		data := append([]byte(fuzzHeader), body...)
		path := filepath.Join(dir, "in.csv")
		res := read(t, path, data, UnitAuto)

		lines := dataLines(body)
		if got := len(res.recs) + len(res.rejects); got != len(lines) {
			t.Fatalf("%d records + %d rejects, want %d non-blank lines", len(res.recs), len(res.rejects), len(lines))
		}
		for i, r := range res.recs {
			if !(r.CPU >= 0 && r.CPU <= 1) {
				t.Fatalf("record %d: cpu %v outside [0,1]", i, r.CPU)
			}
			if !math.IsNaN(r.Memory) && !(r.Memory >= 0 && r.Memory <= 1) {
				t.Fatalf("record %d: memory %v outside [0,1]", i, r.Memory)
			}
			if r.Tenant == "" || r.Server == "" {
				t.Fatalf("record %d: empty tenant or server: %+v", i, r)
			}
			if r.TimeMs > 1e15 || r.TimeMs < -1e15 {
				t.Fatalf("record %d: time %d out of range", i, r.TimeMs)
			}
		}
		// Rejects point at non-blank lines, in order, each at most once.
		next := 0
		for _, rj := range res.rejects {
			for next < len(lines) && lines[next] < rj.Line {
				next++
			}
			if next == len(lines) || lines[next] != rj.Line {
				t.Fatalf("reject %v is not on a non-blank line of %v (or repeats one)", &rj, lines)
			}
			next++
			if rj.File != path || rj.Err == nil || rj.Col < 0 || len(rj.Record) > maxRecordText {
				t.Fatalf("malformed reject %#v", rj)
			}
		}

		// The streaming path (gzip) reads the same.
		sres := read(t, filepath.Join(dir, "in.csv.gz"), gzipData(t, data), UnitAuto)
		checkRecords(t, "gzip vs mapped", sres.recs, res.recs)
		sameRejects(t, "gzip vs mapped", sres.rejects, res.rejects)
		if fmt.Sprint(sres.notes) != fmt.Sprint(res.notes) {
			t.Fatalf("notes %q vs %q", sres.notes, res.notes)
		}

		// Round trip: what was accepted, written back as fractions and epoch
		// milliseconds, reads back exactly and without rejects.
		bres := read(t, filepath.Join(dir, "back.csv"), writeUsageCSV(res.recs), UnitFraction)
		if len(bres.rejects) > 0 {
			t.Fatalf("round trip rejects %v (%q)", &bres.rejects[0], bres.rejects[0].Record)
		}
		checkRecords(t, "round trip", bres.recs, res.recs)
	})
}
