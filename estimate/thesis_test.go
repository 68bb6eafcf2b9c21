package estimate

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/datasettest"
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
	ds, tx := datasettest.Begin(t, filepath.Join(t.TempDir(), "ds"))
	datasettest.Append(t, tx.ProfRuns(), rows)
	datasettest.Commit(t, tx)
	return ds
}

// loadAt loads the stage's input from ds with the jobs file text, at a
// fixed instant (2023-11-14T22:13:20Z), and returns it with its options.
func loadAt(t *testing.T, ds *dataset.Dataset, jobs string) (Input, Options) {
	t.Helper()
	opts := DefaultOptions()
	opts.AtMs = 1_700_000_000_000
	opts.Jobs = writeJobsFile(t, jobs)
	in, err := Load(context.Background(), ds, opts)
	if err != nil {
		t.Fatal(err)
	}
	return in, opts
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
	in, _ := loadAt(t, ds, "version: 1\njobs:\n  - job: etl\n    deadline_s: 3600\n    phases: [{phase: map, tasks: 100}]\n")
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
	in, opts := loadAt(t, nil, `version: 1
jobs:
  - job: etl
    deadline_s: 3600
    phases:
      - {phase: map, tasks: 100, mu_s: 60}
      - {phase: reduce, tasks: 10}
`)
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

// Polo, PhD thesis, UPC 2014, §3.3.1: "Each task (t_i^m) takes time α_i^m
// to be completed, and requires one slot to execute", and §3.3.2: a
// running task is assumed to last µ, "δ_i^m = µ^m − β_i^m". Whether a job
// meets its goal under Ω counts whole tasks each holding one slot for µ
// (a running one for what it has left), never a task split across slots.
func TestThesisOneTaskOneSlot(t *testing.T) {
	cases := []struct {
		name  string
		slots float64
		goal  float64
		phase Phase
		meets bool
		late  float64
	}{
		// One 100-s task due in 50 s: no number of slots makes it.
		{"one task past its goal", 10, 50, Phase{Name: "map", Tasks: 1, Pending: 1, MuS: 100}, false, 1},
		// 3 tasks of 100 s on 2 slots, due at 150 s: 300 slot-s fit in
		// the 300 available, but the third task starts at 100 s and ends
		// at 200 s.
		{"a third task waits for a slot", 2, 150, Phase{Name: "map", Tasks: 3, Pending: 3, MuS: 100}, false, 1},
		{"two slots, two waves", 2, 200, Phase{Name: "map", Tasks: 3, Pending: 3, MuS: 100}, true, 0},
		// A running task 10 s in has 90 s left.
		{"running task, 90 s left, due in 50 s", 10, 50, Phase{Name: "map", Tasks: 1, Pending: 0, MuS: 100, Running: []float64{10}}, false, 1},
		{"running task, 90 s left, due in 95 s", 10, 95, Phase{Name: "map", Tasks: 1, Pending: 0, MuS: 100, Running: []float64{10}}, true, 0},
	}
	for _, c := range cases {
		in := Input{AtS: 0, Availability: mustAv(t, []float64{0}, []float64{c.slots}, 0),
			Jobs: []JobInput{{Job: "j", GoalS: c.goal, Phases: []Phase{c.phase}}}}
		j := docJobs(runDoc(t, in, DefaultOptions()))["j"]
		if j["meets_goal"] != c.meets || num(j, "late_tasks") != c.late {
			t.Errorf("%s: meets_goal %v, late_tasks %v; want %v, %g", c.name, j["meets_goal"], j["late_tasks"], c.meets, c.late)
		}
	}
}

// Polo, PhD thesis, UPC 2014, §3.4.6: the slots needed "can be measured
// comparing the number of sequential task executions, or waves". 10
// tasks of 100 s due in 150 s: eq. 1 read fluidly gives ⌈1000/150⌉ = 7,
// but 7 slots run 7 tasks by 100 s and the other 3 end at 200 s; one wave
// fits before the goal, so all 10 must run at once.
func TestThesisSReqWaves(t *testing.T) {
	in := Input{AtS: 0, Jobs: []JobInput{{Job: "j", GoalS: 150, Phases: []Phase{{Name: "map", Tasks: 10, Pending: 10, MuS: 100}}}}}
	j := docJobs(runDoc(t, in, DefaultOptions()))["j"]
	if num(j, "s_req") != 7 || num(j, "s_req_waves") != 10 {
		t.Errorf("s_req %v (eq. 1, fluid), s_req_waves %v; want 7 and 10", j["s_req"], j["s_req_waves"])
	}
}

// simulateJob is the one-task-one-slot model, task by task, independent
// of the stage's code: the job holds n slots; slot i of the first |R| is
// busy until its running task's remaining time max(µ − β, 0); phases run
// in order, a phase's pending tasks starting once every task of the
// earlier phases has ended, each on the earliest free slot for µ. It
// returns the instant the job's last task ends.
func simulateJob(phases []Phase, n int) float64 {
	free := make([]float64, 0, n)
	phaseEnd := make([]float64, len(phases))
	for p, ph := range phases {
		for _, b := range ph.Running {
			d := math.Max(ph.MuS-b, 0)
			free = append(free, d)
			phaseEnd[p] = math.Max(phaseEnd[p], d)
		}
	}
	for len(free) < n {
		free = append(free, 0)
	}
	barrier, end := 0.0, 0.0
	for p, ph := range phases {
		if ph.Pending > 0 && len(free) == 0 {
			return math.Inf(1) // no slot: the tasks never run
		}
		for k := 0; k < ph.Pending; k++ {
			i := 0
			for x := range free {
				if math.Max(free[x], barrier) < math.Max(free[i], barrier) {
					i = x
				}
			}
			free[i] = math.Max(free[i], barrier) + ph.MuS
			phaseEnd[p] = math.Max(phaseEnd[p], free[i])
		}
		barrier = math.Max(barrier, phaseEnd[p])
		end = math.Max(end, barrier)
	}
	return end
}

// The bar of §3.4.6's waves over random jobs (seeded): with s_req_waves
// slots besides those its running tasks hold, the job ends by its goal
// under the one-task-one-slot model, and with one slot fewer it does not.
// A goal no slot count meets gives every pending task and a warning.
func TestSReqWavesMeetsGoalProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(34, 6))
	var in Input
	for i := range 300 {
		var phases []Phase
		for p := range 1 + r.IntN(3) {
			ph := Phase{Name: fmt.Sprintf("stage %d: s", p), MuS: float64(1 + r.IntN(300))}
			ph.Pending = r.IntN(40)
			if p == 0 {
				for range r.IntN(4) {
					ph.Running = append(ph.Running, float64(r.IntN(400)))
				}
			}
			ph.Tasks = ph.Pending + len(ph.Running)
			phases = append(phases, ph)
		}
		in.Jobs = append(in.Jobs, JobInput{Job: fmt.Sprintf("j%03d", i), GoalS: float64(1 + r.IntN(3000)), Phases: phases})
	}
	jobs := docJobs(runDoc(t, in, DefaultOptions()))
	met := 0
	for _, ji := range in.Jobs {
		j := jobs[ji.Job]
		if _, ok := j["s_req_waves"].(float64); !ok {
			t.Fatalf("%s: no s_req_waves in %v", ji.Job, j)
		}
		s := int(num(j, "s_req_waves"))
		running := 0
		for _, p := range ji.Phases {
			running += len(p.Running)
		}
		maxPend := 0
		for _, p := range ji.Phases {
			maxPend = max(maxPend, p.Pending)
		}
		reachable := simulateJob(ji.Phases, running+maxPend) <= ji.GoalS
		if !reachable {
			if j["meets_goal"] != false {
				t.Errorf("%s: no slot count meets the goal, meets_goal %v", ji.Job, j["meets_goal"])
			}
			continue
		}
		met++
		if end := simulateJob(ji.Phases, running+s); end > ji.GoalS+1e-9 {
			t.Errorf("%s: s_req_waves %d ends at %g, after the goal %g: %+v", ji.Job, s, end, ji.GoalS, ji.Phases)
		}
		if s > 0 {
			if end := simulateJob(ji.Phases, running+s-1); end <= ji.GoalS {
				t.Errorf("%s: s_req_waves %d is not the fewest: %d slots end at %g ≤ %g", ji.Job, s, s-1, end, ji.GoalS)
			}
		}
		if j["meets_goal"] != true {
			t.Errorf("%s: reachable without an availability, meets_goal %v", ji.Job, j["meets_goal"])
		}
	}
	if met < 100 || met == len(in.Jobs) {
		t.Errorf("%d of %d jobs reachable: the sample does not test both sides", met, len(in.Jobs))
	}
}

