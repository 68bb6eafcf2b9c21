package constraints

import (
	"math"
	"sort"
	"strconv"
	"time"
)

// Result is the document of wlprof constraints (version 1). Fields are
// only ever added.
type Result struct {
	Version int     `json:"version"`
	WindowS float64 `json:"window_s"`
	// Start is the first window's start; series offsets are from it.
	Start   string  `json:"start"`
	SpanS   float64 `json:"span_s"` // first to last task event: the period arrival rates are over
	Windows int     `json:"windows"`
	Tasks   int     `json:"tasks"`
	// ConstrainedTasks had at least one constraint on some event.
	ConstrainedTasks int `json:"constrained_tasks"`
	Machines         int `json:"machines"` // machines with attribute rows
	// Profile is the frequency of constraints per attribute and relation
	// (Phoenix Table II, on obfuscated attributes).
	Profile []ProfileRow `json:"profile"`
	// Attributes is the Constraint Resource Vector: per constrained
	// attribute, demand (task episodes with any constraint on it) over
	// supply (machines having it) per window.
	Attributes  []AttributeCRV     `json:"attributes"`
	Constraints []ConstraintResult `json:"constraints"`
	// Unconstrained is the same queue for the tasks without constraints,
	// served by every machine with attribute rows: how the model does on
	// the bulk of the work (attribute, relation and value are empty).
	Unconstrained *ConstraintResult `json:"unconstrained"`
	// Placement is Phoenix's third class of constraint, one row per kind
	// the trace has (the 2011 different-machine flag); empty when none.
	// The attribute constraints' fields above do not count it: a task
	// with only the flag is among the unconstrained.
	Placement []PlacementResult `json:"placement"`
	Rules     []string          `json:"rules"`
	Warnings  []string          `json:"warnings"`
}

// ProfileRow counts constraints of one attribute and relation.
type ProfileRow struct {
	Attribute   string `json:"attribute"`
	Relation    string `json:"relation"`
	Constraints int    `json:"constraints"` // distinct values
	Tasks       int64  `json:"tasks"`       // task–constraint pairs
	// TaskShare is Tasks over the constrained tasks, in [0,1] for a single
	// constraint (a task with two values of it counts twice).
	TaskShare float64 `json:"task_share"`
}

// Window is one window of a demand/supply series.
type Window struct {
	StartS float64 `json:"start_s"` // offset from Result.Start
	Demand int32   `json:"demand"`
	Supply int32   `json:"supply"`
	// Ratio is demand over supply; null when no machine offers it.
	Ratio *float64 `json:"ratio"`
}

// AttributeCRV is one component of the Constraint Resource Vector.
type AttributeCRV struct {
	Attribute    string   `json:"attribute"`
	Constraints  int      `json:"constraints"`
	MachinesWith int32    `json:"machines_with"` // at the end of the data
	DemandSupply []Window `json:"demand_supply"`
}

// ConstraintResult is one distinct constraint.
type ConstraintResult struct {
	Attribute string `json:"attribute"`
	Relation  string `json:"relation"`
	Value     string `json:"value"`
	Tasks     int64  `json:"tasks"`    // distinct tasks that carried it
	Episodes  int64  `json:"episodes"` // submissions of tasks carrying it
	// Machines is how many machines satisfied it at some time;
	// MachinesMean their time-weighted mean from the first to the last
	// task event (span_s), the server of the queue; it does not depend on
	// the window.
	Machines     int     `json:"machines"`
	MachinesMean float64 `json:"machines_mean"`
	// Hard: no task dropped it later and no task ran on a machine
	// violating it (see Rules).
	Hard     bool  `json:"hard"`
	Relaxed  int64 `json:"relaxed"`  // events of a task whose list no longer held it
	Violated int64 `json:"violated"` // SCHEDULE events on a machine not satisfying it
	// The M/G/1 queue: arrival rate, service moments on the combined
	// server, load, Pollaczek–Khinchine mean wait (null when ρ ≥ 1 or
	// unknown), and the trace's mean SUBMIT→SCHEDULE wait.
	ArrivalRate    float64  `json:"arrival_rate_per_s"`
	Served         int64    `json:"served"`
	ServiceMeanS   *float64 `json:"service_mean_s"`
	ServiceM2S2    *float64 `json:"service_m2_s2"`
	Rho            *float64 `json:"rho"`
	PredictedWaitS *float64 `json:"predicted_wait_s"`
	ObservedWaitS  *float64 `json:"observed_wait_s"`
	ObservedWaits  int      `json:"observed_waits"`
	ObservedP50S   *float64 `json:"observed_wait_p50_s"`
	ObservedP90S   *float64 `json:"observed_wait_p90_s"`
	// Fit says how prediction and observation compare: "fits (within 2×)",
	// "over-predicts", "under-predicts", "unstable (ρ ≥ 1)", "no service
	// times", "no satisfying machines", "no observed waits".
	Fit          string   `json:"fit"`
	DemandSupply []Window `json:"demand_supply"`
}

