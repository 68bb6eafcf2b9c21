package estimate

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wlprof/wlprof/profile"
)

// The tight hand example of core_test.go through the stage (a 10-s
// placement cycle), with a job that has no µ and one without a goal: they
// are listed, nothing crashes.
func TestRunHandExample(t *testing.T) {
	av := mustAv(t, []float64{0, 100}, []float64{5, 4}, 0)
	in := Input{AtS: 0, Availability: av, AvailabilityFrom: "test",
		Jobs: []JobInput{
			{Job: "B", GoalS: 200, Phases: []Phase{{Name: "map", Tasks: 50, Pending: 50, MuS: 10}}},
			{Job: "A", GoalS: 100, Phases: []Phase{{Name: "map", Tasks: 30, Pending: 30, MuS: 20}}},
			{Job: "no-mu", GoalS: 100, Phases: []Phase{{Name: "map", Tasks: 3, Pending: 3}}},
			{Job: "no-goal", GoalS: math.NaN(), Phases: []Phase{{Name: "map", Tasks: 3, Pending: 3, MuS: 1}}},
		},
		NotEstimated: []NotEstimated{{Job: "C", Reason: "no deadline: the slo stage does not know the job"}}}
	opts := DefaultOptions()
	opts.PlacementCycle = 10 * time.Second
	res, err := Run(context.Background(), in, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Jobs) != 2 || res.Jobs[0].Job != "A" || res.Jobs[1].Job != "B" {
		t.Fatalf("jobs %+v, want A then B (by deadline)", res.Jobs)
	}
	a, b := res.Jobs[0], res.Jobs[1]
	if a.SReq != 6 || *a.SFit != 13 || *a.AvailMeanSlots != 5 || a.MeetsGoal {
		t.Errorf("A: s_req %d s_fit %d mean %g meets %v; want 6 13 5 false", a.SReq, *a.SFit, *a.AvailMeanSlots, a.MeetsGoal)
	}
	if b.SReq != 3 || *b.SFit != 0 || *b.AvailMeanSlots != 4.5 || b.MeetsGoal {
		t.Errorf("B: s_req %d s_fit %d mean %g meets %v; want 3 0 4.5 false", b.SReq, *b.SFit, *b.AvailMeanSlots, b.MeetsGoal)
	}
	if len(a.Utility) != 31 || a.Utility[13] != 0 || a.Utility[30] != 1 || !math.IsInf(float64(a.Utility[0]), -1) {
		t.Errorf("A's utility %v: want 31 values, 0 at s_fit, 1 at pending, −∞ at 0", a.Utility)
	}
	reasons := map[string]string{}
	for _, n := range res.NotEstimated {
		reasons[n.Job] = n.Reason
	}
	if len(reasons) != 3 || !strings.Contains(reasons["no-mu"], "µ") || reasons["no-goal"] != "no deadline" || reasons["C"] == "" {
		t.Errorf("not estimated %v", res.NotEstimated)
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(res); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"utility":[null,`) {
		t.Errorf("−∞ is not null in JSON: %.300s", buf.String())
	}
	for _, w := range []func(*bytes.Buffer) error{func(b *bytes.Buffer) error { return res.WriteText(b) }, func(b *bytes.Buffer) error { return res.WriteCSV(b) }} {
		buf.Reset()
		if err := w(&buf); err != nil {
			t.Fatal(err)
		}
	}
	// A alone would fit 22.5 tasks in [10, 100]: s_fit 8. --job A only
	// filters: B's leftover still comes first.
	opts.Job = "A"
	res, err = Run(context.Background(), in, opts)
	if err != nil || len(res.Jobs) != 1 || *res.Jobs[0].SFit != 13 {
		t.Fatalf("--job A: %v %+v; want A alone, s_fit still 13 (computed with B)", err, res)
	}
}

// Load without a dataset: the jobs file and an availability file.
func TestLoadFiles(t *testing.T) {
	dir := t.TempDir()
	jobs := filepath.Join(dir, "jobs.yaml")
	os.WriteFile(jobs, []byte(`version: 1
jobs:
  - job: etl
    deadline_s: 7200
    phases:
      - {phase: map, tasks: 100, mu_s: 60, pending: 40, running_s: [30, 90]}
      - {phase: reduce, tasks: 4, mu_s: 300}
  - job: nomu
    deadline_s: 60
    phases: [{phase: map, tasks: 3}]
  - job: nogoal
    phases: [{phase: map, tasks: 3, mu_s: 1}]
`), 0o644)
	avf := filepath.Join(dir, "av.csv")
	os.WriteFile(avf, []byte("start_s,slots\n0,20\n43200,5\n"), 0o644)
	f, err := LoadJobsFile(jobs)
	if err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions()
	opts.Jobs, opts.AvailabilityFile, opts.AtMs = f, avf, 1_700_000_000_000
	in, err := Load(context.Background(), nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Jobs) != 1 || len(in.NotEstimated) != 2 {
		t.Fatalf("jobs %+v, not estimated %+v", in.Jobs, in.NotEstimated)
	}
	res, err := Run(context.Background(), in, opts)
	if err != nil {
		t.Fatal(err)
	}
	j := res.Jobs[0]
	// Map work 40·60 + 30 + 0 = 2430, reduce 1200: the map's share of the
	// 7200 s is 2430/3630, 4820 s: 2430/4820 − 2 running < 0 → 0.
	if j.Phase != "map" || j.PendingTasks != 40 || j.RunningTasks != 2 || j.DeadlineS != 7200 || j.SReq != 0 {
		t.Errorf("etl: %+v", j)
	}
	if j.Phases[1].SReq != 1 {
		t.Errorf("reduce s_req %d, want ⌈1200/2380⌉ = 1", j.Phases[1].SReq)
	}
	if len(res.Availability) != 2 || res.AvailabilityPeriodS != 86400 {
		t.Errorf("availability %+v", res.Availability)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"version": 2, "jobs": [{"job": "x", "phases": [{"phase": "", "tasks": -1, "mu_s": 0}]}]}`), 0o644)
	_, err = LoadJobsFile(bad)
	if err == nil || strings.Count(err.Error(), "\n") < 3 {
		t.Errorf("bad jobs file: want every problem, got %v", err)
	}
}

