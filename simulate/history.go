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
	// InstanceJobs are the Alibaba 2018 jobs replayed from their task
	// instances (batch_instance) and tasks (batch_task), counted in Runs
	// and Jobs too; Instances the Terminated instance runs read,
	// FailedInstances the runs left out (not Terminated, or without
	// times); InstanceJobsSkipped the jobs with instances that could not
	// be replayed (reasons in the warnings); JobsWithoutInstances the
	// jobs with tasks but no instances.
	InstanceJobs         int `json:"instance_jobs"`
	Instances            int `json:"instances"`
	FailedInstances      int `json:"failed_instances"`
	InstanceJobsSkipped  int `json:"instance_jobs_skipped"`
	JobsWithoutInstances int `json:"jobs_without_instances"`
}

// HistoryOptions are what the history replay needs beyond the dataset.
type HistoryOptions struct {
	// AlibabaMachineMemoryBytes is the memory of the Alibaba 2018 trace's
	// largest machine, which plan_mem is a percentage of; 0 (not given)
	// leaves the Alibaba jobs out, with the reason.
	AlibabaMachineMemoryBytes int64
}

// FromHistoryWith is FromHistory followed by the Alibaba 2018 jobs the
// dataset's task instances give (fromInstances), all submitted relative
// to the first of either.
func FromHistoryWith(ctx context.Context, ds *dataset.Dataset, o HistoryOptions) ([]Job, HistoryWorkload, []string, error) {
	jobs, info, warns, err := FromHistory(ctx, ds)
	if err != nil {
		return nil, info, nil, err
	}
	ali, aliFirst, aliWarns, err := fromInstances(ctx, ds, o.AlibabaMachineMemoryBytes, &info)
	if err != nil {
		return nil, info, nil, err
	}
	if len(ali) == 0 {
		return jobs, info, append(warns, aliWarns...), nil
	}
	first := info.FirstSubmitMs
	if first == dataset.NoTime || (aliFirst != dataset.NoTime && aliFirst < first) {
		first = aliFirst
	}
	if first != info.FirstSubmitMs && info.FirstSubmitMs != dataset.NoTime {
		for i := range jobs {
			jobs[i].SubmitS += float64(info.FirstSubmitMs-first) / 1000
		}
	}
	for i := range ali {
		if ali[i].SubmitS < 0 || first == dataset.NoTime {
			ali[i].SubmitS = 0
		} else {
			ali[i].SubmitS = (ali[i].SubmitS - float64(first)) / 1000
		}
	}
	info.FirstSubmitMs = first
	info.Runs += len(ali)
	info.Jobs += len(ali)
	jobs = append(jobs, ali...)
	SortJobs(jobs)
	return jobs, info, append(warns, aliWarns...), nil
}

// histRun gathers one run's attempts.
type histRun struct {
	job, label, framework string
	startMs               int64 // earliest attempt start, NoTime when unknown
	endMs                 int64 // latest attempt end, 0 when unknown
	phases                map[string]*histPhase
	appAttempts           map[string]bool // YARN application attempts (Spark)
}

