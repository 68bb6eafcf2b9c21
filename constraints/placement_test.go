package constraints

import (
	"context"
	"testing"

	"github.com/wlprof/wlprof/dataset"
)

// Thinakaran et al., Phoenix §III-A: "Constraints can be broadly
// classified into three categories: hard, soft, and placement
// constraints. … Few applications might prefer its tasks to spread out
// across on multiple racks for fault tolerance". The Google 2011
// task_events' different-machine constraint is one ("If true, indicates
// that a task must be scheduled to execute on a different machine than
// any other currently running task in the job", Google cluster-usage
// traces: format + schema, 2011), judged hard or soft as the attribute
// constraints are.
//
// Job 7, times in seconds: t0 on m1 10–30; t1 on m1 from 20 while t0
// runs there (violated); t2 on m1 at 60, after both ended (kept); t3,
// without the flag, on m2 5–100; t4 on m2 at 70 while t3 runs (violated:
// any running task of the job counts). Job 8's task on m1 is another job
// and never counts. Job 9's task carries the flag at SUBMIT only
// (relaxed). Flagged: 5 tasks of 2 jobs; waits SUBMIT (0) → SCHEDULE of
// the flagged schedules: 10, 20, 60, 70, mean 40.
func TestDifferentMachinePlacement(t *testing.T) {
	b := newBuilder()
	b.addAttr(&dataset.MachineAttribute{TimeMs: dataset.NoTime, Machine: 1, Attribute: "a", Value: "x"})
	b.addAttr(&dataset.MachineAttribute{TimeMs: dataset.NoTime, Machine: 2, Attribute: "a", Value: "x"})
	type ev struct {
		s         int64
		job       int64
		task      int32
		typ       string
		machine   int64
		different bool
	}
	evs := []ev{
		{0, 7, 0, "SUBMIT", 0, true}, {0, 7, 1, "SUBMIT", 0, true}, {0, 7, 2, "SUBMIT", 0, true},
		{0, 7, 3, "SUBMIT", 0, false}, {0, 7, 4, "SUBMIT", 0, true}, {0, 8, 0, "SUBMIT", 0, false},
		{0, 9, 0, "SUBMIT", 0, true},
		{5, 7, 3, "SCHEDULE", 2, false},
		{10, 7, 0, "SCHEDULE", 1, true},
		{15, 8, 0, "SCHEDULE", 1, false},
		{20, 7, 1, "SCHEDULE", 1, true},
		{25, 9, 0, "SCHEDULE", 2, false},
		{30, 7, 0, "FINISH", 1, true},
		{50, 7, 1, "FINISH", 1, true},
		{60, 7, 2, "SCHEDULE", 1, true},
		{70, 7, 4, "SCHEDULE", 2, true},
		{90, 7, 2, "FINISH", 1, true},
		{95, 7, 4, "FINISH", 2, true},
		{100, 7, 3, "FINISH", 2, false}, {100, 8, 0, "FINISH", 1, false}, {100, 9, 0, "FINISH", 2, false},
	}
	for _, e := range evs {
		b.addEvent(&dataset.TaskEvent{TimeMs: 1_000_000 + e.s*1000, Job: e.job, Task: e.task, Type: e.typ, Machine: e.machine,
			DifferentMachine: e.different, CPURequest: 0.1, MemoryRequest: 0.1})
	}
	res, err := Run(context.Background(), b.finish(nil), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Placement) != 1 {
		t.Fatalf("placement: %+v, want one row", res.Placement)
	}
	p := res.Placement[0]
	if p.Kind != "different-machine" || p.Jobs != 2 || p.Tasks != 5 || p.Episodes != 5 || p.Violated != 2 || p.Relaxed != 1 || p.Hard {
		t.Errorf("placement: %+v", p)
	}
	if p.ObservedWaits != 4 || p.ObservedWaitS == nil || *p.ObservedWaitS != 40 {
		t.Errorf("placement waits: %d, mean %v (want 4, 40 s)", p.ObservedWaits, fmtp(p.ObservedWaitS))
	}
}

// Without the flag on any event (the 2019 trace has no such field) there
// is no placement row, and the list is empty, not null.
func TestNoPlacementRow(t *testing.T) {
	b := newBuilder()
	b.addEvent(&dataset.TaskEvent{TimeMs: 1000, Job: 1, Type: "SUBMIT"})
	res, err := Run(context.Background(), b.finish(nil), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if res.Placement == nil || len(res.Placement) != 0 {
		t.Errorf("placement %#v, want []", res.Placement)
	}
}
