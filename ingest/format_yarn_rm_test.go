package ingest

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

const reDir = "../testdata/jobs/resourceestimator/"

// wrapped is "MM/dd/yyyy HH:mm:ss" read in UTC, as the estimator's
// LogParserUtil reads it on a machine in UTC.
func wrapped(s string) int64 { return utcMs("01/02/2006 15:04:05", s) }

// TestYarnRMResourceEstimatorLog pins rmLog.txt to what Hadoop's
// TestRmParser.testParse asserts for it: one skyline for recurring id
// FraudDetection (run 1) of application_1497832133857_0330, submitted at
// 06/21/2017 16:10:13 and finished at 16:18:35, container spec 1800 MB /
// 1 vcore, one container over [0, 142) s, two over [142, 345), one over
// [345, 502).
func TestYarnRMResourceEstimatorLog(t *testing.T) {
	o := ingestJobs(t, "yarn-rm", []string{reDir + "rmLog.txt"}, DefaultOptions())
	const app = "application_1497832133857_0330"
	if len(o.rejects) != 0 {
		t.Errorf("rejects %+v", o.rejects)
	}
	got := o.skyline("FraudDetection", app)
	if s := steps(got); s != "0:1 142:2 345:1 502:0" {
		t.Errorf("skyline %s", s)
	}
	for _, s := range got {
		if s.MemoryBytes != int64(s.Containers)*1800<<20 || s.VCores != s.Containers {
			t.Errorf("sample %+v: want 1800 MB and 1 vcore per container", s)
		}
	}
	if len(o.sky) != len(got) {
		t.Errorf("%d samples in all, %d for the app", len(o.sky), len(got))
	}
	// The run: name, user, queue, state and epoch times are the
	// ApplicationSummary's (" queue=PROD" has a blank after the comma);
	// the summary of this Hadoop version has no submitTime, so the submit
	// line's time stands for it.
	want := dataset.Run{Job: "FraudDetection", Run: app, Name: "FraudDetection-1", User: "hadoop", Queue: "PROD",
		Status: "FINISHED", SubmitMs: wrapped("06/21/2017 16:10:13"), StartMs: 1498061413073, EndMs: 1498061905698, Source: "yarn-rm"}
	if len(o.runs) != 1 || o.runs[0] != want {
		t.Errorf("runs %+v\nwant %+v", o.runs, want)
	}
	// The trailing FAILED attempt belongs to an application this file
	// never submitted: ignored, and said so.
	if !hasNoteLike(o.res.Files[0].Notes, "container or attempt events of applications not submitted in this file (ignored, as the estimator does): 1") {
		t.Errorf("notes %q", o.res.Files[0].Notes)
	}
}

func hasNoteLike(notes []string, sub string) bool {
	for _, n := range notes {
		if strings.Contains(n, sub) {
			return true
		}
	}
	return false
}

