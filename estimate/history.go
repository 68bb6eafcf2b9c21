package estimate

import (
	"context"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/profiler"
)

// history is a job's profile from its task attempts.
type history struct {
	runs   int
	phases []histPhase
	// attempts of each run with times, for the progress at an instant.
	byRun map[string]*runAttempts
}

// runAttempts are one run's task attempts that have a start.
type runAttempts struct {
	id           string
	startS, endS float64
	phases       map[string][]attempt
}

type attempt struct {
	task         string // task id within its phase
	startS, endS float64
	ok           bool
}

// progress is a job's state at atS from the run of it in progress then
// (its first attempt started at or before atS, its last ends after): per
// phase the tasks finished, the elapsed time of each running one, and the
// run's id. ok is false when no run was in progress.
func (h *history) progress(atS float64) (run string, total, finished map[string]int, running map[string][]float64, ok bool) {
	if h == nil {
		return "", nil, nil, nil, false
	}
	var best *runAttempts
	for _, r := range h.byRun {
		if r.startS <= atS && atS < r.endS && (best == nil || r.startS > best.startS || r.startS == best.startS && r.id < best.id) {
			best = r
		}
	}
	if best == nil {
		return "", nil, nil, nil, false
	}
	total, finished, running = map[string]int{}, map[string]int{}, map[string][]float64{}
	for name, as := range best.phases {
		done := map[string]bool{}
		run := map[string]float64{}
		all := map[string]bool{}
		for _, a := range as {
			all[a.task] = true
			switch {
			case a.ok && a.endS <= atS:
				done[a.task] = true
			case a.startS <= atS && atS < a.endS:
				run[a.task] = max(run[a.task], atS-a.startS)
			}
		}
		finished[name], total[name] = len(done), len(all)
		for t, e := range run {
			if !done[t] {
				running[name] = append(running[name], e)
			}
		}
		sort.Float64s(running[name])
	}
	return best.id, total, finished, running, true
}

type histPhase struct {
	name  string
	tasks int     // median over runs of successful attempts
	mu    float64 // mean length of every successful attempt
	n     int     // successful attempts
}

// sandboxMu is a task's µ from its profiling runs: the mean per-task
// time (runtime / slots) of the successful runs at the setting the
// published profile uses (profiler.BuildProfile: the least median wall
// time per task), n runs at slots tasks at once and memBytes.
type sandboxMu struct {
	mu       float64
	n        int
	slots    int
	memBytes int64
}

// muFromSweep is sandboxMu from one task's profiling runs; n is 0 when
// none succeeded. Rows without a slot count ran one task at once.
func muFromSweep(task string, rows []dataset.ProfRun) sandboxMu {
	for i := range rows {
		rows[i].Slots = max(rows[i].Slots, 1)
	}
	p := profiler.BuildProfile(task, rows, nil)
	if p == nil {
		return sandboxMu{}
	}
	out := sandboxMu{slots: p.Slots, memBytes: p.MemBytes}
	sum := 0.0
	for _, r := range rows {
		if r.Task == task && r.MemoryBytes == p.MemBytes && int(r.Slots) == p.Slots && r.ExitCode == 0 && (r.Outcome == "" || r.Outcome == "ok") {
			sum += r.RuntimeS / float64(r.Slots)
			out.n++
		}
	}
	if out.n > 0 {
		out.mu = sum / float64(out.n)
	}
	return out
}

