package estimate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/wlprof/wlprof/classify"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/bytesize"
	"github.com/wlprof/wlprof/internal/timeflag"
	"github.com/wlprof/wlprof/slo"
)

// Options of the estimate stage. Start from DefaultOptions.
type Options struct {
	// AtMs is the instant of the estimate (T_curr), Unix ms, when AtSet;
	// otherwise the latest instant of the runs table (submit, start or
	// end), else now. AtSet tells a given epoch (0) from no instant.
	AtMs  int64
	AtSet bool
	// Job, when set, filters the output; s_fit is still computed over
	// every job (Alg. 2 is a property of the whole set).
	Job string
	// SlotCPU and SlotMemory are one slot's size as fractions of a server
	// (the unit of the usage series). SlotMemory 0: memory does not bound
	// the slots. Default 1/16 of a server's CPU.
	SlotCPU, SlotMemory float64
	// Reserve is the share of every server kept from batch work on top of
	// the primary tenants' usage. Default 0.1.
	Reserve float64
	// AvailabilityStep is the bin of the folded daily profile; it divides
	// a day. Default 1 hour.
	AvailabilityStep time.Duration
	// PlacementCycle is the period T of the scheduler's placement control
	// cycle (Polo, PhD thesis, UPC 2014, §4.2.2: "control cycles of period
	// T, which is of the order of tens of seconds"): Alg. 2 fits the
	// earliest job's window from the next cycle, and s_fit is what must
	// start in the current one. Default 30 s; 0 fits from the instant.
	PlacementCycle time.Duration
	// AvailabilityFile, when set, is the daily profile (start_s,slots)
	// instead of the one folded from the periodic tenants.
	AvailabilityFile string
	// Jobs is the --jobs file: deadlines, phases and progress the data
	// lack (nil: none); when nil, Load reads JobsPath, if any.
	Jobs     *JobsFile
	JobsPath string // --jobs: a JSON or YAML jobs file (jobsfile.go); "": none
	// SLO are the slo stage's options, overrides included (Load reads
	// SLO.OverridesFile, --overrides, when SLO.Overrides is nil).
	SLO slo.Options
	// Classify are the classify stage's options (which tenants are
	// periodic, and the series' step).
	Classify classify.Options
}

// DefaultOptions: slots of 1/16 of a server, 10% of every server kept
// back, an hourly daily profile, a 30-second placement cycle.
func DefaultOptions() Options {
	return Options{SlotCPU: 1.0 / 16, Reserve: 0.1, AvailabilityStep: time.Hour, PlacementCycle: 30 * time.Second, SLO: slo.DefaultOptions()}
}

