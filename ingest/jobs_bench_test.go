package ingest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rmLogBench is rmLog.txt repeated with a fresh application id per copy
// (so each copy is one more run with its skyline): about 9 MB.
func rmLogBench(b *testing.B) []byte {
	src, err := os.ReadFile(reDir + "rmLog.txt")
	if err != nil {
		b.Fatal(err)
	}
	var out bytes.Buffer
	for i := 0; i < 1000; i++ {
		out.Write(bytes.ReplaceAll(src, []byte("1497832133857_0330"), []byte(fmt.Sprintf("1497832133857_%04d", i))))
	}
	return out.Bytes()
}

// benchJobs reads data from a file, opened (and so mapped) as ingest
// opens it, b.N times; lines is the number of decompressed lines, for
// the lines/s figure; MB/s counts the bytes on disk.
func benchJobs(b *testing.B, data []byte, lines int, newReader func(*Input) Reader[jobRecord]) {
	path := filepath.Join(b.TempDir(), "bench")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	var runs, samples int
	for i := 0; i < b.N; i++ {
		in, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		runs, samples = 0, 0
		r := newReader(in)
		for r.Scan() {
			rec, perr := r.Record()
			if perr != nil {
				b.Fatal(perr)
			}
			if rec.Run != nil {
				runs++
			}
			samples += len(rec.Samples)
		}
		in.Close()
		if r.Err() != nil {
			b.Fatal(r.Err())
		}
	}
	b.ReportMetric(float64(runs), "runs")
	b.ReportMetric(float64(samples), "samples")
	b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

func lineCount(data []byte) int { return bytes.Count(data, []byte("\n")) }

func BenchmarkYarnRM(b *testing.B) {
	data := rmLogBench(b)
	benchJobs(b, data, lineCount(data), func(in *Input) Reader[jobRecord] { return newYarnRM(in, time.UTC) })
}

// sparkBench is the drelephant log with its task events repeated 1000
// times (as a long application would have them): about 9 MB of JSON lines.
func sparkBench(b *testing.B) []byte {
	src, err := os.ReadFile(sparkDir + "drelephant_event_log_1.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	var head, tasks, tail strings.Builder
	for _, l := range strings.SplitAfter(string(src), "\n") {
		switch {
		case strings.Contains(l, `"SparkListenerTask`):
			tasks.WriteString(l)
		case strings.Contains(l, "SparkListenerApplicationEnd"):
			tail.WriteString(l)
		default:
			head.WriteString(l)
		}
	}
	return []byte(head.String() + strings.Repeat(tasks.String(), 1000) + tail.String())
}

func BenchmarkSparkEventLog(b *testing.B) {
	data := sparkBench(b)
	benchJobs(b, data, lineCount(data), func(in *Input) Reader[jobRecord] {
		return &sparkLog{file: in.Path, parts: []string{in.Path}, first: in, exec: map[string]*sparkExec{}, unused: map[string]int64{}}
	})
}

// BenchmarkSparkEventLogLZ4 is the same log in Spark's lz4 framing.
func BenchmarkSparkEventLogLZ4(b *testing.B) {
	plain := sparkBench(b)
	data := lz4JavaStream(b, plain, 32<<10)
	benchJobs(b, data, lineCount(plain), func(in *Input) Reader[jobRecord] {
		return &sparkLog{file: in.Path, parts: []string{in.Path}, first: in, exec: map[string]*sparkExec{}, unused: map[string]int64{}}
	})
}

// skylineBench is offsets.csv's good rows as 30 runs × 1440 one-minute
// steps of 100 jobs: the skyline stage's real size, 4.3 M rows.
func skylineBench() []byte {
	var out bytes.Buffer
	out.WriteString("job,run,time,containers\n")
	for j := 0; j < 100; j++ {
		for r := 0; r < 30; r++ {
			for k := 0; k < 1440; k++ {
				fmt.Fprintf(&out, "job%d,run%d,%d,%d\n", j, r, 60*k, (j+r+k)%17)
			}
		}
	}
	return out.Bytes()
}

func BenchmarkSkylineCSV(b *testing.B) {
	data := skylineBench()
	benchJobs(b, data, lineCount(data), func(in *Input) Reader[jobRecord] { return newSkylineCSV(in, time.UTC) })
}
