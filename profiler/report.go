package profiler

import "github.com/wlprof/wlprof/dataset"

// RunJSON is a profiling run as wlprof profile show -o json lists it;
// fields are only ever added.
type RunJSON struct {
	Job               string  `json:"job"`
	Task              string  `json:"task"`
	Framework         string  `json:"framework"`
	RunID             string  `json:"run_id"`
	MemBytes          int64   `json:"mem_bytes"`
	Slots             int32   `json:"slots"`
	Repetition        int32   `json:"repetition"`
	InputBytes        int64   `json:"input_bytes"`
	WallS             float64 `json:"wall_s"`
	CPUS              float64 `json:"cpu_s"`
	PeakRSSBytes      int64   `json:"peak_rss_bytes"`
	ReadBytes         int64   `json:"read_bytes"`
	WriteBytes        int64   `json:"write_bytes"`
	ReadSyscallBytes  int64   `json:"read_syscall_bytes"`
	WriteSyscallBytes int64   `json:"write_syscall_bytes"`
	SpilledBytes      int64   `json:"spilled_bytes"`
	SpillPeakBytes    int64   `json:"spill_peak_bytes"`
	PeakThreads       int32   `json:"peak_threads"`
	ExitCode          int32   `json:"exit_code"`
	Outcome           string  `json:"outcome"`
	Capped            bool    `json:"capped"`
	OOMKills          int32   `json:"oom_kills"`
	CapNote           string  `json:"cap_note"`
	CPUWaitS          float64 `json:"cpu_wait_s"` // runnable but waiting for a CPU
}

// Report is a profiled job as wlprof profile show gives it (its -o json
// document): every run, the sweep table and each task's job profile.
type Report struct {
	Version  int        `json:"version"`
	Job      string     `json:"job"`
	Runs     []RunJSON  `json:"runs"`
	Settings []Setting  `json:"settings"`
	Profiles []*Profile `json:"profiles"`
}

// NewReport sorts runs (SortRuns, in place) and reports them: the sweep
// table (Summarize) and, per task in that order, the job profile of seed
// 002 (BuildProfile) where the task has one.
func NewReport(job string, runs []dataset.ProfRun, samples []dataset.ProfSample) *Report {
	SortRuns(runs)
	rep := &Report{Version: 1, Job: job, Runs: []RunJSON{}, Settings: Summarize(runs), Profiles: []*Profile{}}
	var tasks []string
	for _, r := range runs {
		rep.Runs = append(rep.Runs, RunJSON{Job: r.Job, Task: r.Task, Framework: r.Framework, RunID: r.RunID,
			MemBytes: r.MemoryBytes, Slots: r.Slots, Repetition: r.Repetition, InputBytes: r.InputBytes,
			WallS: r.RuntimeS, CPUS: r.CPUS, PeakRSSBytes: r.PeakRSSBytes, ReadBytes: r.ReadBytes, WriteBytes: r.WriteBytes,
			ReadSyscallBytes: r.ReadSyscallBytes, WriteSyscallBytes: r.WriteSyscallBytes,
			SpilledBytes: r.SpilledBytes, SpillPeakBytes: r.SpillPeakBytes, PeakThreads: r.PeakThreads,
			ExitCode: r.ExitCode, Outcome: r.Outcome, Capped: r.Capped, OOMKills: r.OOMKills, CapNote: r.CapNote,
			CPUWaitS: r.CPUWaitS})
		if len(tasks) == 0 || tasks[len(tasks)-1] != r.Task {
			tasks = append(tasks, r.Task)
		}
	}
	for _, t := range tasks {
		if p := BuildProfile(t, runs, samples); p != nil {
			rep.Profiles = append(rep.Profiles, p)
		}
	}
	return rep
}
