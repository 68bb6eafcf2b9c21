package estimate

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

func mustAv(t testing.TB, starts, slots []float64, period float64) *Availability {
	t.Helper()
	a, err := NewAvailability(starts, slots, period)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// Two jobs, two goals, a step availability (10 slots until t = 100 s,
// then 4), a placement cycle of 10 s.
//
//	A: goal 100 s, 30 pending tasks of 20 s; B: goal 200 s, 50 of 10 s.
//	Window [100, 200]: 4 × 100 = 400 slot-s; B takes 40 of its 50 tasks.
//	Window [10, 100], from the next cycle to A's goal: 900 slot-s; B's 10
//	tasks take 100, A's 30 take 600: s_fit 0 and 0, nothing has to start
//	in the current cycle. Earliest goal first, from now, 1000 slot-s hold
//	A's 600 and 400 more hold B's 500: nobody is short.
//	s_req(A) = ⌈30·20/100⌉ = 6; s_req(B) = ⌈50·10/200⌉ = ⌈2.5⌉ = 3.
//	Mean Ω to the goal: A 10, B (1000 + 400)/200 = 7.
func TestHandTwoJobsStepAvailability(t *testing.T) {
	av := mustAv(t, []float64{0, 100}, []float64{10, 4}, 0)
	jobs := []FitJob{
		{GoalS: 100, Phases: []FitPhase{{Pending: 30, MuS: 20}}},
		{GoalS: 200, Phases: []FitPhase{{Pending: 50, MuS: 10}}},
	}
	if got, want := SFit(0, 10, jobs, av), []int{0, 0}; !reflect.DeepEqual(got, want) {
		t.Fatalf("SFit = %v, want %v", got, want)
	}
	if got := Shortfall(0, jobs, av); !reflect.DeepEqual(got, []float64{0, 0}) {
		t.Fatalf("Shortfall = %v, want none", got)
	}
	if r, ok := SReq(Phase{Pending: 30, MuS: 20}, 100); r != 6 || !ok {
		t.Errorf("s_req(A) = %d %v, want 6", r, ok)
	}
	if r, _ := SReq(Phase{Pending: 50, MuS: 10}, 200); r != 3 {
		t.Errorf("s_req(B) = %d, want 3", r)
	}
	if m := av.Mean(0, 100); m != 10 {
		t.Errorf("mean Ω to A's goal = %g, want 10", m)
	}
	if m := av.Mean(0, 200); m != 7 {
		t.Errorf("mean Ω to B's goal = %g, want 7", m)
	}

	// Half the slots before t = 100: 500 slot-s until A's goal, 900
	// until B's. Earliest goal first: A's 600 slot-s get 500 (5 tasks
	// short); B gets the 400 left of 900 for its 500 (10 tasks short).
	// Alg. 2: [100, 200] leaves B 10 tasks as before; [10, 100] holds
	// 450 slot-s, B's 10 tasks take 100 and A's 17.5 the other 350, so
	// 12.5 of A's tasks must start now: s_fit(A) = 13.
	tight := mustAv(t, []float64{0, 100}, []float64{5, 4}, 0)
	if got, want := SFit(0, 10, jobs, tight), []int{13, 0}; !reflect.DeepEqual(got, want) {
		t.Fatalf("tight SFit = %v, want %v", got, want)
	}
	if got := Shortfall(0, jobs, tight); !reflect.DeepEqual(got, []float64{5, 10}) {
		t.Fatalf("tight Shortfall = %v, want [5 10]", got)
	}
}

// Three jobs as Figure 5.16: each window is shared, the latest job's
// leftover first.
//
//	Ω = 2 slots throughout, a 10-s placement cycle. C: goal 300, 30 tasks
//	of 10 s; B: goal 200, 30 of 10 s; A: goal 100, 5 of 10 s.
//	[200, 300]: 200 slot-s, C takes 20 tasks → 10 left.
//	[100, 200]: 200 slot-s, C's 10 take 100 first, B gets 10 → 20 left.
//	[10, 100]: 180 slot-s, B's 20 first (visited before A) take 180 → 2
//	left; A gets nothing → 5 left.
//	s_fit = A 5, B 2, C 0. Earliest goal first, A's 50 slot-s and B's
//	300 fit in the 400 until B's goal; C gets the 250 left of 600 for its
//	300: 5 tasks short.
func TestHandThreeJobsOrder(t *testing.T) {
	av := mustAv(t, []float64{0}, []float64{2}, 0)
	jobs := []FitJob{
		{GoalS: 300, Phases: []FitPhase{{Pending: 30, MuS: 10}}},
		{GoalS: 100, Phases: []FitPhase{{Pending: 5, MuS: 10}}},
		{GoalS: 200, Phases: []FitPhase{{Pending: 30, MuS: 10}}},
	}
	if got, want := SFit(0, 10, jobs, av), []int{0, 5, 2}; !reflect.DeepEqual(got, want) {
		t.Fatalf("SFit = %v, want %v", got, want)
	}
	if got := Shortfall(0, jobs, av); !reflect.DeepEqual(got, []float64{5, 0, 0}) {
		t.Fatalf("Shortfall = %v, want [5 0 0]", got)
	}
}

// Running tasks and phases in eq. 1.
//
//	4 pending, running for 5 s and 15 s, µ = 10: δ = 5 and 0 (past µ);
//	work 45 slot-s in a 10 s window is 4.5 slots, less the 2 running:
//	⌈2.5⌉ = 3.
//	Map 10 × 10 s and reduce 2 × 50 s, 100 s: 100 slot-s each, so each
//	phase gets 50 s and needs 2 slots.
func TestHandSReq(t *testing.T) {
	if r, ok := SReq(Phase{Pending: 4, MuS: 10, Running: []float64{5, 15}}, 10); r != 3 || !ok {
		t.Errorf("s_req = %d %v, want 3", r, ok)
	}
	got, ok := SReqPhases([]Phase{{Name: "map", Pending: 10, MuS: 10}, {Name: "reduce", Pending: 2, MuS: 50}}, 100)
	if !ok || !reflect.DeepEqual(got, []int{2, 2}) {
		t.Errorf("per phase = %v %v, want [2 2]", got, ok)
	}
	if r, ok := SReq(Phase{Pending: 7, MuS: 10}, 0); r != 7 || ok {
		t.Errorf("past goal: %d %v, want every pending task (7), not ok", r, ok)
	}
	if r, _ := SReq(Phase{Pending: 0, MuS: 10, Running: []float64{1}}, 100); r != 0 {
		t.Errorf("only running tasks: s_req %d, want 0", r)
	}
}

// Figure 4.2's and 5.17's shapes at their marked points.
func TestHandUtility(t *testing.T) {
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 || a == b }
	cases := []struct {
		name string
		got  float64
		want float64
	}{
		{"eq6 alloc=0", UtilityReq(0, 20, 35), math.Inf(-1)},
		{"eq6 alloc=req", UtilityReq(20, 20, 35), 0},
		{"eq6 alloc=pend", UtilityReq(35, 20, 35), 1},
		{"eq6 halfway", UtilityReq(27, 20, 34), 0.5},
		{"eq6 log", UtilityReq(2, 4, 10), -0.5},
		{"eq6 pend=req", UtilityReq(5, 5, 5), 1},
		{"eq6 nothing pending", UtilityReq(0, 0, 0), 1},
		{"eq14 alloc=fit", UtilityFit(10, 10, 15, 35), 0},
		{"eq14 alloc=req", UtilityFit(15, 10, 15, 35), 0.5},
		{"eq14 alloc=pend", UtilityFit(35, 10, 15, 35), 1},
		{"eq14 between fit and req", UtilityFit(12, 10, 15, 35), 0.2},
		{"eq14 above req", UtilityFit(25, 10, 15, 35), 0.75},
		{"eq14 req≤fit", UtilityFit(20, 10, 5, 30), 0.5},
		{"eq14 log", UtilityFit(3, 9, 15, 35), -0.5},
		{"eq14 alloc=0", UtilityFit(0, 1, 3, 5), math.Inf(-1)},
		{"eq14 fit=0", UtilityFit(0, 0, 0, 4), 0},
		{"eq7 none", UtilityReduce(0, 10), -1},
		{"eq7 all", UtilityReduce(10, 10), 0},
		{"eq7 log", UtilityReduce(10, 100), -0.5},
	}
	for _, c := range cases {
		if !near(c.got, c.want) {
			t.Errorf("%s = %g, want %g", c.name, c.got, c.want)
		}
	}
}

