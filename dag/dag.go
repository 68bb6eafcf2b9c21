// Package dag is the maximum concurrent containers of a job from its DAG
// (Zhang et al., OSDI'16, §4.1, Fig. 7): what a batch job asks of
// a harvesting scheduler at most at once (Alg. 1's J.req). It has the stage
// surface of package internal/stage (Contract, Options, Load, Run, Result,
// Document); --job that names no DAG is the dataset's unknown-job error.
//
// # The rule
//
// A job's stages are put in breadth-first levels: a stage with no parent
// is in level 0, and a stage enters the level after the last of its
// parents (Kahn's topological layering, the breadth-first order in which
// a stage becomes ready once all its parents are done). The maximum
// concurrent containers is the largest sum, over the stages of one level,
// of their tasks. This is the paper's reading of Fig. 7; it assumes the
// stages of one level run together and those of different levels do not.
// The largest antichain of the DAG (stages no two of which depend on each
// other, weighted by tasks) can be larger: a long chain beside a short
// one puts stages of different levels side by side (A→B→C beside D→E:
// levels {A,D}, {B,E}, {C}, while C and D may run at once if D starts
// late). The level maximum is a lower bound of that antichain and the
// paper's number: max_containers stays the levels' (and what wlprof
// harvest asks for), and each job also gets its largest antichain
// (MaxAntichain, exact by a maximum flow) with a note naming both numbers
// where the antichain is larger, so a user sees where the paper's rule
// under-asks. DAGs of more than MaxAntichainStages stages get none.
//
// A parent the job does not have (a task the trace lost, a Spark stage
// that was skipped because its output was cached) is taken as done and
// noted. Stages on a cycle never become ready: the job gets no level and
// its reason says which stages.
//
// # Sources
//
//   - Alibaba 2018 batch_task (the stages table): task_name's numbers,
//     instance_num tasks per stage;
//   - Spark event logs (the profruns table): a stage's "Parent IDs" and
//     its tasks (distinct task indexes with an attempt). A Spark SQL
//     application runs many Spark jobs one after another, and a job's
//     stages have no parents in the jobs before it, so the jobs
//     (SparkListenerJobStart's stages and submission time, JobEnd's
//     completion time) are put in groups in order of submission, a job
//     joining the group before it when it was submitted before that
//     group had ended, and a group's stages enter the levels after the
//     group before it: the maximum is the largest level of one job, or
//     of jobs that overlapped in time. The attempts of a YARN
//     application follow one another the same way (stage ids are then
//     "attempt/stage");
//   - MapReduce job history (profruns): maps, then reduces (reduce
//     slow-start, which overlaps them, is not modelled);
//   - Google 2019 collection_events (the stages table): a collection's
//     start_after_collection_ids. The collections their edges connect
//     (weakly connected components) are one job, "workflow-" and the
//     smallest collection id; a parent that is a collection of the trace
//     is a stage even without edges of its own. A collection's tasks are
//     its instances in the task_events table; without instance events the
//     levels are given without a maximum.
//
// Where the skylines table has the same run (Spark logs do), its
// observed peak of containers is given beside the DAG's maximum. A Spark
// skyline counts executors, each running cores / spark.task.cpus tasks at
// once: the run's most task slots at once (the skyline's executor cores /
// spark.task.cpus, observed_peak_task_slots) is what compares with the
// DAG's tasks, not its executors. Where the instances table has an
// Alibaba job's batch_instance rows, the most instance runs that ran at
// once (observed_peak_instances: each over [start_time, end_time), a
// retry, another seq_no, as a run of its own; rows without times left
// out and noted) is given beside the level maximum: the concurrency the
// job had, where the DAG says what it could ask for.
package dag

import (
	"sort"
	"strings"
)

// Stage is one stage of a job's DAG.
type Stage struct {
	ID      string
	Tasks   int64
	Parents []string
}

// Level is one breadth-first level: its stages and their summed tasks.
type Level struct {
	Stages []string `json:"stages"`
	Tasks  int64    `json:"tasks"`
}

// Levels puts stages in breadth-first levels (Kahn's layering). missing
// lists parents that are no stage of the job (taken as done); cyclic the
// stages that never become ready (on or after a cycle), sorted. Stage
// order within a level is the input order.
func Levels(stages []Stage) (levels []Level, missing, cyclic []string) {
	idx := make(map[string]int, len(stages))
	for i, s := range stages {
		idx[s.ID] = i
	}
	indeg := make([]int, len(stages))
	children := make([][]int, len(stages))
	seenMissing := map[string]bool{}
	for i, s := range stages {
		seen := map[int]bool{}
		for _, p := range s.Parents {
			j, ok := idx[p]
			if !ok {
				if !seenMissing[p] {
					seenMissing[p] = true
					missing = append(missing, p)
				}
				continue
			}
			if seen[j] {
				continue // a parent named twice waits once
			}
			seen[j] = true
			indeg[i]++
			children[j] = append(children[j], i)
		}
	}
	var cur []int
	for i := range stages {
		if indeg[i] == 0 {
			cur = append(cur, i)
		}
	}
	done := 0
	for len(cur) > 0 {
		sort.Ints(cur)
		lv := Level{}
		var next []int
		for _, i := range cur {
			lv.Stages = append(lv.Stages, stages[i].ID)
			lv.Tasks += stages[i].Tasks
			for _, c := range children[i] {
				indeg[c]--
				if indeg[c] == 0 {
					next = append(next, c)
				}
			}
		}
		done += len(cur)
		levels = append(levels, lv)
		cur = next
	}
	if done < len(stages) {
		for i, s := range stages {
			if indeg[i] > 0 {
				cyclic = append(cyclic, s.ID)
			}
		}
		sort.Strings(cyclic)
	}
	sort.Slice(missing, func(i, j int) bool { return stageLess(missing[i], missing[j]) })
	return levels, missing, cyclic
}

// MaxLevel is the level of most tasks (the first of equals) and its tasks.
func MaxLevel(levels []Level) (level int, tasks int64) {
	level = -1
	for i, l := range levels {
		if l.Tasks > tasks || level < 0 {
			level, tasks = i, l.Tasks
		}
	}
	return level, tasks
}

// stageLess orders stage ids numerically when both are numbers.
func stageLess(a, b string) bool {
	na, nb := isDigits(a), isDigits(b)
	switch {
	case na && nb:
		a, b = strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
		if len(a) != len(b) {
			return len(a) < len(b)
		}
		return a < b
	case na != nb:
		return na
	}
	return a < b
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// PeakConcurrent is the most spans running at once. A span runs over
// [start, end): one that ends when another starts is not counted with it,
// as a slot freed by the first is taken by the second. Spans whose end is
// not after their start are ignored.
func PeakConcurrent(spans [][2]int64) int64 {
	type edge struct {
		t     int64
		delta int64
	}
	edges := make([]edge, 0, 2*len(spans))
	for _, s := range spans {
		if s[1] > s[0] {
			edges = append(edges, edge{s[0], 1}, edge{s[1], -1})
		}
	}
	// Ends before starts at the same instant: half-open spans.
	sort.Slice(edges, func(a, b int) bool {
		if edges[a].t != edges[b].t {
			return edges[a].t < edges[b].t
		}
		return edges[a].delta < edges[b].delta
	})
	var cur, peak int64
	for _, e := range edges {
		cur += e.delta
		peak = max(peak, cur)
	}
	return peak
}
