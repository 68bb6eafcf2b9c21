package ingest

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/strtab"
)

const batchInstanceSample = "../testdata/dag/batch_instance_schema_sample.csv"

// batch_instance written from the cluster-trace-v2018 schema
// (testdata/dag/SOURCES.md): one instances row per run of an instance,
// its task's stage as batch_task names it, and the times and usage as the
// trace writes them.
func TestAlibabaBatchInstance(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	got, err := runInto(t, dir, "auto", []string{batchInstanceSample}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if f := got.res.Files[0]; f.Format != alibabaBatchInstanceFormat || f.Accepted != 6 || f.Rejected != 3 {
		t.Fatalf("file %+v, rejects %+v", f, got.rejects)
	}
	hasReject(t, got.rejects, 7, "end_time 250 is before start_time 300")
	hasReject(t, got.rejects, 8, "seq_no 3 is above total_seq_no 2")
	hasReject(t, got.rejects, 9, `start_time "300.5" is not seconds`)
	rows, err := dataset.ReadAll(context.Background(), openDataset(t, dir), dataset.InstancesTable)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 6 {
		t.Fatalf("%d instances", len(rows))
	}
	cpuAvg, cpuMax, memAvg, memMax := 95.0, 100.0, 0.30, 0.39 // divided at run time, as the reader does
	want := dataset.Instance{Job: "j_1", Stage: "1", Task: "M1", Instance: "ins_1", Status: "Terminated", StartMs: 100_000, EndMs: 130_000,
		Machine: "m_1", SeqNo: 1, TotalSeqNo: 1, CPUAvg: cpuAvg / 100, CPUMax: cpuMax / 100, MemAvg: memAvg / 100, MemMax: memMax / 100,
		Source: alibabaBatchInstanceFormat}
	if rows[0] != want {
		t.Errorf("first instance %+v\nwant %+v", rows[0], want)
	}
	if r := rows[4]; r.Stage != "4" || r.SeqNo != 2 || r.TotalSeqNo != 2 || r.StartMs != 232_000 {
		t.Errorf("R4_2's retry %+v", r)
	}
	if r := rows[5]; r.StartMs != dataset.NoTime || r.Machine != "" || !math.IsNaN(r.CPUAvg) || r.Stage != r.Task {
		t.Errorf("waiting instance %+v", r)
	}
}

// FuzzAlibabaBatchInstance: never a panic; an accepted row names its job,
// task and instance, ends no earlier than it starts, has seq_no ≤
// total_seq_no and usage that is NaN or non-negative; written back as a
// batch_instance line it reads the same.
func FuzzAlibabaBatchInstance(f *testing.F) {
	b, err := os.ReadFile(batchInstanceSample)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte("instance_name,task_name,job_name,task_type,status,start_time,end_time,machine_id,seq_no,total_seq_no,cpu_avg,cpu_max,mem_avg,mem_max\n\"i,1\",M1,j_1,1,Running,1.0,,m_1,1.0,2,,,,\n"))
	fuzzBodies(f, 4096, func(t *testing.T, body []byte) {
		p := &alibabaBatchInstance{csvRow: csvRow{file: "batch_instance.csv"}, strs: strtab.New()}
		for i, line := range bytes.Split(body, []byte("\n")) {
			var rec dataset.Instance
			if perr := p.parse(line, int64(i+1), &rec); perr != nil {
				continue
			}
			if rec.Job == "" || rec.Task == "" || rec.Instance == "" || rec.Stage == "" ||
				(rec.StartMs != dataset.NoTime && rec.EndMs != dataset.NoTime && rec.EndMs < rec.StartMs) ||
				(rec.SeqNo > 0 && rec.TotalSeqNo > 0 && rec.SeqNo > rec.TotalSeqNo) {
				t.Fatalf("line %d: accepted %+v", i+1, rec)
			}
			for _, v := range []float64{rec.CPUAvg, rec.CPUMax, rec.MemAvg, rec.MemMax} {
				if !math.IsNaN(v) && v < 0 {
					t.Fatalf("line %d: accepted %+v", i+1, rec)
				}
			}
			tm := func(ms int64) string {
				if ms == dataset.NoTime {
					return "0"
				}
				return strconv.FormatInt(ms/1000, 10)
			}
			num := func(v float64) string {
				if math.IsNaN(v) {
					return ""
				}
				return strconv.FormatFloat(v*100, 'g', -1, 64)
			}
			back := fmt.Sprintf("%s,%s,%s,1,%s,%s,%s,%s,%d,%d,%s,%s,%s,%s", csvQuote(rec.Instance), csvQuote(rec.Task), csvQuote(rec.Job), csvQuote(rec.Status),
				tm(rec.StartMs), tm(rec.EndMs), csvQuote(rec.Machine), rec.SeqNo, rec.TotalSeqNo, num(rec.CPUAvg), num(rec.CPUMax), num(rec.MemAvg), num(rec.MemMax))
			q := &alibabaBatchInstance{csvRow: csvRow{file: "back.csv"}, strs: strtab.New()}
			var again dataset.Instance
			if perr := q.parse([]byte(back), 1, &again); perr != nil {
				t.Fatalf("line %d: %+v written back as %q: %v", i+1, rec, back, perr)
			}
			if again.Job != rec.Job || again.Task != rec.Task || again.Stage != rec.Stage || again.Instance != rec.Instance || again.StartMs != rec.StartMs ||
				again.EndMs != rec.EndMs || again.SeqNo != rec.SeqNo || again.TotalSeqNo != rec.TotalSeqNo || again.Machine != rec.Machine {
				t.Fatalf("line %d: %+v read back as %+v", i+1, rec, again)
			}
		}
	})
}
