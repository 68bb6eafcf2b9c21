package simulate

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/wlprof/wlprof/dataset"
)

// AlibabaMachineCores is the 2018 Alibaba trace's machine: machine_meta's
// cpu_num is 96. Its memory is published only normalised (the trace's
// schema.md §1.1: mem_size "normalized memory size. [0, 100]"), so the
// machine memory plan_mem is a percentage of must be given
// (Options.AlibabaMachineMemoryBytes, --alibaba-machine-memory).
const AlibabaMachineCores = 96

// aliStage gathers one Alibaba task's instance runs.
type aliStage struct {
	st         dataset.Stage
	terminated int
	sumS       float64
	others     int   // runs not Terminated (failed, waiting, running): left out
	endMs      int64 // latest instance end (any status), 0 when none
}

// aliJob is one Alibaba job: its tasks by stage id, and its instances'
// span.
type aliJob struct {
	stages    map[string]*aliStage
	instances int
	startMs   int64 // first instance start, NoTime when none
	endMs     int64 // last instance end, 0 when none
}

// fromInstances builds one simulated job per Alibaba 2018 job that has
// instances (batch_instance) and tasks (batch_task) in the dataset:
//
//   - a phase per task (task_name as logged), after the task it waits
//     for (batch_task's dependencies: M5_3_4 waits for tasks 3 and 4); the
//     simulator waits for one phase, so a task with several parents
//     waits for the one whose instances ended last (batch_task's end when
//     it has none), as for a Spark stage;
//   - its tasks are its Terminated instance runs, its runtime their mean
//     duration (end − start); failed, waiting and running runs are left
//     out and counted. A task without any instance row (the trace's
//     instances are sampled out, or the rows were not ingested) runs
//     instance_num tasks as long as batch_task's end − start, the only
//     duration the trace gives it; a task whose instances never
//     terminated makes its job unreplayable;
//   - cores are plan_cpu / 100, rounded up to whole cores (the simulator
//     allocates whole cores); memory plan_mem / 100 of machineMem, the
//     largest machine's memory, taken as ideal;
//   - submission is the first instance start; ObservedS the last instance
//     end − the first instance start, widened to the logged span of the
//     tasks replayed from batch_task alone.
//
// A job that cannot be replayed is skipped with its reason in the
// warnings. firstMs is the earliest submission (NoTime when no job).
func fromInstances(ctx context.Context, ds *dataset.Dataset, machineMem int64, info *HistoryWorkload) (jobs []Job, firstMs int64, warns []string, err error) {
	firstMs = dataset.NoTime
	if ds == nil || ds.Rows(dataset.InstancesTable.Name) == 0 {
		return nil, firstMs, nil, nil
	}
	byJob := map[string]*aliJob{}
	err = dataset.Scan(ctx, ds, dataset.InstancesTable, func(r *dataset.Instance) error {
		j := byJob[r.Job]
		if j == nil {
			j = &aliJob{stages: map[string]*aliStage{}, startMs: dataset.NoTime}
			byJob[r.Job] = j
		}
		s := j.stages[r.Stage]
		if s == nil {
			s = &aliStage{}
			j.stages[r.Stage] = s
		}
		j.instances++
		known := r.StartMs != dataset.NoTime && r.EndMs != dataset.NoTime && r.EndMs >= r.StartMs
		if r.StartMs != dataset.NoTime && (j.startMs == dataset.NoTime || r.StartMs < j.startMs) {
			j.startMs = r.StartMs
		}
		if r.EndMs != dataset.NoTime {
			j.endMs = max(j.endMs, r.EndMs)
			s.endMs = max(s.endMs, r.EndMs)
		}
		if r.Status == "Terminated" && known {
			s.terminated++
			s.sumS += float64(r.EndMs-r.StartMs) / 1000
			info.Instances++
		} else {
			s.others++
			info.FailedInstances++
		}
		return nil
	})
	if err != nil {
		return nil, firstMs, nil, err
	}
	// Tasks of the jobs with instances; jobs with tasks only are counted.
	noInst := map[string]bool{}
	err = dataset.Scan(ctx, ds, dataset.StagesTable, func(r *dataset.Stage) error {
		j := byJob[r.Job]
		if j == nil {
			noInst[r.Job] = true
			return nil
		}
		s := j.stages[r.Stage]
		if s == nil {
			s = &aliStage{}
			j.stages[r.Stage] = s
		}
		s.st = *r
		return nil
	})
	if err != nil {
		return nil, firstMs, nil, err
	}
	info.JobsWithoutInstances = len(noInst)
	if machineMem <= 0 {
		info.InstanceJobsSkipped = len(byJob)
		return nil, firstMs, []string{fmt.Sprintf("Alibaba job(s) not replayed: %d with instances; plan_mem is a percentage of the largest machine, whose memory the 2018 trace does not publish: give --alibaba-machine-memory SIZE", len(byJob))}, nil
	}
	names := make([]string, 0, len(byJob))
	for n := range byJob {
		names = append(names, n)
	}
	sort.Strings(names)
	// A trace holds millions of jobs: the first reasons are listed, the
	// rest counted.
	const listed = 20
	skip := func(job, why string) {
		info.InstanceJobsSkipped++
		if info.InstanceJobsSkipped <= listed {
			warns = append(warns, fmt.Sprintf("Alibaba job %s not replayed: %s", job, why))
		}
	}
	fromTask, roundedCores, missing := 0, 0, 0
	for _, name := range names {
		aj := byJob[name]
		ids := make([]string, 0, len(aj.stages))
		for id := range aj.stages {
			ids = append(ids, id)
		}
		sort.Slice(ids, func(a, b int) bool { return stageIDLess(ids[a], ids[b]) })
		j := Job{ID: name, ModelJob: name, SubmitS: -1}
		startMs, endMs := aj.startMs, aj.endMs
		why := ""
		usedTask := 0
		for _, id := range ids {
			s := aj.stages[id]
			switch {
			case s.st.Job == "":
				why = fmt.Sprintf("task %s has instances but no batch_task row (no plan_cpu, plan_mem or dependencies)", id)
			case s.terminated == 0 && s.others > 0:
				why = fmt.Sprintf("task %s has no Terminated instance (%d other run(s))", s.st.Name, s.others)
			case s.terminated == 0 && (s.st.Tasks <= 0 || s.st.StartMs == dataset.NoTime || s.st.EndMs == dataset.NoTime || s.st.EndMs <= s.st.StartMs):
				why = fmt.Sprintf("task %s has no instances and no logged instance_num, start and end to replay it from", s.st.Name)
			case !(s.st.Memory > 0):
				why = fmt.Sprintf("task %s has no plan_mem", s.st.Name)
			}
			if why != "" {
				break
			}
			p := Phase{Task: s.st.Name, Cores: 1, ModelSource: "default"}
			if s.terminated > 0 {
				p.Tasks, p.RuntimeS = s.terminated, s.sumS/float64(s.terminated)
			} else {
				p.Tasks, p.RuntimeS = int(s.st.Tasks), float64(s.st.EndMs-s.st.StartMs)/1000
				s.endMs = s.st.EndMs
				usedTask++
				if startMs == dataset.NoTime || s.st.StartMs < startMs {
					startMs = s.st.StartMs
				}
				endMs = max(endMs, s.st.EndMs)
			}
			if !(p.RuntimeS > 0) {
				why = fmt.Sprintf("task %s's Terminated instances last 0 s on average", s.st.Name)
				break
			}
			if s.st.CPUs > 0 {
				p.Cores = int(math.Ceil(s.st.CPUs - 1e-9))
				if float64(p.Cores) != s.st.CPUs {
					roundedCores++
				}
			}
			p.MemoryBytes = max(1, int64(math.Round(s.st.Memory*float64(machineMem))))
			j.Phases = append(j.Phases, p)
		}
		if why != "" {
			skip(name, why)
			continue
		}
		// Each task after its parent that ended last.
		for pi := range j.Phases {
			s := aj.stages[ids[pi]]
			var last *aliStage
			for _, par := range strings.Split(s.st.Parents, ",") {
				if par = strings.TrimSpace(par); par == "" {
					continue
				}
				q := aj.stages[par]
				if q == nil {
					missing++
					continue
				}
				if q == s {
					continue
				}
				if last == nil || q.endMs > last.endMs || (q.endMs == last.endMs && stageIDLess(last.st.Stage, q.st.Stage)) {
					last = q
				}
			}
			if last != nil {
				j.Phases[pi].After = last.st.Name
			}
		}
		if errs := checkAfter("dataset", &j); len(errs) > 0 {
			skip(name, "its tasks' dependencies form a cycle")
			continue
		}
		fromTask += usedTask
		if startMs != dataset.NoTime {
			j.SubmitS = float64(startMs)
			if endMs > startMs {
				j.ObservedS = float64(endMs-startMs) / 1000
			}
			if firstMs == dataset.NoTime || startMs < firstMs {
				firstMs = startMs
			}
		}
		jobs = append(jobs, j)
	}
	info.InstanceJobs = len(jobs)
	if n := info.InstanceJobsSkipped - listed; n > 0 {
		warns = append(warns, fmt.Sprintf("Alibaba job(s) not replayed: %d more, for the reasons above", n))
	}
	if fromTask > 0 {
		warns = append(warns, fmt.Sprintf("%d Alibaba task(s) have no instance rows: each runs instance_num tasks as long as batch_task's end − start", fromTask))
	}
	if missing > 0 {
		warns = append(warns, fmt.Sprintf("%d Alibaba task dependency(ies) name a task their job does not have: not waited for", missing))
	}
	if roundedCores > 0 {
		warns = append(warns, fmt.Sprintf("%d Alibaba task(s) plan a fraction of a core (plan_cpu / 100): rounded up to whole cores", roundedCores))
	}
	if info.FailedInstances > 0 {
		warns = append(warns, fmt.Sprintf("%d Alibaba instance run(s) that did not terminate (failed, waiting, running, or without times) are not replayed: each task holds its Terminated runs", info.FailedInstances))
	}
	return jobs, firstMs, warns, nil
}

// stageIDLess orders Alibaba stage ids numerically (task_name's number),
// then names of independent tasks alphabetically.
func stageIDLess(a, b string) bool {
	x, errA := strconv.Atoi(a)
	y, errB := strconv.Atoi(b)
	switch {
	case errA == nil && errB == nil:
		return x < y
	case errA == nil || errB == nil:
		return errA == nil
	}
	return a < b
}
