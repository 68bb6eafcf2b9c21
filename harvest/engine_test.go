package harvest

import (
	"math"
	"reflect"
	"testing"
)

const min1 = 60_000

// flat is n slots of v, then m of v2.
func steps(n int, v float64, m int, v2 float64) []float64 {
	out := make([]float64, 0, n+m)
	for i := 0; i < n; i++ {
		out = append(out, v)
	}
	for i := 0; i < m; i++ {
		out = append(out, v2)
	}
	return out
}

// twoTenants: A is constant at 25% (3 of 12 cores), B unpredictable at
// 25% for 5 minutes, then 75% (9 cores: 12 − 4 reserve − 9 < 0, nothing
// left). Each has one server; with 4 cores reserved both leave 5 cores
// at first.
func twoTenants(jobs ...Job) *World {
	return &World{StepMs: min1, EndMs: 60 * min1,
		Tenants: []WorldTenant{
			{Name: "A", Servers: 1, Values: steps(60, 0.25, 0, 0)},
			{Name: "B", Servers: 1, Values: steps(5, 0.25, 55, 0.75)},
		},
		Epochs: []Epoch{{FromMs: 0, Classes: []WorldClass{
			{Name: "constant-1", Pattern: "constant", Mean: 0.25, Peak: 0.25, Weights: [3]float64{1, 2, 3}, Members: []int{0}},
			{Name: "unpredictable-1", Pattern: "unpredictable", Mean: 0.3, Peak: 0.75, Weights: [3]float64{3, 1, 1}, Members: []int{1}},
		}}},
		Jobs: jobs}
}

var params = Params{Cores: 12, ReserveCores: 4, Seed: 7}

// TestLongJobGoesConstant: a long job of 4 containers for 30 minutes.
// Headroom(long) in cores: A 1 × (12 × (1 − 0.25) − 4) = 5 ≥ 4; B
// 12 × (1 − 0.75) − 4 = −1 → 0. Only A fits (line 8), so Algorithm 1
// puts all 4 on A and nothing is killed: 4 × 0.5 h = 2 core-hours.
func TestLongJobGoesConstant(t *testing.T) {
	w := twoTenants(Job{ID: "j", Type: Long, SubmitMs: 0, DurationMs: 30 * min1, Containers: 4})
	o := Replay(w, params, History, true)
	if o.Containers != 4 || o.Killed != 0 || o.Completed != 4 || o.HarvestedCoreH != 2 || o.ByPattern["constant"].Containers != 4 {
		t.Fatalf("history: %+v by pattern %+v", o.Tally, o.ByPattern)
	}
	// The blind baseline draws 4 of the 10 free cores (5 on A, 5 on B):
	// every container it put on B is killed when B steps up at minute 5,
	// after 5 minutes of work, and its task runs again on A (which has a
	// core for each) from minute 5: the job takes 35 minutes, not 30.
	b := Replay(w, params, Blind, true)
	onB := b.ByPattern["unpredictable"]
	if onB == nil || onB.Containers == 0 {
		t.Fatalf("blind put nothing on B with seed %d (pick another seed): %+v", params.Seed, b.ByPattern)
	}
	if b.Killed != onB.Containers || onB.Killed != onB.Containers {
		t.Fatalf("blind killed %d, had %d on B", b.Killed, onB.Containers)
	}
	for _, k := range b.Kills {
		if k.AtMs != 5*min1 || k.Tenant != "B" {
			t.Fatalf("kill %+v, want B at minute 5", k)
		}
	}
	k := float64(onB.Containers)
	wantH := 4*0.5 + k*5.0/60
	if d := b.HarvestedCoreH - wantH; d > 1e-12 || d < -1e-12 {
		t.Fatalf("blind harvested %g core-hours, want %g", b.HarvestedCoreH, wantH)
	}
	if b.CompletedCoreH != 2 || math.Abs(b.LostCoreH-k*5.0/60) > 1e-12 || b.Containers != 4+onB.Containers {
		t.Fatalf("blind: %+v", b.Tally)
	}
	if o.JobTimes.MeanS != 1800 || b.JobTimes.MeanS != 2100 || b.JobTimes.JobsWithKills != 1 {
		t.Fatalf("job times: history %+v, blind %+v; want 1800 s and 2100 s", o.JobTimes, b.JobTimes)
	}
}