func rfc(ms int64) string { return time.UnixMilli(ms).UTC().Format(time.RFC3339) }

func ptr(x float64) *float64 { return &x }

// Rules are the choices the numbers rest on; the document carries them.
var Rules = []string{
	"matching: EQUAL/NOT_EQUAL compare strings, the ordered relations numbers, PRESENT/NOT_PRESENT only presence; a machine without the attribute satisfies only NOT_EQUAL and NOT_PRESENT",
	"machines: a machine exists from its first machine_attributes row; attribute changes and deletions apply from their time",
	"hard vs soft: the attributes are obfuscated, so a constraint is soft when some task dropped it from a later SUBMIT/SCHEDULE/UPDATE event (relaxed) or ran on a machine not satisfying it (violated); hard otherwise",
	"CRV: the paper's <cpu,mem,disk,os,clock,net> cannot be named on obfuscated attributes: each constrained attribute is one component; demand = task episodes (SUBMIT to EVICT/FAIL/FINISH/KILL/LOST) carrying a constraint on it at some time in the window (a constraint counts from the event that carried it to the SUBMIT/SCHEDULE/UPDATE event that dropped it), supply = machines having it at the window's start",
	"queue: per constraint an M/G/1 whose server is the satisfying machines taken as one server of their combined capacity (machines_mean machines of capacity 1, the traces' largest machine; machines_mean is their time-weighted mean over span_s); a task's service = (SCHEDULE→end) × max(cpu, memory request) / machines_mean (a task without requests takes a whole machine); arrivals = episodes with a known SUBMIT over span_s; W = λE[S²]/(2(1−ρ)), ρ = λE[S]",
	"observed wait: SUBMIT→SCHEDULE of each episode whose both times are in the trace window",
	"placement: the 2011 task_events different-machine flag (the task must run on a different machine than any other currently running task of its job) is a placement constraint, reported apart (placement); soft when a task dropped it from a later SUBMIT/SCHEDULE/UPDATE event or was scheduled with it onto a machine running another task of its job, hard otherwise",
	"the model sees only the tasks carrying the constraint: other work on the same machines, priorities and preemption are not in it, so it under-predicts where the machines are shared and busy",
}

func (s *sweep) series(dem []int32, sup []int32) []Window {
	out := make([]Window, s.nW)
	var d int32
	for w := 0; w < s.nW; w++ {
		d += dem[w]
		out[w] = Window{StartS: float64(int64(w)*s.w) / 1000, Demand: d, Supply: sup[w]}
		if sup[w] > 0 {
			out[w].Ratio = ptr(math.Round(float64(d)/float64(sup[w])*1e6) / 1e6)
		}
	}
	return out
}

// sig rounds to 6 significant digits: rates and waits span many orders
// of magnitude (a rate per second of a month-long trace is ~1e-6).
func sig(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 6, 64), 64)
	return v
}

func round(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}

// PollaczekKhinchine is the M/G/1 mean wait in queue W = λE[S²]/(2(1−ρ)),
// ρ = λE[S]; ok is false when ρ ≥ 1 (no steady state).
func PollaczekKhinchine(lambda, es, es2 float64) (w, rho float64, ok bool) {
	rho = lambda * es
	if rho >= 1 {
		return math.Inf(1), rho, false
	}
	return lambda * es2 / (2 * (1 - rho)), rho, true
}

func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(i, 0)]
}

// queue fills a constraint's series and its M/G/1 estimate; sat is the
// machines satisfying it at the end of the sweep.
func (s *sweep) queue(cs *consState, sat int32, cr *ConstraintResult, span float64) {
	cr.DemandSupply = s.series(cs.demandDelta, cs.supply)
	// The server: the satisfying machines' time-weighted mean over the
	// span the arrival rate is over, so it does not depend on the window
	// (a mean of counts at window starts did). Events at one instant have
	// no span: the count then.
	m := float64(cs.supply[0])
	if s.last > s.first {
		s.accrue(cs, sat, s.last)
		m = cs.area / float64(s.last-s.first)
	}
	cr.MachinesMean = round(m, 3)
	if span > 0 {
		cr.ArrivalRate = sig(float64(cs.arrivals) / span)
	}
	if len(cs.waits) > 0 {
		sort.Float64s(cs.waits)
		var ws float64
		for _, w := range cs.waits {
			ws += w
		}
		cr.ObservedWaitS = ptr(round(ws/float64(len(cs.waits)), 3))
		cr.ObservedP50S = ptr(quantile(cs.waits, 0.5))
		cr.ObservedP90S = ptr(quantile(cs.waits, 0.9))
	}
	switch {
	case m == 0:
		cr.Fit = "no satisfying machines"
	case cs.served == 0 || span <= 0:
		cr.Fit = "no service times"
	default:
		es := cs.s1 / float64(cs.served) / m
		es2 := cs.s2 / float64(cs.served) / (m * m)
		cr.ServiceMeanS, cr.ServiceM2S2 = ptr(sig(es)), ptr(sig(es2))
		w, rho, ok := PollaczekKhinchine(float64(cs.arrivals)/span, es, es2)
		cr.Rho = ptr(sig(rho))
		switch {
		case !ok:
			cr.Fit = "unstable (ρ ≥ 1)"
		case cr.ObservedWaitS == nil:
			cr.PredictedWaitS = ptr(sig(w))
			cr.Fit = "no observed waits"
		default:
			cr.PredictedWaitS = ptr(sig(w))
			o := *cr.ObservedWaitS
			switch {
			case w <= 2*o && o <= 2*w:
				cr.Fit = "fits (within 2×)"
			case w > o:
				cr.Fit = "over-predicts"
			default:
				cr.Fit = "under-predicts"
			}
		}
	}
}

