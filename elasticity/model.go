package elasticity

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/bytesize"
	"github.com/wlprof/wlprof/internal/quantile"
)

// Options control Build. Start from DefaultOptions.
type Options struct {
	// Job restricts Run to one job; "" models every job. Load refuses a
	// job the profruns table does not have (dataset.ErrUnknownJob).
	Job string
	// GridBytes is the step of the curve (Iorgulescu et al.'s (ATC'17) simulator assigns
	// memory in 100 MB steps). When ideal memory holds fewer than
	// minCurvePoints steps the curve uses ideal/10 instead, and says so.
	GridBytes int64
	// Overrides are configuration keys applied on top of every run's
	// Config (e.g. mapreduce.job.maps=400, wlprof.local.fetch.fraction=0.25).
	Overrides Conf
	// WallTime models wall time even where runs measured the time their
	// threads waited for a CPU (cpu_wait_s); by default one-slot runs are
	// modelled by wall time minus that wait.
	WallTime bool
	// InputBytes, when positive, retargets every model to a task input of
	// that size (Model.Retarget): a model profiled on a sample of the
	// input, carried to the whole.
	InputBytes int64
	// Fit is how the model's parameters are learnt: FitPair ("" too), from
	// two settings (as Iorgulescu et al., ATC'17 do), or FitLeastSquares, over every run, for
	// spill-rate models with three settings or more (the pair elsewhere,
	// with a warning).
	// Least squares averages the noise of many short runs, which matters
	// when the model is carried to a larger input (InputBytes): the
	// retarget multiplies the sample's errors with its runtimes.
	Fit string
}

// The values of Options.Fit.
const (
	FitPair         = "pair"
	FitLeastSquares = "least-squares"
)

// DefaultOptions: every job, a 100 MiB grid, no overrides, the pair fit.
func DefaultOptions() Options { return Options{GridBytes: 100 * mib, Fit: FitPair} }

// ErrNoRuns is the elasticity stage's "nothing to work on": Run has no
// profiling run (of Options.Job, when set) to model.
var ErrNoRuns = errors.New("elasticity: no profiling runs (ingest profruns-csv, jhist or spark-eventlog, or run wlprof profile run, first)")

// minCurvePoints and maxCurvePoints bound the curve's length: the grid
// step gives way to ideal/10 or ideal/1000 outside them.
const (
	minCurvePoints = 5
	maxCurvePoints = 1000
)

// Result is every model Build could fit, and every group it could not.
type Result struct {
	Models  []*Model  `json:"models"`
	Skipped []Skipped `json:"skipped"`
}

// Document is the versioned JSON document of wlprof elasticity -o json.
type Document struct {
	Version int `json:"version"`
	*Result
}

// Document returns the result as wlprof elasticity -o json writes it.
func (r *Result) Document() Document { return Document{Version: 1, Result: r} }

// Skipped is a group of runs that gave no model, and why.
type Skipped struct {
	Job       string `json:"job"`
	Task      string `json:"task"`
	Framework string `json:"framework"`
	Slots     int32  `json:"slots"`
	Runs      int    `json:"runs"`
	Reason    string `json:"reason"`
}

// Point is one memory on a model's curve.
type Point struct {
	MemoryBytes  int64   `json:"memory_bytes"`
	RuntimeS     float64 `json:"runtime_s"`
	Penalty      float64 `json:"penalty"`          // runtime / ideal runtime − 1 (0: no penalty), as the profile's
	Slowdown     float64 `json:"slowdown"`         // runtime / ideal runtime (Iorgulescu et al.'s (ATC'17) "1.5× penalty")
	SpilledBytes int64   `json:"spilled_bytes"`    // simulated bytes written to local disk
	DiskBytesPS  float64 `json:"disk_bytes_per_s"` // extra disk bytes over the runtime: the bandwidth it needs
}

// Setting is the runs at one memory.
type Setting struct {
	MemoryBytes        int64   `json:"memory_bytes"`
	Runs               int     `json:"runs"`
	RuntimeS           float64 `json:"runtime_s"` // median
	SpreadS            float64 `json:"spread_s"`  // max − min
	SpilledBytes       int64   `json:"spilled_bytes"`
	SimulatedSpilledBy int64   `json:"simulated_spilled_bytes"`
	Role               string  `json:"role"` // under-sized, well-sized
	UsedToFit          bool    `json:"used_to_fit"`
}

// Check is one run predicted by a model.
type Check struct {
	MemoryBytes int64   `json:"memory_bytes"`
	Repetition  int32   `json:"repetition"`
	MeasuredS   float64 `json:"measured_s"`
	PredictedS  float64 `json:"predicted_s"`
	Error       float64 `json:"error"` // (predicted − measured) / measured
}

// Validation sums a model's errors on runs it was not fitted to.
type Validation struct {
	Runs           int     `json:"runs"`
	MedianAbsError float64 `json:"median_abs_error"`
	MeanAbsError   float64 `json:"mean_abs_error"`
	MaxAbsError    float64 `json:"max_abs_error"`
	Checks         []Check `json:"checks"`
	Note           string  `json:"note,omitempty"`
	// The same per memory setting: each setting's median runtime over its
	// repetitions against the prediction (a sweep table's view, less
	// sensitive to one disturbed run on a shared machine).
	Settings               int     `json:"settings"`
	SettingsMedianAbsError float64 `json:"settings_median_abs_error"`
	SettingsMaxAbsError    float64 `json:"settings_max_abs_error"`
}

