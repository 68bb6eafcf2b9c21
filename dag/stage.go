package dag

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/wlprof/wlprof/dataset"
	textable "github.com/wlprof/wlprof/internal/table"
)

// Options of the dag stage.
type Options struct {
	// Job keeps only this job's runs ("" all); Load refuses a job the
	// dataset's stages table does not name when no DAG is left.
	Job string
}

// DefaultOptions: every job.
func DefaultOptions() Options { return Options{} }

// Validate has nothing to refuse today; it is the stage surface's.
func (o *Options) Validate() error { return nil }

// ErrNoDAGs is returned by Run when the input has no job DAG.
var ErrNoDAGs = errors.New("dag: no job DAGs (ingest Alibaba 2018 batch_task.csv as alibaba2018-batch-task, Spark event logs or MapReduce .jhist files first)")

// RunDAG is one run's stages, as Load read them.
type RunDAG struct {
	Job    string
	Run    string
	Source string // alibaba2018-batch-task, spark-eventlog, jhist, google2019-collection-events
	Stages []Stage
	// NoTasks: the stages' task counts are unknown (Google collections
	// without instance events), so the levels carry no maximum.
	NoTasks bool
	// SparkJobs and JobGroups: a Spark run's jobs, and the groups of jobs
	// that overlapped in time, run one after another (sparkStages);
	// TaskCPUs its spark.task.cpus.
	SparkJobs, JobGroups, TaskCPUs int
}

// Input is what Run analyses: the runs' DAGs and the skylines' observed
// peaks of containers per job and run.
type Input struct {
	DAGs  []RunDAG
	Peaks map[[2]string]float64
	// Slots are a Spark run's most task slots at once: the skyline's
	// executor cores / spark.task.cpus.
	Slots map[[2]string]float64
	// Instances are an Alibaba job's task instances (the instances
	// table, alibaba2018-batch-instance), by job.
	Instances map[string]InstanceSpans
}

// InstanceSpans are a job's instance runs (a retried instance has one per
// seq_no) that have a start and an end, and how many have not (waiting,
// still running, or outside the trace's window).
type InstanceSpans struct {
	Spans   [][2]int64
	Untimed int
}