func TestAvailabilityPeriodic(t *testing.T) {
	av := mustAv(t, []float64{0, 3600, 7200}, []float64{5, 0, 2}, 86400)
	// One day: 5·3600 + 0 + 2·79200.
	day := 5*3600.0 + 2*79200
	if g := av.Integral(0, 86400); g != day {
		t.Errorf("one day = %g, want %g", g, day)
	}
	if g := av.Integral(86400*3+1800, 86400*3+5400); g != 5*1800 {
		t.Errorf("across a step = %g, want %g", g, 5*1800.0)
	}
	if g := av.Integral(-86400, 86400); g != 2*day {
		t.Errorf("two days across the origin = %g, want %g", g, 2*day)
	}
	if g := av.At(-86400 + 3700); g != 0 {
		t.Errorf("At before the origin = %g, want 0", g)
	}
	for _, c := range [][2]float64{{100, 3600}, {3600, 7200}, {80000, 86400}, {86410, 90000}, {-79100, 0}} {
		if g := av.NextChange(c[0]); g != c[1] {
			t.Errorf("NextChange(%g) = %g, want %g", c[0], g, c[1])
		}
	}
	if g := mustAv(t, []float64{0, 10}, []float64{1, 2}, 0).NextChange(10); !math.IsInf(g, 1) {
		t.Errorf("NextChange after the last step of a non-periodic Ω = %g, want +Inf", g)
	}
	// Against a sum over seconds.
	r := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		t0 := float64(r.IntN(400000) - 200000)
		t1 := t0 + float64(r.IntN(300000))
		sum := 0.0
		for s := t0; s < t1; s++ {
			sum += av.At(s)
		}
		if g := av.Integral(t0, t1); math.Abs(g-sum) > 1e-6 {
			t.Fatalf("∫[%g, %g] = %g, sum over seconds %g", t0, t1, g, sum)
		}
	}
	if _, err := NewAvailability([]float64{0, 0}, []float64{1, -1}, 10); err == nil {
		t.Error("bad steps accepted")
	}
}

