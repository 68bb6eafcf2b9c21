// SparkProfRuns: the profruns rows of a Spark event log.
//
// SparkProfRuns turns a Spark event log's task metrics into runs; it is
// not a format of its own but is fed by the spark-eventlog format: every
// finished task attempt of the log becomes a profruns row (written with the
// run and its skyline, counted in accepted), and a task end it cannot use
// (no Task Info, a finish before its launch, negative spill) is a reject of
// its own, with its line. A task end without "Task Metrics" is valid (Spark
// writes none for Resubmitted, FetchFailed, ExecutorLostFailure and some
// TaskKilled ends): it is a run with its launch-to-finish time, counters 0,
// its outcome (failed, killed, resubmitted: the end that repeats an earlier
// success whose output was lost) and "task_metrics":"none" in its config.
// The events it reads (task ends, stage names, job starts and ends) are no
// longer in the "not used" note.

package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/wlprof/wlprof/dataset"
)

// SparkProfRuns turns the task metrics of a Spark event log into profiling
// runs, one per finished task attempt, for the elasticity models (Iorgulescu
// et al., ATC'17 §2.4: Spark's expansion factor is memory bytes spilled over disk bytes
// spilled; the execution memory a task can get depends on
// spark.memory.fraction and how many tasks share the executor).
//
// It is not a format of its own: the spark-eventlog format feeds it every
// decoded event line (Line) and, at the end of the log, appends Runs to the
// profruns table. A run's fields:
//
//	job           the application's name (else its id)
//	task          "stage <id>: <stage name>"
//	framework     spark
//	memory_bytes  the executor's memory (spark.executor.memory; the driver's
//	              spark.driver.memory in local mode; Spark's default 1g when
//	              unset, which Config records): the memory setting the
//	              elasticity models vary
//	task_memory_bytes  the task's share of it: memory_bytes / slots (the
//	              tasks an executor runs at once share its memory)
//	container_memory_bytes  the executor's container (sparkContainerMemory:
//	              memory + overhead, rounded up to YARN's minimum
//	              allocation)
//	slots         tasks the executor runs at once: its cores / spark.task.cpus
//	input_bytes   shuffle bytes read (remote + local) + input bytes read
//	runtime_s     finish − launch of the attempt
//	start         the attempt's launch time
//	spilled_bytes Disk Bytes Spilled; memory_spilled_bytes Memory Bytes Spilled
//	exit_code     0 for Success, 1 otherwise (the reason goes to Config)
//	outcome       ok, failed, killed or resubmitted (sparkOutcome)
//	config        the memory keys of the Spark properties, JSON, plus
//	              stage_attempt_index, executor, app_id and parent_stages
//	              (the stage's "Parent IDs": the stage DAG), task_id,
//	              app_attempt (YARN's "App Attempt ID"), spark_job (the job
//	              that submitted the stage) with job_submit_ms and
//	              job_end_ms (its JobStart and JobEnd times)
//
// A task end without "Task Metrics" (Spark writes none for Resubmitted,
// FetchFailed, ExecutorLostFailure and some TaskKilled ends) is a run all
// the same, its counters 0 and "task_metrics":"none" in its config.
type SparkProfRuns struct {
	path    string
	appName string
	appID   string
	props   map[string]string
	cores   map[string]int // executor id → total cores
	stages  map[int]string // stage id → name
	parents map[int][]int  // stage id → parent stage ids ("Parent IDs")
	// appAttempt is the YARN application attempt ("App Attempt ID"), ""
	// outside YARN.
	appAttempt string
	// jobOf maps a stage to the Spark job that submitted it (JobStart's
	// "Stage IDs"; the first job wins, a later one reuses its output);
	// jobs holds each job's submission and completion times.
	jobOf    map[int]int
	jobs     map[int]*sparkJob
	pending  []sparkTask
	rejected int
}

// sparkJob is one Spark job's span (JobStart "Submission Time", JobEnd
// "Completion Time"; 0 when the log has none).
type sparkJob struct {
	submitMs, endMs int64
}

type sparkTask struct {
	line      int64
	taskID    int64
	metrics   bool // the end carried "Task Metrics"
	stage     int
	attempt   int
	index     int
	executor  string
	host      string
	reason    string
	launchMs  int64
	finishMs  int64
	input     int64
	diskSpill int64
	memSpill  int64
	cpuNs     int64
	records   int64
}

// sparkConfKeys are the Spark properties the models read.
var sparkConfKeys = []string{
	"spark.executor.memory", "spark.driver.memory", "spark.executor.cores", "spark.task.cpus",
	"spark.memory.fraction", "spark.memory.storageFraction", "spark.memory.useLegacyMode",
	"spark.shuffle.memoryFraction", "spark.shuffle.safetyFraction", "spark.storage.memoryFraction",
	"spark.shuffle.spill.numElementsForceSpillThreshold", "spark.master", "spark.executor.memoryOverhead",
}

