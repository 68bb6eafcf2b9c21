package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// estimateDataset: the provenance world (deadlines from the slo stage),
// a synthetic week of tenants (six periodic: the availability) and
// QuasiMonteCarlo's job history (phases from its task attempts).
func estimateDataset(t *testing.T) string {
	return weekDataset(t, []string{"ingest", "jhist", "../../testdata/elasticity/hadoop"})
}

// wlprof estimate with testdata/estimate/jobs.yaml: text and CSV are
// golden; the JSON document has the contract's fields; --job filters the
// output without changing s_fit; bad input is listed, never a crash.
func TestEstimateGolden(t *testing.T) {
	ds := estimateDataset(t)
	base := []string{"estimate", "-d", ds, "--jobs", "../../testdata/estimate/jobs.yaml", "--at", "2024-01-07T06:00:00Z", "--slot-cpu", "0.5"}
	out := map[string]string{}
	for _, f := range []string{"text", "csv", "json"} {
		o, stderr, code := wlprof(t, append(base, "-o", f)...)
		if code != 0 {
			t.Fatalf("-o %s: exit %d: %s", f, code, stderr)
		}
		out[f] = o
	}
	golden(t, "estimate.txt", out["text"])
	golden(t, "estimate.csv", out["csv"])
	var doc struct {
		Version      int              `json:"version"`
		At           string           `json:"at"`
		Availability []map[string]any `json:"availability"`
		Jobs         []map[string]any `json:"jobs"`
		NotEstimated []struct {
			Job, Reason string
		} `json:"not_estimated"`
	}
	if err := json.Unmarshal([]byte(out["json"]), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != 1 || doc.At != "2024-01-07T06:00:00Z" || len(doc.Availability) == 0 || len(doc.Jobs) != 5 || len(doc.NotEstimated) != 8 {
		t.Fatalf("document: version %d at %s, %d steps, %d jobs, %d not estimated", doc.Version, doc.At, len(doc.Availability), len(doc.Jobs), len(doc.NotEstimated))
	}
	for _, k := range []string{"start_s", "slots"} {
		if _, ok := doc.Availability[0][k]; !ok {
			t.Errorf("availability[0] lacks %q", k)
		}
	}
	sfit := map[string]float64{}
	for _, j := range doc.Jobs {
		for _, k := range []string{"job", "deadline_s", "pending_tasks", "mu_s", "s_req", "s_fit", "meets_goal", "utility",
			"s_req_waves", "late_tasks", "r_pend", "r_alloc", "utility_reduce", "utility_sum", "rank", "warnings"} {
			if _, ok := j[k]; !ok {
				t.Errorf("%v lacks %q", j["job"], k)
			}
		}
		sfit[j["job"].(string)] = j["s_fit"].(float64)
		if u := j["utility"].([]any); len(u) != int(j["pending_tasks"].(float64))+1 {
			t.Errorf("%v: %d utility values for %v pending tasks", j["job"], len(u), j["pending_tasks"])
		}
	}
	for _, n := range doc.NotEstimated {
		if n.Reason == "" {
			t.Errorf("%s: no reason", n.Job)
		}
	}
	// QuasiMonteCarlo's phases come from its jhist; hourly_clicks_06 has
	// no µ: no data, ranked right after the jobs that missed their goal
	// (none here), before those ranked by s_req.
	if !strings.Contains(out["text"], "QuasiMonteCarlo") || !strings.Contains(out["text"], `hourly_clicks_06 <date> (rank 1, no data: placed before the jobs ranked by s_req): phase "map" has no µ`) {
		t.Errorf("text output:\n%s", out["text"])
	}
	one, stderr, code := wlprof(t, append(base, "--job", "daily_sales_07 <date>", "-o", "json")...)
	if code != 0 {
		t.Fatalf("--job: exit %d: %s", code, stderr)
	}
	var single struct {
		Jobs []map[string]any `json:"jobs"`
	}
	json.Unmarshal([]byte(one), &single)
	if len(single.Jobs) != 1 || single.Jobs[0]["s_fit"].(float64) != sfit["daily_sales_07 <date>"] {
		t.Errorf("--job: %v, want daily_sales_07 alone with s_fit %g", single.Jobs, sfit["daily_sales_07 <date>"])
	}

	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("version: 1\njobs:\n  - job: x\n    phases: [{phase: map, tasks: 3, mu_s: -1}]\n"), 0o644)
	for _, c := range []struct {
		argv []string
		code int
		msg  string
	}{
		{[]string{"estimate", "-d", ds, "--slot-cpu", "0", "--reserve", "1"}, 2, "reserve 1"},
		{[]string{"estimate", "-d", ds, "--availability-step", "7m"}, 2, "availability-step"},
		{[]string{"estimate", "-d", ds, "--job", "nope"}, 1, `"nope"`},
		{[]string{"estimate", "-d", ds, "--jobs", bad}, 1, "mu_s -1"},
	} {
		checkExit(t, c.argv, c.code, c.msg)
	}
}

