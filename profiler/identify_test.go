package profiler

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/profile"
)

// A job known only from its profiling runs (the demo's spillsort, with its
// 8 sandbox runs) gets them counted in its identity, with profruns among
// its sources; a job whose runs table counted its runs keeps that count
// (one Spark application run is not 8 runs for its 8 task attempts), and
// jobs not among the profiles are not added.
func TestIdentifyCountsProfilingRuns(t *testing.T) {
	ds, err := dataset.OpenOrCreate(filepath.Join(t.TempDir(), "ds"))
	if err != nil {
		t.Fatal(err)
	}
	tx, err := ds.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 8; i++ {
		for _, job := range []string{"spillsort", "etl", "other"} {
			r := dataset.ProfRun{Job: job, Task: "reduce", Framework: "sandbox", MemoryBytes: 64 << 20, Slots: 1, Repetition: int32(i), RuntimeS: 1}
			if err := tx.ProfRuns().Append(&r); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	jobs := profile.Jobs{}
	jobs.Get("spillsort")
	etl := jobs.Get("etl")
	etl.Identity.Runs, etl.Identity.Sources = 1, []string{"runs"}
	if err := Identify(context.Background(), ds, jobs); err != nil {
		t.Fatal(err)
	}
	if id := jobs["spillsort"].Identity; id.Runs != 8 || !reflect.DeepEqual(id.Sources, []string{"profruns"}) {
		t.Errorf("spillsort identity %+v, want 8 runs from profruns", id)
	}
	if id := jobs["etl"].Identity; id.Runs != 1 || !reflect.DeepEqual(id.Sources, []string{"runs", "profruns"}) {
		t.Errorf("etl identity %+v, want its 1 run and both sources", id)
	}
	if _, ok := jobs["other"]; ok {
		t.Error("Identify added a job")
	}
}
