package estimate

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/wlprof/wlprof/dataset"
)

// The progress at the instant comes from the run in progress then: of
// its 4 maps (one retried), at t0+25 s two have ended, one has run 5 s
// and one 15 s (its retry, after a failure), and the reduce has not
// started. The earlier run (done by then) only counts for µ and tasks.
func TestProgressFromHistory(t *testing.T) {
	const t0 = int64(1_700_000_000_000)
	row := func(jobID, kind string, task, attempt int, startS, rt float64, exit int32) dataset.ProfRun {
		return dataset.ProfRun{Job: "wc", Task: kind, Framework: "mapreduce", MemoryBytes: 1 << 30, RuntimeS: rt, ExitCode: exit,
			StartMs: t0 + int64(startS*1000), Source: jobID + ".jhist",
			Config: fmt.Sprintf(`{"attempt":"attempt_1_%s_%s_%06d_%d","job_id":"%s"}`, jobID, kind[:1], task, attempt, jobID)}
	}
	rows := []dataset.ProfRun{
		row("job_1", "map", 0, 0, -500, 10, 0), row("job_1", "map", 1, 0, -500, 10, 0), row("job_1", "reduce", 0, 0, -480, 30, 0),
		row("job_2", "map", 0, 0, 0, 10, 0),
		row("job_2", "map", 1, 0, 5, 12, 0),
		row("job_2", "map", 2, 0, 20, 30, 0),
		row("job_2", "map", 3, 0, 0, 8, 1), // failed at 8 s
		row("job_2", "map", 3, 1, 10, 30, 0),
		row("job_2", "reduce", 0, 0, 45, 20, 0),
	}
	ds := writeDataset(t, rows)
	hist, _, err := loadHistory(context.Background(), ds)
	if err != nil {
		t.Fatal(err)
	}
	var ji JobInput
	if why := phases(&ji, float64(t0)/1000+25, hist["wc"], nil, nil, nil); why != "" {
		t.Fatal(why)
	}
	want := []Phase{
		// µ is the mean of the successful attempts (§3.3.2), the failed one
		// (8 s) left out.
		{Name: "map", Tasks: 4, MuS: (10 + 10 + 10 + 12 + 30 + 30) / 6.0, Pending: 0, Running: []float64{5, 15}, MuFrom: "task history: mean of 6 successful attempts"},
		{Name: "reduce", Tasks: 1, MuS: 25, Pending: 1, MuFrom: "task history: mean of 2 successful attempts"},
	}
	if !reflect.DeepEqual(ji.Phases, want) {
		t.Errorf("phases\n%+v\nwant\n%+v", ji.Phases, want)
	}
	if ji.ProfileFrom != "task history (2 runs); progress at the instant from run job_2, in progress then" {
		t.Errorf("profile from %q", ji.ProfileFrom)
	}
	// Between the runs nothing is in progress: every task pending.
	ji = JobInput{}
	phases(&ji, float64(t0)/1000-100, hist["wc"], nil, nil, nil)
	if ji.Phases[0].Pending != ji.Phases[0].Tasks || ji.Phases[0].Running != nil {
		t.Errorf("between runs: %+v", ji.Phases)
	}
}