// Load reads the stages table (Alibaba) and the task attempts of the
// profruns table (Spark stages with their parents, MapReduce maps and
// reduces), and the skylines' peaks.
func Load(ctx context.Context, ds *dataset.Dataset, opts Options) (Input, error) {
	if err := opts.Validate(); err != nil {
		return Input{}, err
	}
	in := Input{Peaks: map[[2]string]float64{}}
	want := func(job string) bool { return opts.Job == "" || job == opts.Job }
	// Alibaba: a job is one run. Google 2019 collections (no job) are
	// grouped into workflows below.
	byJob := map[string]*RunDAG{}
	var order []string
	coll := map[string][]string{} // collection → the collections it starts after
	var collOrder []string
	err := dataset.Scan(ctx, ds, dataset.StagesTable, func(s *dataset.Stage) error {
		if s.Job == "" && s.Source == collectionsSource {
			if _, seen := coll[s.Stage]; !seen {
				collOrder = append(collOrder, s.Stage)
			}
			for _, p := range strings.Split(s.Parents, ",") {
				if p != "" && !slices.Contains(coll[s.Stage], p) {
					coll[s.Stage] = append(coll[s.Stage], p)
				}
			}
			return nil
		}
		if !want(s.Job) {
			return nil
		}
		d := byJob[s.Job]
		if d == nil {
			d = &RunDAG{Job: s.Job, Source: s.Source}
			byJob[s.Job] = d
			order = append(order, s.Job)
		}
		var parents []string
		if s.Parents != "" {
			parents = strings.Split(s.Parents, ",")
		}
		d.Stages = append(d.Stages, Stage{ID: s.Stage, Tasks: s.Tasks, Parents: parents})
		return nil
	})
	if err != nil {
		return Input{}, err
	}
	for _, j := range order {
		in.DAGs = append(in.DAGs, *byJob[j])
	}
	if len(coll) > 0 {
		wf, err := workflows(ctx, ds, coll, collOrder)
		if err != nil {
			return Input{}, err
		}
		for _, d := range wf {
			if want(d.Job) {
				in.DAGs = append(in.DAGs, d)
			}
		}
	}
	// Spark and MapReduce task attempts.
	type acc struct {
		d       *RunDAG
		tasks   map[string]map[string]bool // stage → task ids
		parents map[string][]string
		spark   map[string]sparkStage // stage → its job and attempt
		cpus    int                   // spark.task.cpus
	}
	runs := map[string]*acc{}
	var rorder []string
	err = dataset.Scan(ctx, ds, dataset.ProfRunsTable, func(r *dataset.ProfRun) error {
		if !want(r.Job) {
			return nil
		}
		at, ok := dataset.HistoryAttempt(r)
		if !ok {
			return nil
		}
		run, stage, task, src := at.Run, r.Task, at.Task, "jhist"
		if r.Framework == "spark" {
			stage, src = strconv.Itoa(at.Stage), "spark-eventlog"
		}
		if run == "" {
			run = filepath.Base(r.Source)
		}
		key := r.Job + "\x00" + run
		a := runs[key]
		if a == nil {
			a = &acc{d: &RunDAG{Job: r.Job, Run: run, Source: src}, tasks: map[string]map[string]bool{}, parents: map[string][]string{},
				spark: map[string]sparkStage{}}
			runs[key] = a
			rorder = append(rorder, key)
		}
		if src == "spark-eventlog" {
			// Stage ids start again at 0 in each application attempt: a
			// stage is its attempt and id, the attempt dropped below when
			// the run has one.
			stage = at.AppAttempt + "/" + stage
			if at.Parents != nil {
				ps := make([]string, len(at.Parents))
				for i, p := range at.Parents {
					ps[i] = at.AppAttempt + "/" + strconv.Itoa(p)
				}
				a.parents[stage] = ps
			}
			a.spark[stage] = sparkStage{attempt: at.AppAttempt, job: at.SparkJob, submitMs: at.JobSubmitMs, endMs: at.JobEndMs}
			a.cpus = max(a.cpus, at.TaskCPUs)
		}
		if a.tasks[stage] == nil {
			a.tasks[stage] = map[string]bool{}
		}
		a.tasks[stage][task] = true
		return nil
	})
	if err != nil {
		return Input{}, err
	}
	for _, key := range rorder {
		a := runs[key]
		ids := make([]string, 0, len(a.tasks))
		for s := range a.tasks {
			ids = append(ids, s)
		}
		sort.Slice(ids, func(i, j int) bool {
			if a.d.Source == "jhist" { // map before reduce
				return ids[i] == "map" && ids[j] != "map"
			}
			return stageLess(ids[i], ids[j])
		})
		if a.d.Source == "spark-eventlog" {
			a.d.Stages, a.d.SparkJobs, a.d.JobGroups = sparkStages(a.tasks, a.parents, a.spark)
			a.d.TaskCPUs = max(a.cpus, 1)
			in.DAGs = append(in.DAGs, *a.d)
			continue
		}
		for _, s := range ids {
			st := Stage{ID: s, Tasks: int64(len(a.tasks[s])), Parents: a.parents[s]}
			if a.d.Source == "jhist" && s == "reduce" && a.tasks["map"] != nil {
				st.Parents = []string{"map"}
			}
			a.d.Stages = append(a.d.Stages, st)
		}
		in.DAGs = append(in.DAGs, *a.d)
	}
	cpus := map[[2]string]int{}
	for _, d := range in.DAGs {
		if d.Source == "spark-eventlog" {
			cpus[[2]string{d.Job, d.Run}] = d.TaskCPUs
		}
	}
	if ds.Rows(dataset.InstancesTable.Name) > 0 {
		in.Instances = map[string]InstanceSpans{}
		err = dataset.Scan(ctx, ds, dataset.InstancesTable, func(r *dataset.Instance) error {
			if !want(r.Job) {
				return nil
			}
			sp := in.Instances[r.Job]
			if r.StartMs == dataset.NoTime || r.EndMs == dataset.NoTime {
				sp.Untimed++
			} else {
				sp.Spans = append(sp.Spans, [2]int64{r.StartMs, r.EndMs})
			}
			in.Instances[r.Job] = sp
			return nil
		})
		if err != nil {
			return Input{}, err
		}
	}
	in.Slots = map[[2]string]float64{}
	err = dataset.Scan(ctx, ds, dataset.SkylinesTable, func(s *dataset.SkylineSample) error {
		k := [2]string{s.Job, s.Run}
		if s.Containers > in.Peaks[k] {
			in.Peaks[k] = s.Containers
		}
		// A Spark executor runs cores / spark.task.cpus tasks at once.
		if c := cpus[k]; c > 0 && s.VCores > 0 {
			in.Slots[k] = max(in.Slots[k], math.Floor(s.VCores/float64(c)))
		}
		return nil
	})
	if err != nil {
		return Input{}, err
	}
	if opts.Job != "" && len(in.DAGs) == 0 {
		return Input{}, ds.UnknownJob(ctx, dataset.StagesTable.Name, opts.Job)
	}
	return in, nil
}

