package profile

// Tenants is the file tenants.json: the classes of primary tenants, their
// headroom per job type, the ranking weights of Harvest's (Zhang et al., OSDI'16) class selection
// (Algorithm 1), and the class of every tenant. Utilisation is a fraction
// of one server in [0,1].
type Tenants struct {
	// Schema points to the file's JSON Schema: TenantsSchemaID.
	Schema  string `json:"$schema" jsonschema:"const=https://github.com/wlprof/wlprof/profile/schema/tenants.schema.json"`
	Version int    `json:"version" jsonschema:"const=1"`
	Kind    string `json:"kind" jsonschema:"enum=tenants"`
	// StepS is the grid the tenants' series were put on.
	StepS float64 `json:"step_s" jsonschema:"minimum=0"`
	// AtMs is the instant the classification was made at (epoch ms, the
	// start of its slot): the last slot of the data, or --at's, and only
	// data up to it was used; classes' Current is their utilisation then.
	// Null in files written before the field existed.
	AtMs *int64 `json:"at_ms"`
	// CapacityUnits is what a utilisation of 1 is: "server" (a fraction of
	// the tenant's own server), "ncu" (Google 2019's NCU: a fraction of
	// the largest machine of the cell, so headroom is spare capacity in
	// that unit, not a fraction of the tenant's machine) or "mixed";
	// CapacityNote says so in words when it is not "server". Absent in
	// files written before the field existed (read them as "server").
	CapacityUnits string `json:"capacity_units,omitempty" jsonschema:"enum=server|ncu|mixed"`
	CapacityNote  string `json:"capacity_note,omitempty"`
	// Ranking is, per job type, the patterns from most to least preferred.
	Ranking Ranking `json:"ranking"`
	// Classes by pattern, then class id.
	Classes []Class `json:"classes"`
	// Tenants sorted by tenant.
	Tenants  []Tenant `json:"tenants"`
	Warnings []string `json:"warnings"`
}

// Ranking orders the patterns per job type (Zhang et al., OSDI'16 §4).
type Ranking struct {
	Short  []string `json:"short"`
	Medium []string `json:"medium"`
	Long   []string `json:"long"`
}

// JobTypes holds one number per job length: short, medium, long.
type JobTypes struct {
	Short  float64 `json:"short" jsonschema:"minimum=0,maximum=1"`
	Medium float64 `json:"medium" jsonschema:"minimum=0,maximum=1"`
	Long   float64 `json:"long" jsonschema:"minimum=0,maximum=1"`
}

// Class is a K-Means class of tenants within one pattern.
type Class struct {
	Class   string `json:"class" jsonschema:"minLength=1"`
	Pattern string `json:"pattern" jsonschema:"enum=periodic|constant|unpredictable"`
	Tenants int    `json:"tenants" jsonschema:"minimum=0"`
	// Servers is the number of servers of the class's tenants (a tenant
	// without a count is one).
	Servers int `json:"servers" jsonschema:"minimum=0"`
	// Mean is the class's average utilisation (server-weighted over its
	// tenants and slots); Peak the peak a server of the class reaches: the
	// server-weighted 99th percentile of its tenants' own peaks (each the
	// P99 of its series), so tenants that peak at different times do not
	// cancel out. Current is the class's average server at AtMs.
	Mean    float64 `json:"mean" jsonschema:"minimum=0,maximum=1"`
	Peak    float64 `json:"peak" jsonschema:"minimum=0,maximum=1"`
	Current float64 `json:"current" jsonschema:"minimum=0,maximum=1"`
	// PeriodS is the class's dominant period, null unless periodic.
	PeriodS *float64 `json:"period_s"`
	// Headroom is the spare fraction of a server a job of each type can
	// count on: short 1 − current, medium 1 − max(mean, current), long
	// 1 − max(peak, current).
	Headroom JobTypes `json:"headroom"`
	// Weights are W[type, class] of Algorithm 1: higher ranks first.
	Weights JobTypes `json:"weights"`
}

// Tenant is one primary tenant's classification.
type Tenant struct {
	Tenant string `json:"tenant" jsonschema:"minLength=1"`
	// Class is "" when the tenant was not clustered (insufficient data).
	Class   string `json:"class"`
	Pattern string `json:"pattern" jsonschema:"enum=periodic|constant|unpredictable|insufficient"`
	// PeriodS is null unless periodic; Strength in [0,1] is how clearly the
	// pattern was detected.
	PeriodS  *float64 `json:"period_s"`
	Strength float64  `json:"strength" jsonschema:"minimum=0,maximum=1"`
	Mean     float64  `json:"mean" jsonschema:"minimum=0,maximum=1"`
	Peak     float64  `json:"peak" jsonschema:"minimum=0,maximum=1"`
	// StepS is the step the tenant was analysed on (seconds): the file's
	// step_s, or a multiple of it for a tenant sampled more coarsely.
	// Absent in files written before it existed.
	StepS float64 `json:"step_s,omitempty" jsonschema:"minimum=0"`
	// Reason says why the pattern is insufficient (too little history,
	// too few samples); absent otherwise, and in files written before it
	// existed.
	Reason string `json:"reason,omitempty"`
}

// Patterns, as the classify stage names them.
const (
	Periodic      = "periodic"
	Constant      = "constant"
	Unpredictable = "unpredictable"
	Insufficient  = "insufficient"
)

// DefaultRanking is Harvest's (Zhang et al., OSDI'16) ranking of patterns per job type.
func DefaultRanking() Ranking {
	return Ranking{
		Short:  []string{Unpredictable, Periodic, Constant},
		Medium: []string{Periodic, Constant, Unpredictable},
		Long:   []string{Constant, Periodic, Unpredictable},
	}
}
