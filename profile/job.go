package profile

// Job is the profile of one recurring job: the file profiles/<job>.json
// (see FileName). Sections a stage did not compute are null (SLO, Skyline,
// PeriodS) or empty arrays (Elasticity, Phases); a scheduler must treat a
// null section as "unknown", never as zero.
type Job struct {
	// Schema points to the file's JSON Schema: JobSchemaID, the $id of
	// schema/job.schema.json (a report ships it as schema/job.schema.json).
	Schema string `json:"$schema" jsonschema:"const=https://github.com/wlprof/wlprof/profile/schema/job.schema.json"`
	// Version is the major version of the format: 1.
	Version int `json:"version" jsonschema:"const=1"`
	// Kind says which document this is: "job".
	Kind string `json:"kind" jsonschema:"enum=job"`
	// Job is the recurring job's identity, normalised (dates and run numbers
	// are not part of it). A string from the traces: escape it.
	Job      string   `json:"job" jsonschema:"minLength=1"`
	Identity Identity `json:"identity"`
	// PeriodS is the job's recurrence period in seconds, null when unknown.
	PeriodS *Number `json:"period_s"`
	// SLO is the inferred (or overridden) arrival and deadline; null when
	// the slo stage did not run for this job.
	SLO *SLO `json:"slo"`
	// Skyline is the fitted reservation skyline; null when not fitted.
	Skyline *Skyline `json:"skyline"`
	// Elasticity holds one memory elasticity model per task kind.
	Elasticity []ElasticityModel `json:"elasticity"`
	// Plan is where the plan stage (a what-if) put the job's reservation
	// and how its held-out runs fared; null when it did not run.
	Plan *Plan `json:"plan"`
	// Estimate is the estimate stage's completion-goal estimate (a
	// what-if, Polo, PhD thesis, UPC 2014, §3.4, §5.3.4) at one instant;
	// null when it did not run for the job.
	Estimate *Estimate `json:"estimate"`
	// Harvest is the job's length type for the class selection of Zhang
	// et al., OSDI'16 (Algorithm 1 line 3, W[type, class]); null when the
	// harvest stage did not run.
	Harvest *Harvest `json:"harvest"`
	// Phases is the per-phase resource profile of the fastest profiled
	// configuration (Polo, PhD thesis, UPC 2014 §4.2.6).
	Phases []Phase `json:"phases"`
	// Warnings are the caveats of every stage about this job.
	Warnings []string `json:"warnings"`
}

// Identity says what runs the profile was built from.
type Identity struct {
	// Names are the raw job names (up to a few) that normalise to Job.
	Names []string `json:"names"`
	// Runs is the number of runs seen, over every stage's input.
	Runs int `json:"runs" jsonschema:"minimum=0"`
	// FirstStartMs and LastStartMs are the first and last run starts, epoch
	// milliseconds UTC; null when no run has a start time.
	FirstStartMs *int64 `json:"first_start_ms"`
	LastStartMs  *int64 `json:"last_start_ms"`
	// Sources are the dataset tables the profile was built from (runs,
	// skylines, provenance, profruns).
	Sources []string `json:"sources"`
}

// Number is a value with its provenance: where it came from and how.
type Number struct {
	Value float64 `json:"value"`
	// Source is inferred (computed from history), override (a user's SLO
	// file), measured (a profiling run) or default (an option's value).
	Source string `json:"source" jsonschema:"enum=inferred|override|measured|default"`
	// Detail says how: "p95 of T_inAvail over 30 runs", the override file.
	Detail string `json:"detail"`
}

// Number sources.
const (
	SourceInferred = "inferred"
	SourceOverride = "override"
	SourceMeasured = "measured"
	SourceDefault  = "default"
)

