package profiler

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/dataset"
)

// A setting every run of which was OOM-killed has no median to print: its
// statistics are "-" in the table and null in JSON, not 0.000 and 0 B
// beside a note that saw a peak RSS of 58.1 MiB. A counter the node could
// not measure (no storage I/O accounting: the run's config says so) is
// "-" too, while the runs that measured it keep their medians.
func TestNoSampleIsNotZero(t *testing.T) {
	unmeasured := `{"argv":["sort"],"storage_io_measured":false}`
	runs := []dataset.ProfRun{
		{Job: "j", Task: "t", MemoryBytes: 2 << 20, Slots: 1, Repetition: 1, RuntimeS: 0.3, Outcome: "oom-killed", ExitCode: -9,
			PeakRSSBytes: 61 << 20, RunID: "a", CapNote: "capped: memory.limit_in_bytes 2M"},
		{Job: "j", Task: "t", MemoryBytes: 2 << 20, Slots: 1, Repetition: 2, RuntimeS: 0.2, Outcome: "oom-killed", ExitCode: -9,
			PeakRSSBytes: 58 << 20, RunID: "b"},
		{Job: "j", Task: "t", MemoryBytes: 64 << 20, Slots: 1, Repetition: 1, RuntimeS: 1, Outcome: "ok", PeakRSSBytes: 20 << 20,
			SpilledBytes: 0, RunID: "c", Config: unmeasured},
		{Job: "j", Task: "t", MemoryBytes: 64 << 20, Slots: 1, Repetition: 2, RuntimeS: 1.2, Outcome: "ok", PeakRSSBytes: 21 << 20,
			RunID: "d", Config: unmeasured},
		{Job: "j", Task: "t", MemoryBytes: 128 << 20, Slots: 1, Repetition: 1, RuntimeS: 0.9, Outcome: "ok", ReadBytes: 3 << 20,
			WriteBytes: 5 << 20, RunID: "e"},
	}
	rep := NewReport("j", runs, nil)
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(text.String(), "\n")
	row := func(mem string) []string {
		for _, l := range lines {
			// Columns are two or more spaces apart; "20.5 MiB" is one.
			if f := regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(l), -1); len(f) > 2 && f[0] == "t" && f[1] == mem {
				return f
			}
		}
		t.Fatalf("no row for %s:\n%s", mem, text.String())
		return nil
	}
	// TASK MEM SLOTS RUNS OK WALL_S SPREAD CPU_S PEAK_RSS READ WRITE SPILLED CAPPED OUTCOMES
	if f := row("2M"); strings.Join(f[5:12], " ") != "- - - - - - -" {
		t.Errorf("the setting without a successful run prints %q, want - for every statistic:\n%s", f[5:12], text.String())
	}
	if f := row("64M"); f[5] == "-" || f[8] == "-" || f[9] != "-" || f[10] != "-" || f[11] == "-" {
		t.Errorf("storage I/O not measured: %q, want - for READ and WRITE only:\n%s", f, text.String())
	}
	if f := row("128M"); f[9] != "3 MiB" || f[10] != "5 MiB" {
		t.Errorf("measured I/O: %q, want 3 MiB read and 5 MiB written:\n%s", f, text.String())
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Settings []map[string]json.RawMessage `json:"settings"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"wall_s", "cpu_s", "peak_rss_bytes", "read_bytes", "write_bytes", "spilled_bytes"} {
		if v := string(doc.Settings[0][k]); v != "null" {
			t.Errorf("setting without a successful run: %s is %s, want null", k, v)
		}
	}
	for _, k := range []string{"read_bytes", "write_bytes"} {
		if v := string(doc.Settings[1][k]); v != "null" {
			t.Errorf("storage I/O not measured: %s is %s, want null", k, v)
		}
	}
	if v := string(doc.Settings[1]["wall_s"]); v == "null" {
		t.Error("measured wall time is null")
	}
}
