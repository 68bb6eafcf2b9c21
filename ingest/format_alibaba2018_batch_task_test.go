package ingest

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/dataset"
)

// parseTaskName reads the DAG of trace_2018.md §2.3: the numbers after
// the letters, the first the task, the rest what it waits for.
func TestParseTaskName(t *testing.T) {
	for name, want := range map[string]string{
		"M1": "1<", "M2_1": "2<1", "R4_2": "4<2", "M5_3_4": "5<3,4", "J03_01_2": "3<1,2", "R12_11_10_9": "12<11,10,9",
		"task_Nzg3ODAwNDgzMTAwNTc2NTQ2Mw==": "-", "MergeTask": "-", "M": "-", "1": "-", "M1_": "-", "M1__2": "-", "M1_x": "-", "M_1": "-",
	} {
		st, ps, ok := parseTaskName(name)
		got := "-"
		if ok {
			got = st + "<" + strings.Join(ps, ",")
		}
		if got != want {
			t.Errorf("%q: %s, want %s", name, got, want)
		}
	}
}

// FuzzAlibabaBatchTask: never a panic; an accepted row is a stage of a
// named job with a count of tasks, no parent equal to itself, an end not
// before its start; written back as a batch_task line it reads the same.
func FuzzAlibabaBatchTask(f *testing.F) {
	b, err := os.ReadFile("../testdata/dag/batch_task_schema_sample.csv")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte("M1_1,1,j_1,1,Terminated,1,2,100,0.5\n\"R2_1\",3,\"j,2\",1,Failed,,,,\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		p := &alibabaBatchTask{csvRow: csvRow{file: "batch_task.csv"}}
		for i, line := range bytes.Split(body, []byte("\n")) {
			var rec dataset.Stage
			if perr := p.parse(line, int64(i+1), &rec); perr != nil {
				continue
			}
			if rec.Job == "" || rec.Stage == "" || rec.Tasks < 0 || slices.Contains(strings.Split(rec.Parents, ","), rec.Stage) ||
				(rec.StartMs != dataset.NoTime && rec.EndMs != dataset.NoTime && rec.EndMs < rec.StartMs) {
				t.Fatalf("line %d: accepted %+v", i+1, rec)
			}
			tm := func(ms int64) string {
				if ms == dataset.NoTime {
					return "0"
				}
				return strconv.FormatInt(ms/1000, 10)
			}
			back := fmt.Sprintf("%s,%d,%s,1,%s,%s,%s,%s,%s", csvQuote(rec.Name), rec.Tasks, csvQuote(rec.Job), csvQuote(rec.Status),
				tm(rec.StartMs), tm(rec.EndMs), strconv.FormatFloat(rec.CPUs*100, 'g', -1, 64), strconv.FormatFloat(rec.Memory*100, 'g', -1, 64))
			var again dataset.Stage
			if perr := p.parse([]byte(back), 1, &again); perr != nil {
				t.Fatalf("line %d: %+v written back as %q: %v", i+1, rec, back, perr)
			}
			if again.Job != rec.Job || again.Stage != rec.Stage || again.Parents != rec.Parents || again.Tasks != rec.Tasks || again.StartMs != rec.StartMs ||
				again.EndMs != rec.EndMs || again.Status != rec.Status {
				t.Fatalf("line %d: %+v read back as %+v", i+1, rec, again)
			}
		}
	})
}
