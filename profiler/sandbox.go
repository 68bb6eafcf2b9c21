package profiler

import (
	"math"
	"sort"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/profile"
)

// Sandbox is what the profiler recorded of one job (runs of framework
// "sandbox"): per task its sweep, and the per-phase profile of the
// fastest configuration (Polo, PhD thesis, UPC 2014 §4.2.6).
type Sandbox struct {
	Job    string
	Sweeps []SweepSummary
	// Phases and Warnings are the job's profile section (Profile).
	Phases   []profile.Phase
	Warnings []string
}

// SweepSummary is one task's sweep: the median runtime and peak RSS per
// setting, the setting being memory (bytes) or, when only the slots
// varied, slots.
type SweepSummary struct {
	Task    string
	Setting string // "memory_bytes" or "slots"
	Points  []SweepPoint
}

// SweepPoint is one setting of a sweep, over its successful runs.
type SweepPoint struct {
	Setting, RuntimeS, PeakRSSBytes float64
}

// Sandboxes summarises the sandbox runs among runs, per job in order. The
// phase profile needs the runs' samples (the profsamples table) and comes
// only from runs the profiler recorded (they carry a run id; profruns-csv
// rows do not). A phase's memory is its share of the host's memory (the
// run's host facts), 0 when those are missing.
func Sandboxes(runs []dataset.ProfRun, samples []dataset.ProfSample) []Sandbox {
	byJob := map[string][]dataset.ProfRun{}
	for _, r := range runs {
		if r.Framework == "sandbox" {
			byJob[r.Job] = append(byJob[r.Job], r)
		}
	}
	ids := make([]string, 0, len(byJob))
	for id := range byJob {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out := make([]Sandbox, 0, len(ids))
	for _, id := range ids {
		jr := byJob[id]
		SortRuns(jr)
		sb := Sandbox{Job: id}
		for _, task := range taskNames(jr) {
			mine := filterTask(jr, task)
			sw, notes := sweepSummary(task, mine)
			sb.Sweeps = append(sb.Sweeps, sw)
			for _, n := range notes {
				sb.Warnings = append(sb.Warnings, "profiler "+n)
			}
			sb.addPhases(task, mine, samples)
		}
		out = append(out, sb)
	}
	return out
}

// taskNames are the tasks of runs, in order.
func taskNames(runs []dataset.ProfRun) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range runs {
		if !seen[r.Task] {
			seen[r.Task] = true
			out = append(out, r.Task)
		}
	}
	sort.Strings(out)
	return out
}

// sweepSummary is the sweep of one task's runs: over slots when the memory
// never changed and the slots did, else over memory; and the settings'
// notes (runs the memory cap killed), which the profile's warnings carry.
func sweepSummary(task string, runs []dataset.ProfRun) (SweepSummary, []string) {
	slots, mems := map[int32]bool{}, map[int64]bool{}
	for _, r := range runs {
		slots[r.Slots], mems[r.MemoryBytes] = true, true
	}
	sw := SweepSummary{Task: task, Setting: "memory_bytes"}
	if len(mems) == 1 && len(slots) > 1 {
		sw.Setting = "slots"
	}
	var notes []string
	for _, st := range Summarize(runs) {
		notes = append(notes, st.Notes...)
		if st.OK == 0 {
			continue
		}
		x := float64(st.MemBytes)
		if sw.Setting == "slots" {
			x = float64(st.Slots)
		}
		sw.Points = append(sw.Points, SweepPoint{Setting: x, RuntimeS: st.WallS.Median, PeakRSSBytes: st.PeakRSSBytes.Median})
	}
	return sw, notes
}

// addPhases adds the phase profile of task's fastest configuration.
func (sb *Sandbox) addPhases(task string, runs []dataset.ProfRun, samples []dataset.ProfSample) {
	sampled := false
	for _, r := range runs {
		sampled = sampled || r.RunID != ""
	}
	pr := BuildProfile(task, runs, samples)
	if !sampled || pr == nil {
		return
	}
	host := pr.host // no host facts: memory and CPUs stay 0
	clamp01 := func(x float64) float64 { return math.Min(1, math.Max(0, x)) }
	for _, ph := range pr.Phases {
		sb.Phases = append(sb.Phases, profile.Phase{Phase: task + "/" + ph.Phase, Tasks: pr.Slots,
			TaskRuntimeS: ph.EndS - ph.StartS, CPUShare: clamp01(ph.CPU), IOShare: clamp01(ph.IO),
			MemoryBytes: ph.Memory * float64(host.MemTotalBytes), Slots: pr.Slots, NodeCPUs: host.CPUs,
			IOCapacityBytesPerS: pr.IOCapacityBytesPerS, IOCapacitySource: pr.IOCapacitySource})
	}
	for _, w := range pr.Warnings {
		sb.Warnings = append(sb.Warnings, "profiler "+task+": "+w)
	}
}

// Profile adds the sandbox's phases and warnings to its job's profile.
func (sb *Sandbox) Profile(jobs profile.Jobs) {
	p := jobs.Get(sb.Job)
	p.Phases = append(p.Phases, sb.Phases...)
	p.Warnings = append(p.Warnings, sb.Warnings...)
}