type histPhase struct {
	task    string
	tasks   map[string]float64 // task id → runtime of its first successful attempt
	taskEnd map[string]int64   // task id → its end, when known
	// straggler is the task split off as a phase of its own (stragglerOf),
	// "" when none; done names the phase the stage's children wait for.
	straggler string
	done      string
	memory    []int64
	cores     int
	stage     int // Spark stage id, −1 for MapReduce phases
	// appAttempt and span are the Spark stage's application attempt and
	// its job (SparkJob −1 when the log's job is not recorded).
	appAttempt string
	span       dataset.SparkJobSpan
	parents    []int
	hasPar     bool  // the log recorded the stage's parents
	startMs    int64 // first successful attempt's launch, 0 when unknown
	endMs      int64
	attempts   int
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
//     memory the median memory a task was given (a Spark task's share of
//     its executor, task_memory_bytes, not the executor). That
//     memory is taken as the ideal memory (the runtime was measured with
//     it); a fitted elasticity model of the job and task replaces it, as
//     for a trace. Failed and killed attempts are left out and counted.
//   - Order: reduces wait for the maps of their run; a Spark stage waits
//     for its parent stage ("Parent IDs" in the log). The simulator waits
//     for one phase, so a stage with several parents waits for the one
//     that finished last in the log (the others had finished by then);
//     parents that did not run (skipped stages) are no phases. A stage
//     without a parent that ran waits for the groups of Spark jobs before
//     its own, through the driver's logged gap between them; a straggler
//     is a phase of its own (see the package doc).
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
	noParents, stragglers, driverGaps := 0, 0, 0
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
			run = &histRun{job: r.Job, label: label, framework: r.Framework, startMs: dataset.NoTime, phases: map[string]*histPhase{},
				appAttempts: map[string]bool{}}
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
		// Stage ids start again in each YARN application attempt: a phase
		// is the attempt's stage (named by its attempt below when the run
		// has several).
		run.appAttempts[at.AppAttempt] = true
		pkey := at.AppAttempt + "\x00" + r.Task
		ph := run.phases[pkey]
		if ph == nil {
			ph = &histPhase{task: r.Task, tasks: map[string]float64{}, taskEnd: map[string]int64{}, cores: 1, stage: stage, appAttempt: at.AppAttempt,
				span: dataset.SparkJobSpan{SparkJobKey: dataset.SparkJobKey{Attempt: at.AppAttempt, Job: at.SparkJob}, SubmitMs: at.JobSubmitMs, EndMs: at.JobEndMs}}
			run.phases[pkey] = ph
		}
		if _, dup := ph.tasks[taskID]; dup {
			return nil
		}
		ph.tasks[taskID] = r.RuntimeS
		if r.StartMs > 0 && r.StartMs != dataset.NoTime {
			ph.taskEnd[taskID] = r.StartMs + int64(r.RuntimeS*1000)
		}
		ph.attempts++
		info.Attempts++
		// A task's memory is its share of its container (a Spark executor
		// runs several tasks at once in one), not the container's.
		mem := r.MemoryBytes
		if r.TaskMemoryBytes > 0 {
			mem = r.TaskMemoryBytes
		}
		ph.memory = append(ph.memory, mem)
		if at.TaskCPUs > 0 {
			ph.cores = at.TaskCPUs
		}
		if at.Parents != nil {
			ph.parents, ph.hasPar = at.Parents, true
		}
		if r.StartMs > 0 && r.StartMs != dataset.NoTime {
			ph.endMs = max(ph.endMs, r.StartMs+int64(r.RuntimeS*1000))
			if ph.startMs == 0 || r.StartMs < ph.startMs {
				ph.startMs = r.StartMs
			}
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
		type stageKey struct {
			attempt string
			stage   int
		}
		byStage := map[stageKey]*histPhase{}
		var spans []dataset.SparkJobSpan
		for name, ph := range run.phases {
			names = append(names, name)
			if ph.stage >= 0 {
				byStage[stageKey{ph.appAttempt, ph.stage}] = ph
				if ph.span.Job >= 0 {
					spans = append(spans, ph.span)
				}
			}
			if len(run.appAttempts) > 1 {
				ph.task = "attempt " + ph.appAttempt + " " + ph.task
			}
		}
		sort.Slice(names, func(a, b int) bool { return phaseLess(run.phases[names[a]], run.phases[names[b]]) })
		for _, ph := range run.phases {
			ph.done = ph.task
			if ph.stage >= 0 {
				stragglerOf(ph)
			}
		}
		// A Spark application runs its jobs one after another (groups of
		// jobs that overlapped in time): a stage with no parent that ran
		// waits for the stage of the group before that ended last.
		group, groups := dataset.SparkJobGroups(spans)
		lastOf := make([]*histPhase, groups)
		for _, ph := range run.phases {
			if ph.stage < 0 || ph.span.Job < 0 {
				continue
			}
			g := group[ph.span.SparkJobKey]
			if q := lastOf[g]; q == nil || ph.endMs > q.endMs || (ph.endMs == q.endMs && ph.stage > q.stage) {
				lastOf[g] = ph
			}
		}
		firstOf := make([]*histPhase, groups)
		for _, ph := range run.phases {
			if ph.stage < 0 || ph.span.Job < 0 || ph.startMs == 0 {
				continue
			}
			g := group[ph.span.SparkJobKey]
			if q := firstOf[g]; q == nil || ph.startMs < q.startMs {
				firstOf[g] = ph
			}
		}
		// The driver's time between two groups of jobs (planning the
		// next job, collecting results, an application attempt starting
		// again: no task of the application runs) is a phase of its own,
		// one task as long as the log's gap from the group's last task
		// end to the next group's first launch, holding one core and the
		// least memory: the next group's stages wait for it.
		gapOf := make([]string, groups)
		var gaps []Phase
		for g := 1; g < groups; g++ {
			prev, next := lastOf[g-1], firstOf[g]
			if prev == nil || next == nil || next.startMs <= prev.endMs {
				continue
			}
			name := fmt.Sprintf("driver before Spark job %d", next.span.Job)
			if len(run.appAttempts) > 1 {
				name = "attempt " + next.appAttempt + " " + name
			}
			gapOf[g] = name
			gaps = append(gaps, Phase{Task: name, Tasks: 1, RuntimeS: float64(next.startMs-prev.endMs) / 1000, MemoryBytes: 1,
				Cores: 1, After: prev.done, ModelSource: "none", modelSet: true})
			driverGaps++
		}
		for _, name := range names {
			ph := run.phases[name]
			sum := 0.0
			for id, rt := range ph.tasks {
				if id != ph.straggler {
					sum += rt
				}
			}
			n := len(ph.tasks)
			if ph.straggler != "" {
				n--
			}
			sort.Slice(ph.memory, func(a, b int) bool { return ph.memory[a] < ph.memory[b] })
			p := Phase{Task: ph.task, Tasks: n, RuntimeS: sum / float64(n), MemoryBytes: ph.memory[len(ph.memory)/2],
				Cores: ph.cores, ModelSource: "default"}
			switch {
			case ph.task == "reduce" && run.phases["\x00map"] != nil:
				p.After = "map"
			case ph.stage >= 0:
				if !ph.hasPar {
					noParents++
				}
				var last *histPhase
				for _, s := range ph.parents {
					q := byStage[stageKey{ph.appAttempt, s}]
					if q == nil || q == ph {
						continue
					}
					if last == nil || q.endMs > last.endMs || (q.endMs == last.endMs && q.stage > last.stage) {
						last = q
					}
				}
				// A parent that ran in an earlier group of jobs than the
				// stage's own is done before that group's successors: the
				// stage waits for the group before its own instead.
				if last != nil && ph.span.Job >= 0 && last.span.Job >= 0 && group[last.span.SparkJobKey] < group[ph.span.SparkJobKey] {
					last = nil
				}
				if last != nil {
					p.After = last.done
				} else if ph.span.Job >= 0 {
					if g := group[ph.span.SparkJobKey]; g > 0 && gapOf[g] != "" {
						p.After = gapOf[g]
					} else if g > 0 && lastOf[g-1] != nil {
						p.After = lastOf[g-1].done
					}
				}
			}
			if p.MemoryBytes <= 0 {
				p.MemoryBytes = 1 << 30
			}
			if ph.straggler != "" {
				// The straggler first: it ran beside the others.
				q := p
				q.Task, q.Tasks, q.RuntimeS = ph.task+" (longest task)", 1, ph.tasks[ph.straggler]
				j.Phases = append(j.Phases, q)
				stragglers++
			}
			j.Phases = append(j.Phases, p)
		}
		j.Phases = append(j.Phases, gaps...)
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
	if stragglers > 0 {
		warns = append(warns, fmt.Sprintf("%d Spark stage(s) had a straggler (a task more than twice as long as the mean of the others): it is a phase of its own, \"(longest task)\", beside the stage's other tasks at their mean", stragglers))
	}
	if driverGaps > 0 {
		warns = append(warns, fmt.Sprintf("%d gap(s) between a Spark run's groups of jobs, when no task ran (the driver planning the next job, an application attempt starting again), are replayed as they were logged: phases \"driver before Spark job N\" of one task, one core and the least memory", driverGaps))
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
	if a.appAttempt != b.appAttempt {
		x, errA := strconv.Atoi(a.appAttempt)
		y, errB := strconv.Atoi(b.appAttempt)
		if errA == nil && errB == nil {
			return x < y
		}
		return a.appAttempt < b.appAttempt
	}
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

// stragglerOf splits off a stage's longest task when it ran more than
// twice as long as the mean of the others: a stage ends with its last
// task, and one mean for every task would hide a straggler (the real
// stage takes the straggler's time, however few the other tasks). The
// stage's children then wait for whichever of the two ended last in the
// log.
func stragglerOf(ph *histPhase) {
	if len(ph.tasks) < 2 {
		return
	}
	ids := make([]string, 0, len(ph.tasks))
	for id := range ph.tasks {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	long, sum := ids[0], 0.0
	for _, id := range ids {
		sum += ph.tasks[id]
		if ph.tasks[id] > ph.tasks[long] {
			long = id
		}
	}
	rest := (sum - ph.tasks[long]) / float64(len(ids)-1)
	if !(ph.tasks[long] > 2*rest) {
		return
	}
	ph.straggler = long
	var restEnd int64
	for id, end := range ph.taskEnd {
		if id != long {
			restEnd = max(restEnd, end)
		}
	}
	if ph.taskEnd[long] > restEnd {
		ph.done = ph.task + " (longest task)"
	}
}