func randomJobs(r *rand.Rand, n int) []FitJob {
	jobs := make([]FitJob, n)
	for j := range jobs {
		ph := make([]FitPhase, 1+r.IntN(2))
		for p := range ph {
			ph[p] = FitPhase{Pending: r.IntN(40), MuS: float64(1 + r.IntN(600))}
		}
		jobs[j] = FitJob{GoalS: float64(r.IntN(20000) - 1000), Phases: ph, RunningS: float64(r.IntN(500))}
		if r.IntN(5) == 0 && j > 0 {
			jobs[j].GoalS = jobs[j-1].GoalS // ties
		}
	}
	return jobs
}

func randomAv(r *rand.Rand) *Availability {
	n := 1 + r.IntN(6)
	starts := make([]float64, n)
	slots := make([]float64, n)
	for i := range starts {
		starts[i] = float64(i * 3000)
		slots[i] = float64(r.IntN(20))
	}
	if r.IntN(2) == 0 {
		a, _ := NewAvailability(starts, slots, float64(n*3000))
		return a
	}
	a, _ := NewAvailability(starts, slots, 0)
	return a
}

func TestSFitProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 2))
	for it := range 500 {
		jobs := randomJobs(r, 1+r.IntN(30))
		av := randomAv(r)
		now := float64(r.IntN(2000))
		cycle := float64(r.IntN(600))
		got := SFit(now, cycle, jobs, av)
		if base := sfitBaseline(now, cycle, jobs, av); !reflect.DeepEqual(got, base) {
			t.Fatalf("iteration %d: SFit %+v, Alg. 2 as written %+v", it, got, base)
		}
		short := Shortfall(now, jobs, av)
		for j, g := range got {
			pend := 0
			for _, p := range jobs[j].Phases {
				if p.Pending > 0 {
					pend = p.Pending
					break
				}
			}
			if g < 0 || g > pend {
				t.Fatalf("iteration %d job %d: s_fit %d outside [0, %d]", it, j, g, pend)
			}
		}
		// More availability never raises s_fit or the shortfall.
		more := make([]float64, len(av.Slots))
		for i := range more {
			more[i] = av.Slots[i] + float64(r.IntN(5))
		}
		av2 := mustAv(t, av.Starts, more, av.PeriodS)
		short2 := Shortfall(now, jobs, av2)
		for j, g := range SFit(now, cycle, jobs, av2) {
			if g > got[j] || short2[j] > short[j]+1e-6 {
				t.Fatalf("iteration %d job %d: more availability gives s_fit %d short %g, was %d %g", it, j, g, short2[j], got[j], short[j])
			}
		}
		// A longer cycle leaves less time after it: s_fit never falls.
		for j, g := range SFit(now, cycle+float64(1+r.IntN(3000)), jobs, av) {
			if g < got[j] {
				t.Fatalf("iteration %d job %d: a longer cycle gives s_fit %d, was %d", it, j, g, got[j])
			}
		}
	}
}

func TestSReqMonotone(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 1))
	for range 2000 {
		p := Phase{Pending: r.IntN(100), MuS: float64(1 + r.IntN(1000))}
		for range r.IntN(5) {
			p.Running = append(p.Running, float64(r.IntN(1200)))
		}
		w := float64(1 + r.IntN(10000))
		a, _ := SReq(p, w)
		b, _ := SReq(p, w+float64(1+r.IntN(5000)))
		if b > a {
			t.Fatalf("%+v: s_req %d at %gs, %d with more time", p, a, w, b)
		}
	}
}

func TestUtilityMonotone(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for range 2000 {
		pend := r.IntN(60)
		fit := r.IntN(pend + 1)
		req := r.IntN(2*pend + 2)
		u := Curve(fit, req, pend)
		v := Curve(-1, req, pend)
		for a := 1; a <= pend; a++ {
			if u[a] < u[a-1] || v[a] < v[a-1] || u[a] > 1 || v[a] > 1 || math.IsNaN(u[a]) || math.IsNaN(v[a]) {
				t.Fatalf("fit %d req %d pend %d: not increasing in (−∞, 1] at %d: %v / %v", fit, req, pend, a, u, v)
			}
		}
	}
}
