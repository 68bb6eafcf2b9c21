package skyline

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/datasettest"
	"github.com/wlprof/wlprof/profile"
)

// Stages merges consecutive steps of one reservation and leaves steps that
// reserve nothing out, as gaps.
func TestStages(t *testing.T) {
	got := Stages([]int64{0, 2, 2, 3, 0, 0, 1, 1, 2}, 10)
	want := []Stage{{10, 20, 2}, {30, 10, 3}, {60, 20, 1}, {80, 10, 2}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("stages %v, want %v", got, want)
	}
	if s := Stages([]int64{0, 0}, 60); s != nil {
		t.Fatalf("an empty reservation has stages %v", s)
	}
}

// Profile's section: the used area is the mean over runs of the quantised
// runs' area, the reserved area and peak come from the integer
// reservation, the stages from Stages; a skipped job gets a warning.
func TestResultProfile(t *testing.T) {
	job := Job{ID: "j", Runs: []JobRun{
		{ID: "a", Samples: []Sample{{0, 2}, {60, 4}, {120, 0}}},
		{ID: "b", Samples: []Sample{{0, 2}, {60, 2}, {120, 0}}},
	}}
	opts := DefaultOptions()
	opts.MinRuns = 2
	res, err := Run(context.Background(), Input{Jobs: []Job{job, {ID: "lone", Runs: job.Runs[:1]}}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	jobs := profile.Jobs{}
	if err := res.Profile(jobs); err != nil {
		t.Fatal(err)
	}
	sk := jobs["j"].Skyline
	if sk == nil {
		t.Fatal("no skyline section")
	}
	if want := (2*60 + 4*60 + 2*60 + 2*60) / 2.0; sk.UsedAreaContainerS != want {
		t.Errorf("used area %g, want %g", sk.UsedAreaContainerS, want)
	}
	var reserved float64
	var peak int64
	for _, r := range sk.Reservation {
		reserved += float64(r) * 60
		peak = max(peak, r)
	}
	if sk.ReservedAreaContainerS != reserved || sk.PeakReservation != peak || len(sk.Stages) == 0 {
		t.Errorf("reserved %g peak %d stages %v; want %g %d and stages", sk.ReservedAreaContainerS, sk.PeakReservation, sk.Stages, reserved, peak)
	}
	if got := jobs["j"].Identity.Sources; !reflect.DeepEqual(got, []string{"skylines"}) {
		t.Errorf("sources %v", got)
	}
	lone := jobs["lone"]
	if lone == nil || lone.Skyline != nil || len(lone.Warnings) != 1 || !strings.HasPrefix(lone.Warnings[0], "skyline not fitted: ") {
		t.Errorf("skipped job's profile %+v", lone)
	}
	ids, steps, err := res.RunSteps(res.Jobs[0])
	if err != nil || !reflect.DeepEqual(ids, []string{"a", "b"}) || !reflect.DeepEqual(steps, [][]float64{{2, 4}, {2, 2}}) {
		t.Errorf("run steps %v %v, err %v", ids, steps, err)
	}
}

// Validate reports every bad option at once.
func TestValidateReportsEveryProblem(t *testing.T) {
	o := DefaultOptions()
	o.Alpha, o.StepS, o.MinRuns, o.AlphaSweep = 2, 0, 0, []float64{0.5, -1}
	err := o.Validate()
	for _, want := range []string{"alpha 2", "step 0", "min-runs 0", "alpha-sweep: -1"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not say %q", err, want)
		}
	}
	if _, err := Load(context.Background(), nil, o); err == nil {
		t.Error("Load accepted bad options")
	}
}

// ContainerSizes takes the upper median of each job's memory and vcores
// per container, rounded, with the defaults where a job's samples have
// none.
func TestContainerSizes(t *testing.T) {
	ds, tx := datasettest.Begin(t, filepath.Join(t.TempDir(), "ds"))
	datasettest.Append(t, tx.Skylines(), []dataset.SkylineSample{
		{Job: "m", Run: "1", Containers: 2, MemoryBytes: 4 << 30, VCores: 2},   // 2048 MB, 1 vcore
		{Job: "m", Run: "1", OffsetS: 60, Containers: 1, MemoryBytes: 3 << 30}, // 3072 MB
		{Job: "m", Run: "2", Containers: 4, MemoryBytes: 4 << 30, VCores: 12},  // 1024 MB, 3 vcores
		{Job: "c", Run: "1", Containers: 2, VCores: 5},                         // 2.5 vcores → 3
		{Job: "none", Run: "1", Containers: 3},
	})
	datasettest.Commit(t, tx)
	got, err := ContainerSizes(context.Background(), ds)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]YARNCapability{"m": {2048, 3}, "c": {1024, 3}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("sizes %v, want %v", got, want)
	}
}
