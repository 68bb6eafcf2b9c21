package plan

import (
	"strings"
	"testing"

	"github.com/wlprof/wlprof/internal/table"
)

// A job placed instance by instance is named by instance in the text table
// and shares its job's replay; a naive placement says so; the footprint's
// saving is against naive.
func TestResultText(t *testing.T) {
	one := 1
	r := &Result{Alpha: 0.1, Packing: &Packing{LCMS: 7200, StepS: 60, Footprint: 3, NaiveFootprint: 4, LowerBound: 2,
		Placements: []Placement{
			{Job: "a", PeriodS: 3600, WindowEndS: 1800, OffsetS: 60, Allocation: []int64{1, 3, 2}},
			{Job: "b", PeriodS: 5400, Instance: &one, Naive: true, Allocation: []int64{2}},
		},
		NotPlanned: []NotPlanned{{Job: "c", Reason: "no window"}}},
		Replay: []JobReplay{{Job: "a", TrainRuns: 4, TestRuns: 2, SLOMisses: 1, DRAAddedContainerS: 1800, Note: "short"}}}
	if p := r.Placements[0].Peak(); p != 3 {
		t.Errorf("peak %d, want 3", p)
	}
	if got := r.Replays(); len(got) != 1 || got["a"].TrainRuns != 4 {
		t.Errorf("replays %v", got)
	}
	text, err := table.String(r.WriteText)
	for _, want := range []string{
		"2 jobs planned over a 2h LCM in 1m steps (alpha 0.1)\nfootprint 3 containers: naive 4, lower bound 2 (25% below naive)\n",
		"\na            1h", "0s–30m  1m      3      3     4      2         1       0                0.50\n",
		"\nb#1 (naive)  1h30m", "note: a: short\n", "\nnot planned:\n  c: no window\n",
	} {
		if err != nil || !strings.Contains(text, want) {
			t.Errorf("text (%v) lacks %q:\n%s", err, want, text)
		}
	}
	csv, err := table.String(r.WriteCSV)
	if rows := strings.Split(csv, "\n"); err != nil || len(rows) != 4 || rows[2] != "b,1,5400,0,0,0,1,2,true,0,0,0,0,0,0,0" {
		t.Errorf("csv (%v):\n%s", err, csv)
	}
	if got, _ := table.String((&Result{Packing: &Packing{}}).WriteText); got != "no job could be planned\n" {
		t.Errorf("empty plan: %q", got)
	}
}

// Under a capacity the text adds the shares and the memory and vcores
// peaks after the footprint; without one it has neither line.
func TestResultTextCapacity(t *testing.T) {
	fs, ns, ls := 0.25, 0.5, 0.125
	mem, nmem, lmem := int64(3<<40), int64(1536<<20), int64(512<<20)
	vc, nvc, lvc := 10.5, 12.0, 2.25
	r := &Result{Alpha: 0.1, Packing: &Packing{LCMS: 3600, StepS: 60, Footprint: 3, NaiveFootprint: 4, LowerBound: 2,
		Capacity: &Capacity{Containers: 12, MemoryBytes: 12 << 40, VCores: 42}, FootprintShare: &fs, NaiveFootprintShare: &ns, LowerBoundShare: &ls,
		FootprintMemoryBytes: &mem, NaiveFootprintMemoryBytes: &nmem, LowerBoundMemoryBytes: &lmem,
		FootprintVCores: &vc, NaiveFootprintVCores: &nvc, LowerBoundVCores: &lvc,
		Placements: []Placement{{Job: "a", PeriodS: 3600, WindowEndS: 600, Allocation: []int64{3}}}}}
	text, err := table.String(r.WriteText)
	want := "footprint 3 containers: naive 4, lower bound 2 (25% below naive)\n" +
		"capacity containers=12,memory=12T,cores=42: footprint 25.0% of it, naive 50.0%, lower bound 12.5% (50% below naive)\n" +
		"peak memory 3.00 TiB (naive 1.5 GiB, lower bound 512 MiB); vcores 10.5 (naive 12, lower bound 2.25)\n\nJOB"
	if err != nil || !strings.Contains(text, want) {
		t.Errorf("text (%v) lacks %q:\n%s", err, want, text)
	}
	r.Capacity, r.FootprintShare, r.NaiveFootprintShare, r.LowerBoundShare = nil, nil, nil, nil
	if text, _ := table.String(r.WriteText); strings.Contains(text, "capacity") || strings.Contains(text, "peak memory") {
		t.Errorf("no capacity, yet:\n%s", text)
	}
}
