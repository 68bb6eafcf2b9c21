package reports

import (
	"encoding/json"

	"github.com/wlprof/wlprof/profile"
)

// Input is everything a report shows: the profile documents the stages
// produced, plus the plain plot data behind them. It is built by package pipeline from
// the stages' results; this package imports no stage. A nil or empty part
// renders as "not computed" with the reason in Notes.
type Input struct {
	// Title heads the report; "" gives "wlprof report".
	Title string
	// Jobs are the recurring jobs, one profile each (written as
	// profiles/<job>.json). Order does not matter: the report sorts by id.
	Jobs []Job
	// Tenants is the classify stage's result; nil when it did not run.
	Tenants *Tenants
	// Skipped are jobs a stage left out, with the reason (too few runs).
	Skipped []Skipped
	// Plan is the plan stage's packing and replay; nil when it did not run.
	Plan *Plan
	// Simulation is the simulate stage's what-if; nil when it did not run.
	Simulation *Simulation
	// Inputs are the dataset's ingested inputs, in the manifest's order,
	// for the data-quality section; nil when not known.
	Inputs []DataInput
	// Estimate is the estimate stage's what-if; nil when it did not run.
	Estimate *Estimate
	// Harvest is the harvest stage's what-if; nil when it did not run.
	Harvest *Harvest
	// Placement is the placement stage's classes and replay; nil when it
	// did not run.
	Placement *Placement
	// Constraints is the constraints stage's profile; nil when it did not
	// run.
	Constraints *Constraints
	// Planner is what the answers to the planner's questions need beyond
	// the sections (Decisions); nil leaves them to the sections' data.
	Planner *Planner
	// Notes say, per stage (classify, slo, skyline, elasticity,
	// profiler), why it was not computed or what to keep in mind; shown at
	// the top of the stage's section.
	Notes map[string][]string
	// Absent says, per stage (slo, skyline), why a job that is neither in
	// the stage's results nor in Skipped has none: "no runs of this job in
	// the runs table". The job's section shows it after "not computed".
	Absent map[string]string
}

// Stage names, as sections and Notes use them.
const (
	StageClassify   = "classify"
	StageSLO        = "slo"
	StageSkyline    = "skyline"
	StagePlan       = "plan"
	StageElasticity = "elasticity"
	StageProfiler   = "profiler"
)

// Stages in report order.
var Stages = []string{StageClassify, StageSLO, StageSkyline, StagePlan, StageElasticity, StageProfiler, StageSimulate, StageEstimate, StageHarvest, StagePlacement, StageConstraints}

// Plan is the reservation plan (Jyothi et al., OSDI'16 §6, §9): the packed load over the
// LCM beside the naive plan and the lower bound, one row per placement,
// and the held-out misses at each α.
type Plan struct {
	LCMS, StepS                           float64
	Footprint, NaiveFootprint, LowerBound int64
	// Load and NaiveLoad are containers per step over the LCM.
	Load, NaiveLoad []int64
	Rows            []PlanRow
	Alpha           []PlanAlpha
	// NotPlanned are the jobs left out, with the reason.
	NotPlanned []Skipped
}

// PlanRow is one placement and its job's held-out replay.
type PlanRow struct {
	Job                                    string
	PeriodS, WindowStartS, WindowEndS      float64
	OffsetS                                float64
	Steps                                  int
	Peak                                   int64
	Naive                                  bool
	TrainRuns, TestRuns, Misses, MissesDRA int
	DRAAddedContainerS                     float64
}

// PlanAlpha is the held-out SLO misses of skylines fitted at one α.
type PlanAlpha struct {
	Alpha            float64
	TestRuns, Misses int
}

// Job is one recurring job: its profile and the data of its plots.
type Job struct {
	Profile *profile.Job
	// Runs are the job's runs as the skyline fit saw them: containers per
	// step of Profile.Skyline.StepS, aligned at the run's start.
	Runs []Series
	// Measured are the profiling runs behind the elasticity models, drawn
	// as points over each model's curve (matched by task).
	Measured []Measured
	// Sweeps are the profiler's sweeps of this job (Polo, PhD thesis, UPC 2014, §4.2.6).
	Sweeps []Sweep
	// Reservation, when set, is the job's YARN ReservationSubmissionRequest
	// (JSON), written as reservations/<job>.json.
	Reservation json.RawMessage
}

// Series is an evenly spaced series: Values[k] holds from k·StepS seconds.
type Series struct {
	Name   string
	StepS  float64
	Values []float64
}

// Spectrum is the power of a series by frequency.
type Spectrum struct {
	FrequencyHz []float64
	Power       []float64
}

// Tenants is the classify stage's result: the published tenants.json plus
// representative series of each class.
type Tenants struct {
	File *profile.Tenants
	// Representatives are a few tenants per class (the closest to the
	// class centroid), with their series and spectrum.
	Representatives []Representative
}

// Representative is one tenant drawn for its class.
type Representative struct {
	Class    string
	Tenant   string
	Series   Series // utilisation, a fraction of a server
	Spectrum Spectrum
}

// Measured is one profiling run of a task: memory given, runtime taken.
type Measured struct {
	Task        string
	MemoryBytes float64
	RuntimeS    float64
	// Fit says whether the run was used to fit the model (else it
	// validated it).
	Fit bool
}

// Sweep is one profiler sweep: a task run under several settings.
type Sweep struct {
	Task string
	// Setting names what was varied: memory_bytes or slots.
	Setting string
	Points  []SweepPoint
}

// SweepPoint is one run of a sweep.
type SweepPoint struct {
	Setting      float64
	RuntimeS     float64
	PeakRSSBytes float64
}

// Skipped is a job a stage did not process.
type Skipped struct {
	Stage, Job, Reason string
}