// TestShortJobPrefersUnpredictable: a short job of 2 containers fits both
// (short headroom uses current: 5 cores each), weighted 5 × 3 on B and
// 5 × 1 on A: B three times as often over many seeds.
func TestShortJobPrefersUnpredictable(t *testing.T) {
	onB := 0
	for seed := uint64(1); seed <= 400; seed++ {
		w := twoTenants(Job{ID: "j", Type: Short, SubmitMs: 0, DurationMs: min1, Containers: 2})
		p := params
		p.Seed = seed
		o := Replay(w, p, History, false)
		if u := o.ByPattern["unpredictable"]; u != nil {
			if u.Containers != 2 {
				t.Fatalf("a class was picked, so both containers go there: %+v", o.ByPattern)
			}
			onB++
		}
	}
	if onB < 270 || onB > 330 {
		t.Fatalf("B picked %d of 400 times, want about 300", onB)
	}
}

// TestKillYoungestFirst: one tenant, one server, idle (8 cores free).
// Job a starts 4 containers at 0, job b 4 at 30 s. At minute 2 the
// primary takes 3 cores (25%): 5 left, so 3 are killed, all b's. At
// minute 3 it takes 6 (50%): 2 left of the 5 held, so 3 more: b's last,
// then two of a's.
func TestKillYoungestFirst(t *testing.T) {
	v := []float64{0, 0, 0.25, 0.5, 0.5, 0.5}
	w := &World{StepMs: min1, EndMs: 6 * min1, Tenants: []WorldTenant{{Name: "T", Servers: 1, Values: v}},
		Epochs: []Epoch{{FromMs: 0}},
		Jobs: []Job{{ID: "a", Type: Medium, SubmitMs: 0, DurationMs: 60 * min1, Containers: 4},
			{ID: "b", Type: Medium, SubmitMs: 30_000, DurationMs: 60 * min1, Containers: 4}}}
	o := Replay(w, params, Blind, true)
	var got []string
	for _, k := range o.Kills {
		got = append(got, k.Job+"@"+string(rune('0'+k.AtMs/min1)))
	}
	want := []string{"b@2", "b@2", "b@2", "b@3", "a@3", "a@3"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("kills %v, want %v", got, want)
	}
	// The 6 killed tasks wait (a's two first: first come, first served).
	// After minute 3 the server has 2 cores for containers (50% → 6 used,
	// 4 reserved), held by a's 2 survivors until minute 60, and keeps that
	// usage after the data ends at minute 6: a's 2 run 60–120, b's 120–180
	// and 180–240. Every task completes once: 8 of 14 containers.
	if o.Killed != 6 || o.Running != 0 || o.Completed != 8 || o.Containers != 14 {
		t.Fatalf("%+v", o.Tally)
	}
	if jt := o.JobTimes; jt.Finished != 2 || jt.MaxS != 240*60-30 || jt.MeanS != (120*60+240*60-30)/2.0 {
		t.Fatalf("job times %+v, want a at 120 min, b 239.5 min after its submission", jt)
	}
	// History with no class at all falls back to the default policy.
	h := Replay(w, params, History, false)
	if h.Fallback != 2 || h.Killed != 6 {
		t.Fatalf("history without classes: %+v fallback %d", h.Tally, h.Fallback)
	}
}

