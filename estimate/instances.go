package estimate

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/wlprof/wlprof/dataset"
)

// instanceHistory is an Alibaba job's task history from its task
// instances (batch_instance, the instances table) and its tasks
// (batch_task, the stages table): the trace holds one run of the job,
// whose instances give both µ and the progress at an instant.
type instanceHistory struct {
	phases []instPhase // in the DAG's order
	// startS and endS bound the run: its first instance start and last
	// end, +Inf while an instance started and has no end.
	startS, endS float64
	runs         int // instance runs (retries count each)
}

type instPhase struct {
	name  string // task_name as logged (M1, R2_1, ...)
	stage string // the stage id
	// tasks is batch_task's instance_num; fromStages is false when the
	// job has no batch_task row for it (tasks are then its instances).
	tasks      int
	fromStages bool
	parents    []string
	runs       []instRun
}

type instRun struct {
	instance     string
	startS, endS float64 // NaN when the trace has none
	ok           bool    // Terminated
}

// loadInstances reads the instances table and, for the jobs it names,
// the stages table: per job its phases (tasks) with their instance runs.
// It is nil when the dataset has no instances.
func loadInstances(ctx context.Context, ds *dataset.Dataset) (map[string]*instanceHistory, error) {
	if ds == nil || ds.Rows(dataset.InstancesTable.Name) == 0 {
		return nil, nil
	}
	byJob := map[string]map[string]*instPhase{}
	sec := func(ms int64) float64 {
		if ms == dataset.NoTime {
			return math.NaN()
		}
		return float64(ms) / 1000
	}
	err := dataset.Scan(ctx, ds, dataset.InstancesTable, func(r *dataset.Instance) error {
		ps := byJob[r.Job]
		if ps == nil {
			ps = map[string]*instPhase{}
			byJob[r.Job] = ps
		}
		p := ps[r.Stage]
		if p == nil {
			p = &instPhase{name: r.Task, stage: r.Stage}
			ps[r.Stage] = p
		}
		p.runs = append(p.runs, instRun{instance: r.Instance, startS: sec(r.StartMs), endS: sec(r.EndMs), ok: r.Status == "Terminated"})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if ds.Rows(dataset.StagesTable.Name) > 0 {
		err = dataset.Scan(ctx, ds, dataset.StagesTable, func(r *dataset.Stage) error {
			ps := byJob[r.Job]
			if ps == nil {
				return nil
			}
			p := ps[r.Stage]
			if p == nil {
				p = &instPhase{name: r.Name, stage: r.Stage}
				ps[r.Stage] = p
			}
			if !p.fromStages {
				p.name, p.tasks, p.fromStages = r.Name, int(r.Tasks), true
				if r.Parents != "" {
					p.parents = strings.Split(r.Parents, ",")
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	out := map[string]*instanceHistory{}
	for job, ps := range byJob {
		h := &instanceHistory{startS: math.Inf(1), endS: math.Inf(-1)}
		for _, p := range ps {
			if !p.fromStages {
				seen := map[string]bool{}
				for _, r := range p.runs {
					seen[r.instance] = true
				}
				p.tasks = len(seen)
			}
			for _, r := range p.runs {
				if math.IsNaN(r.startS) {
					continue
				}
				h.runs++
				h.startS = min(h.startS, r.startS)
				if math.IsNaN(r.endS) {
					h.endS = math.Inf(1)
				} else {
					h.endS = max(h.endS, r.endS)
				}
			}
		}
		h.phases = dagOrder(ps)
		out[job] = h
	}
	return out, nil
}

// dagOrder lists a job's phases parents first (Kahn's order), ties and
// the phases of a cycle by stage number, then name.
func dagOrder(ps map[string]*instPhase) []instPhase {
	keys := make([]string, 0, len(ps))
	for k := range ps {
		keys = append(keys, k)
	}
	less := func(a, b string) bool {
		na, ea := strconv.Atoi(a)
		nb, eb := strconv.Atoi(b)
		switch {
		case ea == nil && eb == nil && na != nb:
			return na < nb
		case (ea == nil) != (eb == nil):
			return ea == nil // numbered stages before independent tasks
		}
		return a < b
	}
	sort.Slice(keys, func(i, j int) bool { return less(keys[i], keys[j]) })
	placed := map[string]bool{}
	var out []instPhase
	for len(out) < len(keys) {
		progress := false
		for _, k := range keys {
			if placed[k] {
				continue
			}
			ready := true
			for _, par := range ps[k].parents {
				if _, known := ps[par]; known && !placed[par] {
					ready = false
					break
				}
			}
			if ready {
				placed[k] = true
				out = append(out, *ps[k])
				progress = true
				break // restart: the lowest-numbered ready phase goes next
			}
		}
		if !progress { // a cycle: the lowest-numbered remaining phase goes next
			for _, k := range keys {
				if !placed[k] {
					placed[k] = true
					out = append(out, *ps[k])
					break
				}
			}
		}
	}
	return out
}

// instancePhases sets ji's phases from the job's instances: per task,
// µ the mean length of its Terminated instance runs (Polo, PhD thesis,
// UPC 2014, §3.3.2, "the mean completed task length"; failed runs left
// out), tasks batch_task's instance_num; at atS within the run, an
// instance whose Terminated run ended by then is done, one with a run
// started and not ended by then is running for atS − its start, the rest
// pending. Outside the run every task is pending.
func instancePhases(ji *JobInput, atS float64, h *instanceHistory) string {
	inProgress := h.startS <= atS && atS < h.endS
	for _, ip := range h.phases {
		p := Phase{Name: ip.name, Tasks: ip.tasks, Pending: ip.tasks}
		sum, n := 0.0, 0
		done := map[string]bool{}
		running := map[string]float64{}
		for _, r := range ip.runs {
			if r.ok && !math.IsNaN(r.startS) && !math.IsNaN(r.endS) {
				sum += r.endS - r.startS
				n++
			}
			if !inProgress || math.IsNaN(r.startS) || r.startS > atS {
				continue
			}
			switch {
			case r.ok && !math.IsNaN(r.endS) && r.endS <= atS:
				done[r.instance] = true
			case math.IsNaN(r.endS) || atS < r.endS:
				running[r.instance] = max(running[r.instance], atS-r.startS)
			}
		}
		if n > 0 {
			p.MuS = sum / float64(n)
			p.MuFrom = fmt.Sprintf("task instances: mean of %d Terminated instance runs", n)
		}
		if inProgress {
			for inst, e := range running {
				if !done[inst] {
					p.Running = append(p.Running, e)
				}
			}
			sort.Float64s(p.Running)
			p.Pending = max(0, p.Tasks-len(done)-len(p.Running))
		}
		ji.Phases = append(ji.Phases, p)
	}
	var noCount []string
	for _, ip := range h.phases {
		if !ip.fromStages {
			noCount = append(noCount, ip.name)
		}
	}
	ji.ProfileFrom = fmt.Sprintf("task instances (%d instance runs; task counts from batch_task)", h.runs)
	if len(noCount) > 0 {
		ji.ProfileFrom = fmt.Sprintf("task instances (%d instance runs; task counts from batch_task, of %s from its instances: no batch_task row)", h.runs, strings.Join(noCount, ", "))
	}
	if inProgress {
		ji.ProfileFrom += "; progress at the instant from the instances' start and end times"
	}
	if !assumeMu(ji, "no Terminated instance") {
		return "no profile: no task of the job has a Terminated instance with a start and an end"
	}
	return ""
}
