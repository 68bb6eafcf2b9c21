package reports

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/wlprof/wlprof/profile"
)

// synthInput is a report input covering every stage, seeded: tenants of
// the three patterns in classes, and jobs with runs, a fitted-looking
// skyline, an SLO, an elasticity model with measured points and a sweep.
// The numbers are plausible, not the output of the stages: the report
// only draws and writes them.
func synthInput(tenants, jobs int, seed uint64) *Input {
	r := rand.New(rand.NewPCG(seed, 7))
	in := &Input{Title: "synthetic", Notes: map[string][]string{}}
	if tenants > 0 {
		in.Tenants = synthTenants(r, tenants)
	}
	for q := 0; q < jobs; q++ {
		j := synthJob(r, fmt.Sprintf("job-%04d", q))
		// One job in ten was profiled (elasticity, sweeps), as in a cluster
		// where engineers profile the jobs that matter; small inputs keep
		// every section.
		if q%3 == 0 {
			j.Reservation = json.RawMessage(fmt.Sprintf(`{"queue": "dedicated", "reservation-definition": {"reservation-name": %q}}`, j.Profile.Job))
		}
		if jobs > 20 && q%10 != 0 {
			j.Profile.Elasticity, j.Measured, j.Sweeps, j.Profile.Phases = nil, nil, nil, nil
		}
		in.Jobs = append(in.Jobs, j)
	}
	if jobs > 0 {
		in.Plan = synthPlan(r, in.Jobs)
		in.Simulation = synthSimulation(r, len(in.Jobs))
		in.Estimate = synthEstimate(in.Jobs)
		in.Harvest = synthHarvest()
		in.Placement = synthPlacement()
		in.Constraints = synthConstraints()
	}
	return in
}

// synthPlacement is nine classes of uneven shares and a replay, with
// markup in a tenant's name and a warning (the page must escape them).
func synthPlacement() *Placement {
	pl := &Placement{Summary: "31 machines with machine events.", Tenants: 12, Stability: "Stability: too short.",
		Replay: "Replay of 10000 blocks.", Assumptions: []string{"a REMOVE stands in for a reimage"}, Warnings: []string{"<b>1 tenant</b> left out"}}
	for r, row := range []string{"infrequent", "intermediate", "frequent"} {
		for c, col := range []string{"low", "medium", "high"} {
			pl.Classes = append(pl.Classes, PlacementClass{Class: row + "/" + col, ReimageGroup: row, PeakGroup: col, Tenants: 1 + (r+c)%2,
				Servers: 3, Storage: "12 TB", Share: float64(8+r+2*c) / 100, Rates: "0.000", Peaks: "0.21–0.43", Members: "<i>ads</i>, cache"})
		}
	}
	pl.Policies = []PlacementPolicy{{Policy: "hdfs-stock", LostBlocks: PlacementSpread{0.2, 0, 1}, FailedShare: PlacementSpread{0.007186, 0.00665, 0.0075}},
		{Policy: "algorithm-2"}}
	return pl
}

// synthConstraints is a constraint profile (fixed): three constraints,
// one unstable, and two attributes' CRV with a window no machine offers.
func synthConstraints() *Constraints {
	f := func(x float64) *float64 { return &x }
	return &Constraints{Summary: "100 tasks.", WindowS: 3600, Start: "2019-05-01T07:00:00Z", Rules: []string{"a rule"},
		Rows: []ConstraintRow{
			{Attribute: "GK", Relation: "EQUAL", Value: "aaa", Tasks: 40, Hard: true, Machines: 3, Rho: f(0.5), PredictedS: f(12), ObservedS: f(20), Fit: "fits (within 2×)"},
			{Attribute: "Nm", Relation: "LESS_THAN", Value: "4", Tasks: 20, Machines: 1, Rho: f(1.5), Fit: "unstable (ρ ≥ 1)"},
			{Attribute: "Nm", Relation: "GREATER_THAN", Value: "2", Tasks: 10, Machines: 9, Rho: f(0.1), PredictedS: f(1), ObservedS: f(30), Fit: "under-predicts"},
		},
		CRV: []CRVSeries{{Attribute: "GK", Ratio: []float64{1, 2, math.NaN(), 0.5}}, {Attribute: "Nm", Ratio: []float64{0.1, 0.2, 0.3, 0.4}}}}
}