// LeastSquares is the same model fitted to every run.
type LeastSquares struct {
	IdealRuntimeS     float64    `json:"ideal_runtime_s"`
	UnderRuntimeS     float64    `json:"under_runtime_s,omitempty"`       // step
	DiskRateBytesPerS float64    `json:"disk_rate_bytes_per_s,omitempty"` // spill-rate; 0 = no penalty
	RMSES             float64    `json:"rmse_s"`
	Residuals         []Check    `json:"residuals"`
	Validation        Validation `json:"validation"` // leave one memory setting out
}

// Baseline is the measured-curve model's validation, for comparison.
type Baseline struct {
	Kind       string     `json:"kind"`
	Validation Validation `json:"validation"` // leave one memory setting out
}

// Model is one task's memory elasticity model.
type Model struct {
	Job              string `json:"job"`
	Task             string `json:"task"`
	Framework        string `json:"framework"`
	Slots            int32  `json:"slots"`
	Kind             string `json:"kind"` // step, spill-rate
	Simulator        string `json:"simulator"`
	Runs             int    `json:"runs"`
	IdealMemoryBytes int64  `json:"ideal_memory_bytes"`
	// InputBytes is the task input the model is for: the median of its
	// runs' inputs, or what Retarget carried it to (RetargetedFromBytes,
	// the runs' median, then says so).
	InputBytes             int64              `json:"input_bytes"`
	RetargetedFromBytes    int64              `json:"retargeted_from_bytes,omitempty"`
	IdealRuntimeS          float64            `json:"ideal_runtime_s"`
	Params                 map[string]float64 `json:"params"`
	ParamSources           map[string]string  `json:"param_sources"`
	FitMemoryBytes         []int64            `json:"fit_memory_bytes"` // under-sized, well-sized
	Curve                  []Point            `json:"curve"`
	DiskBandwidthBytesPerS float64            `json:"disk_bandwidth_bytes_per_s"`
	Validation             Validation         `json:"validation"`
	LeastSquares           *LeastSquares      `json:"least_squares,omitempty"`
	Baseline               Baseline           `json:"baseline"`
	Settings               []Setting          `json:"settings"`
	Warnings               []string           `json:"warnings"`

	predict func(m float64) float64
}

// MaxSlowdown is the largest slowdown (runtime / ideal runtime) on the
// model's curve (0 without one).
func (m *Model) MaxSlowdown() float64 {
	s := 0.0
	for _, pt := range m.Curve {
		s = max(s, pt.Slowdown)
	}
	return s
}

// Predict is the model's runtime at a memory, in seconds.
func (m *Model) Predict(memBytes int64) float64 { return m.predict(float64(memBytes)) }

type groupKey struct {
	job, task, framework string
	slots                int32
}

// Group is what one model is of: a job's task on a framework, at a slot
// count (tasks run at once).
type Group struct {
	Job, Task, Framework string
	Slots                int32
}

// GroupOf is the group of a run.
func GroupOf(r dataset.ProfRun) Group { return Group{r.Job, r.Task, r.Framework, r.Slots} }

// Less orders groups by job, task, framework and slots: Run's order.
func (g Group) Less(h Group) bool {
	if g.Job != h.Job {
		return g.Job < h.Job
	}
	if g.Task != h.Task {
		return g.Task < h.Task
	}
	if g.Framework != h.Framework {
		return g.Framework < h.Framework
	}
	return g.Slots < h.Slots
}

// Outcome is what became of one group: its model, or why it gave none.
type Outcome struct {
	Group   Group
	Model   *Model
	Skipped *Skipped
}

// build fits a model per job, task, framework and slot count: ModelGroup
// on each group's runs, in the input's order, then Collect.
func build(runs []dataset.ProfRun, opts Options) (*Result, error) {
	if opts.GridBytes <= 0 {
		return nil, fmt.Errorf("elasticity: grid %d bytes: want more than 0", opts.GridBytes)
	}
	groups := map[Group][]dataset.ProfRun{}
	for _, r := range runs {
		if opts.Job != "" && r.Job != opts.Job {
			continue
		}
		groups[GroupOf(r)] = append(groups[GroupOf(r)], r)
	}
	out := make([]Outcome, 0, len(groups))
	for g, rs := range groups {
		out = append(out, ModelGroup(g, rs, opts))
	}
	return Collect(out, opts)
}

// Collect makes Run's result of the groups' outcomes, in any order: models
// and skipped groups sorted by group. ErrNoRuns when there is none.
func Collect(outcomes []Outcome, opts Options) (*Result, error) {
	if len(outcomes) == 0 {
		if opts.Job != "" {
			return nil, fmt.Errorf("job %q: %w", opts.Job, ErrNoRuns)
		}
		return nil, ErrNoRuns
	}
	outcomes = slices.Clone(outcomes)
	sort.SliceStable(outcomes, func(i, j int) bool { return outcomes[i].Group.Less(outcomes[j].Group) })
	res := &Result{Models: []*Model{}, Skipped: []Skipped{}}
	for _, o := range outcomes {
		switch {
		case o.Model != nil:
			res.Models = append(res.Models, o.Model)
		case o.Skipped != nil:
			res.Skipped = append(res.Skipped, *o.Skipped)
		}
	}
	return res, nil
}