func TestOptionsValidate(t *testing.T) {
	o := DefaultOptions()
	o.SlotCPU, o.Reserve, o.AvailabilityStep = 0, 1, 7*60*1e9
	err := o.Validate()
	if err == nil || strings.Count(err.Error(), "\n") != 2 {
		t.Errorf("want three problems, got %v", err)
	}
}

// Profile puts the inputs and the slots into the jobs' profiles, which
// still validate.
func TestProfile(t *testing.T) {
	av := mustAv(t, []float64{0, 100}, []float64{10, 4}, 0)
	in := Input{AtS: 1000, Availability: av, Jobs: []JobInput{
		{Job: "A", GoalS: 1100, GoalFrom: "slo", ProfileFrom: "test", Phases: []Phase{{Name: "map", Tasks: 30, Pending: 30, MuS: 20}, {Name: "reduce", Tasks: 2, Pending: 2, MuS: 5}}}}}
	res, err := Run(context.Background(), in, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	jobs := profile.Jobs{}
	res.Profile(jobs)
	e := jobs.Get("A").Estimate
	if e == nil || e.AtMs != 1_000_000 || e.DeadlineMs != 1_100_000 || len(e.Phases) != 2 || e.Phases[0].Tasks != 30 || e.Phases[0].MuS != 20 || e.SFit == nil {
		t.Fatalf("estimate %+v", e)
	}
	j := jobs.Get("A")
	if err := j.Validate(); err != nil {
		t.Error(err)
	}
}

// The profile's estimate carries the stage's own numbers: s_req beside
// s_req_waves, late_tasks, rank and each phase's mu_from. Polo, PhD
// thesis, UPC 2014, §3.4.6: the slots needed "can be measured comparing
// the number of sequential task executions, or waves": 10 tasks of 100 s
// due in 150 s have s_req = ⌈1000/150⌉ = 7 (eq. 1, fluid) but need 10 in
// waves; on an availability of 7 slots, 3 tasks end at 200 s, after the
// goal. Without an availability late_tasks is null.
func TestProfileCarriesTheStagesNumbers(t *testing.T) {
	assumed := "assumed: phase \"map\"'s µ (test)"
	jobsIn := []JobInput{
		{Job: "j", GoalS: 150, GoalFrom: "slo", ProfileFrom: "test", Phases: []Phase{{Name: "map", Tasks: 10, Pending: 10, MuS: 100, MuFrom: "--jobs"}}},
		{Job: "k", GoalS: 1000, GoalFrom: "slo", ProfileFrom: "test", Phases: []Phase{{Name: "map", Tasks: 5, Pending: 5, MuS: 10, MuFrom: "--jobs"},
			{Name: "reduce", Tasks: 1, Pending: 1, MuS: 10, MuFrom: assumed}}},
	}
	for _, withAv := range []bool{true, false} {
		in := Input{AtS: 0, Jobs: jobsIn}
		if withAv {
			in.Availability = mustAv(t, []float64{0}, []float64{7}, 0)
		}
		res, err := Run(context.Background(), in, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		jobs := profile.Jobs{}
		res.Profile(jobs)
		for _, r := range res.Jobs {
			pj := jobs.Get(r.Job)
			e := pj.Estimate
			if e == nil || e.SReqWaves == nil || *e.SReqWaves != r.SReqWaves || e.Rank == nil || *e.Rank != r.Rank || e.SReq != r.SReq || e.MeetsGoal != r.MeetsGoal {
				t.Fatalf("availability %v, %s: profile estimate %+v; stage's %+v", withAv, r.Job, e, r)
			}
			if (e.LateTasks == nil) != (r.LateTasks == nil) || (e.LateTasks != nil && *e.LateTasks != *r.LateTasks) || (e.LateTasks == nil) == withAv {
				t.Errorf("availability %v, %s: late_tasks %v, stage's %v", withAv, r.Job, e.LateTasks, r.LateTasks)
			}
			for k, ph := range r.Phases {
				if e.Phases[k].MuFrom != ph.MuFrom || ph.MuFrom == "" {
					t.Errorf("%s phase %s: mu_from %q, stage's %q", r.Job, ph.Phase, e.Phases[k].MuFrom, ph.MuFrom)
				}
			}
			if err := pj.Validate(); err != nil {
				t.Error(err)
			}
		}
		e := jobs.Get("j").Estimate
		if e.SReq != 7 || *e.SReqWaves != 10 || *e.Rank != 1 || *jobs.Get("k").Estimate.Rank != 2 || jobs.Get("k").Estimate.Phases[1].MuFrom != assumed {
			t.Errorf("availability %v: j's s_req %d, s_req_waves %d, rank %d, k's rank %d; want 7, 10 (§3.4.6), 1 and 2 (§3.4.1: largest s_req first)",
				withAv, e.SReq, *e.SReqWaves, *e.Rank, *jobs.Get("k").Estimate.Rank)
		}
		if withAv && (*e.LateTasks != 3 || e.MeetsGoal) {
			t.Errorf("j on 7 slots: late_tasks %d, meets_goal %v; want 3 (the second wave ends at 200 s) and false", *e.LateTasks, e.MeetsGoal)
		}
	}
}

// A goal already passed (§3.4.1: finish as soon as possible): s_req is
// every pending task and the goal is not met; without an availability
// s_fit is null and meets_goal says whether s_req fits the pending tasks.
func TestRunPassedGoalAndNoAvailability(t *testing.T) {
	in := Input{AtS: 1000, Jobs: []JobInput{
		{Job: "late", GoalS: 940, Phases: []Phase{{Name: "map", Tasks: 5, Pending: 5, MuS: 10}}},
		{Job: "tight", GoalS: 1005, Phases: []Phase{{Name: "map", Tasks: 5, Pending: 5, MuS: 10}}},
		{Job: "ok", GoalS: 1600, Phases: []Phase{{Name: "map", Tasks: 5, Pending: 5, MuS: 10}}},
	}}
	res, err := Run(context.Background(), in, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		sreq int
		meet bool
	}{"late": {5, false}, "tight": {10, false}, "ok": {1, true}}
	for _, j := range res.Jobs {
		w := want[j.Job]
		if j.SReq != w.sreq || j.MeetsGoal != w.meet || j.SFit != nil {
			t.Errorf("%s: s_req %d meets %v s_fit %v; want %d %v nil", j.Job, j.SReq, j.MeetsGoal, j.SFit, w.sreq, w.meet)
		}
	}
	if res.Jobs[0].DeadlineS != -60 {
		t.Errorf("deadline_s %g, want −60", res.Jobs[0].DeadlineS)
	}
}
