package dataset

import (
	"reflect"
	"testing"
)

// A jhist attempt, a Spark attempt with its stage's parents, a Spark
// attempt of a log ingested before parents were kept, and rows that are no
// history attempt.
func TestHistoryAttempt(t *testing.T) {
	for _, c := range []struct {
		r    ProfRun
		want Attempt
		ok   bool
	}{
		{ProfRun{Framework: "mapreduce", Config: `{"attempt":"attempt_1_0001_m_000003_1","job_id":"job_1_0001"}`},
			Attempt{Run: "job_1_0001", Task: "attempt_1_0001_m_000003", Stage: -1, SparkJob: -1}, true},
		{ProfRun{Framework: "spark", Config: `{"stage_attempt_index":"2.7","app_id":"app-1","parent_stages":[0,1],"spark.task.cpus":"2"}`},
			Attempt{Run: "app-1", Task: "2.7", Stage: 2, Parents: []int{0, 1}, TaskCPUs: 2, SparkJob: -1}, true},
		{ProfRun{Framework: "spark", Config: `{"stage_attempt_index":"0.0","parent_stages":[]}`},
			Attempt{Task: "0.0", Stage: 0, Parents: []int{}, SparkJob: -1}, true},
		{ProfRun{Framework: "spark", Config: `{"stage_attempt_index":"1.0"}`}, Attempt{Task: "1.0", Stage: 1, SparkJob: -1}, true},
		{ProfRun{Framework: "spark", Config: `{"stage_attempt_index":"4.0","app_attempt":"2","spark_job":3,"job_submit_ms":100,"job_end_ms":250}`},
			Attempt{Task: "4.0", Stage: 4, SparkJob: 3, AppAttempt: "2", JobSubmitMs: 100, JobEndMs: 250}, true},
		{ProfRun{Framework: "sandbox", Config: `{"attempt":"x"}`}, Attempt{}, false},
		{ProfRun{Framework: "mapreduce", Config: `{"reason":"no attempt here"}`}, Attempt{}, false},
		{ProfRun{Framework: "mapreduce", Config: `{"attempt":`}, Attempt{}, false},
	} {
		got, ok := HistoryAttempt(&c.r)
		if ok != c.ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %+v %v, want %+v %v", c.r.Config, got, ok, c.want, c.ok)
		}
	}
}

// SparkJobGroups: overlapping jobs share a group, a job submitted when
// its group had ended starts the next, so does a new application attempt;
// a job that never ended overlaps what follows.
func TestSparkJobGroups(t *testing.T) {
	span := func(att string, job int, sub, end int64) SparkJobSpan {
		return SparkJobSpan{SparkJobKey{att, job}, sub, end}
	}
	jobs := []SparkJobSpan{span("1", 2, 12, 20), span("1", 0, 0+1, 10), span("1", 1, 5, 12),
		span("1", 3, 21, 0), span("1", 4, 25, 30), span("2", 0, 3, 4)}
	got, n := SparkJobGroups(jobs)
	want := map[SparkJobKey]int{{"1", 0}: 0, {"1", 1}: 0, {"1", 2}: 1, {"1", 3}: 2, {"1", 4}: 2, {"2", 0}: 3}
	if n != 4 || !reflect.DeepEqual(got, want) {
		t.Errorf("groups %v (%d), want %v (4)", got, n, want)
	}
}
