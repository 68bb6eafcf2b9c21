package harvest

import (
	"math"
	"testing"
	"time"

	"github.com/wlprof/wlprof/profile"

	"github.com/wlprof/wlprof/dataset"
)

func TestClassify(t *testing.T) {
	th := Thresholds{ShortBelowS: 173, LongAboveS: 433}
	for _, c := range []struct {
		s    float64
		want JobType
	}{{-1, Medium}, {math.NaN(), Medium}, {0, Short}, {172.9, Short}, {173, Medium}, {433, Medium}, {433.1, Long}} {
		if got := th.Classify(c.s); got != c.want {
			t.Errorf("Classify(%g) = %v, want %v", c.s, got, c.want)
		}
	}
}

// TestDeriveThresholds: ten runs of 10, 20, …, 100 s, one container each
// (work 550 s): with capacities 1:2:1 (a quarter each to short and long),
// short runs carry at most 137.5 s of work (10+20+30+40 = 100; adding 50
// would pass), so short is below 50 s; long runs at most 137.5 s from the
// top (100 alone; adding 90 passes), so long is above 90 s.
func TestDeriveThresholds(t *testing.T) {
	var d []float64
	for i := 1; i <= 10; i++ {
		d = append(d, float64(10*i))
	}
	th := DeriveThresholds(d, nil, Capacity{Short: 1, Medium: 2, Long: 1})
	if th.From != "history" || th.ShortBelowS != 50 || th.LongAboveS != 90 {
		t.Fatalf("got %+v, want short below 50, long above 90 from history", th)
	}
	if th.Classify(40) != Short || th.Classify(50) != Medium || th.Classify(90) != Medium || th.Classify(100) != Long {
		t.Fatal("types at the edges")
	}
	// No constant capacity: no run is long. No unpredictable: none short.
	th = DeriveThresholds(d, nil, Capacity{Short: 0, Medium: 1, Long: 0})
	for _, x := range d {
		if th.Classify(x) != Medium {
			t.Fatalf("%gs is %v with all capacity periodic (%+v)", x, th.Classify(x), th)
		}
	}
	// Containers weigh the work: one 10 s run of 1000 containers carries
	// most of it, so short (a quarter) cannot include it.
	w := make([]float64, 10)
	for i := range w {
		w[i] = 1
	}
	w[0] = 1000
	th = DeriveThresholds(d, w, Capacity{Short: 1, Medium: 2, Long: 1})
	if th.Classify(10) == Short {
		t.Fatalf("the 10 s run of 1000 containers is short (%+v)", th)
	}
	// Too few runs or no capacity: the paper's.
	if th := DeriveThresholds(d[:5], nil, Capacity{1, 1, 1}); th.From != "paper" || th.ShortBelowS != 173 || th.LongAboveS != 433 {
		t.Fatalf("few runs: %+v", th)
	}
	if th := DeriveThresholds(d, nil, Capacity{}); th.From != "paper" {
		t.Fatalf("no capacity: %+v", th)
	}
}

// TestDeriveThresholdsShares: on many runs the work of each type is
// within one run's work of its capacity share.
func TestDeriveThresholdsShares(t *testing.T) {
	var d []float64
	for i := 0; i < 1000; i++ {
		d = append(d, 30+float64((i*7919)%3000))
	}
	c := Capacity{Short: 0.2, Medium: 0.5, Long: 0.3}
	th := DeriveThresholds(d, nil, c)
	var work [3]float64
	var W float64
	for _, x := range d {
		work[th.Classify(x)] += x
		W += x
	}
	for i, want := range []float64{0.2, 0.5, 0.3} {
		if got := work[i] / W; math.Abs(got-want) > 0.01 {
			t.Errorf("%v work share %.3f, want %.2f (%+v)", JobType(i), got, want, th)
		}
	}
}

func TestLastRuns(t *testing.T) {
	runs := []dataset.Run{
		{Job: "a", Run: "1", StartMs: 0, EndMs: 100_000},
		{Job: "a", Run: "2", StartMs: 1000_000, EndMs: 1500_000},
		{Job: "a", Run: "3", StartMs: 500_000, EndMs: 900_000},
		{Job: "b", Run: "4", StartMs: 0, EndMs: dataset.NoTime},
	}
	got := LastRuns(runs)
	if len(got) != 1 || got["a"] != 500 {
		t.Fatalf("got %v, want a: 500 (its run that finished last)", got)
	}
}

func TestMergeRuns(t *testing.T) {
	nt := dataset.NoTime
	rows := []dataset.Run{
		{Job: "q 2024-01-01T00", Run: "r1", SubmitMs: nt, StartMs: 1000, EndMs: nt, Source: "openlineage"},
		{Job: "q 2024-01-01T00", Run: "r1", SubmitMs: nt, StartMs: nt, EndMs: 61_000, Source: "openlineage"},
		{Job: "q 2024-01-01T01", Run: "r2", SubmitMs: 3_600_000, StartMs: nt, EndMs: 3_700_000, Source: "openlineage"},
		{Job: "x", Run: "r3", SubmitMs: nt, StartMs: 5, EndMs: nt},
	}
	got := MergeRuns(rows)
	if len(got) != 2 || got[0].Job != got[1].Job || got[0].EndMs-got[0].StartMs != 60_000 || got[1].StartMs != 3_600_000 {
		t.Fatalf("%+v", got)
	}
}

// TestProfileTypes: the profiles carry each job's type and validate.
func TestProfileTypes(t *testing.T) {
	nt := dataset.NoTime
	var rows []dataset.Run
	for i, d := range []int64{60, 300, 900} {
		rows = append(rows, dataset.Run{Job: string(rune('a' + i)), Run: string(rune('a' + i)), SubmitMs: nt, StartMs: 0, EndMs: d * 1000})
	}
	o := DefaultOptions()
	o.ShortBelow, o.LongAbove = 173*time.Second, 433*time.Second
	jobs := profile.Jobs{}
	TypeJobs(rows, nil, o).Profile(jobs)
	want := map[string]string{"a": "short", "b": "medium", "c": "long"}
	for id, w := range want {
		j := jobs[id]
		if j == nil || j.Harvest == nil || j.Harvest.JobType != w || j.Harvest.ThresholdsFrom != "flags" {
			t.Fatalf("%s: %+v", id, j)
		}
		if err := j.Validate(); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
	}
	// Without flags or classes: too few runs, the paper's thresholds.
	if ty := TypeJobs(rows, nil, DefaultOptions()); ty.Thresholds.From != "paper" {
		t.Fatalf("%+v", ty.Thresholds)
	}
}
