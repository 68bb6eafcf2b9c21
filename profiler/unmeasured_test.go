package profiler

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// The fastest setting is published with a note when it is within the
// runs' own noise: its per-task range overlaps the runner-up's, so more
// repetitions could reverse the choice. Settings whose ranges are apart
// (the known sweep: 4.75-5.5 s per task at 2 slots, 9.5-11 s at 1) get
// none.
func TestFastestWithinNoiseIsSaid(t *testing.T) {
	runs, samples := knownSweep()
	if p := BuildProfile("map", runs, samples); p == nil || hasNoise(p.Warnings) {
		t.Fatalf("settings apart: profile %+v", p)
	}
	// 1 slot: 9-12 s per task; 2 slots: 8.5-11 s per task (17-22 s).
	var close []dataset.ProfRun
	for i, c := range []struct {
		slots int32
		wall  float64
	}{{1, 10}, {1, 12}, {1, 9}, {2, 19}, {2, 22}, {2, 17}} {
		close = append(close, dataset.ProfRun{Job: "j", Task: "map", Framework: "sandbox", MemoryBytes: 256 << 20, Slots: c.slots,
			Repetition: int32(i%3 + 1), RuntimeS: c.wall, Outcome: "ok", Host: host2, RunID: fmt.Sprintf("c%d", i)})
	}
	p := BuildProfile("map", close, nil)
	if p == nil || p.Slots != 2 {
		t.Fatalf("profile %+v, want 2 slots the fastest", p)
	}
	if !hasNoise(p.Warnings) {
		t.Errorf("warnings %q: want a note that 2 slots (9.5 s per task) is within noise of 1 slot (10 s)", p.Warnings)
	}
}

func hasNoise(ws []string) bool {
	for _, w := range ws {
		if strings.Contains(w, "within the noise") {
			return true
		}
	}
	return false
}