// sparkStage is where a Spark stage ran: its application attempt, and the
// Spark job that submitted it with the job's span.
type sparkStage struct {
	attempt         string
	job             int // −1 when the log's job is not recorded
	submitMs, endMs int64
}

// sparkStages builds a Spark run's stages from its task attempts (tasks,
// parents and where, keyed by "attempt/stage"). A Spark SQL application
// runs many Spark jobs one after another, and a job's stages have no
// parents in the jobs before it (a reused shuffle is a skipped stage): so
// the jobs are put in groups, in order of submission, a job joining the
// group before it when it was submitted before every job of that group
// had ended (they overlapped in time), and every stage of a group waits
// for the stages of the group before. The attempts of an application run
// one after another too: a new attempt starts a new group. Stage ids are
// "stage", or "attempt/stage" when the run has several attempts. jobs
// counts the Spark jobs, groups the groups (0 when the jobs are not
// recorded: the stages keep their own parents only).
func sparkStages(tasks map[string]map[string]bool, parents map[string][]string, where map[string]sparkStage) (stages []Stage, jobs, groups int) {
	attempts := map[string]bool{}
	for _, w := range where {
		attempts[w.attempt] = true
	}
	name := func(k string) string {
		if len(attempts) > 1 {
			return k
		}
		_, id, _ := strings.Cut(k, "/")
		return id
	}
	keys := make([]string, 0, len(tasks))
	for k := range tasks {
		keys = append(keys, k)
	}
	less := func(a, b string) bool {
		aa, as, _ := strings.Cut(a, "/")
		ba, bs, _ := strings.Cut(b, "/")
		if aa != ba {
			return stageLess(aa, ba)
		}
		return stageLess(as, bs)
	}
	sort.Slice(keys, func(i, j int) bool { return less(keys[i], keys[j]) })
	var spans []dataset.SparkJobSpan
	for _, k := range keys {
		if w := where[k]; w.job >= 0 {
			spans = append(spans, dataset.SparkJobSpan{SparkJobKey: dataset.SparkJobKey{Attempt: w.attempt, Job: w.job}, SubmitMs: w.submitMs, EndMs: w.endMs})
		}
	}
	group, groups := dataset.SparkJobGroups(spans)
	groupOf := func(w sparkStage) int { return group[dataset.SparkJobKey{Attempt: w.attempt, Job: w.job}] }
	member := make([][]string, groups)
	for _, k := range keys {
		if w := where[k]; w.job >= 0 {
			member[groupOf(w)] = append(member[groupOf(w)], k)
		}
	}
	for _, k := range keys {
		var ps []string
		for _, p := range parents[k] {
			ps = append(ps, name(p))
		}
		if w := where[k]; w.job >= 0 {
			if g := groupOf(w); g > 0 {
				for _, p := range member[g-1] {
					ps = append(ps, name(p))
				}
			}
		}
		stages = append(stages, Stage{ID: name(k), Tasks: int64(len(tasks[k])), Parents: ps})
	}
	return stages, len(group), groups
}

// collectionsSource is the format whose stages rows are Google 2019
// collections that start after others.
const collectionsSource = "google2019-collection-events"

// alibabaTaskSource is the source of Alibaba batch_task DAGs, whose
// instances the instances table may hold.
const alibabaTaskSource = "alibaba2018-batch-task"