// TestYarnRMInvalidLogs runs each of the estimator's invalid logs and
// checks the outcome Hadoop's TestRmParser expects of it (quoted per
// case), plus where the bad line went: to rejects with its line number
// (the estimator only logs a DataFieldNotFoundException at debug level).
func TestYarnRMInvalidLogs(t *testing.T) {
	type want struct {
		why       string
		job, app  string
		skyline   string // "" means no skyline for the app
		submitMs  int64  // of the run; 0: no run expected
		runJob    string
		memPerCon int64 // MB
		rejects   []int64
		reason    string
	}
	for file, w := range map[string]want{
		// testDuplicateJobSubmissionTime: the submission time is the later
		// submit line's, 06/21/2017 16:10:23 (the wrapper field, not the
		// 16:10:13 inside String1). No containers: an empty skyline.
		"invalidLog1.txt": {why: "later submit line wins", job: "Test", app: "application_1", skyline: "0:0",
			submitMs: wrapped("06/21/2017 16:10:23"), runJob: "Test"},
		// testJobIdNotFoundInJobSubmission: getHistory(Test, 2) is null —
		// the submit line has APPIDs=2, so the app never starts.
		"invalidLog2.txt": {why: "no APPID in submit", job: "Test", app: "application_2", skyline: "",
			submitMs: 1498061413073, runJob: "Test", rejects: []int64{2}, reason: "Submit Application Request without APPID"},
		// testJobIdNotFoundInContainerAlloc: a skyline whose cumulative
		// size is 0 — the allocation line has APPIDs=3.
		"invalidLog3.txt": {why: "no APPID in allocation", job: "Test", app: "application_3", skyline: "0:0",
			submitMs: wrapped("06/21/2017 16:10:13"), runJob: "Test", rejects: []int64{3}, reason: "without APPID or CONTAINERID"},
		// testContainerIdNotFoundInContainerAlloc: likewise, CONTAINERIDs=.
		"invalidLog4.txt": {why: "no CONTAINERID in allocation", job: "Test", app: "application_4", skyline: "0:0",
			submitMs: wrapped("06/21/2017 16:10:13"), runJob: "Test", rejects: []int64{3}, reason: "without APPID or CONTAINERID"},
		// testJobIdNotFoundInJobFailure: the submission time stays
		// 16:10:13 — "appattempt_5 is done. finalState=FAILED" names no
		// attempt, so nothing is reset. The container then spans
		// 16:10:13–16:18:35 = 502 s, and the spec line's attempt id
		// appattempt_5_000001 maps to application_5_000001, which was
		// never submitted: the spec falls back to 1024 MB (JobMetaData).
		"invalidLog5.txt": {why: "no attempt id in FAILED", job: "Test", app: "application_5", skyline: "0:1 502:0",
			submitMs: wrapped("06/21/2017 16:10:13"), runJob: "Test", memPerCon: 1024, rejects: []int64{5}, reason: "finalState=FAILED without an application attempt id"},
		// testJobIdNotFoundInJobFinish: getHistory(Test, 6) is null —
		// "appIds=" is not "appId=": no run, no skyline.
		"invalidLog6.txt": {why: "no appId in summary", job: "Test", app: "application_6", skyline: "",
			rejects: []int64{5}, reason: "ApplicationSummary without appId"},
		// testRecurrenceIdNotFoundInJobFinish: getHistory(Test, 7) is null —
		// "Test:7" is not pipeline-run. The run is still kept, under the
		// normalised name "Test".
		"invalidLog7.txt": {why: "no recurring id", job: "Test", app: "application_7", skyline: "",
			submitMs: wrapped("06/21/2017 16:10:13"), runJob: "Test"},
		// testJobIdNotFoundInResourceSpec: spec 1024 MB / 1 vcore —
		// "AttemptIds: appattempt_8_000001" maps to an unknown application.
		"invalidLog8.txt": {why: "spec for unknown app", job: "Test", app: "application_8", skyline: "0:1 502:0",
			submitMs: wrapped("06/21/2017 16:10:13"), runJob: "Test", memPerCon: 1024},
		// testResourceSpecNotFoundInResourceSpec: spec 1024 MB / 1 vcore —
		// "<memory:1800, CPU:1>" has no vCores.
		"invalidLog9.txt": {why: "spec without vCores", job: "Test", app: "application_9", skyline: "0:1 502:0",
			submitMs: wrapped("06/21/2017 16:10:13"), runJob: "Test", memPerCon: 1024, rejects: []int64{5}, reason: "without an application attempt or container id"},
	} {
		t.Run(file, func(t *testing.T) {
			o := ingestJobs(t, "yarn-rm", []string{reDir + file}, DefaultOptions())
			if got := steps(o.skyline(w.job, w.app)); got != w.skyline {
				t.Errorf("%s: skyline %q, want %q", w.why, got, w.skyline)
			}
			if w.skyline == "" && len(o.sky) != 0 {
				t.Errorf("%s: samples %+v, want none", w.why, o.sky)
			}
			for _, s := range o.sky {
				if w.memPerCon != 0 && (s.MemoryBytes != int64(s.Containers)*w.memPerCon<<20 || s.VCores != s.Containers) {
					t.Errorf("%s: sample %+v, want %d MB, 1 vcore per container", w.why, s, w.memPerCon)
				}
			}
			switch {
			case w.submitMs == 0 && len(o.runs) != 0:
				t.Errorf("%s: runs %+v, want none", w.why, o.runs)
			case w.submitMs != 0 && (len(o.runs) != 1 || o.runs[0].SubmitMs != w.submitMs || o.runs[0].Job != w.runJob || o.runs[0].Run != w.app):
				t.Errorf("%s: runs %+v, want %s/%s submitted at %d", w.why, o.runs, w.runJob, w.app, w.submitMs)
			}
			if got := rejectLines(o.rejects); !reflect.DeepEqual(got, w.rejects) {
				t.Errorf("%s: rejected lines %v, want %v", w.why, got, w.rejects)
			}
			for _, r := range o.rejects {
				if !strings.Contains(r.Reason, w.reason) || r.Format != "yarn-rm" || !strings.HasSuffix(r.File, file) || r.Record == "" {
					t.Errorf("%s: reject %+v, want reason %q", w.why, r, w.reason)
				}
			}
		})
	}
}

