package profiler

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

// NewReport lists every run (sorted), the sweep table and one profile per
// task that has one: the known sweep's map task has one, a reduce task
// whose one run failed has none.
func TestNewReport(t *testing.T) {
	runs, ss := knownSweep()
	runs = append([]dataset.ProfRun{{Job: "j", Task: "reduce", Slots: 1, Repetition: 1, RuntimeS: 4, CPUS: 3.5, SpilledBytes: 7,
		Outcome: "failed", ExitCode: 1, RunID: "red", CapNote: "not capped", CPUWaitS: 0.25}}, runs...)
	rep := NewReport("j", runs, ss)
	if rep.Version != 1 || rep.Job != "j" || len(rep.Runs) != len(runs) || len(rep.Settings) != 4 {
		t.Fatalf("version %d job %s, %d runs, %d settings", rep.Version, rep.Job, len(rep.Runs), len(rep.Settings))
	}
	if first, last := rep.Runs[0], rep.Runs[len(rep.Runs)-1]; first.Task != "map" || first.Slots != 1 || last.RunID != "red" {
		t.Errorf("runs not in task, memory, slots order: first %+v, last %+v", first, last)
	}
	red := rep.Runs[len(rep.Runs)-1]
	if red.WallS != 4 || red.CPUS != 3.5 || red.SpilledBytes != 7 || red.CapNote != "not capped" || red.Outcome != "failed" || red.CPUWaitS != 0.25 {
		t.Errorf("reduce run copied as %+v", red)
	}
	if len(rep.Profiles) != 1 || rep.Profiles[0].Task != "map" || rep.Profiles[0].Run != "s2-r1" {
		t.Errorf("profiles %+v, want the map task's alone", rep.Profiles)
	}
	// No runs: empty lists, not null, in the JSON document.
	b, err := json.Marshal(NewReport("none", nil, nil))
	if err != nil || !strings.Contains(string(b), `"runs":[]`) || !strings.Contains(string(b), `"profiles":[]`) {
		t.Errorf("empty report: %s (%v)", b, err)
	}
}

// SweepInto commits each run as it finishes: interrupted in its second
// run, the dataset holds the first, which is also what it returns, and
// OnRun saw it after the commit.
func TestSweepIntoKeepsFinishedRuns(t *testing.T) {
	o, pids := sweepOpts(t, "nap")
	o.Repeat = 10
	ds, err := dataset.OpenOrCreate(filepath.Join(t.TempDir(), "ds"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var committed []int64
	o.OnRun = func(*Run) error {
		committed = append(committed, ds.Rows(dataset.ProfRunsTable.Name))
		time.AfterFunc(150*time.Millisecond, cancel)
		return nil
	}
	runs, samples, err := SweepInto(ctx, ds, childArgv("250ms"), o)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the context's", err)
	}
	if !reflect.DeepEqual(committed, []int64{1}) || len(runs) != 1 || runs[0].Outcome != "ok" || len(samples) == 0 {
		t.Fatalf("OnRun saw %v committed rows; returned %d runs, %d samples", committed, len(runs), len(samples))
	}
	got, gotSamples, err := LoadJob(ctx, ds, "t", "")
	if err != nil || len(got) != 1 || got[0].RunID != runs[0].RunID || len(gotSamples) != len(samples) {
		t.Errorf("dataset holds %d runs, %d samples (%v); want the run returned", len(got), len(gotSamples), err)
	}
	checkClean(t, o, pids)
}
