package profile

// sampleJob and sampleTenants are complete documents (every section set)
// whose golden files, testdata/job.json and testdata/tenants.json, the
// schema tests and the Example read.
func sampleJob() *Job {
	f := func(v float64) *float64 { return &v }
	i := func(v int64) *int64 { return &v }
	return &Job{
		Job: "etl/daily_orders",
		Identity: Identity{Names: []string{"etl/daily_orders_2026-11-01", "etl/daily_orders_2026-11-02"}, Runs: 30,
			FirstStartMs: i(1793505600000), LastStartMs: i(1796011200000), Sources: []string{"runs", "skylines", "provenance", "profruns"}},
		PeriodS: &Number{Value: 86400, Source: SourceInferred, Detail: "median spacing of 30 submissions, snapped to daily"},
		SLO: &SLO{Actionable: true, Runs: 30,
			ArrivalS:   &Number{Value: 7200, Source: SourceInferred, Detail: "p95 of T_inAvail over 30 runs"},
			DeadlineS:  &Number{Value: 21600, Source: SourceOverride, Detail: "slo-overrides.json"},
			SlackRatio: f(2.5),
			Override:   Override{Applies: true, File: "slo-overrides.json", Fields: []string{"deadline_s"}},
		},
		Skyline: &Skyline{Runs: 30, StepS: 60, Alpha: 0.1, Beta: 0.1, Model: "reduced",
			Containers: []float64{3.5, 10, 10, 2}, Reservation: []int64{4, 10, 10, 2},
			Stages:          []Stage{{0, 60, 4}, {60, 120, 10}, {180, 60, 2}},
			PeakReservation: 10, Objective: 1.25, OverAllocation: 2.5, UnderAllocation: 1.1,
			ReservedAreaContainerS: 1560, UsedAreaContainerS: 1320, ProvisioningRatio: 1.18,
			AlphaSweep: []SweepPoint{{Alpha: 0.1, OverAllocation: 2.5, UnderAllocation: 1.1, ProvisioningRatio: 1.18, PeakReservation: 10},
				{Alpha: 0.9, OverAllocation: 0.4, UnderAllocation: 6, ProvisioningRatio: 0.93, PeakReservation: 8}},
			Warnings: []string{"run r07 is 3× longer than the median run"},
		},
		Elasticity: []ElasticityModel{{Task: "reduce", Framework: "hadoop", Kind: "spill-rate",
			IdealMemoryBytes: 4 << 30, IdealRuntimeS: 120,
			Params: map[string]float64{"disk_rate_bytes_per_s": 150e6},
			Curve: []CurvePoint{{MemoryBytes: 0.1 * (4 << 30), RuntimeS: 300, Penalty: 1.5},
				{MemoryBytes: 0.5 * (4 << 30), RuntimeS: 180, Penalty: 0.5}, {MemoryBytes: 4 << 30, RuntimeS: 120, Penalty: 0}},
			Validation: &Validation{Runs: 4, MeanAbsError: 0.06, MaxAbsError: 0.11}}},
		Phases: []Phase{{Phase: "map", Tasks: 200, TaskRuntimeS: 35, CPUShare: 0.7, IOShare: 0.2, MemoryBytes: 1 << 30, Slots: 4, NodeCPUs: 8, IOCapacityBytesPerS: 200 << 20, IOCapacitySource: "measured"},
			{Phase: "reduce", Tasks: 20, TaskRuntimeS: 120, CPUShare: 0.3, IOShare: 0.6, MemoryBytes: 4 << 30, Slots: 2, NodeCPUs: 8, IOCapacityBytesPerS: 200 << 20, IOCapacitySource: "measured"}},
		Warnings: []string{"run r07 is 3× longer than the median run"},
	}
}

func sampleTenants() *Tenants {
	day := 86400.0
	return &Tenants{StepS: 120, Ranking: DefaultRanking(),
		Classes: []Class{
			{Class: "constant-0", Pattern: Constant, Tenants: 1, Mean: 0.3, Peak: 0.35,
				Headroom: JobTypes{Short: 0.7, Medium: 0.7, Long: 0.65}, Weights: JobTypes{Short: 0.2, Medium: 0.6, Long: 1}},
			{Class: "periodic-0", Pattern: Periodic, Tenants: 2, Mean: 0.4, Peak: 0.8, PeriodS: &day,
				Headroom: JobTypes{Short: 0.6, Medium: 0.6, Long: 0.2}, Weights: JobTypes{Short: 0.6, Medium: 1, Long: 0.6}},
		},
		Tenants: []Tenant{
			{Tenant: "search-index", Class: "periodic-0", Pattern: Periodic, PeriodS: &day, Strength: 0.9, Mean: 0.42, Peak: 0.85},
			{Tenant: "store-kv", Class: "constant-0", Pattern: Constant, Strength: 0.95, Mean: 0.3, Peak: 0.35},
			{Tenant: "web-front", Class: "periodic-0", Pattern: Periodic, PeriodS: &day, Strength: 0.7, Mean: 0.38, Peak: 0.75},
			{Tenant: "xnew", Pattern: Insufficient},
		},
		Warnings: []string{"tenant xnew: 2 hours of data, fewer than 2 periods"},
	}
}
