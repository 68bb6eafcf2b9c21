package estimate

import (
	"context"
	"math"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/ingest"
)

// Alibaba batch_instance as an estimate's task history (both files
// written from the trace's schema, testdata/dag/SOURCES.md), plus one
// instance added here that started and has no end (Running at the
// trace's end). Polo, PhD thesis, UPC 2014, §3.3.2: "Let µ^m be the mean
// completed task length". Computed by hand from the rows, seconds from
// the trace start, at 150:
//   - M1 (instance_num 10): ins_1 [100, 130) and ins_2 [100, 160)
//     Terminated: µ = (30 + 60) / 2 = 45; ins_1 done, ins_2 running 50 s,
//     10 − 1 − 1 = 8 pending.
//   - M2_1 (4): ins_3 [160, 200): µ = 40; ins_9 started at 140 with no
//     end: running 10 s, 3 pending.
//   - M3_1 (6): no instance: µ assumed, the nearest earlier phase's (M2_1,
//     40 s; §3.4.5), 6 pending.
//   - R4_2 (3): ins_4 failed over [200, 230) then Terminated [232, 260):
//     µ = 28, the failed run left out; 3 pending.
//   - M5_3_4 (2): no instance: R4_2's 28 s assumed, 2 pending.
//
// Order: the DAG's (M2_1 and M3_1 wait for M1, R4_2 for M2_1, M5_3_4 for
// M3_1 and R4_2). j_2's one instance is Waiting: no µ in any task, not
// estimated (ranked as a job without data, §3.4.1).
func TestInstancesAsHistory(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "ds")
	if _, ds, err := ingest.Into(ctx, dir, "alibaba2018-batch-task",
		[]string{"../testdata/dag/batch_task_schema_sample.csv"}, ingest.DefaultOptions()); err != nil && ds == nil {
		t.Fatal(err)
	}
	_, ds, err := ingest.Into(ctx, dir, "alibaba2018-batch-instance",
		[]string{"../testdata/dag/batch_instance_schema_sample.csv"}, ingest.DefaultOptions())
	if err != nil && ds == nil {
		t.Fatal(err)
	}
	tx, err := ds.Begin()
	if err != nil {
		t.Fatal(err)
	}
	nan := math.NaN()
	if err := tx.Instances().Append(&dataset.Instance{Job: "j_1", Stage: "2", Task: "M2_1", Instance: "ins_9", Status: "Running",
		StartMs: 140_000, EndMs: dataset.NoTime, CPUAvg: nan, CPUMax: nan, MemAvg: nan, MemMax: nan, Source: "test"}); err != nil {
		t.Fatal(err)
	}
	// j_9 has no batch_task rows: its task count is its distinct
	// instances (two, one retried), µ (10 + 20) / 2 = 15.
	for _, r := range []struct {
		name, status string
		start, end   int64
	}{{"a", "Terminated", 0, 10_000}, {"b", "Failed", 0, 5_000}, {"b", "Terminated", 6_000, 26_000}} {
		if err := tx.Instances().Append(&dataset.Instance{Job: "j_9", Stage: "1", Task: "M1", Instance: r.name, Status: r.status,
			StartMs: r.start, EndMs: r.end, CPUAvg: nan, CPUMax: nan, MemAvg: nan, MemMax: nan, Source: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	inst, err := loadInstances(ctx, ds)
	if err != nil {
		t.Fatal(err)
	}
	var ji JobInput
	if why := instancePhases(&ji, 150, inst["j_1"]); why != "" {
		t.Fatal(why)
	}
	assumed := func(from string) string {
		return `assumed: phase "` + from + `"'s µ (Polo, PhD thesis, UPC 2014, §3.4.5: with no estimate, a reduce task costs what a map task does)`
	}
	want := []Phase{
		{Name: "M1", Tasks: 10, MuS: 45, Pending: 8, Running: []float64{50}, MuFrom: "task instances: mean of 2 Terminated instance runs"},
		{Name: "M2_1", Tasks: 4, MuS: 40, Pending: 3, Running: []float64{10}, MuFrom: "task instances: mean of 1 Terminated instance runs"},
		{Name: "M3_1", Tasks: 6, MuS: 40, Pending: 6, MuFrom: assumed("M2_1")},
		{Name: "R4_2", Tasks: 3, MuS: 28, Pending: 3, MuFrom: "task instances: mean of 1 Terminated instance runs"},
		{Name: "M5_3_4", Tasks: 2, MuS: 28, Pending: 2, MuFrom: assumed("R4_2")},
	}
	if !reflect.DeepEqual(ji.Phases, want) {
		t.Errorf("phases\n%+v\nwant\n%+v", ji.Phases, want)
	}
	if ji.ProfileFrom != "task instances (6 instance runs; task counts from batch_task); progress at the instant from the instances' start and end times" || len(ji.Warnings) != 2 {
		t.Errorf("profile from %q, warnings %q", ji.ProfileFrom, ji.Warnings)
	}
	// Before the first instance started: every task pending, µ the same.
	ji = JobInput{}
	instancePhases(&ji, 99, inst["j_1"])
	if ji.Phases[0].Pending != 10 || ji.Phases[0].Running != nil || ji.Phases[0].MuS != 45 {
		t.Errorf("before the run: %+v", ji.Phases[0])
	}

	ji = JobInput{}
	instancePhases(&ji, 100, inst["j_9"])
	if len(ji.Phases) != 1 || ji.Phases[0].Tasks != 2 || ji.Phases[0].MuS != 15 || ji.Phases[0].Pending != 2 ||
		ji.ProfileFrom != "task instances (3 instance runs; task counts from batch_task, of M1 from its instances: no batch_task row)" {
		t.Errorf("j_9 without batch_task rows: %+v from %q", ji.Phases, ji.ProfileFrom)
	}

	// Load: a goal from --jobs and the instances as j_1's history; j_2
	// has a Waiting instance only.
	d := 600.0
	jf := &JobsFile{Version: 1, Path: "jobs.yaml", Jobs: []JobSpec{{Job: "j_1", DeadlineS: &d}, {Job: "j_2", DeadlineS: &d}}}
	opts := DefaultOptions()
	opts.AtMs, opts.AtSet, opts.Jobs = 150_000, true, jf
	in, err := Load(ctx, ds, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Jobs) != 1 || in.Jobs[0].Job != "j_1" || !reflect.DeepEqual(in.Jobs[0].Phases, want) {
		t.Errorf("Load: jobs %+v", in.Jobs)
	}
	// j_9 has no goal.
	if len(in.NotEstimated) != 2 || in.NotEstimated[0].Job != "j_2" || in.NotEstimated[0].Reason != "no profile: no task of the job has a Terminated instance with a start and an end" || in.NotEstimated[1].Job != "j_9" {
		t.Errorf("Load: not estimated %+v", in.NotEstimated)
	}
}
