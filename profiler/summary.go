package profiler

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/bytesize"
	"github.com/wlprof/wlprof/internal/quantile"
)

// Stat summarises one measure over the successful repetitions of a setting.
type Stat struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	// Spread is (max − min) / median, the relative range of the
	// repetitions; 0 with one repetition or a zero median.
	Spread float64 `json:"spread"`
}

// statOf summarises xs; nil when there is no sample: a setting whose runs
// all failed has no median, and 0 would read as one.
func statOf(xs []float64) *Stat {
	if len(xs) == 0 {
		return nil
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	med := quantile.Median(xs)
	st := &Stat{Median: med, Min: s[0], Max: s[len(s)-1]}
	if med != 0 {
		st.Spread = (st.Max - st.Min) / math.Abs(med)
	}
	return st
}

// Setting is the sweep table's row: the repetitions of one task at one
// memory and slot setting.
type Setting struct {
	Task     string         `json:"task"`
	MemBytes int64          `json:"mem_bytes"`
	Slots    int            `json:"slots"`
	Runs     int            `json:"runs"`
	OK       int            `json:"ok"` // the statistics are over these
	Outcomes map[string]int `json:"outcomes"`
	Capped   bool           `json:"capped"` // every run was capped
	// The statistics are over the successful runs (OK), and null when
	// there is none; ReadBytes and WriteBytes are over those whose node
	// measured storage I/O (StorageIOMeasured), null when none did.
	WallS        *Stat `json:"wall_s"`
	CPUS         *Stat `json:"cpu_s"`
	PeakRSSBytes *Stat `json:"peak_rss_bytes"`
	ReadBytes    *Stat `json:"read_bytes"`
	WriteBytes   *Stat `json:"write_bytes"`
	SpilledBytes *Stat `json:"spilled_bytes"`
	// OOMKilledByCap counts the runs the memory cap ended: the kernel's OOM
	// killer acted in their cgroup and they failed (outcome "oom-killed").
	OOMKilledByCap int `json:"oom_killed_by_cap"`
	// Notes say what a reader of the table must know about the setting,
	// e.g. that the cap killed runs, with the limit and what to change.
	Notes []string `json:"notes"`
}

// SortRuns orders runs by task, memory, slots, repetition and start.
func SortRuns(runs []dataset.ProfRun) {
	sort.SliceStable(runs, func(i, j int) bool {
		a, b := &runs[i], &runs[j]
		switch {
		case a.Task != b.Task:
			return a.Task < b.Task
		case a.MemoryBytes != b.MemoryBytes:
			return a.MemoryBytes < b.MemoryBytes
		case a.Slots != b.Slots:
			return a.Slots < b.Slots
		case a.Repetition != b.Repetition:
			return a.Repetition < b.Repetition
		}
		return a.StartMs < b.StartMs
	})
}

// StorageIOMeasured says whether a run's ReadBytes and WriteBytes were
// measured: a sandbox run whose node has no per-task storage I/O
// accounting (/proc/PID/io without read_bytes and write_bytes: a kernel
// built without it, some sandboxes), or whose tree's counters could never
// be read, says so in its config ("storage_io_measured": false), and its
// zeros are not data. Rows without the key measured them.
func StorageIOMeasured(r *dataset.ProfRun) bool {
	if !strings.Contains(r.Config, "storage_io_measured") {
		return true
	}
	var c struct {
		Measured *bool `json:"storage_io_measured"`
	}
	return json.Unmarshal([]byte(r.Config), &c) != nil || c.Measured == nil || *c.Measured
}

// okRun says whether a run counts in the statistics: it finished with
// status 0. History rows (no outcome recorded) count.
func okRun(r *dataset.ProfRun) bool {
	return r.ExitCode == 0 && (r.Outcome == "" || r.Outcome == "ok")
}

// Summarize groups runs (sorted by SortRuns) into the sweep table.
func Summarize(runs []dataset.ProfRun) []Setting {
	var out []Setting
	for i := 0; i < len(runs); {
		j := i
		for j < len(runs) && runs[j].Task == runs[i].Task && runs[j].MemoryBytes == runs[i].MemoryBytes && runs[j].Slots == runs[i].Slots {
			j++
		}
		g := runs[i:j]
		s := Setting{Task: g[0].Task, MemBytes: g[0].MemoryBytes, Slots: int(g[0].Slots), Runs: len(g), Outcomes: map[string]int{}, Capped: true,
			Notes: []string{}}
		var wall, cpu, rss, rd, wr, sp []float64
		var oomPeak int64
		var oomNote string
		survived, survivedKills := 0, int32(0)
		for k := range g {
			r := &g[k]
			oc := r.Outcome
			if oc == "" {
				oc = "ok"
				if r.ExitCode != 0 {
					oc = "failed"
				}
			}
			s.Outcomes[oc]++
			s.Capped = s.Capped && r.Capped
			if oc == "oom-killed" {
				s.OOMKilledByCap++
				oomPeak = max(oomPeak, r.PeakRSSBytes)
				oomNote = strings.TrimPrefix(r.CapNote, "capped: ")
			}
			if !okRun(r) {
				continue
			}
			if r.OOMKills > 0 {
				survived++
				survivedKills += r.OOMKills
			}
			s.OK++
			wall = append(wall, r.RuntimeS)
			cpu = append(cpu, r.CPUS)
			rss = append(rss, float64(r.PeakRSSBytes))
			if StorageIOMeasured(r) {
				rd = append(rd, float64(r.ReadBytes))
				wr = append(wr, float64(r.WriteBytes))
			}
			sp = append(sp, float64(r.SpilledBytes))
		}
		s.WallS, s.CPUS, s.PeakRSSBytes = statOf(wall), statOf(cpu), statOf(rss)
		s.ReadBytes, s.WriteBytes, s.SpilledBytes = statOf(rd), statOf(wr), statOf(sp)
		at := fmt.Sprintf("%s at %s, %d slot(s)", s.Task, memLabel(s.MemBytes), s.Slots)
		if s.OOMKilledByCap > 0 {
			peak := ""
			if oomPeak > 0 {
				peak = fmt.Sprintf("; peak RSS seen %s", bytesize.Human(float64(oomPeak)))
			}
			if oomNote == "" {
				oomNote = "limit not recorded"
			}
			s.Notes = append(s.Notes, fmt.Sprintf("%s: %d of %d run(s) OOM-killed by the memory cap, %s%s; "+
				"the command needs more than its setting plus the overhead: raise --cap-overhead (or the setting)",
				at, s.OOMKilledByCap, s.Runs, oomNote, peak))
		}
		if survived > 0 {
			s.Notes = append(s.Notes, fmt.Sprintf("%s: %d successful run(s) had %d process(es) OOM-killed by the memory cap",
				at, survived, survivedKills))
		}
		out = append(out, s)
		i = j
	}
	return out
}

// Profile is a job profile in the manner of Polo, PhD thesis, UPC 2014 (Polo, §4.2.6 and
// Table 4.2): the fastest concurrency, and what one task uses of the node
// in each phase when that many run at once.
type Profile struct {
	Task     string `json:"task"`
	MemBytes int64  `json:"mem_bytes"`
	Slots    int    `json:"slots"`
	// TaskS is the wall time per task at that concurrency, median wall
	// time over the repetitions divided by the slots: the quantity the
	// fastest configuration minimises.
	TaskS float64 `json:"task_s"`
	Run   string  `json:"run"` // the repetition with the median wall time, whose samples give the shares
	// IOCapacityBytesPerS is the node's disk bandwidth, which I/O shares
	// are fractions of, as the chosen run's host facts record it:
	// IOCapacitySource "measured" (the sweep's calibration, iocal.go) or
	// "flag" (given). Runs recorded before the capacity was have none; it
	// is then the highest storage I/O rate seen for this task, over any
	// whole run or any phase of the chosen run, with source "observed" and
	// a warning: shares relative to the job itself do not compare across
	// jobs.
	IOCapacityBytesPerS float64      `json:"io_capacity_bytes_per_s"`
	IOCapacitySource    string       `json:"io_capacity_source"`
	Phases              []PhaseShare `json:"phases"`
	Warnings            []string     `json:"warnings,omitempty"`

	host hostInfo // of the chosen run: the node the shares are of
}

// PhaseShare is one phase's per-task share of the node.
type PhaseShare struct {
	Phase  string  `json:"phase"`
	StartS float64 `json:"start_s"`
	EndS   float64 `json:"end_s"`
	// CPU is the fraction of the node's CPU one task used: CPU seconds of
	// the tree over the phase, divided by its duration, the node's CPUs and
	// the slots (Polo, PhD thesis, UPC 2014: 100% CPU with 4 tasks → 25% each).
	CPU float64 `json:"cpu"`
	// IOBytesPerS is one task's storage read+write rate: the tree's
	// storage bytes read and written over the phase / its duration / slots.
	IOBytesPerS float64 `json:"io_bytes_per_s"`
	// IO is IOBytesPerS over IOCapacityBytesPerS: one task's share of the
	// node's disk bandwidth. Above 1 when the phase moved more than the
	// capacity, e.g. writes the page cache absorbed (with a warning above
	// ioShareSlack).
	IO float64 `json:"io"`
	// Memory is one task's mean resident set over the phase as a fraction
	// of the node's memory.
	Memory float64 `json:"memory"`
}

// hostInfo is what BuildProfile reads of a run's host facts (hostFacts).
type hostInfo struct {
	CPUs          int   `json:"cpus"`
	MemTotalBytes int64 `json:"mem_total_bytes"`
	// The node's I/O capacity and where it came from ("measured" or
	// "flag"); absent in runs recorded before it was.
	IOCapacityBytesPerS float64 `json:"io_capacity_bytes_per_s"`
	IOCapacitySource    string  `json:"io_capacity_source"`
	IOCapacityDetail    string  `json:"io_capacity_detail"`
}

// BuildProfile picks, for task, the setting with the least wall time per
// task (ties: fewer slots) among those with a successful run, and derives
// the per-phase shares from the samples of its median repetition. Samples
// may hold other runs; those of the chosen run are used. It returns nil
// when no run of task succeeded or none has samples.
func BuildProfile(task string, runs []dataset.ProfRun, samples []dataset.ProfSample) *Profile {
	var best *Setting
	mine := filterTask(runs, task)
	SortRuns(mine)
	settings := Summarize(mine)
	for i := range settings {
		s := &settings[i]
		if s.OK == 0 {
			continue
		}
		if best == nil || s.WallS.Median/float64(s.Slots) < best.WallS.Median/float64(best.Slots) {
			best = s
		}
	}
	if best == nil {
		return nil
	}
	p := &Profile{Task: task, MemBytes: best.MemBytes, Slots: best.Slots, TaskS: best.WallS.Median / float64(best.Slots)}
	if w := withinNoise(best, settings); w != "" {
		p.Warnings = append(p.Warnings, w)
	}
	// The repetition closest to the median wall time; observed is the best
	// I/O rate of any run, the capacity when none is recorded.
	var chosen *dataset.ProfRun
	var observed float64
	for i := range runs {
		r := &runs[i]
		if r.Task != task || !okRun(r) {
			continue
		}
		if rate := float64(r.ReadBytes+r.WriteBytes) / r.RuntimeS; r.RuntimeS > 0 && rate > observed {
			observed = rate
		}
		if r.MemoryBytes != best.MemBytes || int(r.Slots) != best.Slots {
			continue
		}
		if chosen == nil || math.Abs(r.RuntimeS-best.WallS.Median) < math.Abs(chosen.RuntimeS-best.WallS.Median) {
			chosen = r
		}
	}
	p.Run = chosen.RunID
	var host hostInfo
	if json.Unmarshal([]byte(chosen.Host), &host) != nil || host.CPUs == 0 || host.MemTotalBytes == 0 {
		p.host = host
		p.Warnings = append(p.Warnings, "the run records no host facts (CPUs, memory): shares cannot be derived")
		return p
	}
	p.host = host
	var ss []dataset.ProfSample
	for _, s := range samples {
		if s.Run == chosen.RunID {
			ss = append(ss, s)
		}
	}
	sort.SliceStable(ss, func(i, j int) bool { return ss[i].OffsetS < ss[j].OffsetS })
	if len(ss) < 2 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("run %s has %d samples: shares need two", chosen.RunID, len(ss)))
		return p
	}
	// Phases are runs of consecutive samples with the same phase name. A
	// sweep samples the tree at each phase mark (markSample), labelled with
	// the new phase: a phase starts at its mark, and what the tree did
	// after the mark counts in it. (Rows recorded before marks were sampled
	// start a phase at the first tick after its mark.)
	k := float64(best.Slots)
	for i := 0; i < len(ss); {
		j := i
		for j+1 < len(ss) && ss[j+1].Phase == ss[i].Phase {
			j++
		}
		// The phase spans from its first sample to the next phase's first
		// sample (or its own last one at the end of the run).
		end := j
		if j+1 < len(ss) {
			end = j + 1
		}
		a, b := ss[i], ss[end]
		ph := PhaseShare{Phase: ss[i].Phase, StartS: a.OffsetS, EndS: b.OffsetS}
		if ph.Phase == "" {
			ph.Phase = "all" // no phase regex, or none of its lines yet
			if i == 0 && j+1 < len(ss) {
				ph.Phase = "start"
			}
		}
		if d := b.OffsetS - a.OffsetS; d > 0 {
			ph.CPU = (b.CPUS - a.CPUS) / d / float64(host.CPUs) / k
			ph.IOBytesPerS = float64(b.ReadBytes+b.WriteBytes-a.ReadBytes-a.WriteBytes) / d / k
			observed = max(observed, ph.IOBytesPerS*k)
		}
		var rss float64
		for _, s := range ss[i : j+1] {
			rss += float64(s.RSSBytes)
		}
		ph.Memory = rss / float64(j+1-i) / float64(host.MemTotalBytes) / k
		p.Phases = append(p.Phases, ph)
		i = j + 1
	}
	p.IOCapacityBytesPerS, p.IOCapacitySource = host.IOCapacityBytesPerS, host.IOCapacitySource
	if p.IOCapacityBytesPerS <= 0 {
		p.IOCapacityBytesPerS, p.IOCapacitySource = observed, "observed"
		p.Warnings = append(p.Warnings, fmt.Sprintf("run %s records no I/O capacity of its node (profiled before it was measured): "+
			"I/O shares are of the best rate seen for this task, %s/s, and not comparable across jobs; profile again to measure it, or give --io-capacity",
			chosen.RunID, bytesize.Human(observed)))
	}
	for i := range p.Phases {
		ph := &p.Phases[i]
		if p.IOCapacityBytesPerS > 0 {
			ph.IO = ph.IOBytesPerS / p.IOCapacityBytesPerS
		}
		// A throttled disk (--disk-limit) lets the first moments of a
		// phase through a little faster than its rate, and a calibration is
		// a few percent off: within 5% of the capacity is not worth a note.
		if ph.IO > ioShareSlack {
			p.Warnings = append(p.Warnings, fmt.Sprintf("phase %s moved %s/s per task, %.2f× the node's I/O capacity of %s/s (%s): "+
				"writes the page cache absorbed, or a capacity too low; its published io_share is capped at 1",
				ph.Phase, bytesize.Human(ph.IOBytesPerS), ph.IO, bytesize.Human(p.IOCapacityBytesPerS), p.IOCapacitySource))
		}
	}
	return p
}