// TestYarnRMTimeZone: wrapped and log4j times carry no offset and are read
// in --tz; epoch fields of the summary are instants and do not move, and
// skyline offsets are differences, so they do not move either.
func TestYarnRMTimeZone(t *testing.T) {
	opts := DefaultOptions()
	la, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		t.Fatal(err)
	}
	opts.Location = la
	o := ingestJobs(t, "yarn-rm", []string{reDir + "rmLog.txt"}, opts)
	// 16:10:13 PDT (UTC−7 in June) is 23:10:13 UTC.
	if len(o.runs) != 1 || o.runs[0].SubmitMs != wrapped("06/21/2017 23:10:13") || o.runs[0].EndMs != 1498061905698 {
		t.Errorf("runs %+v", o.runs)
	}
	if s := steps(o.sky); s != "0:1 142:2 345:1 502:0" {
		t.Errorf("skyline %s", s)
	}
}

// A plain Hadoop 3 ResourceManager log (log4j ISO8601 layout, tab-separated
// audit fields), written for this test: two runs of a daily job, one with
// a failed first attempt; a run whose name is not pipeline-run; an app
// still running at the end; a stack trace; escapes in the summary.
const plainRMLog = `2024-03-01 02:00:00,000 INFO org.apache.hadoop.yarn.server.resourcemanager.RMAuditLogger: USER=etl	IP=10.0.0.1	OPERATION=Submit Application Request	TARGET=ClientRMService	RESULT=SUCCESS	APPID=application_1709251200000_0001	QUEUENAME=prod
2024-03-01 02:00:01,500 INFO org.apache.hadoop.yarn.server.resourcemanager.RMAuditLogger: USER=etl	OPERATION=AM Allocated Container	TARGET=SchedulerApp	RESULT=SUCCESS	APPID=application_1709251200000_0001	CONTAINERID=container_e01_1709251200000_0001_01_000001	RESOURCE=<memory:2048, vCores:1>	QUEUENAME=prod
2024-03-01 02:00:01,600 INFO org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptImpl: Storing attempt: AppId: application_1709251200000_0001 AttemptId: appattempt_1709251200000_0001_000001 MasterContainer: Container: [ContainerId: container_e01_1709251200000_0001_01_000001, NodeId: n1:8041, Resource: <memory:2048, vCores:2>, Priority: 0, ]
2024-03-01 02:00:30,000 INFO org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler: Application Attempt appattempt_1709251200000_0001_000001 is done. finalState=FAILED
java.lang.RuntimeException: AM Allocated Container in a stack trace
	at org.example.Foo(Foo.java:1)
2024-03-01 02:00:40,000 INFO org.apache.hadoop.yarn.server.resourcemanager.RMAuditLogger: USER=etl	OPERATION=AM Allocated Container	TARGET=SchedulerApp	RESULT=SUCCESS	APPID=application_1709251200000_0001	CONTAINERID=container_e01_1709251200000_0001_02_000001
2024-03-01 02:00:50,999 INFO org.apache.hadoop.yarn.server.resourcemanager.RMAuditLogger: USER=etl	OPERATION=AM Allocated Container	TARGET=SchedulerApp	RESULT=SUCCESS	APPID=application_1709251200000_0001	CONTAINERID=container_e01_1709251200000_0001_02_000002
2024-03-01 02:01:10,000 INFO org.apache.hadoop.yarn.server.resourcemanager.RMAuditLogger: USER=etl	OPERATION=AM Released Container	TARGET=SchedulerApp	RESULT=SUCCESS	APPID=application_1709251200000_0001	CONTAINERID=container_e01_1709251200000_0001_02_000002
2024-03-01 02:02:00,000 INFO org.apache.hadoop.yarn.server.resourcemanager.RMAuditLogger: USER=etl	OPERATION=AM Released Container	TARGET=SchedulerApp	RESULT=SUCCESS	APPID=application_1709251200000_0001	CONTAINERID=container_e01_1709251200000_0001_02_000001
2024-03-01 02:02:01,000 INFO org.apache.hadoop.yarn.server.resourcemanager.RMAppManager$ApplicationSummary: appId=application_1709251200000_0001,name=etl_daily-20240301,user=etl,queue=prod,state=FINISHED,trackingUrl=http://rm:8088/proxy/application_1709251200000_0001/,appMasterHost=n1,submitTime=1709258400000,startTime=1709258400005,launchTime=1709258440000,finishTime=1709258521000,finalStatus=SUCCEEDED,memorySeconds=1,vcoreSeconds=1,preemptedResources=<memory:0\, vCores:0>,applicationType=SPARK
2024-03-01 03:00:00,000 INFO org.apache.hadoop.yarn.server.resourcemanager.RMAuditLogger: USER=bi	OPERATION=Submit Application Request	TARGET=ClientRMService	RESULT=SUCCESS	APPID=application_1709251200000_0002
2024-03-01 03:00:05,000 INFO org.apache.hadoop.yarn.server.resourcemanager.RMAppManager$ApplicationSummary: appId=application_1709251200000_0002,name=report.sales 2024-03-01 7f3e2a10-1b2c-4d5e-8f90-a1b2c3d4e5f6,user=bi\,ops,queue=default,state=FAILED,startTime=1709262000000,finishTime=1709262005000,finalStatus=FAILED
2024-03-01 04:00:00,000 INFO org.apache.hadoop.yarn.server.resourcemanager.RMAuditLogger: USER=etl	OPERATION=Submit Application Request	TARGET=ClientRMService	RESULT=SUCCESS	APPID=application_1709251200000_0003
`