// NewSparkProfRuns starts reading the event log at path.
func NewSparkProfRuns(path string) *SparkProfRuns {
	return &SparkProfRuns{path: path, props: map[string]string{}, cores: map[string]int{}, stages: map[int]string{}, parents: map[int][]int{},
		jobOf: map[int]int{}, jobs: map[int]*sparkJob{}}
}

// Line reads one event line (1-based lineNo). It returns a *ParseError for
// a task-end event it cannot use; other events it does not need are
// ignored, as are lines that are not events of interest.
func (s *SparkProfRuns) Line(lineNo int64, line []byte) *ParseError {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || !bytes.Contains(line, []byte(`"Event"`)) {
		return nil
	}
	fail := func(err error) *ParseError {
		s.rejected++
		return &ParseError{File: s.path, Line: lineNo, Err: err, Record: recordText(line)}
	}
	var head struct {
		Event string `json:"Event"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		if bytes.Contains(line, []byte("SparkListenerTaskEnd")) {
			return fail(fmt.Errorf("task end event is not JSON: %v", err))
		}
		return nil
	}
	switch head.Event {
	case "SparkListenerApplicationStart":
		var e struct {
			Name    string `json:"App Name"`
			ID      string `json:"App ID"`
			Attempt string `json:"App Attempt ID"`
		}
		if json.Unmarshal(line, &e) == nil {
			s.appName, s.appID, s.appAttempt = e.Name, e.ID, e.Attempt
		}
	case "SparkListenerEnvironmentUpdate":
		var e struct {
			Props map[string]string `json:"Spark Properties"`
		}
		if json.Unmarshal(line, &e) == nil {
			for k, v := range e.Props {
				s.props[k] = v
			}
		}
	case "SparkListenerExecutorAdded":
		var e struct {
			ID   string `json:"Executor ID"`
			Info struct {
				Cores int `json:"Total Cores"`
			} `json:"Executor Info"`
		}
		if json.Unmarshal(line, &e) == nil {
			s.cores[e.ID] = e.Info.Cores
		}
	case "SparkListenerStageSubmitted", "SparkListenerStageCompleted":
		var e struct {
			Info struct {
				ID      int    `json:"Stage ID"`
				Name    string `json:"Stage Name"`
				Parents []int  `json:"Parent IDs"`
			} `json:"Stage Info"`
		}
		if json.Unmarshal(line, &e) == nil {
			s.stages[e.Info.ID] = e.Info.Name
			if e.Info.Parents != nil {
				s.parents[e.Info.ID] = e.Info.Parents
			}
		}
	case "SparkListenerJobStart":
		var e struct {
			ID     *int  `json:"Job ID"`
			Submit int64 `json:"Submission Time"`
			Stages []int `json:"Stage IDs"`
		}
		if json.Unmarshal(line, &e) == nil && e.ID != nil {
			s.jobs[*e.ID] = &sparkJob{submitMs: e.Submit}
			for _, st := range e.Stages {
				if _, ok := s.jobOf[st]; !ok {
					s.jobOf[st] = *e.ID
				}
			}
		}
	case "SparkListenerJobEnd":
		var e struct {
			ID  *int  `json:"Job ID"`
			End int64 `json:"Completion Time"`
		}
		if json.Unmarshal(line, &e) == nil && e.ID != nil {
			if j := s.jobs[*e.ID]; j != nil {
				j.endMs = e.End
			}
		}
	case "SparkListenerTaskEnd":
		var e struct {
			Stage  *int `json:"Stage ID"`
			Reason struct {
				Reason string `json:"Reason"`
			} `json:"Task End Reason"`
			Info *struct {
				TaskID   int64  `json:"Task ID"`
				Attempt  int    `json:"Attempt"`
				Index    int    `json:"Index"`
				Executor string `json:"Executor ID"`
				Host     string `json:"Host"`
				Launch   *int64 `json:"Launch Time"`
				Finish   *int64 `json:"Finish Time"`
			} `json:"Task Info"`
			Metrics *struct {
				MemSpill  int64 `json:"Memory Bytes Spilled"`
				DiskSpill int64 `json:"Disk Bytes Spilled"`
				CPUNs     int64 `json:"Executor CPU Time"`
				Shuffle   *struct {
					Remote  int64 `json:"Remote Bytes Read"`
					Local   int64 `json:"Local Bytes Read"`
					Records int64 `json:"Total Records Read"`
				} `json:"Shuffle Read Metrics"`
				Input *struct {
					Bytes   int64 `json:"Bytes Read"`
					Records int64 `json:"Records Read"`
				} `json:"Input Metrics"`
			} `json:"Task Metrics"`
		}
		if err := json.Unmarshal(line, &e); err != nil {
			return fail(fmt.Errorf("task end event: %v", err))
		}
		switch {
		case e.Stage == nil || e.Info == nil:
			return fail(errors.New(`task end event without "Stage ID" or "Task Info"`))
		case e.Info.Launch == nil || e.Info.Finish == nil || *e.Info.Finish < *e.Info.Launch:
			return fail(errors.New("task end event without a launch and a later finish time"))
		}
		t := sparkTask{line: lineNo, taskID: e.Info.TaskID, stage: *e.Stage, attempt: e.Info.Attempt, index: e.Info.Index, executor: e.Info.Executor,
			host: e.Info.Host, reason: e.Reason.Reason, launchMs: *e.Info.Launch, finishMs: *e.Info.Finish}
		// Spark writes no "Task Metrics" for ends whose task reported none
		// (Resubmitted, FetchFailed, ExecutorLostFailure, TaskKilled before
		// it ran): the attempt still held its slot from launch to finish, so
		// it is kept, its counters unknown (0).
		m := e.Metrics
		if m == nil {
			s.pending = append(s.pending, t)
			return nil
		}
		if m.MemSpill < 0 || m.DiskSpill < 0 {
			return fail(errors.New("negative spill bytes"))
		}
		t.metrics, t.diskSpill, t.memSpill, t.cpuNs = true, m.DiskSpill, m.MemSpill, m.CPUNs
		if m.Shuffle != nil {
			t.input += m.Shuffle.Remote + m.Shuffle.Local
			t.records += m.Shuffle.Records
		}
		if m.Input != nil {
			t.input += m.Input.Bytes
			t.records += m.Input.Records
		}
		s.pending = append(s.pending, t)
	}
	return nil
}

// Runs returns the runs read so far, in log order, valid once the whole log
// was fed (executor cores and properties may come after a task's end).
func (s *SparkProfRuns) Runs() []dataset.ProfRun {
	// The runs table names the job by its normalised application name;
	// profiling runs use the same key, so a job's elasticity model, skyline
	// and SLO meet in one profile.
	job := normaliseJobName(s.appName)
	if job == "" {
		job = s.appID
	}
	if job == "" {
		job = "spark-app"
	}
	cfg := map[string]any{}
	for _, k := range sparkConfKeys {
		if v, ok := s.props[k]; ok {
			cfg[k] = v
		}
	}
	local := strings.HasPrefix(s.props["spark.master"], "local")
	memKey := "spark.executor.memory"
	if local {
		memKey = "spark.driver.memory" // local mode runs tasks in the driver
	}
	// Spark's own default when the key is unset; a value Spark would not
	// start with (unreadable, or 0) gets the same, saying why.
	mem, err := int64(0), error(nil)
	if v := s.props[memKey]; strings.TrimSpace(v) != "" {
		if mem, err = sparkMemory(v); err == nil && mem == 0 {
			err = fmt.Errorf("%q is less than 1 MiB", v)
		}
	}
	if mem == 0 {
		mem = 1 << 30
		cfg["memory_source"] = "default " + memKey + "=1g"
		if err != nil {
			cfg["memory_source"] = "default " + memKey + "=1g; the log's value is unusable: " + err.Error()
		}
	}
	taskCPUs := 1
	if n, err := strconv.Atoi(s.props["spark.task.cpus"]); err == nil && n > 0 {
		taskCPUs = n
	}
	container, cnote := sparkContainerMemory(s.props, s.appID, mem, local)
	if cnote != "" {
		cfg["container_size_source"] = cnote
	}
	out := make([]dataset.ProfRun, 0, len(s.pending))
	for _, t := range s.pending {
		c := map[string]any{}
		for k, v := range cfg {
			c[k] = v
		}
		c["stage_attempt_index"] = fmt.Sprintf("%d.%d", t.stage, t.index)
		if s.appID != "" {
			c["app_id"] = s.appID
		}
		if ps, ok := s.parents[t.stage]; ok {
			c["parent_stages"] = ps
		}
		c["executor"] = t.executor
		c["task_id"] = t.taskID
		if s.appAttempt != "" {
			c["app_attempt"] = s.appAttempt
		}
		if j, ok := s.jobOf[t.stage]; ok {
			c["spark_job"] = j
			if sj := s.jobs[j]; sj != nil {
				c["job_submit_ms"], c["job_end_ms"] = sj.submitMs, sj.endMs
			}
		}
		if !t.metrics {
			c["task_metrics"] = "none"
		}
		slots := int32(0)
		if n := s.cores[t.executor]; n > 0 {
			slots = int32(max(1, n/taskCPUs))
		} else if n, err := strconv.Atoi(s.props["spark.executor.cores"]); err == nil && n > 0 {
			slots = int32(max(1, n/taskCPUs))
		}
		r := dataset.ProfRun{Job: job, Task: fmt.Sprintf("stage %d: %s", t.stage, s.stages[t.stage]), Framework: "spark",
			MemoryBytes: mem, Slots: slots, Repetition: int32(t.attempt), InputBytes: t.input,
			RuntimeS: float64(t.finishMs-t.launchMs) / 1000, CPUS: float64(t.cpuNs) / 1e9, StartMs: t.launchMs,
			SpilledBytes: t.diskSpill, MemorySpilledBytes: t.memSpill, InputRecords: t.records, Source: s.path}
		if r.RuntimeS == 0 {
			r.RuntimeS = 0.001
		}
		r.TaskMemoryBytes, r.ContainerMemoryBytes = mem, container
		if slots > 0 {
			r.TaskMemoryBytes = mem / int64(slots)
		}
		r.Outcome = sparkOutcome(t.reason)
		if t.reason != "Success" {
			r.ExitCode = 1
			c["reason"] = t.reason
		}
		b, _ := json.Marshal(c)
		r.Config = string(b)
		out = append(out, r)
	}
	return out
}

// sparkOutcome names a task end's reason as the profruns outcome: ok,
// killed (TaskKilled: speculation, a cancelled job), resubmitted (a task
// that had succeeded, whose map output was lost with its executor: the end
// repeats the successful attempt's Task Info, so it held no further slot),
// else failed.
func sparkOutcome(reason string) string {
	switch reason {
	case "Success":
		return "ok"
	case "TaskKilled":
		return "killed"
	case "Resubmitted":
		return "resubmitted"
	}
	return "failed"
}

// yarnMinAllocationBytes is yarn.scheduler.minimum-allocation-mb's
// default, 1024 MiB: YARN rounds every container request up to a
// multiple of it.
const yarnMinAllocationBytes = 1024 << 20

// sparkContainerMemory is what the cluster manager allocates for one
// executor of mem bytes, as Spark asks for it (YarnAllocator's
// executorMemory + memoryOverhead + pysparkWorkerMemory + off-heap, Spark
// 3): the overhead is spark.executor.memoryOverhead, else
// max(384 MiB, spark.executor.memoryOverheadFactor (0.1) × memory). On
// YARN the sum is rounded up to a multiple of the minimum allocation
// (spark.hadoop.yarn.scheduler.minimum-allocation-mb when the log has it,
// else YARN's default 1 GiB); on Kubernetes it is taken as it is. Local
// mode and standalone executors hold no container beyond their memory (a
// log without spark.master is on YARN when its application id is YARN's).
// note says where a value was Spark's or YARN's default.
func sparkContainerMemory(props map[string]string, appID string, mem int64, local bool) (int64, string) {
	master := props["spark.master"]
	// Spark 1 logs may not record spark.master; YARN names the application.
	yarn := strings.HasPrefix(master, "yarn") || master == "" && strings.HasPrefix(appID, "application_")
	if local || !(yarn || strings.HasPrefix(master, "k8s")) {
		return mem, ""
	}
	var notes []string
	const mib = 1 << 20
	overhead := int64(0)
	if v := strings.TrimSpace(props["spark.executor.memoryOverhead"]); v != "" {
		if b, err := sparkMemory(v); err == nil {
			overhead = b
		}
	}
	if overhead == 0 {
		factor := 0.1
		if f, err := strconv.ParseFloat(props["spark.executor.memoryOverheadFactor"], 64); err == nil && f > 0 {
			factor = f
		}
		overhead = max(384*mib, int64(factor*float64(mem/mib))*mib)
		notes = append(notes, "overhead max(384 MiB, "+strconv.FormatFloat(factor, 'g', -1, 64)+" × spark.executor.memory)")
	}
	total := mem + overhead
	if v := strings.TrimSpace(props["spark.executor.pyspark.memory"]); v != "" {
		if b, err := sparkMemory(v); err == nil {
			total += b
		}
	}
	if strings.EqualFold(strings.TrimSpace(props["spark.memory.offHeap.enabled"]), "true") {
		if b, err := sparkByteString(props["spark.memory.offHeap.size"], 1); err == nil {
			total += b
		}
	}
	if yarn {
		unit := int64(yarnMinAllocationBytes)
		if n, err := strconv.ParseInt(strings.TrimSpace(props["spark.hadoop.yarn.scheduler.minimum-allocation-mb"]), 10, 64); err == nil && n > 0 && n < 1<<30 {
			unit = n * mib
		} else {
			notes = append(notes, "rounded up to YARN's default minimum allocation, 1 GiB")
		}
		total = (total + unit - 1) / unit * unit
	}
	return total, strings.Join(notes, "; ")
}