// synthHarvest is a replay's figures (fixed: they draw nothing from the
// world's stream).
func synthHarvest() *Harvest {
	h := &Harvest{World: "24 tenants on 96 servers.", Workload: "Workload: 100 jobs.", Thresholds: "Job types: short below 173s.",
		Assumptions: []string{"a container is one core"}}
	for k, p := range []string{"history", "blind"} {
		h.Policies = append(h.Policies, HarvestRow{Policy: p, Containers: 1000, Killed: int64(10 + 40*k), HarvestedCoreH: 900.5, LostCoreH: float64(5 + 20*k)})
		h.Groups = append(h.Groups, HarvestRow{By: "job type", Key: "long", Policy: p, Containers: 300, Killed: int64(1 + 30*k), HarvestedCoreH: 500})
	}
	for i, key := range []string{"constant", "periodic", "unpredictable"} {
		for k, p := range []string{"history", "blind"} {
			h.Groups = append(h.Groups, HarvestRow{By: "pattern", Key: key, Policy: p, Containers: 300, Killed: int64(3*i + 10*k), HarvestedCoreH: 300})
		}
	}
	return h
}

// synthPlan is a day's packed load at one-minute steps, one placement per
// job, and the held-out misses at four α.
func synthPlan(r *rand.Rand, jobs []Job) *Plan {
	pl := &Plan{LCMS: 86400, StepS: 60, Load: make([]int64, 1440), NaiveLoad: make([]int64, 1440)}
	for _, j := range jobs {
		start, n := r.IntN(1200), 30+r.IntN(200)
		h := int64(1 + r.IntN(40))
		for t := start; t < start+n; t++ {
			pl.Load[t%1440] += h / 2
			pl.NaiveLoad[(t/2)%1440] += h
		}
		pl.Rows = append(pl.Rows, PlanRow{Job: j.Profile.Job, PeriodS: 86400, WindowStartS: float64(start) * 60,
			WindowEndS: float64(start+2*n) * 60, OffsetS: float64(start) * 60, Steps: n, Peak: h / 2, TrainRuns: 7, TestRuns: 3,
			Misses: r.IntN(2), DRAAddedContainerS: 3600})
	}
	for _, v := range pl.Load {
		pl.Footprint = max(pl.Footprint, v)
	}
	for _, v := range pl.NaiveLoad {
		pl.NaiveFootprint = max(pl.NaiveFootprint, v)
	}
	pl.LowerBound = pl.Footprint * 4 / 5
	for i, a := range []float64{0.01, 0.1, 0.5, 0.9} {
		pl.Alpha = append(pl.Alpha, PlanAlpha{Alpha: a, TestRuns: 3 * len(jobs), Misses: i * len(jobs)})
	}
	pl.NotPlanned = []Skipped{{Stage: StagePlan, Job: "no-window", Reason: "no actionable SLO"}}
	return pl
}