// SLO is a recurring job's service-level objective (Jyothi et al., OSDI'16 §4): offsets
// in seconds from the start of its period.
type SLO struct {
	// Actionable is true when the deadline is stable and the slack large
	// enough to act on; Reason says why not otherwise.
	Actionable bool   `json:"actionable"`
	Reason     string `json:"reason"`
	// Runs is the number of runs the SLO was inferred from.
	Runs int `json:"runs" jsonschema:"minimum=0"`
	// ArrivalS is when the inputs are available (p95 of T_inAvail);
	// DeadlineS when the outputs are first read (p50 of T_outRead). Null
	// when they could not be inferred.
	ArrivalS  *Number `json:"arrival_s"`
	DeadlineS *Number `json:"deadline_s"`
	// SlackRatio is median(T_outRead − T_end) / (T_end − T_start); null when
	// unknown.
	SlackRatio *float64 `json:"slack_ratio"`
	Override   Override `json:"override"`
	Warnings   []string `json:"warnings"`
}

// Override says whether a user's SLO file applies to the job.
type Override struct {
	Applies bool `json:"applies"`
	// File is the override file, Fields the SLO fields it sets.
	File   string   `json:"file"`
	Fields []string `json:"fields"`
}

// Skyline is the reservation skyline fitted to the job's runs (Jyothi et al., OSDI'16 §5).
// Containers and container·steps as in `wlprof skyline -o json`.
type Skyline struct {
	Runs  int     `json:"runs" jsonschema:"minimum=1"`
	StepS float64 `json:"step_s" jsonschema:"exclusiveMinimum=0"`
	Alpha float64 `json:"alpha" jsonschema:"minimum=0,maximum=1"`
	Beta  float64 `json:"beta" jsonschema:"minimum=0"`
	Model string  `json:"model"`
	// Containers is the LP solution per step; Reservation the whole
	// containers to reserve per step (Containers rounded up). Same length.
	Containers  []float64 `json:"containers"`
	Reservation []int64   `json:"reservation"`
	// Stages are the reservation as runs of equal height: what a
	// reservation system takes.
	Stages          []Stage `json:"stages"`
	PeakReservation int64   `json:"peak_reservation" jsonschema:"minimum=0"`
	Objective       float64 `json:"objective"`
	// OverAllocation and UnderAllocation are means over runs in
	// container·steps.
	OverAllocation  float64 `json:"over_allocation" jsonschema:"minimum=0"`
	UnderAllocation float64 `json:"under_allocation" jsonschema:"minimum=0"`
	// ReservedAreaContainerS is Σ reservation · step; UsedAreaContainerS
	// the mean over runs of what the run used, its samples integrated over
	// time (not quantised to steps).
	ReservedAreaContainerS float64 `json:"reserved_area_container_s" jsonschema:"minimum=0"`
	UsedAreaContainerS     float64 `json:"used_area_container_s" jsonschema:"minimum=0"`
	// ProvisioningRatio is the mean over runs of reserved area / the run's
	// used area.
	ProvisioningRatio float64 `json:"provisioning_ratio" jsonschema:"minimum=0"`
	// AlphaSweep is the over- against under-allocation trade-off, when
	// asked for.
	AlphaSweep []SweepPoint `json:"alpha_sweep"`
	Warnings   []string     `json:"warnings"`
}

// Stage is a run of steps with the same reservation.
type Stage struct {
	OffsetS    float64 `json:"offset_s" jsonschema:"minimum=0"`
	DurationS  float64 `json:"duration_s" jsonschema:"exclusiveMinimum=0"`
	Containers int64   `json:"containers" jsonschema:"minimum=0"`
}

// SweepPoint is the fit at one α (Jyothi et al., OSDI'16 Fig. 9b/9c).
type SweepPoint struct {
	Alpha             float64 `json:"alpha" jsonschema:"minimum=0,maximum=1"`
	OverAllocation    float64 `json:"over_allocation" jsonschema:"minimum=0"`
	UnderAllocation   float64 `json:"under_allocation" jsonschema:"minimum=0"`
	ProvisioningRatio float64 `json:"provisioning_ratio" jsonschema:"minimum=0"`
	PeakReservation   int64   `json:"peak_reservation" jsonschema:"minimum=0"`
}