// One job alone under a constant Ω of n slots holds n slots: Late finds
// no late task exactly when the one-task-one-slot oracle (simulateJob)
// with n slots ends by the goal (seeded random jobs).
func TestLateOneJobMatchesOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 17))
	for it := range 500 {
		var phases []Phase
		running := 0
		for p := range 1 + r.IntN(3) {
			ph := Phase{Name: fmt.Sprint(p), MuS: float64(1 + r.IntN(200)), Pending: r.IntN(30)}
			if p == 0 {
				for range r.IntN(4) {
					ph.Running = append(ph.Running, float64(r.IntN(300)))
				}
				running = len(ph.Running)
			}
			phases = append(phases, ph)
		}
		n := running + r.IntN(12)
		goal := float64(1 + r.IntN(2000))
		late := Late(0, []JobInput{{Job: "j", GoalS: goal, Phases: phases}}, mustAv(t, []float64{0}, []float64{float64(n)}, 0))[0]
		if want := simulateJob(phases, n) <= goal; (late == 0) != want {
			t.Fatalf("iteration %d: %d slots, goal %g, %+v: %d late, oracle ends at %g", it, n, goal, phases, late, simulateJob(phases, n))
		}
	}
}

// Polo, PhD thesis, UPC 2014, eq. 13: "u_j(P) = u_j^M(P^M) + u_j^R(P^R)",
// with eq. 15, u^R = log(r_alloc)/log(r_pend) − 1, and "If all the reduce
// tasks for a job are allocated, this function gets value 0 and thus,
// u_j(P) = u_j^M(P^M)". Fig. 5.17's job: s_req 15 (no availability, so
// eq. 6), s_pend 35, r_pend 10. Map 35 × 30 s, reduce 10 × 15 s, 80 s to
// the goal: the map's share is 70 s, ⌈1050/70⌉ = 15.
func TestThesisUtilitySum(t *testing.T) {
	job := func(pending int, running []float64) JobInput {
		return JobInput{Job: "j", GoalS: 80, Phases: []Phase{{Name: "map", Tasks: 35, Pending: 35, MuS: 30},
			{Name: "reduce", Tasks: 10, Pending: pending, MuS: 15, Running: running}}}
	}
	for _, c := range []struct {
		name    string
		in      JobInput
		ralloc  float64
		reduceU float64
	}{
		// None started (Fig. 5.17): r_alloc 0 is eq. 15's floor, −1.
		{"none started", job(10, nil), 0, -1},
		// 3 of 10 reduces hold a slot (running): log 3/log 10 − 1.
		{"three running", job(7, []float64{0, 0, 0}), 3, math.Log(3)/math.Log(10) - 1},
		// All placed: u^R = 0 and u_j = u_j^M.
		{"all running", job(0, make([]float64, 10)), 10, 0},
	} {
		j := docJobs(runDoc(t, Input{AtS: 0, Jobs: []JobInput{c.in}}, DefaultOptions()))["j"]
		if num(j, "s_req") != 15 || num(j, "r_pend") != 10 || num(j, "r_alloc") != c.ralloc {
			t.Errorf("%s: s_req %v r_pend %v r_alloc %v; want 15, 10, %g", c.name, j["s_req"], j["r_pend"], j["r_alloc"], c.ralloc)
			continue
		}
		if ur := num(j, "utility_reduce"); math.Abs(ur-c.reduceU) > 1e-5 {
			t.Errorf("%s: utility_reduce %v, want %g", c.name, j["utility_reduce"], c.reduceU)
		}
		um, us := j["utility"].([]any), j["utility_sum"].([]any)
		for _, a := range []int{1, 15, 35} {
			if got, want := us[a].(float64), um[a].(float64)+c.reduceU; math.Abs(got-want) > 1e-5 {
				t.Errorf("%s: utility_sum[%d] %g, want u^M %v + u^R %g", c.name, a, got, um[a], c.reduceU)
			}
		}
	}
}