// withinNoise says when the fastest setting is not clearly the fastest:
// the range of its repetitions' wall time per task overlaps that of
// another setting with successful runs, so the settings differ by less
// than their runs' spread and more repetitions could reverse the choice.
func withinNoise(best *Setting, settings []Setting) string {
	lo, hi := best.WallS.Min/float64(best.Slots), best.WallS.Max/float64(best.Slots)
	var near []string
	for i := range settings {
		s := &settings[i]
		if s == best || s.OK == 0 || s.MemBytes == best.MemBytes && s.Slots == best.Slots {
			continue
		}
		k := float64(s.Slots)
		if s.WallS.Min/k <= hi && lo <= s.WallS.Max/k {
			near = append(near, fmt.Sprintf("%d slot(s) at %s (%.3g s per task, runs %.3g-%.3g s)",
				s.Slots, memLabel(s.MemBytes), s.WallS.Median/k, s.WallS.Min/k, s.WallS.Max/k))
		}
	}
	if len(near) == 0 {
		return ""
	}
	return fmt.Sprintf("the fastest setting, %d slot(s) at %s (%.3g s per task, runs %.3g-%.3g s), is within the noise of %s: "+
		"their runs' ranges overlap, so the choice may not hold; profile more repetitions (--repeat)",
		best.Slots, memLabel(best.MemBytes), best.WallS.Median/float64(best.Slots), lo, hi, strings.Join(near, ", "))
}

// ioShareSlack is how far above the node's I/O capacity a phase's rate
// goes before BuildProfile notes it (io_share is capped at 1 either way).
const ioShareSlack = 1.05

// memLabel names a memory setting for notes, as --mem writes it.
func memLabel(b int64) string {
	if b <= 0 {
		return "no memory setting"
	}
	return bytesize.Format(b)
}

func filterTask(runs []dataset.ProfRun, task string) []dataset.ProfRun {
	var out []dataset.ProfRun
	for _, r := range runs {
		if r.Task == task {
			out = append(out, r)
		}
	}
	return out
}
