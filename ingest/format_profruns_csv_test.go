package ingest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/elasticity"
)

const (
	elasticityDir = "../testdata/elasticity"
	jhistFixture  = elasticityDir + "/hadoop/drelephant_job_1526555215992_0001-1526555642677-user-QuasiMonteCarlo-1526555658299-1-1-SUCCEEDED-default-1526555648931.jhist"
)

// readProfruns reads a profruns-csv file with its reader.
func readProfruns(t testing.TB, path string) ([]dataset.ProfRun, []ParseError, error) {
	t.Helper()
	in, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return readProfrunsInput(t, in)
}

// readProfrunsInput drains the profruns-csv reader of in, and closes in.
func readProfrunsInput(t testing.TB, in *Input) ([]dataset.ProfRun, []ParseError, error) {
	t.Helper()
	defer in.Close()
	r := newProfrunsCSV(in)
	var recs []dataset.ProfRun
	var rejects []ParseError
	for r.Scan() {
		rec, perr := r.Record()
		if perr != nil {
			rejects = append(rejects, *perr)
			continue
		}
		recs = append(recs, *rec)
	}
	return recs, rejects, r.Err()
}

// The bundled sweeps: one run per data line, configuration as JSON.
func TestProfrunsCSVBundled(t *testing.T) {
	path := elasticityDir + "/profruns.csv"
	recs, rejects, err := readProfruns(t, path)
	if err != nil || len(rejects) != 0 {
		t.Fatalf("err %v, rejects %v", err, rejects)
	}
	data, _ := os.ReadFile(path)
	if want := bytes.Count(data, []byte("\n")) - 1; len(recs) != want {
		t.Fatalf("%d runs, want %d (one per data line)", len(recs), want)
	}
	var wc *dataset.ProfRun
	for i := range recs {
		if recs[i].Job == "wordcount" && recs[i].Task == "reduce" {
			wc = &recs[i]
			break
		}
	}
	var cfg map[string]string
	if wc == nil || json.Unmarshal([]byte(wc.Config), &cfg) != nil || cfg["mapreduce.reduce.input.buffer.percent"] != "1.0" || wc.Slots != 1 || wc.Repetition != 1 {
		t.Fatalf("wordcount reduce run %+v", wc)
	}
	// Detection picks the format by its header.
	dir := filepath.Join(t.TempDir(), "ds")
	res := mustIngest(t, dir, "auto", []string{path}, DefaultOptions())
	if res.Files[0].Format != "profruns-csv" || res.Accepted != int64(len(recs)) {
		t.Fatalf("auto: %+v", res.Files)
	}
}

// Bad lines are rejects with their line, column and reason; extra columns
// are configuration keys.
func TestProfrunsCSVRejects(t *testing.T) {
	body := strings.Join([]string{
		"job,task,framework,memory_bytes,input_bytes,runtime_s,spilled_bytes,cpu_s,mapreduce.job.maps",
		"j,reduce,MapReduce,1073741824,1000,12.5,0,3,400", // 2: good
		"j,reduce,mapreduce,0,1000,12.5,0,,",              // 3: zero memory
		"j,reduce,mapreduce,1e9,1000,NaN,0,,",             // 4: NaN runtime
		"j,reduce,mapreduce,1e9,-5,1,0,,",                 // 5: negative input
		"j,reduce,mapreduce,1e9,5,1,0",                    // 6: 7 fields
		"",
		",reduce,mapreduce,1e9,5,1,0,,",    // 8: empty job
		"j,reduce,mapreduce,1.5e9,0,2,0,,", // 9: good (zero input allowed; the model says why)
		"j,reduce,mapreduce,1e9,5,0,0,,",   // 10: zero runtime
	}, "\n") + "\n"
	path := writeFile(t, t.TempDir(), "p.csv", []byte(body))
	recs, rejects, err := readProfruns(t, path)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].Framework != "mapreduce" || recs[0].Config != `{"mapreduce.job.maps":"400"}` || recs[0].CPUS != 3 || recs[1].MemoryBytes != 1500000000 {
		t.Fatalf("records %+v, rejects %v", recs, rejects)
	}
	wantLines := []int64{3, 4, 5, 6, 8, 10}
	if len(rejects) != len(wantLines) {
		t.Fatalf("rejects %v, want lines %v", rejects, wantLines)
	}
	for i, r := range rejects {
		if r.Line != wantLines[i] || r.File != path || r.Err == nil {
			t.Errorf("reject %d: %v, want line %d", i, &r, wantLines[i])
		}
	}
	// A header without the required columns stops the input, naming them.
	bad := writeFile(t, t.TempDir(), "b.csv", []byte("job,task,memory_bytes\nj,t,1\n"))
	if _, _, err := readProfruns(t, bad); err == nil || !strings.Contains(err.Error(), "framework") {
		t.Fatalf("missing columns: %v", err)
	}
}