func TestYarnRMPlainLog(t *testing.T) {
	p := filepath.Join(t.TempDir(), "yarn-resourcemanager.log")
	if err := os.WriteFile(p, []byte(plainRMLog), 0o644); err != nil {
		t.Fatal(err)
	}
	o := ingestJobs(t, "auto", []string{p}, DefaultOptions())
	if o.res.Files[0].Format != "yarn-rm" || len(o.rejects) != 0 {
		t.Fatalf("%+v rejects %+v", o.res.Files[0], o.rejects)
	}
	// The failed attempt at 02:00:30 restarts the skyline there: the
	// second attempt's containers run from 10 s (AM) and 20.999 s → 20 s
	// (whole seconds, truncated as the estimator does) to 40 s and 90 s.
	// The attempt's Resource line came before the failure and was reset
	// with it, so the containers are 1024 MB / 1 vcore.
	const a1 = "application_1709251200000_0001"
	if s := steps(o.skyline("etl_daily", a1)); s != "0:0 10:1 20:2 40:1 90:0" {
		t.Errorf("skyline %s", s)
	}
	for _, s := range o.skyline("etl_daily", a1) {
		if s.MemoryBytes != int64(s.Containers)*1024<<20 {
			t.Errorf("sample %+v", s)
		}
	}
	want := []dataset.Run{
		{Job: "etl_daily", Run: a1, Name: "etl_daily-20240301", User: "etl", Queue: "prod", Status: "FINISHED",
			SubmitMs: 1709258400000, StartMs: 1709258440000, EndMs: 1709258521000, Source: "yarn-rm"},
		// Not pipeline-run ("report.sales ..." stops \w+ at the dot): no
		// skyline; job is the name without date and UUID; "\," unescaped.
		{Job: "report.sales", Run: "application_1709251200000_0002", Name: "report.sales 2024-03-01 7f3e2a10-1b2c-4d5e-8f90-a1b2c3d4e5f6",
			User: "bi,ops", Queue: "default", Status: "FAILED",
			SubmitMs: utcMs(time.DateTime, "2024-03-01 03:00:00"), StartMs: 1709262000000, EndMs: 1709262005000, Source: "yarn-rm"},
	}
	if !reflect.DeepEqual(o.runs, want) {
		t.Errorf("runs\n%+v\nwant\n%+v", o.runs, want)
	}
	if len(o.sky) != 5 {
		t.Errorf("%d samples", len(o.sky))
	}
	notes := strings.Join(o.res.Files[0].Notes, "\n")
	for _, n := range []string{
		"applications without an ApplicationSummary (still running when the log ends, or finished in another file; no run written): 1, first application_1709251200000_0003 submitted at " + p + ":14",
		"lines that are not log records (continuations, comments; ignored): 2", "runs whose name has no pipeline-run recurring id (no skyline, as the estimator; job = normalised name): 1",
	} {
		if !strings.Contains(notes, n) {
			t.Errorf("notes lack %q:\n%s", n, notes)
		}
	}
}

