package dataset

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Attempt is what a task attempt's Config says about where it belongs:
// profruns rows ingested from job history carry it (jhist writes
// "attempt" and "job_id"; spark-eventlog "stage_attempt_index", "app_id"
// and "parent_stages").
type Attempt struct {
	// Run is the MapReduce job id or the Spark application id; "" when
	// the config names none (logs ingested before it was kept).
	Run string
	// Task is the task the attempt belongs to: the jhist attempt id
	// without its attempt number, Spark's "stage.index".
	Task string
	// Stage is the Spark stage id, −1 for MapReduce attempts.
	Stage int
	// Parents are the Spark stage's parent stages; nil when not recorded.
	Parents []int
	// TaskCPUs is spark.task.cpus, 0 when unset.
	TaskCPUs int
	// AppAttempt is the YARN application attempt of a Spark log ("" when
	// the log has none).
	AppAttempt string
	// SparkJob is the Spark job that submitted the stage, −1 when not
	// recorded; JobSubmitMs and JobEndMs its JobStart and JobEnd times
	// (0 when the log has none).
	SparkJob              int
	JobSubmitMs, JobEndMs int64
}

// HistoryAttempt reads r's Attempt; ok is false for rows that are no
// task attempt from job history (sandbox runs, profruns-csv rows).
func HistoryAttempt(r *ProfRun) (a Attempt, ok bool) {
	if r.Framework == "sandbox" || !strings.Contains(r.Config, "attempt") {
		return Attempt{}, false
	}
	var c struct {
		Attempt    string `json:"attempt"`
		JobID      string `json:"job_id"`
		StageIndex string `json:"stage_attempt_index"`
		AppID      string `json:"app_id"`
		Parents    *[]int `json:"parent_stages"`
		TaskCPUs   string `json:"spark.task.cpus"`
		AppAttempt string `json:"app_attempt"`
		SparkJob   *int   `json:"spark_job"`
		JobSubmit  int64  `json:"job_submit_ms"`
		JobEnd     int64  `json:"job_end_ms"`
	}
	if json.Unmarshal([]byte(r.Config), &c) != nil || (c.Attempt == "" && c.StageIndex == "") {
		return Attempt{}, false
	}
	a = Attempt{Run: c.JobID, Task: c.Attempt, Stage: -1, SparkJob: -1, AppAttempt: c.AppAttempt, JobSubmitMs: c.JobSubmit, JobEndMs: c.JobEnd}
	if c.SparkJob != nil {
		a.SparkJob = *c.SparkJob
	}
	if c.Attempt != "" { // attempt_<cluster>_<job>_<m|r>_<task>_<attempt>
		if i := strings.LastIndexByte(a.Task, '_'); i > 0 {
			a.Task = a.Task[:i]
		}
	} else {
		a.Run, a.Task = c.AppID, c.StageIndex
		if s, _, ok := strings.Cut(c.StageIndex, "."); ok {
			if n, err := strconv.Atoi(s); err == nil {
				a.Stage = n
			}
		}
		if c.Parents != nil {
			a.Parents = *c.Parents
			if a.Parents == nil {
				a.Parents = []int{}
			}
		}
	}
	if n, err := strconv.Atoi(c.TaskCPUs); err == nil && n > 0 {
		a.TaskCPUs = n
	}
	return a, true
}

// SparkJobKey names a Spark job of a run: its application attempt and id.
type SparkJobKey struct {
	Attempt string
	Job     int
}

// SparkJobSpan is a Spark job's span (JobStart and JobEnd; 0 unknown).
type SparkJobSpan struct {
	SparkJobKey
	SubmitMs, EndMs int64
}

// SparkJobGroups puts a run's Spark jobs in groups that ran one after
// another: in order of application attempt and submission, a job joins
// the group before it when it was submitted before every job of that
// group had ended (they overlapped in time; a job without an end never
// ended in the log and overlaps what follows); a new attempt, or a job
// without a submission time, starts a new group. A Spark SQL application
// runs many jobs in sequence, and a job's stages have no parents in the
// jobs before it, so the groups are what orders its stages. It returns
// each job's group (0-based) and the number of groups.
func SparkJobGroups(jobs []SparkJobSpan) (map[SparkJobKey]int, int) {
	list := append([]SparkJobSpan(nil), jobs...)
	sort.SliceStable(list, func(i, j int) bool {
		a, b := list[i], list[j]
		if a.Attempt != b.Attempt {
			return AttemptLess(a.Attempt, b.Attempt)
		}
		if a.SubmitMs != b.SubmitMs {
			return a.SubmitMs < b.SubmitMs
		}
		return a.Job < b.Job
	})
	out := make(map[SparkJobKey]int, len(list))
	groups := 0
	var groupEnd int64
	for i, j := range list {
		if _, seen := out[j.SparkJobKey]; seen {
			continue
		}
		end := j.EndMs
		if end <= 0 {
			end = math.MaxInt64
		}
		if i == 0 || j.Attempt != list[i-1].Attempt || j.SubmitMs <= 0 || j.SubmitMs >= groupEnd {
			groups++
			groupEnd = 0
		}
		out[j.SparkJobKey] = groups - 1
		groupEnd = max(groupEnd, end)
	}
	return out, groups
}

// AttemptLess orders application attempt ids ("1" < "2" < "10") as numbers
// when both are, else as strings: ingest and the stages order attempts so.
func AttemptLess(a, b string) bool {
	x, errA := strconv.Atoi(a)
	y, errB := strconv.Atoi(b)
	if errA == nil && errB == nil {
		return x < y
	}
	return a < b
}