// ModelGroup is Run's per-group core, and what a distributed runner calls
// on each group: it models one group's runs, given in the profruns
// table's order (failed runs, exit code ≠ 0, included: they are left out
// and counted in a warning), and retargets the model when
// opts.InputBytes is set. opts is not validated here (Run does it once).
func ModelGroup(g Group, runs []dataset.ProfRun, opts Options) Outcome {
	k := groupKey{g.Job, g.Task, g.Framework, g.Slots}
	var ok []dataset.ProfRun
	failed := 0
	for _, r := range runs {
		if r.ExitCode != 0 {
			failed++
			continue
		}
		ok = append(ok, r)
	}
	skip := func(reason string) Outcome {
		return Outcome{Group: g, Skipped: &Skipped{Job: g.Job, Task: g.Task, Framework: g.Framework, Slots: g.Slots,
			Runs: len(ok), Reason: reason}}
	}
	m, reason := buildModel(k, ok, opts)
	if failed > 0 {
		w := fmt.Sprintf("%d failed run(s) (exit code ≠ 0) left out", failed)
		if m != nil {
			m.Warnings = append(m.Warnings, w)
		} else {
			reason += "; " + w
		}
	}
	if m == nil {
		return skip(reason)
	}
	if w := validationWarning(m.Validation); w != "" {
		m.Warnings = append(m.Warnings, w)
	}
	if opts.InputBytes > 0 {
		if err := m.Retarget(opts.InputBytes); err != nil {
			return skip(err.Error())
		}
	}
	return Outcome{Group: g, Model: m}
}

// ValidationBar is the relative error the paper's models meet on runs
// they were not fitted to: Iorgulescu et al., ATC'17 §2, Fig. 1c, "within
// 5% for most cases" (Hadoop) and "well within 10%" (Spark).
const ValidationBar = 0.10

// validationWarning says when a model misses runs it was not fitted to by
// far more than the bar (twice it, on the mean): its curve is published,
// and a scheduler must know not to lean on it.
func validationWarning(v Validation) string {
	if v.Runs == 0 || v.MeanAbsError <= 2*ValidationBar {
		return ""
	}
	return fmt.Sprintf("validation error %.0f%% on average (at most %.0f%%) over %d run(s) not used to fit, far above the %.0f%% "+
		"Iorgulescu et al., ATC'17 §2 report for these models: do not rely on this curve; profile more repetitions or settings "+
		"(or try --fit least-squares)", 100*v.MeanAbsError, 100*v.MaxAbsError, v.Runs, 100*ValidationBar)
}

func finite(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return x
}

// buildModel fits one group, or says why it cannot: it keeps the runs it
// can use, simulates their spill from their configuration and sizes,
// places ideal memory, sorts the settings into under- and well-sized,
// and fits the model to a pair of them and, with three settings or more,
// by least squares.
func buildModel(k groupKey, runs []dataset.ProfRun, opts Options) (*Model, string) {
	if len(runs) == 0 {
		return nil, "no successful run"
	}
	runs, warnings, reason := usableRuns(runs)
	if reason != "" {
		return nil, reason
	}
	if !opts.WallTime && k.slots <= 1 {
		warnings = append(warnings, ownCoreRuntimes(runs)...)
	}
	conf, w := mergeConf(runs, opts.Overrides)
	warnings = append(warnings, w...)
	gs, inputSpread, w := groupStatsOf(k, runs)
	warnings = append(warnings, w...)
	sim := newSim(k.framework, k.task, conf, gs)
	warnings = append(warnings, sim.notes...)
	warnings = append(warnings, sim.params.notes...)
	if inputSpread > 0.1 {
		warnings = append(warnings, fmt.Sprintf("input bytes vary by %.0f%% across runs; the simulation uses their median %s", 100*inputSpread, bytesize.Human(gs.inputBytes)))
	}

	pl, w, reason := place(k, runs, sim, gs)
	warnings = append(warnings, w...)
	if reason != "" {
		return nil, reason
	}
	m := &Model{Job: k.job, Task: k.task, Framework: k.framework, Slots: k.slots, Kind: pl.kind, Simulator: sim.name,
		Runs: len(runs), IdealMemoryBytes: int64(math.Ceil(pl.ideal)), InputBytes: int64(math.Round(gs.inputBytes))}
	sim.params.set("spilled_bytes_at_ideal", pl.floor, "simulated")
	if len(pl.well) > 0 {
		warnings = append(warnings, pl.fitPair(m, sim.params, runs)...)
	}
	if ls := leastSquares(m.Kind, runs, pl.settings, pl.ideal, pl.extra); ls != nil {
		m.LeastSquares = ls
		switch {
		case m.predict == nil: // no well-sized run: the fit over the under-sized ones is the model
			pl.adoptLeastSquares(m, sim.params, ls)
			warnings = append(warnings, "no well-sized run: ideal runtime extrapolated by least squares over the under-sized runs")
		case opts.Fit == FitLeastSquares && m.Kind == "spill-rate":
			pl.adoptLeastSquares(m, sim.params, ls)
			m.FitMemoryBytes = nil
			for i := range pl.settings {
				pl.settings[i].UsedToFit = true
			}
		case opts.Fit == FitLeastSquares:
			warnings = append(warnings, "fit least-squares: a step model keeps its two settings (its least-squares means are under least_squares)")
		}
	} else if opts.Fit == FitLeastSquares && m.predict != nil {
		warnings = append(warnings, "fit least-squares: fewer than three memory settings (or their runs do not differ in simulated spill), so the model is fitted on two as by default")
	} else if m.predict == nil {
		return nil, fmt.Sprintf("not enough information: no well-sized run and the under-sized runs do not differ in simulated spill (%s)", pl.ctx)
	}
	warnings = append(warnings, monotoneWarnings(pl.settings, pl.extra)...)
	m.Baseline = Baseline{Kind: "measured-curve", Validation: baselineValidation(runs, pl.settings)}
	m.Curve, m.DiskBandwidthBytesPerS = curve(m, pl.ideal, opts.GridBytes, sim.spilled, pl.extra, &warnings)
	m.Params, m.ParamSources = sim.params.values()
	for key, v := range m.Params {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			delete(m.Params, key)
			delete(m.ParamSources, key)
		}
	}
	m.Settings = pl.settings
	if warnings == nil {
		warnings = []string{}
	}
	m.Warnings = warnings
	return m, ""
}