// Polo, PhD thesis, UPC 2014, §3.4.1: "the priority of the job is
// calculated as follows: First, jobs that have already missed the
// deadline. Second, recently submitted jobs for which there is no
// available data. Finally, executing jobs based on their s_req."
func TestThesisPlacementRank(t *testing.T) {
	in, opts := loadAt(t, nil, `version: 1
jobs:
  - job: small
    deadline_s: 1000
    phases: [{phase: map, tasks: 10, mu_s: 10}]
  - job: big
    deadline_s: 1000
    phases: [{phase: map, tasks: 100, mu_s: 50}]
  - job: nodata
    deadline_s: 500
    phases: [{phase: map, tasks: 10}]
  - job: late
    deadline_s: -60
    phases: [{phase: map, tasks: 5, mu_s: 10}]
`)
	doc := runDoc(t, in, opts)
	rank := map[string]any{}
	for _, j := range doc["jobs"].([]any) {
		m := j.(map[string]any)
		rank[m["job"].(string)] = m["rank"]
	}
	for _, n := range doc["not_estimated"].([]any) {
		m := n.(map[string]any)
		rank[m["job"].(string)] = m["rank"]
	}
	want := map[string]any{"late": 1.0, "nodata": 2.0, "big": 3.0, "small": 4.0}
	for k, v := range want {
		if rank[k] != v {
			t.Errorf("rank %v, want %v", rank, want)
			break
		}
	}
}