// TestYarnRMBadLines: each bad line is one reject with its line and
// reason; nothing panics and good runs around them are kept.
func TestYarnRMBadLines(t *testing.T) {
	good := "2024-03-01 02:00:00,000 INFO RMAuditLogger: USER=u\tOPERATION=Submit Application Request\tAPPID=application_1_0001\n"
	sum := "2024-03-01 02:01:00,000 INFO RMAppManager$ApplicationSummary: appId=application_1_0001,name=a-1,startTime=1,finishTime=2\n"
	for _, c := range []struct{ line, reason string }{
		{"2024-13-01 02:00:00,000 INFO RMAuditLogger: USER=u\tOPERATION=Submit Application Request\tAPPID=application_1_0002", "out of range"},
		{"1:e,02/30/2024 02:00:00,yarn,tag,Pid=1 Tid=2 TS=3 String1=\"OPERATION=AM Allocated Container APPID=a CONTAINERID=c\"", "not MM/dd/yyyy"},
		{"2024-03-01 02:00:00,000 INFO RMAppManager$ApplicationSummary: appId=application_1_0003,startTime=-5", "not epoch milliseconds"},
		{"2024-03-01 02:00:00,000 INFO RMAppManager$ApplicationSummary: appId=application_1_0003,finishTime=1e3", "not epoch milliseconds"},
		{"2024-03-01 02:00:00,000 INFO x: , Resource: <memory:99999999999999999999, vCores:1> appattempt_1_0001_000001", "without an application attempt"},
		{"2024-03-01 02:00:00,000 INFO x: appattempt_1_0001_1 , Resource: <memory:99999999999999, vCores:1>", "out of range"},
	} {
		body := good + c.line + "\n" + sum
		p := filepath.Join(t.TempDir(), "rm.log")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		o := ingestJobs(t, "yarn-rm", []string{p}, DefaultOptions())
		if len(o.rejects) != 1 || o.rejects[0].Line != 2 || !strings.Contains(o.rejects[0].Reason, c.reason) {
			t.Errorf("%q: rejects %+v, want line 2 %q", c.line, o.rejects, c.reason)
		}
		if len(o.runs) != 1 || o.runs[0].Job != "a" {
			t.Errorf("%q: runs %+v", c.line, o.runs)
		}
	}
}

func TestParseSummaryEscapes(t *testing.T) {
	got := parseSummary([]byte(`appId=a, name=x\,y\=z\\w\\n\n,empty=,noval,k=v=w,preemptedResources=<memory:0\, vCores:0>`))
	want := map[string]string{"appId": "a", "name": "x,y=z\\w\\n\n", "empty": "", "noval": "", "k": "v=w", "preemptedResources": "<memory:0, vCores:0>"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q", got)
	}
}

func TestNormaliseJobName(t *testing.T) {
	for in, want := range map[string]string{
		"FraudDetection-1":     "FraudDetection",
		"daily_etl_2024-01-31": "daily_etl",
		"tpch_q12":             "tpch_q12",
		"Test:7":               "Test",
		"etl-20240131T120000Z": "etl",
		"load 7f3e2a10-1b2c-4d5e-8f90-a1b2c3d4e5f6 done": "load done",
		"job_deadbeef1234cafe":                           "job",
		"12345":                                          "12345",
		"":                                               "",
		"run-3-of-10-copy":                               "run-of-copy",
	} {
		if got := normaliseJobName(in); got != want {
			t.Errorf("normaliseJobName(%q) = %q, want %q", in, got, want)
		}
	}
}

var _ = fmt.Sprint