// readJhistFile reads a job history file with its reader.
func readJhistFile(t testing.TB, path string) ([]dataset.ProfRun, []*ParseError, []string) {
	t.Helper()
	in, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	runs, rejects, notes, err := readJhist(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return runs, rejects, notes
}

// The dr-elephant job history: one map and one reduce attempt, values
// read off the fixture's events and counters.
func TestJhistFixture(t *testing.T) {
	runs, rejects, notes := readJhistFile(t, jhistFixture)
	if len(rejects) != 0 || len(runs) != 2 {
		t.Fatalf("runs %+v rejects %v", runs, rejects)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "_conf.xml") {
		t.Errorf("notes %v: want the configuration named", notes)
	}
	m, r := runs[0], runs[1]
	// MAP_ATTEMPT_STARTED startTime 1526555651139, MAP_ATTEMPT_FINISHED
	// finishTime 1526555653236; BYTES_READ 118, MAP_OUTPUT_BYTES 18,
	// MAP_OUTPUT_RECORDS 2, SPILLED_RECORDS 2 (so 18 bytes spilled);
	// mapreduce.map.memory.mb 1024 in the conf.
	if m.Job != "QuasiMonteCarlo" || m.Task != "map" || m.Framework != "mapreduce" || m.MemoryBytes != 1024<<20 ||
		math.Abs(m.RuntimeS-2.097) > 1e-9 || m.InputBytes != 118 || m.OutputBytes != 18 || m.OutputRecords != 2 ||
		m.SpilledRecords != 2 || m.SpilledBytes != 18 || m.ExitCode != 0 || m.StartMs != 1526555651139 {
		t.Errorf("map run %+v", m)
	}
	// REDUCE_ATTEMPT_STARTED 1526555656049 → finished 1526555658260;
	// REDUCE_SHUFFLE_BYTES 28, REDUCE_INPUT_RECORDS 2, SPILLED_RECORDS 2.
	if r.Task != "reduce" || math.Abs(r.RuntimeS-2.211) > 1e-9 || r.InputBytes != 28 || r.InputRecords != 2 ||
		r.SpilledRecords != 2 || r.SpilledBytes != 28 || r.MemoryBytes != 1024<<20 || r.StartMs != 1526555656049 {
		t.Errorf("reduce run %+v", r)
	}
	var cfg map[string]string
	if err := json.Unmarshal([]byte(r.Config), &cfg); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"mapreduce.reduce.shuffle.input.buffer.percent": "0.70", "mapreduce.task.io.sort.factor": "10",
		"mapreduce.reduce.input.buffer.percent": "0.0", "attempt": "attempt_1526555215992_0001_r_000000_0"} {
		if cfg[k] != v {
			t.Errorf("config %s = %q, want %q", k, cfg[k], v)
		}
	}
	// Ingesting the folder reads the conf as a companion, not a record.
	dir := filepath.Join(t.TempDir(), "ds")
	res := mustIngest(t, dir, "auto", []string{elasticityDir + "/hadoop"}, DefaultOptions())
	if res.Accepted != 2 || res.Rejected != 0 || len(res.Files) != 2 || res.Files[1].Format != "jhist" {
		t.Fatalf("folder ingest %+v", res)
	}
}