// wlprof report --estimate-jobs adds the section (Ω(t) with the
// deadlines, the table) and each estimated job's profile carries its
// inputs and slots.
func TestReportEstimateSection(t *testing.T) {
	ds := estimateDataset(t)
	out, stdout, idx := sectionReport(t, ds, "--estimate-jobs", "../../testdata/estimate/jobs.yaml",
		"--estimate-at", "2024-01-07T06:00:00Z", "--estimate-slot-cpu", "0.5", "--alpha-sweep", "")
	if s := idx.stage("estimate"); !s.Computed || s.Jobs != 5 {
		t.Errorf("estimate stage not computed with 5 jobs: %s", stdout)
	}
	if _, err := os.Stat(filepath.Join(out, "plots", "estimate-availability.svg")); err != nil {
		t.Error(err)
	}
	b, err := os.ReadFile(filepath.Join(out, "profiles", "QuasiMonteCarlo.json"))
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Estimate *struct {
			Phases []struct {
				Phase string  `json:"phase"`
				Tasks int     `json:"tasks"`
				MuS   float64 `json:"mu_s"`
			} `json:"phases"`
			DeadlineFrom string `json:"deadline_from"`
		} `json:"estimate"`
	}
	if err := json.Unmarshal(b, &p); err != nil || p.Estimate == nil || len(p.Estimate.Phases) != 2 || p.Estimate.Phases[0].Phase != "map" || p.Estimate.Phases[0].Tasks != 1 {
		t.Errorf("QuasiMonteCarlo's estimate (%v): %s", err, b)
	}
	html, _ := os.ReadFile(filepath.Join(out, "index.html"))
	if !strings.Contains(string(html), `<section id="estimate">`) || !strings.Contains(string(html), "hourly_clicks_06 &lt;date&gt;: phase") {
		t.Error("index.html lacks the estimate section or its jobs not estimated")
	}
	if i := strings.Index(string(html), "%!"); i >= 0 {
		t.Errorf("a formatting error in index.html: %s", html[i:min(len(html), i+40)])
	}
	reportShowsTheStagesNumbers(t, ds, string(html))
}