func synthTenants(r *rand.Rand, n int) *Tenants {
	t := &profile.Tenants{StepS: 120, Ranking: profile.DefaultRanking()}
	const k = 3
	pats := []string{profile.Periodic, profile.Constant, profile.Unpredictable}
	day := 86400.0
	var sum [3][k][2]float64
	var count [3][k]int
	for i := 0; i < n; i++ {
		pi := i % 4
		tn := profile.Tenant{Tenant: fmt.Sprintf("tenant-%05d", i)}
		if pi == 3 && i%20 == 3 {
			tn.Pattern = profile.Insufficient
			t.Tenants = append(t.Tenants, tn)
			continue
		}
		pi %= 3
		c := r.IntN(k)
		tn.Pattern = pats[pi]
		tn.Class = fmt.Sprintf("%s-%d", pats[pi], c)
		tn.Mean = 0.1 + 0.25*float64(c) + 0.05*r.Float64()
		tn.Peak = math.Min(1, tn.Mean*(1.1+0.8*r.Float64()))
		tn.Strength = r.Float64()
		if pi == 0 {
			tn.PeriodS = &day
		}
		sum[pi][c][0] += tn.Mean
		sum[pi][c][1] += tn.Peak
		count[pi][c]++
		t.Tenants = append(t.Tenants, tn)
	}
	sort.Slice(t.Tenants, func(a, b int) bool { return t.Tenants[a].Tenant < t.Tenants[b].Tenant })
	weights := map[string]profile.JobTypes{
		profile.Periodic: {Short: 0.6, Medium: 1, Long: 0.6}, profile.Constant: {Short: 0.2, Medium: 0.6, Long: 1},
		profile.Unpredictable: {Short: 1, Medium: 0.2, Long: 0.2}}
	in := &Tenants{File: t}
	for pi, pat := range pats {
		for c := 0; c < k; c++ {
			if count[pi][c] == 0 {
				continue
			}
			m, pk := sum[pi][c][0]/float64(count[pi][c]), sum[pi][c][1]/float64(count[pi][c])
			cl := profile.Class{Class: fmt.Sprintf("%s-%d", pat, c), Pattern: pat, Tenants: count[pi][c], Mean: m, Peak: pk,
				Headroom: profile.JobTypes{Short: 1 - m, Medium: 1 - m, Long: 1 - pk}, Weights: weights[pat]}
			if pat == profile.Periodic {
				cl.PeriodS = &day
			}
			t.Classes = append(t.Classes, cl)
			for rep := 0; rep < 2; rep++ {
				in.Representatives = append(in.Representatives, synthRep(r, cl, rep))
			}
		}
	}
	t.Warnings = []string{"tenants with less than two periods of data are insufficient"}
	return in
}

func synthRep(r *rand.Rand, c profile.Class, rep int) Representative {
	const step, n = 120.0, 7 * 720 // a week at 2 minutes
	v := make([]float64, n)
	for k := range v {
		x := c.Mean + 0.01*r.NormFloat64()
		if c.Pattern == profile.Periodic {
			x += (c.Peak - c.Mean) * math.Sin(2*math.Pi*float64(k)*step/86400)
		}
		if c.Pattern == profile.Unpredictable && r.Float64() < 0.01 {
			x = c.Peak
		}
		v[k] = math.Max(0, math.Min(1, x))
	}
	// A spectrum by direct DFT at a few hundred frequencies is enough to draw.
	var sp Spectrum
	for f := 1; f <= 300; f++ {
		hz := float64(f) / (n * step)
		var re, im float64
		for k := 0; k < n; k += 4 {
			a := 2 * math.Pi * hz * float64(k) * step
			re += (v[k] - c.Mean) * math.Cos(a)
			im += (v[k] - c.Mean) * math.Sin(a)
		}
		sp.FrequencyHz = append(sp.FrequencyHz, hz)
		sp.Power = append(sp.Power, (re*re+im*im)/n)
	}
	return Representative{Class: c.Class, Tenant: fmt.Sprintf("%s-rep%d", c.Class, rep),
		Series: Series{Name: c.Class, StepS: step, Values: v}, Spectrum: sp}
}