// ElasticityModel is the memory elasticity of one task kind (Iorgulescu et al., ATC'17):
// runtime as a function of the memory given to the task.
type ElasticityModel struct {
	Task      string `json:"task" jsonschema:"minLength=1"`
	Framework string `json:"framework"`
	// Kind is the model: step (mappers) or spill-rate (reducers).
	Kind string `json:"kind" jsonschema:"minLength=1"`
	// Slots is how many copies of the task ran at once on the node when
	// it was profiled (models that differ only in slots differ here).
	Slots int `json:"slots" jsonschema:"minimum=0"`
	// InputBytes is the task input the model is for (the profiled runs'
	// median, or what wlprof elasticity --input-bytes carried it to):
	// ideal memory, spilled bytes and runtimes scale with it (see
	// elasticity.Model.Retarget); 0 when unknown.
	InputBytes       float64 `json:"input_bytes" jsonschema:"minimum=0"`
	IdealMemoryBytes float64 `json:"ideal_memory_bytes" jsonschema:"exclusiveMinimum=0"`
	IdealRuntimeS    float64 `json:"ideal_runtime_s" jsonschema:"minimum=0"`
	// Params are the model's fitted parameters (disk_rate_bytes_per_s,
	// expansion_factor, ...), by name.
	Params map[string]float64 `json:"params"`
	// DiskBandwidthBytesPerS is the most disk bandwidth any curve point
	// needs (the largest DiskBytesPerS).
	DiskBandwidthBytesPerS float64 `json:"disk_bandwidth_bytes_per_s" jsonschema:"minimum=0"`
	// Curve is the predicted runtime from 10% to 100% of the ideal memory,
	// by increasing memory.
	Curve      []CurvePoint `json:"curve"`
	Validation *Validation  `json:"validation"`
	Warnings   []string     `json:"warnings"`
}

// CurvePoint is one point of an elasticity curve.
type CurvePoint struct {
	MemoryBytes float64 `json:"memory_bytes" jsonschema:"exclusiveMinimum=0"`
	RuntimeS    float64 `json:"runtime_s" jsonschema:"minimum=0"`
	// Penalty is runtime / ideal runtime − 1: 0 at ideal memory, 0.5 for
	// a task that takes half as long again. Never negative.
	Penalty float64 `json:"penalty" jsonschema:"minimum=0"`
	// Slowdown is runtime / ideal runtime (Iorgulescu et al.'s (ATC'17) "1.5× penalty"),
	// Penalty + 1; 0 in files written before the field existed.
	Slowdown float64 `json:"slowdown" jsonschema:"minimum=0"`
	// SpilledBytes is what the task writes to local disk at this memory
	// (simulated, fitted to measured spills where there are some).
	SpilledBytes float64 `json:"spilled_bytes" jsonschema:"minimum=0"`
	// DiskBytesPerS is the extra disk traffic over the runtime: the
	// bandwidth the node must give the task at this memory.
	DiskBytesPerS float64 `json:"disk_bytes_per_s" jsonschema:"minimum=0"`
}

// Validation is how the model predicts runs that were not used to fit it.
type Validation struct {
	Runs int `json:"runs" jsonschema:"minimum=0"`
	// MeanAbsError and MaxAbsError are |predicted − measured| / measured.
	MeanAbsError float64 `json:"mean_abs_error" jsonschema:"minimum=0"`
	MaxAbsError  float64 `json:"max_abs_error" jsonschema:"minimum=0"`
}

