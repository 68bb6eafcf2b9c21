package estimate

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/dataset"
)

// These tests reproduce Polo's PhD thesis (UPC 2014) examples, equations
// and sentences. They read the stage's JSON document, the published
// contract, rather than Go fields.

// runDoc runs the stage and decodes its JSON document.
func runDoc(t *testing.T, in Input, opts Options) map[string]any {
	t.Helper()
	res, err := Run(context.Background(), in, opts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// docJobs indexes the document's jobs by name.
func docJobs(doc map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, j := range doc["jobs"].([]any) {
		m := j.(map[string]any)
		out[m["job"].(string)] = m
	}
	return out
}

// num is a JSON number field, NaN when absent or null.
func num(m map[string]any, k string) float64 {
	if v, ok := m[k].(float64); ok {
		return v
	}
	return math.NaN()
}

// Polo, PhD thesis, UPC 2014, §5.3.4.1 (Fig. 5.16c): "in the final step
// of the estimation as shown in Figure 5.16c, the scheduler evaluates the
// timeframe between 1 and 17, in which it is supposed to execute J1 and
// the remaining tasks from J2" — Alg. 2's loop (lines 6–18) fits every
// job, the earliest included, from the next placement cycle to the
// earliest goal; s_fit is "the minimum number of tasks that should be
// allocated concurrently during the next placement cycle" (§5.3.4.2).
//
// The example of §5.3.2 in numbers: three jobs of 200 one-hour map tasks,
// goals D1 6.5 h, D2 15 h, D3 23.1 h, Ω 60, 30, 10 and 50 slots over
// consecutive 6-hour blocks. By hand, with the default placement cycle of
// 30 s:
//
//	[15 h, 23.1 h]: 3·10 + 5.1·50 = 285 slot-hours ≥ J3's 200: J3 fits.
//	[6.5 h, 15 h]: 5.5·30 + 3·10 = 195 < J2's 200: 5 tasks carried back.
//	[30 s, 6.5 h]: 60·(6 h − 30 s) + 30·0.5 h = 374.5 slot-hours ≥ J2's 5
//	+ J1's 200.
//
// s_fit = 0, 0, 0; J1's s_req = ⌈200/6.5⌉ = 31 and eq. 14 at s_alloc =
// s_req is ½ ("grows linearly between 0 and 0.5, when s_alloc = s_req").
// With 400 tasks J1 leaves 400 − (374.5 − 5) = 30.5 tasks, which must
// start in the current cycle: s_fit 31.
func TestThesisFig516EarliestWindow(t *testing.T) {
	const h = 3600.0
	av := mustAv(t, []float64{0, 6 * h, 12 * h, 18 * h}, []float64{60, 30, 10, 50}, 0)
	job := func(name string, goal float64, n int) JobInput {
		return JobInput{Job: name, GoalS: goal, Phases: []Phase{{Name: "map", Tasks: n, Pending: n, MuS: h}}}
	}
	in := Input{AtS: 0, Availability: av, Jobs: []JobInput{job("J1", 6.5*h, 200), job("J2", 15*h, 200), job("J3", 23.1*h, 200)}}
	jobs := docJobs(runDoc(t, in, DefaultOptions()))
	for name, want := range map[string]float64{"J1": 0, "J2": 0, "J3": 0} {
		if got := num(jobs[name], "s_fit"); got != want {
			t.Errorf("%s: s_fit %g, want %g (Alg. 2 with the earliest window fitted)", name, got, want)
		}
	}
	j1 := jobs["J1"]
	req := int(num(j1, "s_req"))
	if req != 31 {
		t.Fatalf("J1: s_req %d, want ⌈200/6.5⌉ = 31", req)
	}
	if u := j1["utility"].([]any)[req]; u != 0.5 {
		t.Errorf("J1: eq. 14 at s_alloc = s_req = %v, want 0.5", u)
	}

	in.Jobs[0] = job("J1", 6.5*h, 400)
	jobs = docJobs(runDoc(t, in, DefaultOptions()))
	if got := num(jobs["J1"], "s_fit"); got != 31 {
		t.Errorf("J1 of 400 tasks: s_fit %g, want 31 (30.5 tasks do not fit from the next cycle to D1)", got)
	}
}

// writeDataset writes profruns rows into a new dataset.
func writeDataset(t *testing.T, rows []dataset.ProfRun) *dataset.Dataset {
	t.Helper()
	ds, err := dataset.OpenOrCreate(filepath.Join(t.TempDir(), "ds"))
	if err != nil {
		t.Fatal(err)
	}
	tx, err := ds.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		if err := tx.ProfRuns().Append(&rows[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return ds
}

func writeJobsFile(t *testing.T, text string) *JobsFile {
	t.Helper()
	path := filepath.Join(t.TempDir(), "jobs.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := LoadJobsFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// Polo, PhD thesis, UPC 2014, §3.3.2: "Let µ^m be the mean completed task
// length observed for any running job m"; §4.2.6's job profile is taken
// at the setting with the least wall time per task. A sandbox sweep of
// the map task at 1, 2 and 4 slots (tasks at once on the node): 30 s
// alone (three runs), 30 s for two (two runs: 15 s a task), 40, 52 and
// 52 s for four (median 13 s a task, the fastest setting). µ is the mean
// per-task time at that setting, (40 + 52 + 52)/3/4 = 12 s — not the
// median of every run at every setting (30 s).
func TestThesisMuFromProfileSetting(t *testing.T) {
	var rows []dataset.ProfRun
	for i, rs := range map[int32][]float64{1: {30, 30, 30}, 2: {30, 30}, 4: {40, 52, 52}} {
		for k, rt := range rs {
			rows = append(rows, dataset.ProfRun{Job: "etl", Task: "map", Framework: "sandbox", MemoryBytes: 1 << 30, Slots: i,
				Repetition: int32(k), RuntimeS: rt, Outcome: "ok", RunID: fmt.Sprintf("r%d-%d", i, k), Source: "profile run"})
		}
	}
	sort.Slice(rows, func(a, b int) bool { return rows[a].RunID < rows[b].RunID })
	ds := writeDataset(t, rows)
	opts := DefaultOptions()
	opts.AtMs = 1_700_000_000_000
	opts.Jobs = writeJobsFile(t, "version: 1\njobs:\n  - job: etl\n    deadline_s: 3600\n    phases: [{phase: map, tasks: 100}]\n")
	in, err := Load(context.Background(), ds, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Jobs) != 1 {
		t.Fatalf("jobs %+v, not estimated %+v", in.Jobs, in.NotEstimated)
	}
	if mu := in.Jobs[0].Phases[0].MuS; mu != 12 {
		t.Errorf("µ %g s, want 12 (mean per-task time at the fastest setting, 4 slots); profile from %q", mu, in.Jobs[0].ProfileFrom)
	}
}

// Polo, PhD thesis, UPC 2014, §3.4.5: "If no estimate is provided, the
// scheduler assumes that the computational cost of a map task is the
// same as that of a reduce task." A job whose reduce phase has no µ is
// estimated with the map's, and the output says so.
func TestThesisReduceCostsAMap(t *testing.T) {
	opts := DefaultOptions()
	opts.AtMs = 1_700_000_000_000
	opts.Jobs = writeJobsFile(t, `version: 1
jobs:
  - job: etl
    deadline_s: 3600
    phases:
      - {phase: map, tasks: 100, mu_s: 60}
      - {phase: reduce, tasks: 10}
`)
	in, err := Load(context.Background(), nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Jobs) != 1 {
		t.Fatalf("etl not estimated: %+v", in.NotEstimated)
	}
	j := docJobs(runDoc(t, in, opts))["etl"]
	ph := j["phases"].([]any)[1].(map[string]any)
	if num(ph, "mu_s") != 60 || !strings.Contains(fmt.Sprint(ph["mu_from"]), "§3.4.5") {
		t.Errorf("reduce phase %v: want µ 60 s, mu_from citing §3.4.5", ph)
	}
	if !strings.Contains(fmt.Sprint(j["warnings"]), "reduce") {
		t.Errorf("the job's warnings %v do not say the reduce µ was assumed", j["warnings"])
	}
}
