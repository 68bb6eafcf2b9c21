package estimate

import (
	"context"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/wlprof/wlprof/dataset"
)

// history is a job's profile from its task attempts.
type history struct {
	runs   int
	phases []histPhase
}

type histPhase struct {
	name  string
	tasks int     // median over runs of successful attempts
	mu    float64 // mean length of every successful attempt
}

// sandboxMu is the median runtime of a task's successful profiling runs.
type sandboxMu struct {
	mu float64
	n  int
}

// attemptKey says whether a profruns row is one task attempt from job
// history (jhist writes "attempt" in its config, spark-eventlog
// "stage_attempt_index"), and names the run it belongs to.
func attemptKey(r *dataset.ProfRun) (run string, ok bool) {
	if r.Framework == "sandbox" || !strings.Contains(r.Config, "attempt") {
		return "", false
	}
	var c map[string]any
	if json.Unmarshal([]byte(r.Config), &c) != nil {
		return "", false
	}
	_, jh := c["attempt"]
	_, sp := c["stage_attempt_index"]
	if !jh && !sp {
		return "", false
	}
	id, _ := c["job_id"].(string)
	return r.Source + "\x00" + id, true
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
	sb := map[string]map[string][]float64{}
	err := dataset.Scan(ctx, ds, dataset.ProfRunsTable, func(r *dataset.ProfRun) error {
		run, ok := attemptKey(r)
		if !ok {
			if r.ExitCode == 0 && r.RuntimeS > 0 && (r.Outcome == "" || r.Outcome == "ok") {
				if sb[r.Job] == nil {
					sb[r.Job] = map[string][]float64{}
				}
				sb[r.Job][r.Task] = append(sb[r.Job][r.Task], r.RuntimeS)
			}
			return nil
		}
		if runs[r.Job] == nil {
			runs[r.Job], acc[r.Job] = map[string]bool{}, map[string]*phaseAcc{}
		}
		runs[r.Job][run] = true
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
		h := &history{runs: len(runs[job])}
		for name, pa := range phases {
			if pa.n == 0 {
				continue
			}
			counts := make([]int, 0, len(runs[job]))
			for run := range runs[job] {
				counts = append(counts, pa.perRun[run]) // 0 in a run without the phase
			}
			sort.Ints(counts)
			h.phases = append(h.phases, histPhase{name: name, tasks: counts[len(counts)/2], mu: pa.sum / float64(pa.n)})
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
		for task, rts := range tasks {
			sort.Float64s(rts)
			sandbox[job][task] = sandboxMu{mu: rts[len(rts)/2], n: len(rts)}
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