// Phase is the resource profile of one phase of the job (map, shuffle,
// reduce, or a Spark stage), as Polo, PhD thesis, UPC 2014 §4.2.6 keeps it: what one task
// uses of the node it was profiled on while Slots tasks run there at once
// (Table 4.2: "the percentage of each TaskTracker's capacity that is used
// by a single execution of the sub-phase").
type Phase struct {
	Phase string `json:"phase" jsonschema:"minLength=1"`
	// Tasks and TaskRuntimeS are the tasks of the phase and their median
	// runtime at the fastest configuration.
	Tasks        int     `json:"tasks" jsonschema:"minimum=0"`
	TaskRuntimeS float64 `json:"task_runtime_s" jsonschema:"minimum=0"`
	// CPUShare is the share of the node's CPU capacity one task used in the
	// phase: the CPU seconds (user + system) of the Slots tasks over the
	// phase, divided by the phase's wall time, the node's CPUs (NodeCPUs)
	// and Slots. A node kept at 100% CPU by 4 tasks gives each 25% (0.25,
	// Polo, PhD thesis, UPC 2014 §4.2.6); one single-threaded task alone on a 4-CPU node is
	// at most 0.25 too. It is not the fraction of the phase's wall time the
	// task was on a CPU (that is CPUShare × NodeCPUs × Slots).
	CPUShare float64 `json:"cpu_share" jsonschema:"minimum=0,maximum=1"`
	// IOShare is the share of the node's disk bandwidth one task used in
	// the phase: the storage bytes read and written by the Slots tasks over
	// the phase, divided by its wall time and Slots, over
	// IOCapacityBytesPerS (capped at 1).
	IOShare float64 `json:"io_share" jsonschema:"minimum=0,maximum=1"`
	// IOCapacityBytesPerS is the node's disk bandwidth IOShare is a share
	// of, bytes per second.
	IOCapacityBytesPerS float64 `json:"io_capacity_bytes_per_s" jsonschema:"minimum=0"`
	// IOCapacitySource says where IOCapacityBytesPerS comes from:
	// "measured" (the profiler's sequential write and read calibration of
	// the node's disk), "flag" (given with --io-capacity), or "observed"
	// (the profiling runs recorded no capacity: the best rate seen for this
	// job, so the share is relative to the job and not comparable across
	// jobs).
	IOCapacitySource string `json:"io_capacity_source" jsonschema:"enum=measured|flag|observed"`
	// MemoryBytes is one task's mean resident set over the phase.
	MemoryBytes float64 `json:"memory_bytes" jsonschema:"minimum=0"`
	// Slots is the concurrency of the fastest configuration.
	Slots int `json:"slots" jsonschema:"minimum=0"`
	// NodeCPUs is the number of CPUs of the node the shares are of (0 when
	// the profiling run did not record it).
	NodeCPUs int `json:"node_cpus" jsonschema:"minimum=0"`
}

// Plan is the job's place in a packed reservation plan (Jyothi et al., OSDI'16 §6) and
// its held-out replay (§9).
type Plan struct {
	// PlannedOffsetS is where the job's reservation starts, seconds from
	// the start of its period (PeriodS); Naive when the planner kept the
	// skyline at its arrival because packing it raised the footprint.
	PlannedOffsetS float64 `json:"planned_offset_s" jsonschema:"minimum=0"`
	PeriodS        float64 `json:"period_s" jsonschema:"exclusiveMinimum=0"`
	Naive          bool    `json:"naive"`
	// HeldOutRuns are the runs held out of the fit and replayed against
	// the reservation alone; HeldOutMissRate the share that missed the
	// deadline, HeldOutMissRateDRA with dynamic reprovisioning (§7). Null
	// when nothing was held out.
	HeldOutRuns        int      `json:"held_out_runs" jsonschema:"minimum=0"`
	HeldOutMissRate    *float64 `json:"held_out_miss_rate" jsonschema:"minimum=0,maximum=1"`
	HeldOutMissRateDRA *float64 `json:"held_out_miss_rate_dra" jsonschema:"minimum=0,maximum=1"`
}