// loadHistory reads the profruns table once: task attempts grouped into
// per-job phases (history), and the other rows' median runtime per job
// and task (profiling runs, for µ only).
func loadHistory(ctx context.Context, ds *dataset.Dataset) (map[string]*history, map[string]map[string]sandboxMu, error) {
	if ds == nil || ds.Rows(dataset.ProfRunsTable.Name) == 0 {
		return nil, nil, nil
	}
	type phaseAcc struct {
		perRun map[string]int
		sum    float64
		n      int
	}
	acc := map[string]map[string]*phaseAcc{}
	runs := map[string]map[string]bool{}
	timed := map[string]map[string]*runAttempts{}
	sb := map[string]map[string][]dataset.ProfRun{}
	err := dataset.Scan(ctx, ds, dataset.ProfRunsTable, func(r *dataset.ProfRun) error {
		at, ok := dataset.HistoryAttempt(r)
		run := r.Source + "\x00" + at.Run // a run per log and job id
		if !ok {
			if r.RuntimeS > 0 {
				if sb[r.Job] == nil {
					sb[r.Job] = map[string][]dataset.ProfRun{}
				}
				sb[r.Job][r.Task] = append(sb[r.Job][r.Task], *r)
			}
			return nil
		}
		if runs[r.Job] == nil {
			runs[r.Job], acc[r.Job] = map[string]bool{}, map[string]*phaseAcc{}
		}
		runs[r.Job][run] = true
		if r.StartMs > 0 && r.StartMs != dataset.NoTime {
			if timed[r.Job] == nil {
				timed[r.Job] = map[string]*runAttempts{}
			}
			ra := timed[r.Job][run]
			st := float64(r.StartMs) / 1000
			en := st + r.RuntimeS
			if ra == nil {
				label := at.Run
				if label == "" {
					label = filepath.Base(r.Source)
				}
				ra = &runAttempts{id: label, startS: st, endS: en, phases: map[string][]attempt{}}
				timed[r.Job][run] = ra
			}
			ra.startS, ra.endS = min(ra.startS, st), max(ra.endS, en)
			ra.phases[r.Task] = append(ra.phases[r.Task], attempt{task: at.Task, startS: st, endS: en, ok: r.ExitCode == 0})
		}
		pa := acc[r.Job][r.Task]
		if pa == nil {
			pa = &phaseAcc{perRun: map[string]int{}}
			acc[r.Job][r.Task] = pa
		}
		if r.ExitCode == 0 {
			pa.perRun[run]++
			pa.sum += r.RuntimeS
			pa.n++
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	hist := map[string]*history{}
	for job, phases := range acc {
		h := &history{runs: len(runs[job]), byRun: timed[job]}
		for name, pa := range phases {
			if pa.n == 0 {
				continue
			}
			counts := make([]int, 0, len(runs[job]))
			for run := range runs[job] {
				counts = append(counts, pa.perRun[run]) // 0 in a run without the phase
			}
			sort.Ints(counts)
			h.phases = append(h.phases, histPhase{name: name, tasks: counts[len(counts)/2], mu: pa.sum / float64(pa.n), n: pa.n})
		}
		if len(h.phases) == 0 {
			continue
		}
		sort.Slice(h.phases, func(a, b int) bool { return phaseLess(h.phases[a].name, h.phases[b].name) })
		hist[job] = h
	}
	sandbox := map[string]map[string]sandboxMu{}
	for job, tasks := range sb {
		sandbox[job] = map[string]sandboxMu{}
		for task, rows := range tasks {
			if m := muFromSweep(task, rows); m.n > 0 {
				sandbox[job][task] = m
			}
		}
	}
	return hist, sandbox, nil
}

// phaseLess orders phases as they run: map before reduce, Spark stages by
// their number ("stage 3: ..."), other names alphabetically after them.
func phaseLess(a, b string) bool {
	ra, rb := phaseRank(a), phaseRank(b)
	if ra != rb {
		return ra < rb
	}
	return a < b
}

func phaseRank(p string) int {
	switch p {
	case "map":
		return -2
	case "reduce":
		return -1
	}
	if rest, ok := strings.CutPrefix(p, "stage "); ok {
		if i := strings.IndexByte(rest, ':'); i > 0 {
			if n, err := strconv.Atoi(rest[:i]); err == nil {
				return n
			}
		}
	}
	return 1 << 30
}
