package slo

// Result is the outcome of Run: one entry per recurring job, sorted by
// job, plus what the provenance graph looked like. Its JSON form (inside
// the command's {"version": 1, ...} document) is a public interface:
// fields are only added, never renamed.
type Result struct {
	Jobs     []Job    `json:"jobs"`
	Graph    Graph    `json:"graph"`
	Warnings []string `json:"warnings"`
	// opts are the options Run inferred with, which Profile names in
	// each number's detail.
	opts Options
}

// Job is the inferred SLO of one recurring job. Offsets (arrival_s,
// deadline_s, start_s, end_s) are seconds from the start of the job's
// period (UTC-aligned for natural periods); they may exceed the period when
// a consumer reads in the next one.
type Job struct {
	Job        string   `json:"job"`
	PeriodS    *float64 `json:"period_s"` // null unless periodic
	Runs       int      `json:"runs"`
	Actionable bool     `json:"actionable"`
	ArrivalS   *float64 `json:"arrival_s"`   // p(arrival) of T_inAvail
	DeadlineS  *float64 `json:"deadline_s"`  // p(deadline) of T_outRead
	SlackRatio *float64 `json:"slack_ratio"` // median (T_outRead − T_end) / (T_end − T_start)
	Reason     string   `json:"reason"`      // why not actionable; "" when actionable

	Periodic      bool     `json:"periodic"`
	PeriodCV      *float64 `json:"period_cv"`      // MAD / median of submission spacing
	PeriodSnapped bool     `json:"period_snapped"` // period is a natural one (hour, day, ...)
	// PeriodAnchorMs is a period start (Unix ms): period k starts at it +
	// k·period_s, and arrival_s and deadline_s count from those starts
	// (midnight UTC for periods that divide a day, Monday 00:00 UTC for a
	// week, else the submissions' usual phase less half a period). Null
	// unless periodic.
	PeriodAnchorMs  *int64           `json:"period_anchor_ms,omitempty"`
	DeadlinePeriodS *float64         `json:"deadline_period_s"`
	DeadlineRule    string           `json:"deadline_rule,omitempty"` // "consumer-period-longer" when footnote 5 applied
	RunsMeasured    int              `json:"runs_measured"`           // successful runs whose output a consumer read
	ReadCV          *float64         `json:"read_cv"`                 // MAD / median of T_outRead
	ReadMADS        *float64         `json:"read_mad_s"`              // MAD of T_outRead
	PhaseSpread     *float64         `json:"phase_spread"`            // MAD of submission phase / period
	StartS          *float64         `json:"start_s"`                 // median T_start
	EndS            *float64         `json:"end_s"`                   // median T_end
	ArrivalFrom     string           `json:"arrival_from,omitempty"`  // input-writes, or submit when no input write was seen
	ArrivalRuns     int              `json:"arrival_runs"`            // runs arrival_s was measured on (with an input write, or submitted, per arrival_from)
	Consumers       []string         `json:"consumers"`               // consumer jobs; "egress" for reads by no known run
	Producers       []string         `json:"producers"`               // jobs whose output it reads; "ingress" for files written by no known run
	Attribution     map[string]int64 `json:"attribution"`             // this job's read/write edges by how their run was found
	Override        *Override        `json:"override,omitempty"`
	Warnings        []string         `json:"warnings"`
}

// Graph summarises the provenance graph: job runs and files as nodes,
// reads and writes as edges.
type Graph struct {
	Runs          int              `json:"runs"`
	Jobs          int              `json:"jobs"`
	Events        int64            `json:"events"`          // provenance rows read
	Ignored       map[string]int64 `json:"ignored"`         // rows that move no data, by op
	Files         int64            `json:"files"`           // distinct paths written or read
	IngressFiles  int64            `json:"ingress_files"`   // read by a job, written by no known run
	EgressFiles   int64            `json:"egress_files"`    // written by a job, read by no job (only by users, or never)
	JobEdges      int64            `json:"job_edges"`       // distinct producer → consumer job pairs
	Attribution   map[string]int64 `json:"attribution"`     // read/write edges by how their run was found
	OutOfOrder    int64            `json:"out_of_order"`    // rows more than a minute earlier than the latest seen
	ReadBeforeEnd int64            `json:"read_before_end"` // reads of an output before its producer ended (skew or partial reads)
}