func synthJob(r *rand.Rand, id string) Job {
	const step = 60.0
	steps := 30 + r.IntN(200)
	nRuns := 3 + r.IntN(10)
	base := 2 + r.Float64()*20
	j := Job{}
	used := 0.0
	var all [][]float64
	for i := 0; i < nRuns; i++ {
		v := make([]float64, steps)
		for k := range v {
			v[k] = math.Max(0, math.Round(base*(1+0.5*math.Sin(float64(k)/10))+r.NormFloat64()*2))
			used += v[k] * step
		}
		all = append(all, v)
		j.Runs = append(j.Runs, Series{Name: fmt.Sprintf("r%02d", i), StepS: step, Values: v})
	}
	x := make([]float64, steps)
	res := make([]int64, steps)
	var peak int64
	for k := range x {
		col := make([]float64, nRuns)
		for i := range all {
			col[i] = all[i][k]
		}
		sort.Float64s(col)
		x[k] = col[len(col)*3/4]
		res[k] = int64(math.Ceil(x[k] - 1e-6))
		peak = max(peak, res[k])
	}
	reserved := 0.0
	var stages []profile.Stage
	for k, v := range res {
		reserved += float64(v) * step
		if n := len(stages); n > 0 && stages[n-1].Containers == v {
			stages[n-1].DurationS += step
		} else {
			stages = append(stages, profile.Stage{OffsetS: float64(k) * step, DurationS: step, Containers: v})
		}
	}
	used /= float64(nRuns)
	slack := 0.2 + 3*r.Float64()
	day := 86400.0
	p := &profile.Job{Job: id,
		Identity: profile.Identity{Names: []string{id}, Runs: nRuns, Sources: []string{"skylines"}},
		PeriodS:  &profile.Number{Value: day, Source: profile.SourceInferred, Detail: "median spacing of run starts"},
		SLO: &profile.SLO{Actionable: slack > 1, Runs: nRuns,
			ArrivalS:   &profile.Number{Value: 3600, Source: profile.SourceInferred, Detail: "p95 of T_inAvail"},
			DeadlineS:  &profile.Number{Value: 3600 + float64(steps)*step*(1+slack), Source: profile.SourceInferred, Detail: "p50 of T_outRead"},
			SlackRatio: &slack},
		Skyline: &profile.Skyline{Runs: nRuns, StepS: step, Alpha: 0.1, Beta: 0.1, Model: "reduced",
			Containers: x, Reservation: res, Stages: stages, PeakReservation: peak,
			ReservedAreaContainerS: reserved, UsedAreaContainerS: used, ProvisioningRatio: reserved / used,
			AlphaSweep: []profile.SweepPoint{{Alpha: 0.01, OverAllocation: 50, UnderAllocation: 1},
				{Alpha: 0.1, OverAllocation: 20, UnderAllocation: 5}, {Alpha: 0.5, OverAllocation: 8, UnderAllocation: 20},
				{Alpha: 0.9, OverAllocation: 2, UnderAllocation: 60}}},
	}
	if !p.SLO.Actionable {
		p.SLO.Reason = fmt.Sprintf("slack ratio %.2f below 1", slack)
	}
	ideal := float64(int64(1+r.IntN(8)) << 30)
	m := profile.ElasticityModel{Task: "reduce", Framework: "hadoop", Kind: "spill-rate", IdealMemoryBytes: ideal, IdealRuntimeS: 100,
		Params: map[string]float64{"disk_rate_bytes_per_s": 1e8}, Validation: &profile.Validation{Runs: 2, MeanAbsError: 0.05, MaxAbsError: 0.08}}
	for f := 0.1; f <= 1.0001; f += 0.1 {
		rt := 100 * (1 + 0.8*(1-f))
		m.Curve = append(m.Curve, profile.CurvePoint{MemoryBytes: f * ideal, RuntimeS: rt, Penalty: rt/100 - 1})
	}
	p.Elasticity = []profile.ElasticityModel{m}
	j.Measured = []Measured{{Task: "reduce", MemoryBytes: 0.2 * ideal, RuntimeS: 165, Fit: true}, {Task: "reduce", MemoryBytes: ideal, RuntimeS: 101, Fit: true},
		{Task: "reduce", MemoryBytes: 0.5 * ideal, RuntimeS: 142}}
	sw := Sweep{Task: "reduce", Setting: "memory_bytes"}
	for _, f := range []float64{0.25, 0.5, 1} {
		for rep := 0; rep < 3; rep++ {
			sw.Points = append(sw.Points, SweepPoint{Setting: f * ideal, RuntimeS: 100 * (1 + 0.8*(1-f)) * (1 + 0.03*r.NormFloat64()), PeakRSSBytes: f * ideal})
		}
	}
	j.Sweeps = []Sweep{sw}
	p.Phases = []profile.Phase{{Phase: "map", Tasks: 10, TaskRuntimeS: 30, CPUShare: 0.7, IOShare: 0.2, MemoryBytes: 1 << 30, Slots: 4}}
	if r.IntN(4) == 0 {
		p.Warnings = []string{"run r00 is much longer than the others"}
	}
	j.Profile = p
	return j
}