// usableRuns keeps the runs the simulation can use: with an input size, a
// memory setting and a finite runtime. It gives a reason when none is.
func usableRuns(runs []dataset.ProfRun) (kept []dataset.ProfRun, warnings []string, reason string) {
	for _, r := range runs {
		if r.InputBytes > 0 && r.MemoryBytes > 0 && r.RuntimeS > 0 && !math.IsInf(r.RuntimeS, 0) {
			kept = append(kept, r)
		}
	}
	if len(kept) == 0 {
		return nil, nil, fmt.Sprintf("input_bytes is 0 in all %d run(s): the spill simulation needs the task's input size: record it with wlprof profile run --input PATH or --input-bytes SIZE (profruns-csv: the input_bytes column)", len(runs))
	}
	if d := len(runs) - len(kept); d > 0 {
		warnings = append(warnings, fmt.Sprintf("%d run(s) with 0 input_bytes or memory_bytes left out", d))
	}
	return kept, warnings, ""
}

// ownCoreRuntimes takes from each run's runtime the time it waited for a
// CPU. On a shared machine a run's wall time is stretched by the time its
// thread sat runnable behind other processes; what is left is the runtime
// on a core of its own, which Iorgulescu et al., ATC'17 measures on dedicated nodes. Exact
// for one thread at a time (a task on one slot); with several copies the
// waits overlap, so those keep wall time.
func ownCoreRuntimes(runs []dataset.ProfRun) []string {
	var frac []float64
	for i := range runs {
		if w := runs[i].CPUWaitS; w > 0 && w < runs[i].RuntimeS {
			frac = append(frac, w/runs[i].RuntimeS)
			runs[i].RuntimeS -= w
		}
	}
	if len(frac) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("runtimes are wall time minus the time the task waited for a CPU (cpu_wait_s; a median %.0f%% of wall time over %d run(s)): its runtime on a core of its own (--wall-time models wall time instead)",
		100*quantile.Median(frac), len(frac))}
}

// mergeConf is the group's configuration: the first value each key has in
// the runs, then the overrides. Framework keys that differ between runs
// are noted, since the simulation sees only the first.
func mergeConf(runs []dataset.ProfRun, overrides Conf) (Conf, []string) {
	var warnings []string
	conf := Conf{}
	for _, r := range runs {
		c, err := parseConf(r.Config)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("a run's config is not a JSON object (%v); ignored", err))
		}
		for key, v := range c {
			if old, ok := conf[key]; !ok {
				conf[key] = v
			} else if old != v && (strings.HasPrefix(key, "mapreduce.") || strings.HasPrefix(key, "spark.") || strings.HasPrefix(key, "tez.")) {
				warnings = append(warnings, fmt.Sprintf("runs differ in %s (%q, %q); used %q", key, old, v, old))
			}
		}
	}
	for key, v := range overrides {
		conf[key] = v
	}
	return conf, warnings
}

// groupStatsOf is the runs' median sizes the simulation starts from, and
// how much their input sizes spread ((max − min) / median).
func groupStatsOf(k groupKey, runs []dataset.ProfRun) (gs groupStats, inputSpread float64, warnings []string) {
	gs = groupStats{slots: float64(max(k.slots, 1))}
	var in, ob, or, exp []float64
	for _, r := range runs {
		in = append(in, float64(r.InputBytes))
		ob = append(ob, float64(r.OutputBytes))
		or = append(or, float64(r.OutputRecords))
		if r.MemorySpilledBytes > 0 && r.SpilledBytes > 0 {
			exp = append(exp, float64(r.MemorySpilledBytes)/float64(r.SpilledBytes))
		}
	}
	gs.inputBytes, gs.outputBytes, gs.outputRecords = quantile.Median(in), quantile.Median(ob), quantile.Median(or)
	if gs.outputBytes <= 0 && isMapTask(k.task) {
		gs.outputBytes = gs.inputBytes // no map output counter: assume output ≈ input
		warnings = append(warnings, "no map output bytes in the runs: taken equal to the input bytes")
	}
	if len(exp) > 0 { // else 0: unknown
		gs.expansion = quantile.Median(exp)
	}
	gs.expansionRuns = len(exp)
	return gs, spread(in), warnings
}