// TestSpanClasses: a medium job of 8 containers; medium headroom is
// 1 − max(mean, current): A 12 × 0.75 − 4 = 5, B 12 × 0.7 − 4 = 4.4;
// neither holds 8, together they do (lines 12–14): one multi-class job,
// and 8 of the 10 free cores are used. A job of 11 fits no combination
// (line 16) and goes to the default policy, which places 10; the 11th
// waits (unplaced) and starts when the first end, at minute 1.
func TestSpanClasses(t *testing.T) {
	w := twoTenants(Job{ID: "m", Type: Medium, SubmitMs: 0, DurationMs: min1, Containers: 8})
	o := Replay(w, params, History, false)
	if o.MultiClass != 1 || o.Fallback != 0 || o.Containers != 8 {
		t.Fatalf("%+v multi %d fallback %d", o.Tally, o.MultiClass, o.Fallback)
	}
	w = twoTenants(Job{ID: "m", Type: Medium, SubmitMs: 0, DurationMs: min1, Containers: 11})
	o = Replay(w, params, History, false)
	if o.Fallback != 1 || o.Containers != 11 || o.Unplaced != 1 || o.JobTimes.MaxS != 120 {
		t.Fatalf("%+v fallback %d unplaced %d times %+v", o.Tally, o.Fallback, o.Unplaced, o.JobTimes)
	}
}

// TestEndFreesCores: a container that ends at minute 5 is not killed by
// the step at minute 5 (ends come first at an instant).
func TestEndFreesCores(t *testing.T) {
	w := twoTenants()
	w.Tenants = w.Tenants[1:]
	w.Epochs = []Epoch{{FromMs: 0}}
	w.Jobs = []Job{{ID: "j", SubmitMs: 0, DurationMs: 5 * min1, Containers: 5}}
	o := Replay(w, params, Blind, false)
	if o.Killed != 0 || o.Completed != 5 {
		t.Fatalf("%+v", o.Tally)
	}
}

// TestSpreadProportional: A has 6 cores free (2 of 12 used: 12 − 4 − 2)
// and B 2 (6 used); one container lands on A three times as often as on
// B. Both primaries take every core at minute 1, so the kill tells where
// it was. A job of 8 takes every free core: 6 on A, 2 on B.
func TestSpreadProportional(t *testing.T) {
	world := func(containers int) *World {
		return &World{StepMs: min1, EndMs: 10 * min1, Epochs: []Epoch{{FromMs: 0}},
			Tenants: []WorldTenant{{Name: "A", Servers: 1, Values: steps(1, 2.0/12, 9, 1)}, {Name: "B", Servers: 1, Values: steps(1, 0.5, 9, 1)}},
			Jobs:    []Job{{ID: "j", SubmitMs: 0, DurationMs: 5 * min1, Containers: containers}}}
	}
	onA := 0
	for seed := uint64(1); seed <= 800; seed++ {
		p := params
		p.Seed = seed
		o := Replay(world(1), p, Blind, true)
		if len(o.Kills) != 1 {
			t.Fatalf("%+v", o.Tally)
		}
		if o.Kills[0].Tenant == "A" {
			onA++
		}
	}
	if onA < 560 || onA > 640 {
		t.Fatalf("A got %d of 800, want about 600", onA)
	}
	o := Replay(world(8), params, Blind, true)
	n := map[string]int{}
	for _, k := range o.Kills {
		n[k.Tenant]++
	}
	if o.Containers != 8 || n["A"] != 6 || n["B"] != 2 {
		t.Fatalf("%+v kills %v", o.Tally, n)
	}
}

// TestLinearSameLaw: the one-pass placement (the benchmark's baseline)
// puts a single container on A about three times as often as on B, as
// the draws do (TestSpreadProportional).
func TestLinearSameLaw(t *testing.T) {
	onA := 0
	for seed := uint64(1); seed <= 800; seed++ {
		w := &World{StepMs: min1, EndMs: 10 * min1, Epochs: []Epoch{{FromMs: 0}},
			Tenants: []WorldTenant{{Name: "A", Servers: 1, Values: steps(1, 2.0/12, 9, 1)}, {Name: "B", Servers: 1, Values: steps(1, 0.5, 9, 1)}},
			Jobs:    []Job{{ID: "j", SubmitMs: 0, DurationMs: 5 * min1, Containers: 1}}}
		p := params
		p.Seed, p.linear = seed, true
		if o := Replay(w, p, Blind, true); o.Kills[0].Tenant == "A" {
			onA++
		}
	}
	if onA < 560 || onA > 640 {
		t.Fatalf("A got %d of 800, want about 600", onA)
	}
}