func (s *sweep) result(opts Options, first, last int64) *Result {
	in := s.in
	span := float64(last-first) / 1000
	r := &Result{Version: 1, WindowS: opts.Window.Seconds(), Start: rfc(s.t0), SpanS: span, Windows: s.nW,
		Tasks: len(in.Tasks), ConstrainedTasks: len(s.seen), Rules: Rules}
	for _, j := range s.joined {
		if j {
			r.Machines++
		}
	}
	type prKey struct{ a, rel string }
	prof := map[prKey]*ProfileRow{}
	for i := range s.cons {
		cs := &s.cons[i]
		c := in.Constraints[i]
		if cs.tasks == 0 && cs.episodes == 0 {
			continue // only in a list that no task event carried into the profile
		}
		cr := ConstraintResult{Attribute: c.Attribute, Relation: c.Relation, Value: c.Value, Tasks: cs.tasks, Episodes: cs.episodes,
			Machines: popcount(cs.ever), Relaxed: cs.relaxed, Violated: cs.violated, Served: cs.served,
			ObservedWaits: len(cs.waits)}
		cr.Hard = cs.relaxed == 0 && cs.violated == 0
		s.queue(cs, cs.sat, &cr, span)
		r.Constraints = append(r.Constraints, cr)
		k := prKey{c.Attribute, c.Relation}
		p := prof[k]
		if p == nil {
			p = &ProfileRow{Attribute: c.Attribute, Relation: c.Relation}
			prof[k] = p
		}
		p.Constraints++
		p.Tasks += cs.tasks
	}
	sort.SliceStable(r.Constraints, func(a, b int) bool {
		x, y := &r.Constraints[a], &r.Constraints[b]
		if x.Tasks != y.Tasks {
			return x.Tasks > y.Tasks
		}
		if x.Attribute != y.Attribute {
			return x.Attribute < y.Attribute
		}
		if x.Relation != y.Relation {
			return x.Relation < y.Relation
		}
		return x.Value < y.Value
	})
	for _, p := range prof {
		if r.ConstrainedTasks > 0 {
			p.TaskShare = round(float64(p.Tasks)/float64(r.ConstrainedTasks), 6)
		}
		r.Profile = append(r.Profile, *p)
	}
	sort.Slice(r.Profile, func(a, b int) bool {
		x, y := r.Profile[a], r.Profile[b]
		if x.Tasks != y.Tasks {
			return x.Tasks > y.Tasks
		}
		if x.Attribute != y.Attribute {
			return x.Attribute < y.Attribute
		}
		return x.Relation < y.Relation
	})
	for a, dem := range s.attrDem {
		if dem == nil {
			continue
		}
		r.Attributes = append(r.Attributes, AttributeCRV{Attribute: in.AttrNames[a], Constraints: len(s.attrCons[a]),
			MachinesWith: s.attrHave[a], DemandSupply: s.series(dem, s.attrSup[a])})
	}
	sort.Slice(r.Attributes, func(a, b int) bool { return r.Attributes[a].Attribute < r.Attributes[b].Attribute })
	if s.none.episodes > 0 {
		u := ConstraintResult{Tasks: int64(len(in.Tasks) - len(s.seen)), Episodes: s.none.episodes, Machines: int(s.joinedN),
			Hard: true, Served: s.none.served, ObservedWaits: len(s.none.waits)}
		s.queue(&s.none, s.joinedN, &u, span)
		r.Unconstrained = &u
	}
	r.Placement = []PlacementResult{}
	if s.place != nil {
		r.Placement = append(r.Placement, s.place.result())
	}
	r.Warnings = append(append([]string{}, in.Warnings...), sortedWarnings(s.warn)...)
	if r.Profile == nil {
		r.Profile = []ProfileRow{}
	}
	if r.Attributes == nil {
		r.Attributes = []AttributeCRV{}
	}
	if r.Constraints == nil {
		r.Constraints = []ConstraintResult{}
	}
	return r
}
