package simulate

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/wlprof/wlprof/dataset"
)

// HistoryWorkload says where a workload built from the dataset came from
// (FromHistory): the runs replayed and what was left out, and why.
type HistoryWorkload struct {
	// Runs are the runs replayed, one simulated job each; Jobs the
	// recurring jobs they belong to.
	Runs int `json:"runs"`
	Jobs int `json:"jobs"`
	// Attempts are the successful task attempts the phases were built
	// from; FailedAttempts those left out (failed, killed).
	Attempts       int `json:"attempts"`
	FailedAttempts int `json:"failed_attempts"`
	// RunsWithoutAttempts are runs of the runs table with no task
	// attempts in the dataset (YARN RM summaries, OpenLineage, skylines):
	// they cannot be replayed task by task.
	RunsWithoutAttempts int `json:"runs_without_attempts"`
	// FirstSubmitMs is the instant submit_s 0 stands for (UTC ms), or
	// NoTime when no run has a known time.
	FirstSubmitMs int64 `json:"first_submit_ms"`
}

// histRun gathers one run's attempts.
type histRun struct {
	job, label, framework string
	startMs               int64 // earliest attempt start, NoTime when unknown
	endMs                 int64 // latest attempt end, 0 when unknown
	phases                map[string]*histPhase
}

type histPhase struct {
	task     string
	tasks    map[string]float64 // task id → runtime of its first successful attempt
	memory   []int64
	cores    int
	stage    int // Spark stage id, −1 for MapReduce phases
	parents  []int
	hasPar   bool // the log recorded the stage's parents
	endMs    int64
	attempts int
}