// placement is a group's memory settings placed against its simulation.
type placement struct {
	settings []Setting
	ideal    float64 // ideal memory: the least at which the task spills no more than floor
	floor    float64 // what the simulation spills even at ideal memory
	// extra is the spill above floor at a memory, what slows the task.
	extra       func(float64) float64
	under, well []int  // indices into settings by role
	kind        string // step or spill-rate, before the fit
	ctx         string // the simulation's findings, for reasons
}

// place finds ideal memory and sorts the settings into under- and
// well-sized, or gives the reason the settings cannot determine a model.
func place(k groupKey, runs []dataset.ProfRun, sim *spillSim, gs groupStats) (pl placement, warnings []string, reason string) {
	pl.settings = settingsOf(runs)
	ideal, floor, ok := sim.idealMemory()
	// Measured spills are evidence and the simulation fills in where
	// nothing was measured: where the runs show where the task stops
	// spilling and the simulation disagrees, the runs place ideal memory.
	// The generic simulator only knows that the task spills everything
	// below some memory, so it becomes that threshold; a framework's
	// simulation keeps its shape, its memory axis rescaled to the runs.
	if t, lastSpill, found := measuredThreshold(pl.settings); found && (!ok || ideal <= lastSpill || ideal > t) {
		if sim.name == "all-or-nothing" || !ok {
			warnings = append(warnings, thresholdFromRuns(sim, t, lastSpill, gs.inputBytes, ideal, ok)...)
			ideal, floor, ok = t, 0, true
		} else {
			warnings = append(warnings, rescaleToRuns(sim, t, lastSpill, ideal))
			ideal = t
		}
	}
	if !ok {
		return pl, warnings, fmt.Sprintf("the %s simulation finds no memory up to 1 PiB at which the task stops spilling (input %s)", sim.name, bytesize.Human(gs.inputBytes))
	}
	pl.ideal, pl.floor = ideal, floor
	pl.extra = func(m float64) float64 { return math.Max(sim.spilled(m)-floor, 0) }
	for i := range pl.settings {
		s := &pl.settings[i]
		s.SimulatedSpilledBy = int64(finite(sim.spilled(float64(s.MemoryBytes))))
		if pl.extra(float64(s.MemoryBytes)) > 0 {
			s.Role = "under-sized"
			pl.under = append(pl.under, i)
		} else {
			s.Role = "well-sized"
			pl.well = append(pl.well, i)
		}
	}
	warnings = append(warnings, spillMismatch(sim.name, pl.settings, floor)...)
	pl.kind = "spill-rate"
	if isMapTask(k.task) {
		pl.kind = "step"
	}
	pl.ctx = fmt.Sprintf("simulated ideal memory %s", bytesize.Human(ideal))
	if floor > 0 && !isMapTask(k.task) {
		pl.ctx += fmt.Sprintf("; the simulation writes %s to disk even there", bytesize.Human(floor))
	}
	return pl, warnings, pl.undetermined(len(runs))
}

// thresholdFromRuns makes the all-or-nothing simulation spill the whole
// input below t, the threshold the runs show (they spill at lastSpill and
// not at t), and notes when that overrides the simulation's own ideal.
func thresholdFromRuns(sim *spillSim, t, lastSpill, input, ideal float64, ok bool) []string {
	var warnings []string
	if ok {
		warnings = append(warnings, fmt.Sprintf("the runs spill at %s and stop at %s, which contradicts input × expansion = %s: ideal memory taken from the runs (set wlprof.expansion.factor to place it)", bytesize.Human(lastSpill), bytesize.Human(t), bytesize.Human(ideal)))
	}
	sim.spilled = func(m float64) float64 {
		if m >= t {
			return 0
		}
		return input
	}
	sim.params.set("wlprof.expansion.factor", t/input, "learnt")
	return warnings
}

// rescaleToRuns stretches the simulation's memory axis so that it stops
// spilling at t, where the runs measured no more spill (they spilled at
// lastSpill), instead of at its own ideal.
func rescaleToRuns(sim *spillSim, t, lastSpill, ideal float64) string {
	orig, scale := sim.spilled, ideal/t
	sim.spilled = func(m float64) float64 { return orig(m * scale) }
	sim.params.set("wlprof.memory.scale", scale, "learnt")
	return fmt.Sprintf("the runs measured spill at %s and none from %s, but the %s simulation stops spilling only at %s: ideal memory taken from the measured spills, the simulated curve rescaled to it (wlprof.memory.scale = %.3g)",
		bytesize.Human(lastSpill), bytesize.Human(t), sim.name, bytesize.Human(ideal), scale)
}