// Broken events, attempts without an end, and binary Avro are rejects.
func TestJhistRejects(t *testing.T) {
	data, err := os.ReadFile(jhistFixture)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if strings.Contains(l, `"REDUCE_ATTEMPT_FINISHED"`) {
			continue // the reduce never finishes
		}
		lines = append(lines, l)
	}
	lines = append(lines, `{"type":"MAP_ATTEMPT_FINISHED","event":{"x":`, "")
	dir := t.TempDir()
	path := writeFile(t, dir, "cut.jhist", []byte(strings.Join(lines, "\n")))
	runs, rejects, notes := readJhistFile(t, path)
	if len(runs) != 1 || runs[0].Task != "map" || len(rejects) != 2 {
		t.Fatalf("runs %+v rejects %v", runs, rejects)
	}
	if !strings.Contains(rejects[0].Err.Error(), "not a JSON event") || !strings.Contains(rejects[1].Err.Error(), "no finish event") || rejects[1].Line == 0 {
		t.Errorf("rejects %v", rejects)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "default") {
		t.Errorf("without a conf: notes %v", notes)
	}
	bin := writeFile(t, dir, "b.jhist", []byte("Obj\x01\x04\x14avro.codec"))
	runs, rejects, _ = readJhistFile(t, bin)
	if len(runs) != 0 || len(rejects) != 1 || !strings.Contains(rejects[0].Err.Error(), "object container") {
		t.Fatalf("binary Avro: runs %v rejects %v", runs, rejects)
	}
}

// sparkRuns feeds an event log to SparkProfRuns.
func sparkRuns(t testing.TB, path string) ([]dataset.ProfRun, []*ParseError) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := NewSparkProfRuns(path)
	var rejects []*ParseError
	for i, l := range bytes.Split(data, []byte("\n")) {
		if perr := s.Line(int64(i+1), l); perr != nil {
			rejects = append(rejects, perr)
		}
	}
	return s.Runs(), rejects
}

// The Spark fixtures: every task end is a run with the executor's memory
// and slots; a sweep of one memory setting is "not enough information".
func TestSparkProfRunsFixtures(t *testing.T) {
	for _, c := range []struct {
		file         string
		runs         int
		job          string
		mem          int64
		slots        int32
		memoryNote   bool
		legacy       bool
		firstRuntime float64
	}{
		// Spark 1.5.1 on YARN: spark.executor.memory=1g, executors with
		// "Total Cores": 2, spark.shuffle.memoryFraction=0.5; task 1 of
		// stage 0 ran from 1458126398726 to 1458126403558 (but the first
		// task end in the log is task 0's).
		{"drelephant_event_log_1.jsonl", 10, "", 1 << 30, 2, false, true, 0},
		// Spark 2.3.0, local[*]: no memory set (default 1g), the driver
		// executor has 4 cores; task 0 ran from 1532512561948 to 1532512562213.
		{"sparklens_local-1532512550423.jsonl", 8, "", 1 << 30, 4, true, false, 0.265},
	} {
		runs, rejects := sparkRuns(t, filepath.Join(elasticityDir, "spark", c.file))
		if len(rejects) != 0 || len(runs) != c.runs {
			t.Fatalf("%s: %d runs, rejects %v", c.file, len(runs), rejects)
		}
		for _, r := range runs {
			if r.Framework != "spark" || r.MemoryBytes != c.mem || r.Slots != c.slots || r.Job == "" || !strings.HasPrefix(r.Task, "stage ") {
				t.Errorf("%s: run %+v", c.file, r)
			}
			if r.RuntimeS <= 0 || math.IsNaN(r.RuntimeS) {
				t.Errorf("%s: runtime %v", c.file, r.RuntimeS)
			}
		}
		if got := strings.Contains(runs[0].Config, "memory_source"); got != c.memoryNote {
			t.Errorf("%s: config %s: memory default noted %v, want %v", c.file, runs[0].Config, got, c.memoryNote)
		}
		if c.firstRuntime > 0 && math.Abs(runs[0].RuntimeS-c.firstRuntime) > 1e-9 {
			t.Errorf("%s: first runtime %v, want %v", c.file, runs[0].RuntimeS, c.firstRuntime)
		}
		// History alone: one memory setting, nothing spilled.
		res, err := elasticity.Run(context.Background(), elasticity.Input{Runs: runs}, elasticity.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Models) != 0 || len(res.Skipped) == 0 {
			t.Fatalf("%s: %+v", c.file, res)
		}
		for _, s := range res.Skipped {
			if !strings.Contains(s.Reason, "not enough information") && !strings.Contains(s.Reason, "input_bytes is 0") {
				t.Errorf("%s: %s: reason %q", c.file, s.Task, s.Reason)
			}
		}
	}
}