// workflows groups Google 2019 collections into the workflows their
// start_after edges connect (weakly connected components), each a job
// named "workflow-" and its smallest collection id. A parent the
// collections table has is a stage (it starts after nothing); one it does
// not have is missing. Tasks per collection are its instances in the
// task_events table (distinct instance indexes), when ingested.
func workflows(ctx context.Context, ds *dataset.Dataset, edges map[string][]string, order []string) ([]RunDAG, error) {
	known := map[string]bool{}
	err := dataset.Scan(ctx, ds, dataset.CollectionsTable, func(c *dataset.Collection) error {
		known[c.Collection] = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	nodes := append([]string(nil), order...)
	in := map[string]bool{}
	for _, n := range order {
		in[n] = true
	}
	for _, n := range order {
		for _, p := range edges[n] {
			if known[p] && !in[p] {
				in[p] = true
				nodes = append(nodes, p)
			}
		}
	}
	parent := map[string]string{}
	find := func(x string) string {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	for _, n := range nodes {
		parent[n] = n
	}
	for _, n := range order {
		for _, p := range edges[n] {
			if in[p] {
				a, b := find(n), find(p)
				if a != b {
					if stageLess(b, a) {
						a, b = b, a
					}
					parent[b] = a
				}
			}
		}
	}
	tasks, err := collectionTasks(ctx, ds)
	if err != nil {
		return nil, err
	}
	groups := map[string]*RunDAG{}
	var roots []string
	for _, n := range nodes {
		r := find(n)
		g := groups[r]
		if g == nil {
			g = &RunDAG{Source: collectionsSource}
			groups[r] = g
			roots = append(roots, r)
		}
		g.Stages = append(g.Stages, Stage{ID: n, Tasks: tasks[n], Parents: edges[n]})
	}
	out := make([]RunDAG, 0, len(roots))
	for _, r := range roots {
		g := groups[r]
		sort.Slice(g.Stages, func(a, b int) bool { return stageLess(g.Stages[a].ID, g.Stages[b].ID) })
		g.Job = "workflow-" + g.Stages[0].ID
		g.NoTasks = tasks == nil
		out = append(out, *g)
	}
	return out, nil
}

// collectionTasks counts each collection's instances in the task_events
// table (distinct instance indexes of its events; ingested from
// google2019-instance-events); nil when the dataset has none (tasks
// unknown).
func collectionTasks(ctx context.Context, ds *dataset.Dataset) (map[string]int64, error) {
	if ds.Rows(dataset.TaskEventsTable.Name) == 0 {
		return nil, nil
	}
	seen := map[[2]int64]bool{}
	n := map[int64]int64{}
	err := dataset.Scan(ctx, ds, dataset.TaskEventsTable, func(e *dataset.TaskEvent) error {
		k := [2]int64{e.Job, int64(e.Task)}
		if !seen[k] {
			seen[k] = true
			n[e.Job]++
		}
		return nil
	})
	if err != nil || len(n) == 0 {
		return nil, err
	}
	out := make(map[string]int64, len(n))
	for c, k := range n {
		out[strconv.FormatInt(c, 10)] = k
	}
	return out, nil
}

// Job is one run's result.
type Job struct {
	Job    string `json:"job"`
	Run    string `json:"run"`
	Source string `json:"source"`
	Stages int    `json:"stages"`
	Tasks  int64  `json:"tasks"`
	// Levels are the breadth-first levels; MaxContainers the largest
	// level's tasks and MaxLevel its index (−1 without levels).
	Levels        []Level `json:"levels"`
	MaxContainers int64   `json:"max_containers"`
	MaxLevel      int     `json:"max_level"`
	// MaxAntichainContainers is the job's largest antichain's tasks
	// (MaxAntichain: stages none of which waits for another, which can
	// all run at once) and AntichainStages its stages; absent with a
	// cycle, without task counts or past MaxAntichainStages stages. Where
	// it exceeds MaxContainers, Reason says so with both numbers.
	MaxAntichainContainers *int64   `json:"max_antichain_containers,omitempty"`
	AntichainStages        []string `json:"antichain_stages,omitempty"`
	// ObservedPeak is the skylines' peak of containers for the run, when
	// the dataset has it.
	ObservedPeak *float64 `json:"observed_peak_containers,omitempty"`
	// ObservedSlots is a Spark run's most task slots at once (executors ×
	// cores per executor / spark.task.cpus, from the skyline): what the
	// DAG's concurrent tasks compare with, where a container (an
	// executor) runs several tasks.
	ObservedSlots *float64 `json:"observed_peak_task_slots,omitempty"`
	// ObservedPeakInstances is an Alibaba job's most task instances
	// running at once in batch_instance (PeakConcurrent of their
	// start–end spans, retries as separate runs), when the dataset has
	// the job's instances with times; ObservedInstances the instance runs
	// counted. What the DAG's level maximum compares with.
	ObservedPeakInstances *int64 `json:"observed_peak_instances,omitempty"`
	ObservedInstances     *int64 `json:"observed_instances,omitempty"`
	// SparkJobs are a Spark run's jobs and JobGroups the groups of jobs
	// that overlapped in time, whose levels follow one another.
	SparkJobs int `json:"spark_jobs,omitempty"`
	JobGroups int `json:"job_groups,omitempty"`
	// MissingParents are parents the job does not have (taken as done);
	// Cyclic the stages a cycle keeps from ever starting (the job then has
	// no maximum); Reason says so in words.
	MissingParents []string `json:"missing_parents,omitempty"`
	Cyclic         []string `json:"cyclic_stages,omitempty"`
	Reason         string   `json:"reason,omitempty"`
}

// Result is the dag stage's output.
type Result struct {
	Version int    `json:"version"`
	Rule    string `json:"rule"`
	Jobs    []Job  `json:"jobs"`
}

// Rule says in a line how the maximum is computed.
const Rule = "breadth-first levels (a stage enters the level after its last parent; a Spark job's stages after those of the jobs that had ended when it was submitted); max_containers = the largest sum of a level's tasks (Zhang et al., OSDI'16 §4.1, Fig. 7), to compare with the task slots a run had; max_antichain_containers = the most tasks of stages none of which waits for another, said where larger"

// Run computes every run's levels and maximum.
func Run(ctx context.Context, in Input, opts Options) (*Result, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if len(in.DAGs) == 0 {
		return nil, ErrNoDAGs
	}
	res := &Result{Version: 1, Rule: Rule, Jobs: []Job{}}
	for _, d := range in.DAGs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		j := Job{Job: d.Job, Run: d.Run, Source: d.Source, Stages: len(d.Stages), Levels: []Level{}, MaxLevel: -1}
		for _, s := range d.Stages {
			j.Tasks += s.Tasks
		}
		levels, missing, cyclic := Levels(d.Stages)
		j.MissingParents, j.Cyclic = missing, cyclic
		var why []string
		if len(missing) > 0 {
			why = append(why, fmt.Sprintf("waits for stage(s) %s that the job does not have: taken as done", strings.Join(missing, ", ")))
		}
		switch {
		case len(cyclic) > 0:
			why = append(why, fmt.Sprintf("stage(s) %s wait for each other (a cycle) and never start: no maximum", strings.Join(cyclic, ", ")))
		case d.NoTasks:
			j.Levels = levels
			why = append(why, "task counts unknown (ingest the collections' instance events, google2019-instance-events): levels only, no maximum")
		default:
			j.Levels = levels
			j.MaxLevel, j.MaxContainers = MaxLevel(levels)
			if n, ids, ok := MaxAntichain(d.Stages); ok {
				j.MaxAntichainContainers, j.AntichainStages = &n, sortedIDs(ids)
				if n > j.MaxContainers {
					why = append(why, fmt.Sprintf("stages %s wait for none of each other and can run at once: %d tasks, more than the largest breadth-first level's %d (stages of different levels side by side)",
						strings.Join(j.AntichainStages, ", "), n, j.MaxContainers))
				}
			} else {
				why = append(why, fmt.Sprintf("more than %d stages: the largest antichain was not computed", MaxAntichainStages))
			}
		}
		if d.Source == alibabaTaskSource && d.Run == "" {
			if sp, ok := in.Instances[d.Job]; ok {
				if len(sp.Spans) > 0 {
					p, n := PeakConcurrent(sp.Spans), int64(len(sp.Spans))
					j.ObservedPeakInstances, j.ObservedInstances = &p, &n
				}
				if sp.Untimed > 0 {
					why = append(why, fmt.Sprintf("%d instance run(s) without a start or an end (waiting, running, or outside the trace) left out of the observed peak", sp.Untimed))
				}
			}
		}
		j.Reason = strings.Join(why, "; ")
		if p, ok := in.Peaks[[2]string{d.Job, d.Run}]; ok {
			p := p
			j.ObservedPeak = &p
		}
		if p, ok := in.Slots[[2]string{d.Job, d.Run}]; ok {
			p := p
			j.ObservedSlots = &p
		}
		j.SparkJobs, j.JobGroups = d.SparkJobs, d.JobGroups
		res.Jobs = append(res.Jobs, j)
	}
	sort.SliceStable(res.Jobs, func(a, b int) bool {
		if res.Jobs[a].Job != res.Jobs[b].Job {
			return res.Jobs[a].Job < res.Jobs[b].Job
		}
		return res.Jobs[a].Run < res.Jobs[b].Run
	})
	return res, nil
}

// WriteText writes a row per run, then the rule.
func (r *Result) WriteText(out io.Writer) error {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "JOB\tRUN\tSOURCE\tSTAGES\tTASKS\tLEVELS\tMAX_CONTAINERS\tAT_LEVEL\tMAX_ANTICHAIN\tOBSERVED_PEAK\tOBSERVED_SLOTS\tOBSERVED_INSTANCES\tNOTE")
	for _, j := range r.Jobs {
		maxC, at := "-", "-"
		if j.MaxLevel >= 0 {
			maxC, at = strconv.FormatInt(j.MaxContainers, 10), strconv.Itoa(j.MaxLevel)
		}
		peak := "-"
		if j.ObservedPeak != nil {
			peak = strconv.FormatFloat(*j.ObservedPeak, 'g', 6, 64)
		}
		slots := "-"
		if j.ObservedSlots != nil {
			slots = strconv.FormatFloat(*j.ObservedSlots, 'g', 6, 64)
		}
		run := j.Run
		if run == "" {
			run = "-"
		}
		anti := "-"
		if j.MaxAntichainContainers != nil {
			anti = strconv.FormatInt(*j.MaxAntichainContainers, 10)
		}
		inst := "-"
		if j.ObservedPeakInstances != nil {
			inst = strconv.FormatInt(*j.ObservedPeakInstances, 10)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", j.Job, run, j.Source, j.Stages, j.Tasks, len(j.Levels), maxC, at, anti, peak, slots, inst, j.Reason)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(out, "rule: %s\n", r.Rule)
	return err
}

// WriteCSV writes a row per run.
func (r *Result) WriteCSV(out io.Writer) error {
	return textable.CSV(out, []string{"job", "run", "source", "stages", "tasks", "levels", "max_containers", "max_level", "observed_peak_containers", "reason", "max_antichain_containers", "observed_peak_task_slots", "spark_jobs", "job_groups", "observed_peak_instances", "observed_instances"},
		func(row func(...string)) {
			for _, j := range r.Jobs {
				maxC, peak := "", ""
				if j.MaxLevel >= 0 {
					maxC = strconv.FormatInt(j.MaxContainers, 10)
				}
				if j.ObservedPeak != nil {
					peak = strconv.FormatFloat(*j.ObservedPeak, 'g', -1, 64)
				}
				anti, slots := "", ""
				if j.MaxAntichainContainers != nil {
					anti = strconv.FormatInt(*j.MaxAntichainContainers, 10)
				}
				if j.ObservedSlots != nil {
					slots = strconv.FormatFloat(*j.ObservedSlots, 'g', -1, 64)
				}
				inst, ninst := "", ""
				if j.ObservedPeakInstances != nil {
					inst = strconv.FormatInt(*j.ObservedPeakInstances, 10)
				}
				if j.ObservedInstances != nil {
					ninst = strconv.FormatInt(*j.ObservedInstances, 10)
				}
				row(j.Job, j.Run, j.Source, strconv.Itoa(j.Stages), strconv.FormatInt(j.Tasks, 10), strconv.Itoa(len(j.Levels)), maxC,
					strconv.Itoa(j.MaxLevel), peak, j.Reason, anti, slots, strconv.Itoa(j.SparkJobs), strconv.Itoa(j.JobGroups), inst, ninst)
			}
		})
}