// undetermined is why the settings cannot determine a model of their
// kind, or "": a model needs two settings, one of them under-sized (it
// spills more than floor), and a well-sized one unless the kind is
// spill-rate and two settings are under-sized.
func (pl *placement) undetermined(runs int) string {
	s := pl.settings
	if len(s) < 2 {
		role := "under-sized (it spills)"
		if len(pl.well) == 1 {
			role = "well-sized"
		}
		return fmt.Sprintf("not enough information: %d run(s) at one memory setting (%s), which is %s; a %s model needs an under-sized and a well-sized run (%s)",
			runs, bytesize.Human(float64(s[0].MemoryBytes)), role, pl.kind, pl.ctx)
	}
	if len(pl.under) == 0 && pl.floor > 0 {
		return fmt.Sprintf("no run spills more than the %s that every memory writes: all %d settings (smallest %s) are at or above the memory below which extra merge passes start (%s); profile below it to see the penalty",
			bytesize.Human(pl.floor), len(s), bytesize.Human(float64(s[0].MemoryBytes)), pl.ctx)
	}
	if len(pl.under) == 0 {
		return fmt.Sprintf("never spills: all %d settings (smallest %s) are at or above ideal memory (%s); profile below it to see the penalty",
			len(s), bytesize.Human(float64(s[0].MemoryBytes)), pl.ctx)
	}
	if len(pl.well) == 0 && (pl.kind == "step" || len(pl.under) < 2) {
		return fmt.Sprintf("not enough information: no well-sized run, all %d settings spill (%s); add a run at or above it", len(s), pl.ctx)
	}
	return ""
}

// fitPair fits m to one under-sized and one well-sized setting, as seed
// 004 does, and validates it on the runs at the other settings. The
// well-sized setting is the smallest. The under-sized one, for a step
// model, is the one nearest 50% of ideal, as Iorgulescu et al.'s (ATC'17) 52%; for a
// spill-rate model, the one the simulation says spills most (ties:
// nearest 50%), since the rate is its spill over its penalty and
// run-to-run noise disturbs the largest penalty least (see doc.go). A
// spill-rate pair whose under-sized run is not slower gives a step model.
func (pl *placement) fitPair(m *Model, params *paramSet, runs []dataset.ProfRun) []string {
	var warnings []string
	settings, ideal, extra := pl.settings, pl.ideal, pl.extra
	w, u := pl.well[0], pl.under[0]
	half := func(i int) float64 { return math.Abs(math.Log(float64(settings[i].MemoryBytes) / (0.5 * ideal))) }
	for _, i := range pl.under {
		if m.Kind == "spill-rate" {
			ei, eu := extra(float64(settings[i].MemoryBytes)), extra(float64(settings[u].MemoryBytes))
			if ei > eu || ei == eu && half(i) < half(u) {
				u = i
			}
		} else if half(i) < half(u) {
			u = i
		}
	}
	settings[u].UsedToFit, settings[w].UsedToFit = true, true
	m.FitMemoryBytes = []int64{settings[u].MemoryBytes, settings[w].MemoryBytes}
	T, Tu := settings[w].RuntimeS, settings[u].RuntimeS
	mu := float64(settings[u].MemoryBytes)
	m.IdealRuntimeS = T
	if m.Kind == "spill-rate" && Tu <= T {
		// No disk rate can be learnt from a run that spilling did not
		// slow down; the step model still describes what was measured.
		warnings = append(warnings, fmt.Sprintf("non-monotone measurements: the under-sized run (%s, %.3g s) is not slower than the well-sized run (%s, %.3g s): no disk rate can be learnt, so the step model is used",
			bytesize.Human(mu), Tu, bytesize.Human(float64(settings[w].MemoryBytes)), T))
		m.Kind = "step"
	} else if m.Kind == "step" && Tu < T {
		warnings = append(warnings, fmt.Sprintf("non-monotone measurements: the under-sized run (%s, %.3g s) is faster than the well-sized run (%s, %.3g s); the model takes it as no penalty",
			bytesize.Human(mu), Tu, bytesize.Human(float64(settings[w].MemoryBytes)), T))
		Tu = T
	}
	if m.Kind == "step" {
		params.set("under_runtime_s", Tu, "learnt")
		m.predict = func(x float64) float64 {
			if x >= ideal {
				return T
			}
			return Tu
		}
	} else {
		rate := extra(mu) / (Tu - T)
		params.set("disk_rate_bytes_per_s", rate, "learnt")
		m.predict = func(x float64) float64 { return T + extra(x)/rate }
	}
	m.Validation = validate(runs, m.predict, func(r dataset.ProfRun) bool {
		return r.MemoryBytes != settings[u].MemoryBytes && r.MemoryBytes != settings[w].MemoryBytes
	})
	if m.Validation.Runs == 0 {
		m.Validation.Note = "every run was used to fit: profile a third memory setting to validate"
	}
	return warnings
}

// adoptLeastSquares makes the least-squares fit m's model, when there is
// no well-sized run to fit a pair with.
func (pl *placement) adoptLeastSquares(m *Model, params *paramSet, ls *LeastSquares) {
	extra := pl.extra
	m.IdealRuntimeS = ls.IdealRuntimeS
	T, rate := ls.IdealRuntimeS, ls.DiskRateBytesPerS
	if rate > 0 {
		m.predict = func(x float64) float64 { return T + extra(x)/rate }
		params.set("disk_rate_bytes_per_s", rate, "least-squares")
	} else {
		m.predict = func(float64) float64 { return T }
		delete(params.used, "disk_rate_bytes_per_s") // a pair's rate, if any, is not this model's
	}
	m.Validation = ls.Validation
}

