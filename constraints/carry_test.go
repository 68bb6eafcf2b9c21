package constraints

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

// Thinakaran et al., Phoenix §III-A: "soft constraints (eg., CPU clock
// speed, network bandwidth) can be relaxed or negotiated by trading off
// the job's performance." A relaxed constraint was asked for until the
// task dropped it, so it is demand in the windows where the task still
// carried it, and none after. One task, hourly windows: SUBMIT at 0:30
// with clock ≥ 3 and net = 10g, an UPDATE_PENDING at 2:30 that drops
// net = 10g (relaxed), SCHEDULE at 3:30, FINISH at 5:30. clock ≥ 3 is
// demand in windows 0–5, net = 10g in windows 0–2 only (the window of the
// update included: the task carried it for its first half); the "net"
// component of the Constraint Resource Vector likewise.
func TestDemandWhileCarried(t *testing.T) {
	b := newBuilder()
	clock := dataset.Constraint{Attribute: "clock", Relation: "GREATER_THAN", Value: "3"}
	net := dataset.Constraint{Attribute: "net", Relation: "EQUAL", Value: "10g"}
	both := dataset.EncodeConstraints([]dataset.Constraint{clock, net})
	one := dataset.EncodeConstraints([]dataset.Constraint{clock})
	b.addAttr(&dataset.MachineAttribute{TimeMs: dataset.NoTime, Machine: 1, Attribute: "clock", Value: "4"})
	b.addAttr(&dataset.MachineAttribute{TimeMs: dataset.NoTime, Machine: 1, Attribute: "net", Value: "1g"})
	h := int64(time.Hour / time.Millisecond)
	for _, e := range []dataset.TaskEvent{
		{TimeMs: h / 2, Type: "SUBMIT", Constraints: both},
		{TimeMs: 2*h + h/2, Type: "UPDATE_PENDING", Constraints: one},
		{TimeMs: 3*h + h/2, Type: "SCHEDULE", Machine: 1, Constraints: one},
		{TimeMs: 5*h + h/2, Type: "FINISH", Machine: 1, Constraints: one},
	} {
		e.Job, e.Task, e.CPURequest, e.MemoryRequest = 1, 0, 0.5, 0.5
		b.addEvent(&e)
	}
	res, err := Run(context.Background(), b.finish(nil), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if res.Windows != 6 {
		t.Fatalf("%d windows, want 6", res.Windows)
	}
	want := map[string][]int32{
		"clock GREATER_THAN 3": {1, 1, 1, 1, 1, 1},
		"net EQUAL 10g":        {1, 1, 1, 0, 0, 0},
	}
	for _, c := range res.Constraints {
		id := c.Attribute + " " + c.Relation + " " + c.Value
		if id == "net EQUAL 10g" && (c.Hard || c.Relaxed != 1) {
			t.Errorf("%s: hard %v relaxed %d, want soft, relaxed once", id, c.Hard, c.Relaxed)
		}
		for w, x := range c.DemandSupply {
			if x.Demand != want[id][w] {
				t.Errorf("%s: demand %v, want %v", id, demands(c.DemandSupply), want[id])
				break
			}
		}
	}
	attr := map[string][]int32{"clock": want["clock GREATER_THAN 3"], "net": want["net EQUAL 10g"]}
	for _, a := range res.Attributes {
		if got := demands(a.DemandSupply); !equal32(got, attr[a.Attribute]) {
			t.Errorf("CRV %s: demand %v, want %v", a.Attribute, got, attr[a.Attribute])
		}
	}
}

// A constraint a running task drops (UPDATE_RUNNING) stops being demand
// there, and one dropped and taken back within a window counts once in
// it. Hourly windows. Task 0 carries a from 0:10, drops it at 1:10 and
// takes it back at 1:20, FINISH at 3:10: demand in windows 0–3, once each.
// Task 1 carries a from 0:10 and drops it at 1:10 for good, FINISH at
// 3:10: demand in windows 0–1. Together 2, 2, 1, 1.
func TestDemandDroppedAndTakenBack(t *testing.T) {
	b := newBuilder()
	a := dataset.EncodeConstraints([]dataset.Constraint{{Attribute: "a", Relation: "PRESENT"}})
	b.addAttr(&dataset.MachineAttribute{TimeMs: dataset.NoTime, Machine: 1, Attribute: "a", Value: "x"})
	m := int64(time.Minute / time.Millisecond)
	for task, evs := range [][]dataset.TaskEvent{
		{
			{TimeMs: 10 * m, Type: "SUBMIT", Constraints: a},
			{TimeMs: 20 * m, Type: "SCHEDULE", Machine: 1, Constraints: a},
			{TimeMs: 70 * m, Type: "UPDATE_RUNNING", Machine: 1},
			{TimeMs: 80 * m, Type: "UPDATE_RUNNING", Machine: 1, Constraints: a},
			{TimeMs: 190 * m, Type: "FINISH", Machine: 1, Constraints: a},
		},
		{
			{TimeMs: 10 * m, Type: "SUBMIT", Constraints: a},
			{TimeMs: 20 * m, Type: "SCHEDULE", Machine: 1, Constraints: a},
			{TimeMs: 70 * m, Type: "UPDATE_RUNNING", Machine: 1},
			{TimeMs: 190 * m, Type: "FINISH", Machine: 1},
		},
	} {
		for _, e := range evs {
			e.Job, e.Task, e.CPURequest, e.MemoryRequest = 1, int32(task), 0.5, 0.5
			b.addEvent(&e)
		}
	}
	res, err := Run(context.Background(), b.finish(nil), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if got := demands(res.Constraints[0].DemandSupply); !equal32(got, []int32{2, 2, 1, 1}) {
		t.Errorf("a: demand %v, want [2 2 1 1]", got)
	}
}

func demands(ws []Window) []int32 {
	out := make([]int32, len(ws))
	for i, w := range ws {
		out[i] = w.Demand
	}
	return out
}

func equal32(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Thinakaran et al., Phoenix §I: the "CRV demand (tasks asking for the
// resource) and supply (total available resources) ratio of constrained
// resources [determines] the estimated queuing delay and an M/G/1 queuing
// model is used". The queue's arrival rate is over the trace's span, so
// its server must be the satisfying machines over the same span, not a
// count sampled at window starts: the wait may not depend on --window.
//
// The 2011 fixture, GK != aaa (testdata/constraints/SOURCES.md): machine
// 103 (GK bbb) from before the trace, 104 (GK bbb) from 4200 s; 101 and
// 102 have GK aaa. Task events span 600 s to 7800 s, so the time-weighted
// count is (3600·1 + 3600·2) / 7200 = 1.5 machines, which the test
// recomputes below second by second from the ingested attribute rows. Its
// one task (3/0) ran 620 s → 7800 s at max(cpu, mem) = 0.125: x = 897.5,
// λ = 1/7200 s⁻¹, E[S] = x/1.5, E[S²] = (x/1.5)², W = λE[S²]/(2(1−λE[S]))
// = 27.115 s at any window (the mean of the counts at window starts gave
// 4/3 machines and 34.71 s at 1 h, 19/13 and 28.63 s at 10 min).
func TestQueueServerIsTimeWeighted(t *testing.T) {
	ds := fixtureDataset(t)
	attrs, err := dataset.ReadAll(context.Background(), ds, dataset.MachineAttributesTable)
	if err != nil {
		t.Fatal(err)
	}
	events, err := dataset.ReadAll(context.Background(), ds, dataset.TaskEventsTable)
	if err != nil {
		t.Fatal(err)
	}
	first, last := int64(math.MaxInt64), int64(math.MinInt64)
	for _, e := range events {
		if e.TimeMs != dataset.NoTime {
			first, last = min(first, e.TimeMs), max(last, e.TimeMs)
		}
	}
	// Machines with GK != aaa at the middle of every second of the span.
	var machineSeconds float64
	for ms := first + 500; ms < last; ms += 1000 {
		gk := map[int64]string{}
		has := map[int64]bool{}
		for _, a := range attrs {
			if a.TimeMs != dataset.NoTime && a.TimeMs > ms {
				continue
			}
			has[a.Machine] = true
			if a.Attribute == "GK" {
				if a.Deleted {
					delete(gk, a.Machine)
				} else {
					gk[a.Machine] = a.Value
				}
			}
		}
		for m := range has {
			if gk[m] != "aaa" {
				machineSeconds++
			}
		}
	}
	mean := machineSeconds / (float64(last-first) / 1000)
	if math.Abs(mean-1.5) > 1e-9 {
		t.Fatalf("the fixture's time-weighted GK != aaa machines: %g, the comment says 1.5", mean)
	}
	x := (7800.0 - 620) * 0.125
	lambda := 1 / 7200.0
	es, es2 := x/mean, x*x/(mean*mean)
	want := lambda * es2 / (2 * (1 - lambda*es))
	for _, w := range []time.Duration{10 * time.Minute, time.Hour} {
		opts := DefaultOptions()
		opts.Window = w
		res := runStage(t, ds, opts)
		for _, c := range res.Constraints {
			if c.Attribute != "GK" || c.Relation != "NOT_EQUAL" {
				continue
			}
			if c.MachinesMean != 1.5 || c.PredictedWaitS == nil || math.Abs(*c.PredictedWaitS-want) > 1e-4*want {
				t.Errorf("--window %v: machines_mean %g (want 1.5), predicted wait %v s (want %.4f)", w, c.MachinesMean, fmtp(c.PredictedWaitS), want)
			}
		}
	}
}

func fmtp(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
