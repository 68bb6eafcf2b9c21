package profiler

import (
	"testing"

	"github.com/wlprof/wlprof/dataset"
)

// Sandboxes keeps only sandbox runs, one entry per job in order; a task
// whose runs vary only in slots is swept over slots, others over memory,
// each point the median of the setting's successful runs; profruns-csv rows
// (no run id) give no phase profile.
func TestSandboxes(t *testing.T) {
	run := func(job, task string, mem int64, slots int32, rep int32, wall float64) dataset.ProfRun {
		return dataset.ProfRun{Job: job, Task: task, Framework: "sandbox", MemoryBytes: mem, Slots: slots, Repetition: rep,
			RuntimeS: wall, PeakRSSBytes: mem / 2, Outcome: "ok"}
	}
	runs := []dataset.ProfRun{
		run("b", "sort", 1<<20, 1, 0, 10), run("b", "sort", 1<<20, 1, 1, 12), run("b", "sort", 1<<20, 1, 2, 30),
		run("b", "sort", 2<<20, 1, 0, 5),
		run("a", "scan", 1<<20, 1, 0, 8), run("a", "scan", 1<<20, 2, 0, 9), run("a", "scan", 1<<20, 4, 0, 12),
		{Job: "c", Task: "map", Framework: "hadoop", MemoryBytes: 1, RuntimeS: 1},
	}
	sbs := Sandboxes(runs, nil)
	if len(sbs) != 2 || sbs[0].Job != "a" || sbs[1].Job != "b" {
		t.Fatalf("sandboxes %+v", sbs)
	}
	a, b := sbs[0].Sweeps, sbs[1].Sweeps
	if len(a) != 1 || a[0].Setting != "slots" || len(a[0].Points) != 3 || a[0].Points[2].Setting != 4 {
		t.Errorf("a's sweep %+v", a)
	}
	if len(b) != 1 || b[0].Setting != "memory_bytes" || len(b[0].Points) != 2 ||
		b[0].Points[0] != (SweepPoint{Setting: 1 << 20, RuntimeS: 12, PeakRSSBytes: 1 << 19}) {
		t.Errorf("b's sweep %+v", b)
	}
	if len(sbs[0].Phases) != 0 || len(sbs[1].Phases) != 0 {
		t.Error("phases without samples or run ids")
	}
}