// spread is (max − min) / median.
func spread(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	y := sortFloats(x)
	md := quantile.Median(x)
	if md == 0 {
		return 0
	}
	return (y[len(y)-1] - y[0]) / md
}

// settingsOf groups runs by memory, in increasing memory.
func settingsOf(runs []dataset.ProfRun) []Setting {
	by := map[int64][]dataset.ProfRun{}
	for _, r := range runs {
		by[r.MemoryBytes] = append(by[r.MemoryBytes], r)
	}
	var out []Setting
	for mem, rs := range by {
		var t, sp []float64
		for _, r := range rs {
			t = append(t, r.RuntimeS)
			sp = append(sp, float64(r.SpilledBytes))
		}
		ts := sortFloats(t)
		out = append(out, Setting{MemoryBytes: mem, Runs: len(rs), RuntimeS: quantile.Median(t), SpreadS: ts[len(ts)-1] - ts[0],
			SpilledBytes: int64(quantile.Median(sp))})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].MemoryBytes < out[j].MemoryBytes })
	return out
}

// measuredThreshold is the smallest setting that measured no spill and
// above which no setting spilled, and the largest that spilled, when the
// runs show both kinds.
func measuredThreshold(s []Setting) (threshold, lastSpill float64, ok bool) {
	last := -1
	for i, x := range s {
		if x.SpilledBytes > 0 {
			last = i
		}
	}
	if last < 0 || last == len(s)-1 {
		return 0, 0, false
	}
	return float64(s[last+1].MemoryBytes), float64(s[last].MemoryBytes), true
}

// spillMismatch says where measured spill disagrees with the simulation.
func spillMismatch(sim string, s []Setting, floor float64) []string {
	var out []string
	for _, x := range s {
		if x.SpilledBytes == 0 {
			continue // the source did not measure spill, or nothing spilled
		}
		meas, simd := float64(x.SpilledBytes), float64(x.SimulatedSpilledBy)
		if x.Role == "well-sized" && floor == 0 && meas > 0 {
			out = append(out, fmt.Sprintf("at %s the runs spilled %s but the %s simulation says nothing spills: check the configuration or the input size",
				bytesize.Human(float64(x.MemoryBytes)), bytesize.Human(meas), sim))
		} else if simd > 0 && math.Abs(meas-simd)/math.Max(meas, simd) > 0.5 && sim != "all-or-nothing" {
			out = append(out, fmt.Sprintf("at %s the runs spilled %s, the simulation %s", bytesize.Human(float64(x.MemoryBytes)), bytesize.Human(meas), bytesize.Human(simd)))
		}
	}
	return out
}

// monotoneWarnings flags settings where more memory made the task slower
// by over 10% although the simulation spills no less there.
func monotoneWarnings(s []Setting, extra func(float64) float64) []string {
	var out []string
	for i := 1; i < len(s); i++ {
		a, b := s[i-1], s[i]
		noise := math.Max(a.SpreadS, b.SpreadS)
		if b.RuntimeS > 1.1*a.RuntimeS+noise && extra(float64(b.MemoryBytes)) <= extra(float64(a.MemoryBytes)) {
			out = append(out, fmt.Sprintf("non-monotone measurements: %.3g s at %s but %.3g s at the smaller %s, and the simulation spills no less at the smaller one",
				b.RuntimeS, bytesize.Human(float64(b.MemoryBytes)), a.RuntimeS, bytesize.Human(float64(a.MemoryBytes))))
		}
	}
	return out
}

// validate predicts the runs that use selects.
func validate(runs []dataset.ProfRun, predict func(float64) float64, use func(dataset.ProfRun) bool) Validation {
	v := Validation{Checks: []Check{}}
	for _, r := range runs {
		if !use(r) {
			continue
		}
		p := finite(predict(float64(r.MemoryBytes)))
		e := (p - r.RuntimeS) / r.RuntimeS
		v.Checks = append(v.Checks, Check{MemoryBytes: r.MemoryBytes, Repetition: r.Repetition, MeasuredS: r.RuntimeS, PredictedS: p, Error: finite(e)})
	}
	summarize(&v)
	return v
}

// summarize fills v's errors, over single runs and over each memory
// setting's median, from its checks (which it sorts).
func summarize(v *Validation) {
	sortChecks(v.Checks)
	errs := make([]float64, 0, len(v.Checks))
	for _, c := range v.Checks {
		errs = append(errs, math.Abs(c.Error))
	}
	v.Runs = len(errs)
	var serrs, ms []float64
	for i := 0; i < len(v.Checks); {
		j := i
		ms = ms[:0]
		for ; j < len(v.Checks) && v.Checks[j].MemoryBytes == v.Checks[i].MemoryBytes; j++ {
			ms = append(ms, v.Checks[j].MeasuredS)
		}
		if md := quantile.Median(ms); md > 0 {
			e := math.Abs(finite((v.Checks[i].PredictedS - md) / md))
			serrs = append(serrs, e)
			v.SettingsMaxAbsError = math.Max(v.SettingsMaxAbsError, e)
		}
		i = j
	}
	v.Settings = len(serrs)
	if len(serrs) > 0 {
		v.SettingsMedianAbsError = quantile.Median(serrs)
	}
	if len(errs) > 0 {
		v.MedianAbsError = quantile.Median(errs)
		s, mx := 0.0, 0.0
		for _, e := range errs {
			s += e
			mx = math.Max(mx, e)
		}
		v.MeanAbsError, v.MaxAbsError = s/float64(len(errs)), mx
	}
}