// Validate reports every bad option at once.
func (o *Options) Validate() error {
	var errs []error
	if !(o.SlotCPU > 0 && o.SlotCPU <= 1) {
		errs = append(errs, fmt.Errorf("slot-cpu %g: want a share of a server's CPU in (0, 1]", o.SlotCPU))
	}
	if !(o.SlotMemory >= 0 && o.SlotMemory <= 1) {
		errs = append(errs, fmt.Errorf("slot-memory %g: want a share of a server's memory in (0, 1], or 0 (not bounded)", o.SlotMemory))
	}
	if !(o.Reserve >= 0 && o.Reserve < 1) {
		errs = append(errs, fmt.Errorf("reserve %g: want a share of a server in [0, 1)", o.Reserve))
	}
	if o.AvailabilityStep < time.Second || (24*time.Hour)%o.AvailabilityStep != 0 {
		errs = append(errs, fmt.Errorf("availability-step %v: want a step of at least 1s that divides a day", o.AvailabilityStep))
	}
	if o.PlacementCycle < 0 {
		errs = append(errs, fmt.Errorf("placement-cycle %v: want a period ≥ 0", o.PlacementCycle))
	}
	if err := o.Classify.Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// JobInput is one job as Load finds it.
type JobInput struct {
	Job string
	// GoalS is the completion goal, Unix seconds; GoalFrom says where it
	// came from ("slo" or the jobs file's path).
	GoalS    float64
	GoalFrom string
	// Phases in execution order with their progress at the instant;
	// ProfileFrom says where they came from.
	Phases      []Phase
	ProfileFrom string
	// Warnings are caveats about this job's inputs (an assumed µ).
	Warnings []string
}

// NotEstimated is a job Load or Run could not estimate, and why.
type NotEstimated struct {
	Job    string `json:"job"`
	Reason string `json:"reason"`
	// Rank is the job's place in §3.4.1's order when it has a goal but
	// no µ in any phase ("no available data"); null otherwise.
	Rank *int `json:"rank"`

	noData bool    // a goal and phases, no µ: ranked
	goalS  float64 // its goal, Unix seconds, when noData
}

// Input is what Run estimates.
type Input struct {
	AtS          float64
	Jobs         []JobInput
	NotEstimated []NotEstimated
	// Availability is the daily profile (nil: none; s_fit is then not
	// computed); AvailabilityFrom says where it came from.
	Availability     *Availability
	AvailabilityFrom string
	// Tenants are the periodic tenants folded into it.
	Tenants  []string
	Warnings []string
}

// ErrNoJobs: neither the dataset nor the jobs file has a job to estimate.
var ErrNoJobs = errors.New("estimate: no jobs to estimate: ingest job runs and task history (jhist, spark-eventlog), or give --jobs")

// ReadFiles reads the files o names into o: JobsPath into Jobs and
// SLO.OverridesFile into SLO.Overrides, where those are not set yet.
// Every problem is returned, named as its flag.
func (o *Options) ReadFiles() error {
	var errs []error
	if o.JobsPath != "" && o.Jobs == nil {
		jf, err := LoadJobsFile(o.JobsPath)
		if err != nil {
			errs = append(errs, fmt.Errorf("--jobs: %w", err))
		}
		o.Jobs = jf
	}
	if o.SLO.OverridesFile != "" && o.SLO.Overrides == nil {
		ov, err := slo.LoadOverrides(o.SLO.OverridesFile)
		if err != nil {
			errs = append(errs, fmt.Errorf("--overrides: %w", err))
		}
		o.SLO.Overrides = ov
	}
	return errors.Join(errs...)
}

// Load gathers the jobs' goals (the slo stage's SLOs, or the jobs file),
// their phases (task history, or the jobs file) and the availability
// (the periodic tenants' folded day, or --availability); see doc.go. ds
// may be nil: the jobs file alone. An Options.Job that is no job of
// either is the unknown-job error. With no job at all, Load returns
// ErrNoJobs with the input it read (the availability alone, which a
// report may still show by running it).
func Load(ctx context.Context, ds *dataset.Dataset, opts Options) (Input, error) {
	if err := opts.Validate(); err != nil {
		return Input{}, err
	}
	if err := opts.ReadFiles(); err != nil {
		return Input{}, err
	}
	var in Input
	at := opts.AtMs
	if opts.AtMs != 0 {
		opts.AtSet = true // an instant set without AtSet (callers written before it) is still given
	}
	if !opts.AtSet && ds != nil {
		var err error
		if at, err = latestRun(ctx, ds); err != nil {
			return Input{}, err
		}
	}
	if !opts.AtSet && at == 0 {
		at = time.Now().UnixMilli()
		in.Warnings = append(in.Warnings, "no --at and no runs: the estimate is at the current time")
	}
	in.AtS = float64(at) / 1000

	// Goals.
	slos, err := slo.ByJob(ctx, ds, opts.SLO)
	if err != nil {
		return Input{}, err
	}
	hist, sandbox, err := loadHistory(ctx, ds)
	if err != nil {
		return Input{}, err
	}
	inst, err := loadInstances(ctx, ds)
	if err != nil {
		return Input{}, err
	}
	names := map[string]bool{}
	for j := range slos {
		names[j] = true
	}
	for j := range hist {
		names[j] = true
	}
	for j := range inst {
		names[j] = true
	}
	if opts.Jobs != nil {
		for _, j := range opts.Jobs.Jobs {
			names[j.Job] = true
		}
	}
	ids := make([]string, 0, len(names))
	for j := range names {
		ids = append(ids, j)
	}
	sort.Strings(ids)
	for _, id := range ids {
		ji := JobInput{Job: id}
		spec := opts.Jobs.find(id)
		var why []string
		if r := goal(&ji, in.AtS, slos[id], spec, opts.Jobs); r != "" {
			why = append(why, r)
		}
		var r string
		if ih := inst[id]; ih != nil && (spec == nil || len(spec.Phases) == 0) {
			r = instancePhases(&ji, in.AtS, ih) // a job with instances: they are its task history
		} else {
			r = phases(&ji, in.AtS, hist[id], sandbox[id], spec, opts.Jobs)
		}
		if r != "" {
			why = append(why, r)
		}
		if len(why) > 0 {
			ne := NotEstimated{Job: id, Reason: strings.Join(why, "; ")}
			ne.noData, ne.goalS = noData(&ji, len(why)), ji.GoalS
			in.NotEstimated = append(in.NotEstimated, ne)
			continue
		}
		in.Jobs = append(in.Jobs, ji)
	}

	// Availability.
	switch {
	case opts.AvailabilityFile != "":
		a, err := ReadAvailability(opts.AvailabilityFile)
		if err != nil {
			return Input{}, err
		}
		in.Availability, in.AvailabilityFrom = a, opts.AvailabilityFile
	case ds != nil && ds.Rows(dataset.UsageTable.Name) > 0:
		a, tenants, warn, err := foldAvailability(ctx, ds, opts)
		if err != nil {
			return Input{}, err
		}
		in.Availability, in.Tenants, in.AvailabilityFrom = a, tenants, "periodic tenants"
		in.Warnings = append(in.Warnings, warn...)
	default:
		in.Warnings = append(in.Warnings, "no availability: the dataset has no usage of primary tenants and no --availability was given, so s_fit is not computed")
	}
	if opts.Job != "" && !in.known(opts.Job) {
		if ds != nil {
			return Input{}, ds.UnknownJob(ctx, dataset.RunsTable.Name, opts.Job)
		}
		return Input{}, fmt.Errorf("job %q is not in --jobs", opts.Job)
	}
	if len(in.Jobs) == 0 && len(in.NotEstimated) == 0 {
		return in, ErrNoJobs
	}
	return in, nil
}

// known says whether job is one of the input's, estimated or not.
func (in *Input) known(job string) bool {
	for _, j := range in.Jobs {
		if j.Job == job {
			return true
		}
	}
	for _, j := range in.NotEstimated {
		if j.Job == job {
			return true
		}
	}
	return false
}

// latestRun is the latest submit, start or end in the runs table, Unix ms
// (0 when none).
func latestRun(ctx context.Context, ds *dataset.Dataset) (int64, error) {
	var at int64
	if ds.Rows(dataset.RunsTable.Name) == 0 {
		return 0, nil
	}
	err := dataset.Scan(ctx, ds, dataset.RunsTable, func(r *dataset.Run) error {
		for _, t := range []int64{r.SubmitMs, r.StartMs, r.EndMs} {
			if t != dataset.NoTime && t > at {
				at = t
			}
		}
		return nil
	})
	return at, err
}

// goal sets ji's goal: the jobs file's deadline_s after the instant, else
// the deadline of the SLO's next period instance whose deadline is after
// the instant. It says why there is none.
func goal(ji *JobInput, atS float64, sj *slo.Job, spec *JobSpec, f *JobsFile) string {
	if spec != nil && spec.DeadlineS != nil {
		ji.GoalS, ji.GoalFrom = atS+*spec.DeadlineS, f.Path
		return ""
	}
	const hint = " (give deadline_s in --jobs)"
	if sj == nil {
		return "no deadline: the slo stage does not know the job" + hint
	}
	if !sj.Actionable {
		return "no deadline: the SLO is not actionable: " + sj.Reason + hint
	}
	pm, am, ok := sj.Anchor()
	if !ok || pm <= 0 || sj.DeadlineS == nil {
		return "no deadline: the SLO has no period, anchor or deadline" + hint
	}
	p, a := float64(pm)/1000, float64(am)/1000
	k := math.Floor((atS-a-*sj.DeadlineS)/p) + 1
	ji.GoalS, ji.GoalFrom = math.Round((a+k*p+*sj.DeadlineS)*1000)/1000, "slo" // to the ms, as the SLO's anchor
	return ""
}

// phases sets ji's phases: the jobs file's (µ from the profiling runs
// when it gives none), else the task history's: every task pending,
// unless a run of the job was in progress at atS, whose tasks then say
// which are done, running (and for how long) and pending.
func phases(ji *JobInput, atS float64, h *history, sandbox map[string]sandboxMu, spec *JobSpec, f *JobsFile) string {
	if spec != nil && len(spec.Phases) > 0 {
		var why []string
		var muFrom []string
		for _, ps := range spec.Phases {
			p := Phase{Name: ps.Phase, Tasks: ps.Tasks, Pending: ps.Tasks, Running: ps.RunningS}
			if ps.Pending != nil {
				p.Pending = *ps.Pending
			}
			switch {
			case ps.MuS != nil:
				p.MuS, p.MuFrom = *ps.MuS, "--jobs"
			case sandbox[ps.Phase].n > 0:
				sb := sandbox[ps.Phase]
				p.MuS = sb.mu
				p.MuFrom = fmt.Sprintf("profiling runs: mean time per task of %d runs at the profile's setting, %d slot(s) and %s", sb.n, sb.slots, bytesize.Format(sb.memBytes))
				muFrom = append(muFrom, ps.Phase+": "+p.MuFrom)
			}
			ji.Phases = append(ji.Phases, p)
		}
		ji.ProfileFrom = f.Path
		if len(muFrom) > 0 {
			ji.ProfileFrom += " (µ " + strings.Join(muFrom, ", ") + ")"
		}
		if !assumeMu(ji, "no mu_s in --jobs, no profiling runs") {
			for _, p := range ji.Phases {
				why = append(why, fmt.Sprintf("phase %q has no µ (give mu_s in --jobs, or profile the task)", p.Name))
			}
		}
		return strings.Join(why, "; ")
	}
	if h == nil {
		return "no profile: no task history (jhist or spark-eventlog) and no phases in --jobs"
	}
	run, total, finished, running, inProgress := h.progress(atS)
	for _, hp := range h.phases {
		p := Phase{Name: hp.name, Tasks: hp.tasks, MuS: hp.mu, Pending: hp.tasks,
			MuFrom: fmt.Sprintf("task history: mean of %d successful attempts", hp.n)}
		if inProgress {
			if n, ok := total[hp.name]; ok {
				p.Tasks = n
			}
			p.Running = running[hp.name]
			p.Pending = max(0, p.Tasks-finished[hp.name]-len(p.Running))
		}
		ji.Phases = append(ji.Phases, p)
	}
	ji.ProfileFrom = fmt.Sprintf("task history (%d runs)", h.runs)
	if inProgress {
		ji.ProfileFrom += fmt.Sprintf("; progress at the instant from run %s, in progress then", run)
	}
	return ""
}

// assumeMu gives every phase of ji without a µ the µ of the nearest
// earlier phase with one (else the nearest later): Polo, PhD thesis, UPC
// 2014, §3.4.5, "If no estimate is provided, the scheduler assumes that
// the computational cost of a map task is the same as that of a reduce
// task". Each assumption is a warning of the job, saying why the phase
// has none (none). It is false when no phase has a µ: the job has no data
// (§3.4.1) and is not estimated.
func assumeMu(ji *JobInput, none string) bool {
	src := -1
	for k, p := range ji.Phases {
		if p.MuS > 0 {
			src = k
			break
		}
	}
	if src < 0 {
		return false
	}
	for k := range ji.Phases {
		p := &ji.Phases[k]
		if p.MuS > 0 {
			src = k
			continue
		}
		from := ji.Phases[src]
		p.MuS = from.MuS
		p.MuFrom = fmt.Sprintf("assumed: phase %q's µ (Polo, PhD thesis, UPC 2014, §3.4.5: with no estimate, a reduce task costs what a map task does)", from.Name)
		ji.Warnings = append(ji.Warnings, fmt.Sprintf("phase %q has no µ (%s): phase %q's %s is assumed (Polo, PhD thesis, UPC 2014, §3.4.5)",
			p.Name, none, from.Name, timeflag.FormatSeconds(from.MuS)))
	}
	return true
}

// noData says whether ji, not estimated for nreasons reasons, lacks only
// a µ: it has a goal and phases, none with a µ — §3.4.1's "jobs for which
// there is no available data", which it ranks second.
func noData(ji *JobInput, nreasons int) bool {
	if nreasons != 1 || ji.GoalFrom == "" || len(ji.Phases) == 0 {
		return false
	}
	for _, p := range ji.Phases {
		if p.MuS > 0 {
			return false
		}
	}
	return true
}