// Estimate is a job's completion-goal estimate (Polo, PhD thesis, UPC 2014): the inputs it
// was computed from (task counts and µ per phase) and its slots.
type Estimate struct {
	// AtMs is the instant of the estimate and DeadlineMs the job's goal,
	// epoch milliseconds UTC; DeadlineFrom says where the goal came from
	// ("slo" or a file) and ProfileFrom where the phases did.
	AtMs         int64  `json:"at_ms"`
	DeadlineMs   int64  `json:"deadline_ms"`
	DeadlineFrom string `json:"deadline_from"`
	ProfileFrom  string `json:"profile_from"`
	// Phases are the job's phases in execution order.
	Phases []EstimatePhase `json:"phases"`
	// SReq is eq. 1's slots for the current phase (besides its running
	// tasks); SFit Alg. 2's tasks of it to run before the earliest goal of
	// all jobs (null without an availability); MeetsGoal whether the goal
	// can be met.
	SReq      int  `json:"s_req" jsonschema:"minimum=0"`
	SFit      *int `json:"s_fit" jsonschema:"minimum=0"`
	MeetsGoal bool `json:"meets_goal"`
	// SReqWaves is the fewest slots besides the current phase's running
	// tasks that carry the job through every phase by its goal with whole
	// tasks, each holding one slot for µ (Polo, PhD thesis, UPC 2014,
	// §3.4.6's waves; s_req is eq. 1's fluid reading beside it, which
	// undercounts when few µ are left); every pending task of the current
	// phase when no slot count meets the goal. Null only in files written
	// before it existed.
	SReqWaves *int `json:"s_req_waves" jsonschema:"minimum=0"`
	// LateTasks are the job's whole tasks that end after its goal when
	// the availability's slots go earliest goal first, one task to a slot
	// for µ (meets_goal is late_tasks = 0); null without an availability.
	LateTasks *int `json:"late_tasks" jsonschema:"minimum=0"`
	// Rank is the job's place, 1 first, in the placement order of Polo,
	// PhD thesis, UPC 2014, §3.4.1 (goals missed first, then jobs without
	// data, then by s_req, largest first) over every job of the estimate.
	// Null only in files written before it existed.
	Rank *int `json:"rank" jsonschema:"minimum=1"`
}

// EstimatePhase is one phase's profile and progress in an Estimate.
type EstimatePhase struct {
	Phase string `json:"phase" jsonschema:"minLength=1"`
	// Tasks is the phase's task count and MuS its mean task length µ,
	// seconds; PendingTasks those not started at the instant.
	Tasks        int     `json:"tasks" jsonschema:"minimum=0"`
	MuS          float64 `json:"mu_s" jsonschema:"exclusiveMinimum=0"`
	PendingTasks int     `json:"pending_tasks" jsonschema:"minimum=0"`
	// SReq is eq. 1 for the phase, in its share of the time left.
	SReq int `json:"s_req" jsonschema:"minimum=0"`
	// MuFrom says where µ came from: "--jobs" (the jobs file),
	// the task history, the profiling runs, or "assumed: ..." when the
	// phase took another phase's µ (Polo, PhD thesis, UPC 2014, §3.4.5).
	// Empty only in files written before it existed.
	MuFrom string `json:"mu_from"`
}

// Harvest is a job's length type (Zhang et al., OSDI'16 §4.1): short, medium or long
// by its last run's duration against two thresholds.
type Harvest struct {
	// JobType is short (LastRunS below ShortBelowS), long (above
	// LongAboveS) or medium.
	JobType  string  `json:"job_type" jsonschema:"enum=short|medium|long"`
	LastRunS float64 `json:"last_run_s" jsonschema:"minimum=0"`
	// ShortBelowS and LongAboveS are the thresholds, ThresholdsFrom where
	// they came from: "flags", "history" (the harvest stage's rule) or
	// "paper" (Zhang et al., OSDI'16 §6's 173 s and 433 s).
	ShortBelowS    float64 `json:"short_below_s" jsonschema:"minimum=0"`
	LongAboveS     float64 `json:"long_above_s" jsonschema:"minimum=0"`
	ThresholdsFrom string  `json:"thresholds_from" jsonschema:"enum=flags|history|paper"`
}