func sortChecks(c []Check) {
	sort.SliceStable(c, func(i, j int) bool {
		if c[i].MemoryBytes != c[j].MemoryBytes {
			return c[i].MemoryBytes < c[j].MemoryBytes
		}
		return c[i].Repetition < c[j].Repetition
	})
}

// curve samples the model from 10% to 100% of ideal memory.
func curve(m *Model, ideal float64, grid int64, spilled, extra func(float64) float64, warnings *[]string) ([]Point, float64) {
	g := float64(grid)
	if ideal/g < minCurvePoints {
		g = math.Max(math.Ceil(ideal/10), 1)
		*warnings = append(*warnings, fmt.Sprintf("ideal memory %s holds fewer than %d grid steps of %s: the curve uses steps of ideal/10 (%s)",
			bytesize.Human(ideal), minCurvePoints, bytesize.Human(float64(grid)), bytesize.Human(g)))
	}
	if ideal/g > maxCurvePoints {
		old := g
		g = math.Ceil(ideal / maxCurvePoints)
		*warnings = append(*warnings, fmt.Sprintf("ideal memory %s is over %d grid steps of %s: the curve uses steps of %s",
			bytesize.Human(ideal), maxCurvePoints, bytesize.Human(old), bytesize.Human(g)))
	}
	var mems []float64
	for x := math.Ceil(0.1*ideal/g) * g; x < ideal; x += g {
		mems = append(mems, x)
	}
	mems = append(mems, math.Ceil(ideal))
	T := m.IdealRuntimeS
	pts := make([]Point, 0, len(mems))
	bw := 0.0
	clamped := 0
	for _, x := range mems {
		rt := finite(m.predict(x))
		if rt < T { // never publish "less memory is faster"
			rt = T
			clamped++
		}
		p := Point{MemoryBytes: int64(x), RuntimeS: rt, SpilledBytes: int64(finite(spilled(x)))}
		if T > 0 {
			p.Slowdown = finite(rt / T)
			p.Penalty = p.Slowdown - 1
		}
		if rt > 0 && rt > T {
			p.DiskBytesPS = finite(extra(x) / rt)
		}
		bw = math.Max(bw, p.DiskBytesPS)
		pts = append(pts, p)
	}
	if clamped > 0 {
		*warnings = append(*warnings, fmt.Sprintf("the model predicts less than the ideal runtime at %d of %d curve points (less memory faster: noise or a non-monotone task); the curve says no penalty there",
			clamped, len(mems)))
	}
	return pts, bw
}

// Retarget carries the model to a task input of inputBytes (Iorgulescu et al., ATC'17 §2.7
// profiles "on a sample of the job's input data" without saying how to
// carry the model to the full input; the rule, elasticity/doc.go): with r
// = inputBytes / the model's input, ideal memory and spilled bytes scale
// by r, and so do runtimes at r times the memory — the fitted disk rate
// and the per-byte work stay, so T'(r·m) = r·T(m): every curve point
// (memory, runtime, spilled bytes) is multiplied by r, penalties and disk
// bandwidth stay. Validation and settings stay those of the profiled
// runs.
func (m *Model) Retarget(inputBytes int64) error {
	if inputBytes <= 0 {
		return fmt.Errorf("input bytes %d: want more than 0", inputBytes)
	}
	if m.InputBytes <= 0 {
		return fmt.Errorf("the model has no input size to scale from")
	}
	if inputBytes == m.InputBytes {
		return nil
	}
	r := float64(inputBytes) / float64(m.InputBytes)
	from := m.InputBytes
	if m.RetargetedFromBytes > 0 {
		from = m.RetargetedFromBytes
	}
	orig := m.predict
	m.predict = func(x float64) float64 { return r * orig(x/r) }
	m.IdealMemoryBytes = int64(math.Ceil(float64(m.IdealMemoryBytes) * r))
	m.IdealRuntimeS *= r
	for i := range m.Curve {
		p := &m.Curve[i]
		p.MemoryBytes = int64(math.Round(float64(p.MemoryBytes) * r))
		p.RuntimeS *= r
		p.SpilledBytes = int64(math.Round(float64(p.SpilledBytes) * r))
	}
	if m.Params == nil {
		m.Params, m.ParamSources = map[string]float64{}, map[string]string{}
	}
	for _, k := range []string{"under_runtime_s", "spilled_bytes_at_ideal", "input_bytes", "output_bytes", "output_records"} {
		if v, ok := m.Params[k]; ok {
			m.Params[k] = v * r
		}
	}
	m.Params["wlprof.input.scale"] = r
	if m.ParamSources != nil {
		m.ParamSources["wlprof.input.scale"] = "retarget"
	}
	m.Warnings = append(m.Warnings, fmt.Sprintf("retargeted from the profiled input (%s) to %s: ideal memory, spilled bytes and runtimes scaled by %.3g; validation is of the profiled runs",
		bytesize.Human(float64(m.InputBytes)), bytesize.Human(float64(inputBytes)), r))
	m.RetargetedFromBytes, m.InputBytes = from, inputBytes
	return nil
}