// TestYarnRMNotALog: a file with no ResourceManager events gives no rows
// and says so, rather than passing silently.
func TestYarnRMNotALog(t *testing.T) {
	p := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(p, []byte("hello\n2024-01-01 00:00:00,000 INFO x: started\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := ingestJobs(t, "yarn-rm", []string{p}, DefaultOptions())
	if len(o.runs)+len(o.sky)+len(o.rejects) != 0 || !hasNoteLike(o.res.Files[0].Notes, "is it a ResourceManager log?") {
		t.Errorf("%+v", o.res.Files[0])
	}
}

// TestYarnRMOutOfOrder: containers released before their allocation or
// allocated before the submission (a log out of time order) are left out
// and counted, where the estimator would make a never-ending or
// negative-time interval of them.
func TestYarnRMOutOfOrder(t *testing.T) {
	log := `2024-03-01 02:00:10,000 INFO RMAuditLogger: USER=u	OPERATION=AM Allocated Container	APPID=application_1_0001	CONTAINERID=container_1_0001_01_000001
2024-03-01 02:00:20,000 INFO RMAuditLogger: USER=u	OPERATION=Submit Application Request	APPID=application_1_0001
2024-03-01 02:00:24,000 INFO RMAuditLogger: USER=u	OPERATION=AM Released Container	APPID=application_1_0001	CONTAINERID=container_1_0001_01_000002
2024-03-01 02:00:25,000 INFO RMAuditLogger: USER=u	OPERATION=AM Allocated Container	APPID=application_1_0001	CONTAINERID=container_1_0001_01_000002
2024-03-01 02:00:21,000 INFO RMAuditLogger: USER=u	OPERATION=AM Allocated Container	APPID=application_1_0001	CONTAINERID=container_1_0001_01_000003
2024-03-01 02:00:41,000 INFO RMAuditLogger: USER=u	OPERATION=AM Released Container	APPID=application_1_0001	CONTAINERID=container_1_0001_01_000003
2024-03-01 02:01:00,000 INFO RMAppManager$ApplicationSummary: appId=application_1_0001,name=j-1,startTime=1,finishTime=2
`
	p := filepath.Join(t.TempDir(), "rm.log")
	if err := os.WriteFile(p, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	o := ingestJobs(t, "yarn-rm", []string{p}, DefaultOptions())
	// Container 1 was allocated before the submit line, so the estimator
	// never saw it either; container 2's release time (24 s) precedes its
	// allocation's (25 s): dropped; container 3 holds [1 s, 21 s).
	if s := steps(o.sky); s != "0:0 1:1 21:0" {
		t.Errorf("skyline %s", s)
	}
	if !hasNoteLike(o.res.Files[0].Notes, "containers released before allocated or before submission (log out of order; left out of skylines): 1") {
		t.Errorf("notes %q", o.res.Files[0].Notes)
	}
}

// TestYarnRMSecondSummary: a second ApplicationSummary for one application
// (a duplicated or spliced log; FuzzYarnRM found it) is a reject naming the
// first summary's line. Before, it made a second run with the same id and a
// second skyline restarting at offset 0 after the first had ended.
func TestYarnRMSecondSummary(t *testing.T) {
	log := `2024-03-01 02:00:00,000 INFO RMAuditLogger: USER=u	OPERATION=Submit Application Request	APPID=application_1_0001
2024-03-01 02:00:10,000 INFO RMAuditLogger: USER=u	OPERATION=AM Allocated Container	APPID=application_1_0001	CONTAINERID=container_1_0001_01_000001
2024-03-01 02:00:40,000 INFO RMAuditLogger: USER=u	OPERATION=AM Released Container	APPID=application_1_0001	CONTAINERID=container_1_0001_01_000001
2024-03-01 02:01:00,000 INFO RMAppManager$ApplicationSummary: appId=application_1_0001,name=j-1,startTime=1,finishTime=2
2024-03-01 03:00:00,000 INFO RMAuditLogger: USER=u	OPERATION=Submit Application Request	APPID=application_1_0001
2024-03-01 02:01:00,000 INFO RMAppManager$ApplicationSummary: appId=application_1_0001,name=j-2,startTime=1,finishTime=2
`
	p := filepath.Join(t.TempDir(), "rm.log")
	if err := os.WriteFile(p, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	o := ingestJobs(t, "yarn-rm", []string{p}, DefaultOptions())
	if len(o.runs) != 1 || o.runs[0].Name != "j-1" {
		t.Errorf("runs %+v, want the first summary's only", o.runs)
	}
	if s := steps(o.skyline("j", "application_1_0001")); s != "0:0 10:1 40:0" {
		t.Errorf("skyline %s", s)
	}
	if len(o.rejects) != 1 || o.rejects[0].Line != 6 || !strings.Contains(o.rejects[0].Reason, "second ApplicationSummary for application_1_0001 (the first is on line 4") {
		t.Errorf("rejects %+v", o.rejects)
	}
	// The resubmission at 03:00 was forgotten with the rejected summary,
	// not reported as an application still running at the end.
	if hasNoteLike(o.res.Files[0].Notes, "applications without an ApplicationSummary") {
		t.Errorf("notes %q", o.res.Files[0].Notes)
	}
}
