package ingest

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/wlprof/wlprof/dataset"
)

const profrunsFuzzHeader = "job,task,framework,memory_bytes,input_bytes,runtime_s,spilled_bytes,repetition,slots,cpu_s,config,mapreduce.job.maps\n"

// Every non-blank data line is a run or a reject, and runs hold what the
// models need: positive memory and runtime, counts ≥ 0, finite numbers.
func FuzzProfrunsCSV(f *testing.F) {
	data, err := os.ReadFile(elasticityDir + "/profruns.csv")
	if err != nil {
		f.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	for _, l := range lines[1:6] {
		f.Add(l)
	}
	for _, s := range []string{
		"j,reduce,mapreduce,1073741824,1000,12.5,0,1,1,3,,400\n",
		"j,r,spark,1e9,5,1,0,,,,\"{\"\"spark.memory.fraction\"\":0.6}\",\n",
		"j,r,x,0,5,1,0,,,,,\nj,r,x,1,-1,1,0,,,,,\n\"j,r,x,1,1,NaN,0,,,,,\n",
		"j,r,x,9223372036854775807,1,1e300,1,2147483648,,,{},\r\n\r\n",
		"\xef\xbb\xbfj,r,x,1.5e9,0,0.001,1.5,1,1,inf,\"[1]\",\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		const path = "p.csv"
		recs, rejects, err := readProfrunsInput(t, fuzzInput(t, path, append([]byte(profrunsFuzzHeader), body...)))
		if err != nil {
			t.Fatal(err)
		}
		want := 0 // profruns-csv skips lines of only spaces, as blank
		for _, l := range bytes.Split(body, []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 {
				want++
			}
		}
		if got := len(recs) + len(rejects); got != want {
			t.Fatalf("%d runs + %d rejects, want %d non-blank lines", len(recs), len(rejects), want)
		}
		for _, r := range recs {
			if r.Job == "" || r.Task == "" || r.Framework == "" || r.MemoryBytes <= 0 || r.InputBytes < 0 || r.SpilledBytes < 0 ||
				!(r.RuntimeS > 0) || math.IsInf(r.RuntimeS, 0) || math.IsNaN(r.CPUS) || r.CPUS < 0 {
				t.Fatalf("bad run %+v", r)
			}
		}
		for _, rj := range rejects {
			if rj.File != path || rj.Line < 2 || rj.Err == nil || len(rj.Record) > maxRecordText {
				t.Fatalf("bad reject %v", &rj)
			}
		}
	})
}

// A job history never panics the reader; every run it yields is sane.
func FuzzJhist(f *testing.F) {
	data, err := os.ReadFile(jhistFixture)
	if err != nil {
		f.Fatal(err)
	}
	// The fixture in pieces: the header and schema with its first events,
	// and windows of events without the schema (the reader takes events
	// without it). Mutating the whole 32 KB file (60 events, 1 ms a read
	// before instrumentation) kept the target near 400 executions a
	// second; the whole file is read by the jhist tests.
	lines := bytes.SplitAfter(data, []byte("\n"))
	f.Add(bytes.Join(lines[:min(len(lines), 7)], nil))
	for i := 2; i < len(lines); i += 6 {
		f.Add(append([]byte("Avro-Json\n"), bytes.Join(lines[i:min(len(lines), i+6)], nil)...))
	}
	f.Add([]byte("Avro-Json\n{\"type\":\"MAP_ATTEMPT_STARTED\",\"event\":{\"r\":{\"attemptId\":\"a\",\"taskid\":\"t\",\"startTime\":5}}}\n" +
		"{\"type\":\"MAP_ATTEMPT_FINISHED\",\"event\":{\"r\":{\"attemptId\":\"a\",\"finishTime\":4}}}\n"))
	f.Add([]byte("Obj\x01"))
	f.Add(binaryJhist(f))
	f.Add([]byte("Avro-Binary\n{\"type\":\"record\",\"name\":\"Event\",\"fields\":[{\"name\":\"type\",\"type\":\"string\"}]}\n\x06abc\x02"))
	f.Add([]byte("Avro-Json\n{\"type\":\"JOB_SUBMITTED\",\"event\":{\"r\":{\"jobid\":\"job_1\",\"jobName\":\"x\"}}}\n{\"type\":\"REDUCE_ATTEMPT_FAILED\",\"event\":{\"r\":{\"attemptId\":\"b\",\"finishTime\":9,\"counters\":null}}}\n"))
	jhistPath := filepath.Join(f.TempDir(), "f.jhist") // an empty directory, where the reader looks for a _conf.xml
	f.Fuzz(func(t *testing.T, body []byte) {
		// From memory (a directory and a file per execution was most of
		// the target's time), as a file only when compressed or tiny.
		in := fuzzInput(t, jhistPath, body)
		defer in.Close()
		runs, rejects, _, err := readJhist(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range runs {
			if r.Job == "" || (r.Task != "map" && r.Task != "reduce") || !(r.RuntimeS > 0) || r.MemoryBytes <= 0 {
				t.Fatalf("bad run %+v", r)
			}
		}
		for _, rj := range rejects {
			if rj.Err == nil || rj.File == "" {
				t.Fatalf("bad reject %v", rj)
			}
		}
	})
}

// Spark event lines never panic the extraction; runs are sane.
func FuzzSparkProfRuns(f *testing.F) {
	for _, name := range []string{"drelephant_event_log_1.jsonl", "sparklens_local-1532512550423.jsonl"} {
		data, err := os.ReadFile(filepath.Join(elasticityDir, "spark", name))
		if err != nil {
			f.Fatal(err)
		}
		for _, l := range bytes.Split(data, []byte("\n")) {
			if bytes.Contains(l, []byte("TaskEnd")) || bytes.Contains(l, []byte("Environment")) {
				f.Add(l)
			}
		}
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		s := NewSparkProfRuns("f")
		perr := s.Line(1, line)
		if perr != nil && (perr.Err == nil || perr.Line != 1) {
			t.Fatalf("bad reject %v", perr)
		}
		for _, r := range s.Runs() {
			if !(r.RuntimeS > 0) || r.MemoryBytes <= 0 || r.SpilledBytes < 0 || r.MemorySpilledBytes < 0 || math.IsNaN(r.CPUS) {
				t.Fatalf("bad run %+v", r)
			}
		}
	})
}

func BenchmarkProfrunsCSV(b *testing.B) {
	path := elasticityDir + "/profruns.csv"
	st, _ := os.Stat(path)
	b.SetBytes(st.Size())
	for i := 0; i < b.N; i++ {
		if recs, _, err := readProfruns(b, path); err != nil || len(recs) == 0 {
			b.Fatal(err)
		}
	}
}

func BenchmarkJhist(b *testing.B) {
	st, _ := os.Stat(jhistFixture)
	b.SetBytes(st.Size())
	for i := 0; i < b.N; i++ {
		if runs, _, _ := readJhistFile(b, jhistFixture); len(runs) != 2 {
			b.Fatal(len(runs))
		}
	}
}

func BenchmarkSparkProfRuns(b *testing.B) {
	path := filepath.Join(elasticityDir, "spark", "sparklens_local-1532512550423.jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	lines := bytes.Split(data, []byte("\n"))
	var runs []dataset.ProfRun
	for i := 0; i < b.N; i++ {
		s := NewSparkProfRuns(path)
		for j, l := range lines {
			s.Line(int64(j+1), l)
		}
		runs = s.Runs()
	}
	if len(runs) != 8 {
		b.Fatal(len(runs))
	}
}
