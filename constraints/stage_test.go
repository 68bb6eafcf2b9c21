package constraints

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/ingest"
	"github.com/wlprof/wlprof/internal/datasettest"
)

// fixtureDataset ingests the 2011 constraint fixtures (written from the
// schema, testdata/traces/SOURCES.md).
func fixtureDataset(t *testing.T) *dataset.Dataset {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ds")
	_, tx := datasettest.Begin(t, dir)
	opts := ingest.DefaultOptions()
	opts.MaxRejects = -1
	if _, err := ingest.Run(context.Background(), tx, "auto", []string{"../testdata/constraints/google2011"}, opts); err != nil {
		t.Fatal(err)
	}
	datasettest.Commit(t, tx)
	ds, err := dataset.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// The 2011 fixture, computed by hand (times in s of the trace clock):
// GK = aaa is carried by job 1's tasks 0 and 1; machines 101 and 102 have
// GK aaa; task 1 ran on 103 (GK bbb), so the constraint is soft. Waits 10
// and 30 s; services 600 and 300 s at max(cpu, mem) = 0.25; span 600→7800
// = 7200 s; two satisfying machines all along. λ = 2/7200, E[S] = 112.5/2,
// ρ = 0.015625, E[S²] = (150² + 75²)/2/4 = 3515.625, W = λE[S²]/(2(1−ρ))
// = 0.496 s.
func TestFixtureByHand(t *testing.T) {
	ds := fixtureDataset(t)
	opts := DefaultOptions()
	res := runStage(t, ds, opts)
	by := map[string]ConstraintResult{}
	for _, c := range res.Constraints {
		by[c.Attribute+" "+c.Relation+" "+c.Value] = c
	}
	gk := by["GK EQUAL aaa"]
	if gk.Tasks != 2 || gk.Machines != 2 || gk.Hard || gk.Violated != 1 || gk.Relaxed != 0 {
		t.Errorf("GK = aaa: %+v", gk)
	}
	if gk.ObservedWaitS == nil || *gk.ObservedWaitS != 20 || gk.Rho == nil || *gk.Rho != 0.015625 ||
		gk.PredictedWaitS == nil || math.Abs(*gk.PredictedWaitS-0.9765625/1.96875) > 0.001 {
		t.Errorf("GK = aaa queue: rho %v W %v observed %v", gk.Rho, gk.PredictedWaitS, gk.ObservedWaitS)
	}
	// Nm < 10: task 3/0's UPDATE_RUNNING at 4300 s carries only GK != aaa
	// (its task_constraints rows of that time): relaxed, so soft.
	// Satisfied by 101 (2), 102 (4), 103 (5, then 6); not 104 ("x9" is no
	// number).
	lt := by["Nm LESS_THAN 10"]
	if lt.Hard || lt.Relaxed != 1 || lt.Machines != 3 {
		t.Errorf("Nm < 10: %+v", lt)
	}
	// GK != aaa: 103 and 104 (GK bbb); a machine without GK would also
	// satisfy it, but 101 and 102 have GK aaa from their first rows.
	ne := by["GK NOT_EQUAL aaa"]
	if !ne.Hard || ne.Machines != 2 {
		t.Errorf("GK != aaa: %+v", ne)
	}
	// Nm > 3: 102 and 103; task 2/1 ran on machine 999, which has no
	// attribute rows: a warning, not a violation.
	gt := by["Nm GREATER_THAN 3"]
	if !gt.Hard || gt.Machines != 2 || len(res.Warnings) != 1 {
		t.Errorf("Nm > 3: %+v; warnings %q", gt, res.Warnings)
	}
	// Supply over time: w2 is deleted from 102 at 4200 s (3600 s after the
	// first event), so the next window's start sees no machine with it.
	if res.Windows != 3 || res.ConstrainedTasks != 5 || res.Tasks != 6 {
		t.Errorf("windows %d constrained %d tasks %d", res.Windows, res.ConstrainedTasks, res.Tasks)
	}
	// Job 5 is the one task without constraints: waited 1 s, never ended.
	u := res.Unconstrained
	if u == nil || u.Tasks != 1 || u.Machines != 4 || u.ObservedWaitS == nil || *u.ObservedWaitS != 1 || u.Fit != "no service times" {
		t.Errorf("unconstrained: %+v", u)
	}
	sup := gk.DemandSupply
	if sup[0].Demand != 2 || sup[0].Supply != 2 || sup[1].Demand != 0 {
		t.Errorf("GK = aaa series: %+v", sup)
	}
	// The different-machine flag (the last task_events column): job 1's
	// two tasks on every row, on 101 and 103 (kept); job 2 task 1 at its
	// SUBMIT only (relaxed): soft. Waits of the flagged SCHEDULEs: 10 and
	// 30 s.
	if len(res.Placement) != 1 {
		t.Fatalf("placement: %+v", res.Placement)
	}
	p := res.Placement[0]
	if p.Kind != "different-machine" || p.Jobs != 2 || p.Tasks != 3 || p.Episodes != 3 || p.Relaxed != 1 || p.Violated != 0 || p.Hard ||
		p.ObservedWaitS == nil || *p.ObservedWaitS != 20 {
		t.Errorf("placement: %+v", p)
	}
}

func TestUnstableIsNotANumber(t *testing.T) {
	b := newBuilder()
	set := dataset.EncodeConstraints([]dataset.Constraint{{Attribute: "a", Relation: "EQUAL", Value: "x"}})
	b.addAttr(&dataset.MachineAttribute{TimeMs: dataset.NoTime, Machine: 1, Attribute: "a", Value: "x"})
	// One machine; a task every 10 s for 100 s each: ρ = 10.
	for k := int64(0); k < 50; k++ {
		t0 := k * 10_000
		for _, e := range []dataset.TaskEvent{{TimeMs: t0, Type: "SUBMIT"}, {TimeMs: t0 + 1000, Type: "SCHEDULE", Machine: 1}, {TimeMs: t0 + 101_000, Type: "FINISH", Machine: 1}} {
			e.Job, e.Task, e.Constraints, e.CPURequest, e.MemoryRequest = 1, int32(k), set, math.NaN(), math.NaN()
			b.addEvent(&e)
		}
	}
	res, err := Run(context.Background(), b.finish(nil), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	c := res.Constraints[0]
	if c.PredictedWaitS != nil || c.Fit != "unstable (ρ ≥ 1)" || c.Rho == nil || *c.Rho < 1 {
		t.Errorf("%+v", c)
	}
}

// runStage loads the stage's input from ds and runs it, with opts.
func runStage(t testing.TB, ds *dataset.Dataset, opts Options) *Result {
	t.Helper()
	in, err := Load(context.Background(), ds, opts)
	var res *Result
	if err == nil {
		res, err = Run(context.Background(), in, opts)
	}
	if err != nil {
		t.Fatal(err)
	}
	return res
}
