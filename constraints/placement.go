package constraints

import (
	"sort"

	"github.com/wlprof/wlprof/dataset"
)

// PlacementResult is one kind of placement constraint, Phoenix's third
// class beside hard and soft attribute constraints (Thinakaran et al.,
// Phoenix §III-A): constraints on where a task runs relative to the other
// tasks of its application, not on a machine's attributes. The Google
// 2011 trace has one, the different-machine flag of task_events: the
// task "must be scheduled to execute on a different machine than any
// other currently running task in the job".
type PlacementResult struct {
	Kind     string `json:"kind"`     // "different-machine"
	Jobs     int    `json:"jobs"`     // jobs with a task that carried it
	Tasks    int64  `json:"tasks"`    // distinct tasks that carried it
	Episodes int64  `json:"episodes"` // SUBMIT events carrying it
	// Hard, Relaxed and Violated as for an attribute constraint: relaxed
	// counts SUBMIT/SCHEDULE/UPDATE events of a task that carried it on
	// its previous such event and no longer does; violated counts
	// SCHEDULE events carrying it onto a machine where another task of the
	// job was running.
	Hard     bool  `json:"hard"`
	Relaxed  int64 `json:"relaxed"`
	Violated int64 `json:"violated"`
	// The SUBMIT→SCHEDULE waits of the SCHEDULE events carrying it.
	ObservedWaitS *float64 `json:"observed_wait_s"`
	ObservedWaits int      `json:"observed_waits"`
	ObservedP50S  *float64 `json:"observed_wait_p50_s"`
	ObservedP90S  *float64 `json:"observed_wait_p90_s"`
}

// placeTask is one task of a job with the flag, as the sweep goes.
type placeTask struct {
	machine       int32 // where it runs now; -1: not running
	prev, hasPrev bool  // the flag on its previous SUBMIT/SCHEDULE/UPDATE event
	seen          bool
}

type jobMachine struct {
	job     int64
	machine int32
}

// placement follows the different-machine flag: which tasks of the jobs
// that ever carry it run where, so a flagged SCHEDULE onto a machine
// already running a task of its job is seen.
type placement struct {
	jobs    map[int64]bool // jobs with a flagged event
	tasks   map[int32]*placeTask
	running map[jobMachine]int32
	carried map[int64]bool
	r       PlacementResult
	waits   []float64
}

// newPlacement is nil when no event carries the flag (the 2019 trace).
func newPlacement(in *Input) *placement {
	var p *placement
	for i := range in.Events {
		if in.Events[i].Different {
			if p == nil {
				p = &placement{jobs: map[int64]bool{}, tasks: map[int32]*placeTask{}, running: map[jobMachine]int32{},
					carried: map[int64]bool{}, r: PlacementResult{Kind: "different-machine"}}
			}
			p.jobs[in.Tasks[in.Events[i].Task].Job] = true
		}
	}
	return p
}

func (p *placement) stop(pt *placeTask, job int64) {
	if pt.machine >= 0 {
		k := jobMachine{job, pt.machine}
		if p.running[k]--; p.running[k] <= 0 {
			delete(p.running, k)
		}
		pt.machine = -1
	}
}

// event takes one task event before the sweep's own bookkeeping; submit
// is the open episode's SUBMIT time (NoTime when unknown or none).
func (p *placement) event(e *Event, job int64, submit int64) {
	if !p.jobs[job] {
		return
	}
	pt := p.tasks[e.Task]
	if pt == nil {
		pt = &placeTask{machine: -1}
		p.tasks[e.Task] = pt
	}
	if carriesSet(e.Type) {
		if pt.hasPrev && pt.prev && !e.Different {
			p.r.Relaxed++
		}
		pt.prev, pt.hasPrev = e.Different, true
		if e.Different && !pt.seen {
			pt.seen = true
			p.r.Tasks++
			p.carried[job] = true
		}
	}
	switch e.Type {
	case evSubmit:
		p.stop(pt, job)
		if e.Different {
			p.r.Episodes++
		}
	case evSchedule:
		p.stop(pt, job)
		if e.Different && submit != dataset.NoTime && e.TimeMs != dataset.NoTime {
			p.waits = append(p.waits, float64(e.TimeMs-submit)/1000)
		}
		if e.Machine >= 0 {
			k := jobMachine{job, e.Machine}
			if e.Different && p.running[k] > 0 {
				p.r.Violated++
			}
			p.running[k]++
			pt.machine = e.Machine
		}
	case evEvict, evFail, evFinish, evKill, evLost:
		p.stop(pt, job)
	}
}

func (p *placement) result() PlacementResult {
	r := p.r
	r.Jobs = len(p.carried)
	r.Hard = r.Relaxed == 0 && r.Violated == 0
	r.ObservedWaits = len(p.waits)
	if len(p.waits) > 0 {
		sort.Float64s(p.waits)
		var sum float64
		for _, w := range p.waits {
			sum += w
		}
		r.ObservedWaitS = ptr(round(sum/float64(len(p.waits)), 3))
		r.ObservedP50S = ptr(quantile(p.waits, 0.5))
		r.ObservedP90S = ptr(quantile(p.waits, 0.9))
	}
	return r
}