// reportShowsTheStagesNumbers: each row of the report's estimate table
// has the s_req, s_req_waves, late tasks and rank that wlprof estimate
// -o json gives with the same inputs, and the page says which s_req is
// which.
func reportShowsTheStagesNumbers(t *testing.T, ds, html string) {
	t.Helper()
	out := mustRun(t, "estimate", "-d", ds, "--jobs", "../../testdata/estimate/jobs.yaml", "--at", "2024-01-07T06:00:00Z", "--slot-cpu", "0.5", "-o", "json")
	var doc struct {
		Jobs []struct {
			Job       string `json:"job"`
			SReq      int    `json:"s_req"`
			SReqWaves int    `json:"s_req_waves"`
			LateTasks *int   `json:"late_tasks"`
			Rank      int    `json:"rank"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	i := strings.Index(html, `<section id="estimate">`)
	if i < 0 {
		t.Fatal("no estimate section")
	}
	sec := html[i:]
	sec = sec[:strings.Index(sec, "</section>")]
	if !strings.Contains(sec, "s_req is eq. 1 read fluidly") || !strings.Contains(sec, "s_req waves the fewest slots") {
		t.Error("the section does not say which s_req is which")
	}
	// Cells carry their alignment class (reports/align.go); the test reads
	// their text.
	sec = regexp.MustCompile(`<td class="[^"]*">`).ReplaceAllString(sec, "<td>")
	rows := map[string][]string{}
	for _, r := range strings.Split(sec, "<tr><td>")[1:] {
		r = strings.ReplaceAll(r[:strings.Index(r, "</td></tr>")], "<wbr>", "")
		cells := strings.Split(r, "</td><td>")
		rows[strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(cells[0])] = cells
	}
	late := 0
	for _, j := range doc.Jobs {
		c := rows[j.Job]
		want := []string{strconv.Itoa(j.SReq), strconv.Itoa(j.SReqWaves), "–", strconv.Itoa(j.Rank)}
		if j.LateTasks != nil {
			want[2] = strconv.Itoa(*j.LateTasks)
			late += *j.LateTasks
		}
		if len(c) != 13 || c[5] != want[0] || c[6] != want[1] || c[10] != want[2] || c[12] != want[3] {
			t.Errorf("%s: report row %q; want s_req, s_req waves, late, rank %v (wlprof estimate's)", j.Job, c, want)
		}
	}
	if len(doc.Jobs) != 5 || late == 0 {
		t.Errorf("%d jobs estimated, %d tasks late in all; want 5 jobs, some late (the check would be weak)", len(doc.Jobs), late)
	}
}

// Ω(t) by hand: one periodic tenant on 2 servers at 20% CPU from 00:00 to
// 12:00 UTC and 60% after, for a week. With 10% of each server reserved
// and slots of 0.1 server: (2·0.9 − 2·0.2)/0.1 = 14 slots, then
// (1.8 − 1.2)/0.1 = 6. One job (--jobs) needs 100 tasks of 600 s by 18:00:
// from 06:00, 6 h at 14 and 6 at 6 slots hold 432,000 slot-s of its
// 60,000, so it meets its goal, and none of its tasks has to start in the
// current placement cycle (s_fit 0); s_req = ⌈60000/43200⌉ = 2.
func TestEstimateAvailabilityByHand(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("tenant,server,timestamp,cpu,memory\n")
	for i := 0; i < 7*720; i++ {
		ts := 1704067200 + i*120
		u, m := 0.2, 0.7
		if (ts%86400)/3600 >= 12 {
			u, m = 0.6, 0.3
		}
		for _, srv := range []string{"web-1", "web-2"} {
			b.WriteString("web," + srv + "," + strconv.Itoa(ts) + "," + strconv.FormatFloat(u, 'g', -1, 64) + "," + strconv.FormatFloat(m, 'g', -1, 64) + "\n")
		}
	}
	usage := filepath.Join(dir, "usage.csv")
	os.WriteFile(usage, []byte(b.String()), 0o644)
	jobs := filepath.Join(dir, "jobs.yaml")
	os.WriteFile(jobs, []byte("version: 1\njobs:\n  - job: etl\n    deadline_s: 43200\n    phases: [{phase: map, tasks: 100, mu_s: 600}]\n"), 0o644)
	ds := filepath.Join(dir, "ds")
	mustRun(t, "ingest", "csv", usage, "-d", ds, "-q")
	out, stderr, code := wlprof(t, "estimate", "-d", ds, "--jobs", jobs, "--at", "2024-01-08T06:00:00Z", "--slot-cpu", "0.1", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Availability []struct {
			StartS float64 `json:"start_s"`
			Slots  float64 `json:"slots"`
		} `json:"availability"`
		Tenants []string `json:"tenants"`
		Jobs    []struct {
			SReq      int     `json:"s_req"`
			SFit      int     `json:"s_fit"`
			Mean      float64 `json:"avail_mean_slots"`
			MeetsGoal bool    `json:"meets_goal"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Tenants) != 1 || len(doc.Availability) != 2 || doc.Availability[0].Slots != 14 || doc.Availability[1].StartS != 43200 || doc.Availability[1].Slots != 6 {
		t.Fatalf("availability %+v from %v, want 14 slots from 00:00 and 6 from 12:00", doc.Availability, doc.Tenants)
	}
	if j := doc.Jobs[0]; j.SReq != 2 || j.SFit != 0 || j.Mean != 10 || !j.MeetsGoal {
		t.Errorf("job %+v, want s_req 2, s_fit 0 (its 60,000 slot-s fit after the 30-s placement cycle), mean 10 slots, meets its goal", j)
	}
	// Memory bounds the slots with --slot-memory 0.05: the tenant uses 70%
	// of its memory until 12:00 and 30% after, so (1.8 − 1.4)/0.05 = 8
	// slots (fewer than CPU's 14), then (1.8 − 0.6)/0.05 = 24 (more than
	// CPU's 6).
	out = mustRun(t, "estimate", "-d", ds, "--jobs", jobs, "--at", "2024-01-08T06:00:00Z", "--slot-cpu", "0.1", "--slot-memory", "0.05", "-o", "json")
	doc.Availability = nil
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Availability) != 2 || doc.Availability[0].Slots != 8 || doc.Availability[1].Slots != 6 {
		t.Errorf("availability with --slot-memory %+v, want 8 slots from 00:00 (memory) and 6 from 12:00 (CPU)", doc.Availability)
	}
}

// --at at the epoch is an instant like any other, not "no --at": the
// estimate is at 1970-01-01T00:00:00Z and the goal an hour later.
func TestEstimateAtEpoch(t *testing.T) {
	dir := t.TempDir()
	jobs := filepath.Join(dir, "jobs.yaml")
	os.WriteFile(jobs, []byte("version: 1\njobs:\n  - job: etl\n    deadline_s: 3600\n    phases: [{phase: map, tasks: 10, mu_s: 60}]\n"), 0o644)
	out := mustRun(t, "estimate", "-d", filepath.Join(dir, "none"), "--jobs", jobs, "--at", "1970-01-01T00:00:00Z", "-o", "json")
	var doc struct {
		At       string   `json:"at"`
		AtMs     int64    `json:"at_ms"`
		Warnings []string `json:"warnings"`
		Jobs     []struct {
			Deadline string `json:"deadline"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.At != "1970-01-01T00:00:00Z" || doc.AtMs != 0 || len(doc.Jobs) != 1 || doc.Jobs[0].Deadline != "1970-01-01T01:00:00Z" {
		t.Errorf("at %s (%d ms), jobs %+v, warnings %v; want the epoch and a goal at 01:00", doc.At, doc.AtMs, doc.Jobs, doc.Warnings)
	}
}

// wlprof report --estimate-at 1970-01-01T00:00:00Z is the epoch, as
// wlprof estimate --at is (TestEstimateAtEpoch), not "no --estimate-at":
// the published estimate is at 0 ms with the jobs file's goal an hour
// later, not at the runs table's latest instant.
func TestReportEstimateAtEpoch(t *testing.T) {
	ds := estimateDataset(t)
	dir := t.TempDir()
	jobs := filepath.Join(dir, "jobs.yaml")
	if err := os.WriteFile(jobs, []byte("version: 1\njobs:\n  - job: etl\n    deadline_s: 3600\n    phases: [{phase: map, tasks: 10, mu_s: 60}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "r")
	if _, stderr, code := wlprof(t, "report", "-d", ds, "--out", out, "--estimate-jobs", jobs,
		"--estimate-at", "1970-01-01T00:00:00Z", "--alpha-sweep", "", "-o", "json"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "profiles", "etl.json"))
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Estimate *struct {
			AtMs       int64 `json:"at_ms"`
			DeadlineMs int64 `json:"deadline_ms"`
		} `json:"estimate"`
	}
	if err := json.Unmarshal(b, &p); err != nil || p.Estimate == nil || p.Estimate.AtMs != 0 || p.Estimate.DeadlineMs != 3600000 {
		t.Errorf("etl's estimate (%v): want at_ms 0 and deadline_ms 3600000: %s", err, b)
	}
}

// wlprof run binds the report's flags (bindReportFlags) and builds the
// estimate's options as wlprof report does (estimateOpts): --estimate-at
// at the epoch is an instant there too, and no --estimate-at is none.
func TestReportFlagsEstimateAtGiven(t *testing.T) {
	for _, c := range []struct {
		argv  []string
		atSet bool
	}{
		{[]string{"--estimate", "--estimate-at", "1970-01-01T00:00:00Z"}, true},
		{[]string{"--estimate"}, false},
	} {
		o := &reportOptions{}
		cmd := &cobra.Command{Use: "x"}
		o.bindReportFlags(cmd)
		if err := cmd.ParseFlags(c.argv); err != nil {
			t.Fatal(err)
		}
		eo, err := o.estimateOpts()
		if err != nil || eo == nil || eo.AtSet != c.atSet || eo.AtMs != 0 {
			t.Errorf("%v: options %+v (%v); want AtSet %v at 0 ms", c.argv, eo, err, c.atSet)
		}
	}
}

// wlprof estimate on an Alibaba job: its task history is its instances
// (batch_instance, both trace files written from the schema,
// testdata/dag/SOURCES.md, plus a Running instance of M2_1 from 140 s)
// and batch_task's instance counts; the goal is 600 s after --at (150 s
// from the trace start). By hand (estimate's TestInstancesAsHistory has
// the rows): M1 10 tasks, µ (30 + 60) / 2 = 45 s, 8 pending, one running
// 50 s; M2_1 4, µ 40 s, 3 pending, one running 10 s; M3_1 6 pending, µ
// assumed 40 s; R4_2 3 pending, µ 28 s (the failed run left out); M5_3_4
// 2 pending, µ assumed 28 s. Work left (§3.3.2: δ = max(µ − β, 0)): 360,
// 120 + 30, 240, 84, 56 = 890 slot-seconds over 600 s; eq. 1 with the
// window split by work is ⌈890/600 − |R|⌉: 1, 1, 2, 2, 2.
func TestEstimateAlibabaInstances(t *testing.T) {
	ds := filepath.Join(t.TempDir(), "ds")
	for _, c := range []struct {
		format, file string
		code         int
	}{
		{"alibaba2018-batch-task", "../../testdata/dag/batch_task_schema_sample.csv", 3}, // rejects, as TestDAG says
		{"alibaba2018-batch-instance", "../../testdata/dag/batch_instance_schema_sample.csv", 3},
		{"alibaba2018-batch-instance", "../../testdata/estimate/alibaba_running_instance.csv", 0},
	} {
		if _, stderr, code := wlprof(t, "ingest", "-d", ds, c.format, c.file); code != c.code {
			t.Fatalf("ingest %s: exit %d, want %d: %s", c.file, code, c.code, stderr)
		}
	}
	base := []string{"estimate", "-d", ds, "--jobs", "../../testdata/estimate/alibaba_jobs.yaml", "--at", "1970-01-01T00:02:30Z"}
	out, stderr, code := wlprof(t, base...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden(t, "estimate-alibaba-instances.txt", out)
	js := mustRun(t, append(base, "-o", "json")...)
	var doc struct {
		Jobs []struct {
			Job         string `json:"job"`
			ProfileFrom string `json:"profile_from"`
			Phases      []struct {
				Phase   string  `json:"phase"`
				Tasks   int     `json:"tasks"`
				MuS     float64 `json:"mu_s"`
				Pending int     `json:"pending_tasks"`
				Running int     `json:"running_tasks"`
				SReq    int     `json:"s_req"`
				MuFrom  string  `json:"mu_from"`
			} `json:"phases"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Jobs) != 1 || doc.Jobs[0].Job != "j_1" || !strings.HasPrefix(doc.Jobs[0].ProfileFrom, "task instances (6 instance runs; task counts from batch_task)") {
		t.Fatalf("jobs %+v", doc.Jobs)
	}
	want := []string{"M1 10 45 8 1 1", "M2_1 4 40 3 1 1", "M3_1 6 40 6 0 2", "R4_2 3 28 3 0 2", "M5_3_4 2 28 2 0 2"}
	for k, p := range doc.Jobs[0].Phases {
		got := p.Phase + " " + strconv.Itoa(p.Tasks) + " " + strconv.FormatFloat(p.MuS, 'g', -1, 64) + " " + strconv.Itoa(p.Pending) + " " + strconv.Itoa(p.Running) + " " + strconv.Itoa(p.SReq)
		if k >= len(want) || got != want[k] {
			t.Errorf("phase %d: %s (µ from %s), want %v", k, got, p.MuFrom, want)
		}
	}
	if len(doc.Jobs[0].Phases) != len(want) || doc.Jobs[0].Phases[0].MuFrom != "task instances: mean of 2 Terminated instance runs" {
		t.Errorf("phases %+v", doc.Jobs[0].Phases)
	}
}