// FromHistory builds the workload from the dataset's task attempts, the
// profruns rows that jhist files and Spark event logs give (one per task
// attempt): one simulated job per run of a recurring job.
//
//   - A run is one MapReduce job id or one Spark application (its logs
//     may be read twice, an .inprogress and a final log: a task counts
//     once).
//   - A phase is a task kind (map, reduce) or a Spark stage; its tasks are
//     the tasks with a successful attempt, its runtime the mean runtime
//     of those attempts (so the phase holds the run's real work), its
//     memory the median container memory the attempts were given. That
//     memory is taken as the ideal memory (the runtime was measured with
//     it); a fitted elasticity model of the job and task replaces it, as
//     for a trace. Failed and killed attempts are left out and counted.
//   - Order: reduces wait for the maps of their run; a Spark stage waits
//     for its parent stage ("Parent IDs" in the log). The simulator waits
//     for one phase, so a stage with several parents waits for the one
//     that finished last in the log (the others had finished by then);
//     parents that did not run (skipped stages) are no phases.
//   - Submission: the run's first attempt start, relative to the first
//     run's. What ran before (a Spark driver and its executors starting,
//     an ApplicationMaster) is not simulated, so the runs table's start
//     is not used. ObservedS is the run's last attempt end (failed
//     attempts included) − its first attempt start: the JCT the
//     simulation of a cluster like the real one should come close to.
//
// The ModelJob of each job is the recurring job, so the elasticity
// models of the job's tasks apply to every run of it.
func FromHistory(ctx context.Context, ds *dataset.Dataset) ([]Job, HistoryWorkload, []string, error) {
	var info HistoryWorkload
	info.FirstSubmitMs = dataset.NoTime
	if ds == nil || ds.Rows(dataset.ProfRunsTable.Name) == 0 {
		return nil, info, nil, nil
	}
	runs := map[string]*histRun{}
	var order []string
	noParents := 0
	err := dataset.Scan(ctx, ds, dataset.ProfRunsTable, func(r *dataset.ProfRun) error {
		at, ok := dataset.HistoryAttempt(r)
		if !ok {
			return nil
		}
		label, taskID, stage := at.Run, at.Task, at.Stage
		if label == "" {
			label = filepath.Base(r.Source)
		}
		key := r.Job + "\x00" + label
		run := runs[key]
		if run == nil {
			run = &histRun{job: r.Job, label: label, framework: r.Framework, startMs: dataset.NoTime, phases: map[string]*histPhase{}}
			runs[key] = run
			order = append(order, key)
		}
		if r.StartMs > 0 && r.StartMs != dataset.NoTime {
			if run.startMs == dataset.NoTime || r.StartMs < run.startMs {
				run.startMs = r.StartMs
			}
			if r.RuntimeS > 0 {
				run.endMs = max(run.endMs, r.StartMs+int64(r.RuntimeS*1000))
			}
		}
		if r.ExitCode != 0 || !(r.RuntimeS > 0) {
			info.FailedAttempts++
			return nil
		}
		ph := run.phases[r.Task]
		if ph == nil {
			ph = &histPhase{task: r.Task, tasks: map[string]float64{}, cores: 1, stage: stage}
			run.phases[r.Task] = ph
		}
		if _, dup := ph.tasks[taskID]; dup {
			return nil
		}
		ph.tasks[taskID] = r.RuntimeS
		ph.attempts++
		info.Attempts++
		ph.memory = append(ph.memory, r.MemoryBytes)
		if at.TaskCPUs > 0 {
			ph.cores = at.TaskCPUs
		}
		if at.Parents != nil {
			ph.parents, ph.hasPar = at.Parents, true
		}
		if r.StartMs > 0 && r.StartMs != dataset.NoTime {
			ph.endMs = max(ph.endMs, r.StartMs+int64(r.RuntimeS*1000))
		}
		return nil
	})
	if err != nil {
		return nil, info, nil, err
	}
	// Runs of the runs table that cannot be replayed.
	seen := map[string]bool{}
	err = dataset.Scan(ctx, ds, dataset.RunsTable, func(r *dataset.Run) error {
		key := r.Job + "\x00" + r.Run
		if runs[key] == nil && !seen[key] {
			seen[key] = true
			info.RunsWithoutAttempts++
		}
		return nil
	})
	if err != nil {
		return nil, info, nil, err
	}
	var warns []string
	var jobs []Job
	recurring := map[string]bool{}
	noStart := 0
	ids := map[string]int{}
	for _, key := range order {
		run := runs[key]
		if len(run.phases) == 0 {
			continue // every attempt failed
		}
		if run.startMs == dataset.NoTime {
			noStart++
		} else if info.FirstSubmitMs == dataset.NoTime || run.startMs < info.FirstSubmitMs {
			info.FirstSubmitMs = run.startMs
		}
		recurring[run.job] = true
		id := run.job + "/" + run.label
		if n := ids[id]; n > 0 {
			id += "#" + strconv.Itoa(n+1)
		}
		ids[run.job+"/"+run.label]++
		j := Job{ID: id, ModelJob: run.job}
		names := make([]string, 0, len(run.phases))
		byStage := map[int]*histPhase{}
		for name, ph := range run.phases {
			names = append(names, name)
			if ph.stage >= 0 {
				byStage[ph.stage] = ph
			}
		}
		sort.Slice(names, func(a, b int) bool { return phaseLess(run.phases[names[a]], run.phases[names[b]]) })
		for _, name := range names {
			ph := run.phases[name]
			sum := 0.0
			for _, rt := range ph.tasks {
				sum += rt
			}
			sort.Slice(ph.memory, func(a, b int) bool { return ph.memory[a] < ph.memory[b] })
			p := Phase{Task: name, Tasks: len(ph.tasks), RuntimeS: sum / float64(len(ph.tasks)), MemoryBytes: ph.memory[len(ph.memory)/2],
				Cores: ph.cores, ModelSource: "default"}
			switch {
			case name == "reduce" && run.phases["map"] != nil:
				p.After = "map"
			case ph.stage >= 0:
				if !ph.hasPar {
					noParents++
				}
				var last *histPhase
				for _, s := range ph.parents {
					q := byStage[s]
					if q == nil || q == ph {
						continue
					}
					if last == nil || q.endMs > last.endMs || (q.endMs == last.endMs && q.stage > last.stage) {
						last = q
					}
				}
				if last != nil {
					p.After = last.task
				}
			}
			if p.MemoryBytes <= 0 {
				p.MemoryBytes = 1 << 30
			}
			j.Phases = append(j.Phases, p)
		}
		if errs := checkAfter("dataset", &j); len(errs) > 0 {
			for pi := range j.Phases {
				j.Phases[pi].After = ""
			}
			warns = append(warns, fmt.Sprintf("run %s: its stages' parents form a cycle; every stage is ready at submission", id))
		}
		if run.startMs != dataset.NoTime {
			if run.endMs > run.startMs {
				j.ObservedS = float64(run.endMs-run.startMs) / 1000
			}
			j.SubmitS = float64(run.startMs) // made relative below
		} else {
			j.SubmitS = -1
		}
		jobs = append(jobs, j)
	}
	for i := range jobs {
		if jobs[i].SubmitS < 0 || info.FirstSubmitMs == dataset.NoTime {
			jobs[i].SubmitS = 0
		} else {
			jobs[i].SubmitS = (jobs[i].SubmitS - float64(info.FirstSubmitMs)) / 1000
		}
	}
	info.Runs, info.Jobs = len(jobs), len(recurring)
	if noStart > 0 {
		warns = append(warns, fmt.Sprintf("%d run(s) have no start time (ingested before wlprof kept task attempt starts; ingest their logs again): submitted at 0 s", noStart))
	}
	if noParents > 0 {
		warns = append(warns, fmt.Sprintf("%d Spark stage(s) have no recorded parents (ingested before wlprof kept the stage DAG; ingest the logs again): they are ready at submission", noParents))
	}
	if info.FailedAttempts > 0 {
		warns = append(warns, fmt.Sprintf("%d failed or killed task attempt(s) are not replayed: each phase holds its successful attempts", info.FailedAttempts))
	}
	SortJobs(jobs)
	return jobs, info, warns, nil
}

// phaseLess orders a run's phases as they ran: map before reduce, Spark
// stages by id, other names alphabetically.
func phaseLess(a, b *histPhase) bool {
	ra, rb := phaseRank(a), phaseRank(b)
	if ra != rb {
		return ra < rb
	}
	return a.task < b.task
}

func phaseRank(p *histPhase) int {
	switch {
	case p.task == "map":
		return -2
	case p.task == "reduce":
		return -1
	case p.stage >= 0:
		return p.stage
	}
	return 1 << 30
}
