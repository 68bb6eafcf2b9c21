package slo

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

func TestNormalise(t *testing.T) {
	for in, want := range map[string]string{
		"daily_sales_07 2024-01-31":                   "daily_sales_07 <date>",
		"hourly_clicks_12 2024-01-31T05":              "hourly_clicks_12 <date>",
		"etl-20240131-run17":                          "etl-<n>-run<n>",
		"ingest_1706659200000":                        "ingest_<n>",
		"report 3f2b9c1e-8a1d-4c6e-9f00-0123456789ab": "report <uuid>",
		"/warehouse/sales/dt=2024-01-31/hour=05":      "/warehouse/sales/dt=<v>/hour=<v>",
		"spark job application_1700000000000_0042 x":  "spark job <application> x",
		"build 9f86d081884c7d65":                      "build <hex>",
		"top10 v2 job042":                             "top10 v2 job042",
		"query #1234 for 2024/01/31":                  "query #<n> for <date>",
		"grandmas.kitchen/prepare_apple_pie":          "grandmas.kitchen/prepare_apple_pie",
		"cleanup attempt_3":                           "cleanup attempt<n>",
	} {
		if got := Normalise(in); got != want {
			t.Errorf("Normalise(%q) = %q, want %q", in, got, want)
		}
	}
	// Idempotent: a normalised name normalises to itself.
	for _, s := range []string{"daily_sales_07 <date>", "etl-<n>-run<n>", "spark job <application> x"} {
		if Normalise(s) != s {
			t.Errorf("Normalise(%q) = %q: not idempotent", s, Normalise(s))
		}
	}
}

// The percentiles themselves are tested in internal/quantile (the numpy
// reference values moved there with the function).
func TestMAD(t *testing.T) {
	// MAD of 1..9 around 5 is median(4,3,2,1,0,1,2,3,4) = 2.
	if got := mad([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9}); got != 2 {
		t.Errorf("mad = %v, want 2", got)
	}
}

// Seeded property: cron-like submissions (a fixed phase, seconds of
// jitter, some runs missed) find the natural period and its UTC start;
// runs submitted on both sides of midnight stay in their own period.
func TestFindPeriodProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	for trial := 0; trial < 200; trial++ {
		period := NaturalPeriodsS[7+rng.IntN(9)] // 1 h .. 7 d
		pMs := int64(period * 1000)
		phase := rng.Int64N(pMs)
		var subs []int64
		for k := 0; k < 30; k++ {
			if rng.Float64() < 0.1 {
				continue // a missed run
			}
			subs = append(subs, t0+int64(k)*pMs+phase+rng.Int64N(30_000)-15_000)
		}
		p := findPeriod(subs, 0.2, 0.1)
		if !p.Regular || !p.Snapped || p.PeriodS != period {
			t.Fatalf("trial %d: period %v phase %d: got %+v", trial, period, phase, p)
		}
		starts := p.runPeriodStarts(subs)
		for i := 1; i < len(starts); i++ {
			if starts[i] <= starts[i-1] {
				t.Fatalf("trial %d: two runs in one period: %v", trial, starts)
			}
			if d := subs[i] - starts[i] - (subs[0] - starts[0]); d > 60_000 || d < -60_000 {
				t.Fatalf("trial %d: run %d offset differs by %d ms from the first", trial, i, d)
			}
		}
		if period <= 86400 && mod(starts[0], pMs) != 0 {
			t.Fatalf("trial %d: period start %d not aligned to UTC", trial, starts[0])
		}
	}
	// random submissions, one a day at any time: irregular
	var subs []int64
	for k := 0; k < 30; k++ {
		subs = append(subs, t0+int64(k)*86_400_000+rng.Int64N(86_400_000))
	}
	if p := findPeriod(subs, 0.2, 0.1); p.Regular {
		t.Errorf("random daily submissions judged regular: %+v", p)
	}
}

func TestStem(t *testing.T) {
	for in, want := range map[string]string{
		"/data/sales/2024-01-31/part-00000":     "/data/sales",
		"/data/sales/_temporary/0/part-0":       "/data/sales/_temporary",
		"/warehouse/db.db/t/dt=2024-01-31/x":    "/warehouse/db.db/t",
		"/landing/feed/events.csv":              "/landing/feed/events.csv",
		"/user/bob/.sparkStaging/application_1": "/user/bob/.sparkStaging",
	} {
		if got := stem(in); got != want {
			t.Errorf("stem(%q) = %q, want %q", in, got, want)
		}
	}
}

// handWorld: one daily job, seven runs. Its input lands at 02:00 + d
// minutes (d = 0..6), it runs 03:00–03:30 (start delayed by nothing), and
// a dashboard reads its output at 09:00 every day. Expected by hand:
// arrival = p95 of {02:00..02:06} = 02:05:24 (7200 + 0.95·6·60·... see
// below), deadline = 09:00 = 32400 s, slack = (09:00 − 03:30)/30 min = 11.
func handWorld() Input {
	t0 := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	var runs []dataset.Run
	var prov []dataset.Provenance
	for d := int64(0); d < 7; d++ {
		day := t0 + d*86_400_000
		app := "application_1709251200000_000" + string(rune('1'+d))
		runs = append(runs, dataset.Run{Run: app, Name: "sales_rollup " + time.UnixMilli(day).UTC().Format("2006-01-02"),
			User: "etl", Status: "SUCCEEDED", SubmitMs: day + 3*3_600_000 - 5000, StartMs: day + 3*3_600_000, EndMs: day + 3*3_600_000 + 1_800_000})
		in := "/landing/sales/" + time.UnixMilli(day).UTC().Format("2006-01-02") + "/data.csv"
		out := "/data/sales_rollup/" + time.UnixMilli(day).UTC().Format("2006-01-02")
		prov = append(prov,
			dataset.Provenance{TimeMs: day + 2*3_600_000 + d*60_000, Op: "rename", Path: in + "._COPYING_", Dst: in, User: "loader"},
			dataset.Provenance{TimeMs: day + 3*3_600_000 + 10_000, Op: "read", Path: in, User: "etl", Run: app, Attribution: "callerContext"},
			dataset.Provenance{TimeMs: day + 3*3_600_000 + 600_000, Op: "write", Path: out + "/_temporary/part-0", User: "etl"},
			dataset.Provenance{TimeMs: day + 3*3_600_000 + 1_790_000, Op: "rename", Path: out + "/_temporary", Dst: out, User: "etl", Run: app, Attribution: "callerContext"},
			dataset.Provenance{TimeMs: day + 9*3_600_000, Op: "read", Path: out + "/part-0", User: "dashboard"},
			dataset.Provenance{TimeMs: day + 9*3_600_000 + 5000, Op: "getfileinfo", Path: out, User: "dashboard"},
		)
	}
	return Input{Runs: runs, Provenance: func(fn func(*dataset.Provenance) error) error {
		for i := range prov {
			if err := fn(&prov[i]); err != nil {
				return err
			}
		}
		return nil
	}}
}

func TestInferByHand(t *testing.T) {
	res, err := Run(context.Background(), handWorld(), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Jobs) != 1 {
		t.Fatalf("jobs %+v", res.Jobs)
	}
	j := res.Jobs[0]
	// p95 of {7200, 7260, ..., 7560}: h = 6·0.95 = 5.7 → 7500 + 0.7·60 = 7542.
	if j.Job != "sales_rollup <date>" || !j.Actionable || *j.PeriodS != 86400 || *j.ArrivalS != 7542 ||
		*j.DeadlineS != 32400 || *j.SlackRatio != 11 || j.Reason != "" {
		t.Fatalf("got %+v (arrival %v deadline %v slack %v)", j, *j.ArrivalS, *j.DeadlineS, *j.SlackRatio)
	}
	if j.Attribution["callerContext"] != 14 || j.Attribution["user-window"] != 7 {
		t.Errorf("attribution %v: want 14 by callerContext (read + rename), 7 by user window (the temporary write)", j.Attribution)
	}
	if g := res.Graph; g.IngressFiles != 7 || g.EgressFiles != 14 || g.Ignored["getfileinfo"] != 7 {
		t.Errorf("graph %+v: want 7 ingress inputs, 14 egress (outputs read by users, temporary parts), 7 ignored getfileinfo", g)
	}
	if len(j.Consumers) != 1 || j.Consumers[0] != "egress" || j.Producers[0] != "ingress" {
		t.Errorf("consumers %v producers %v", j.Consumers, j.Producers)
	}
}

func TestReasons(t *testing.T) {
	in := handWorld()
	for _, c := range []struct {
		mut  func(*Options)
		want string
	}{
		{func(o *Options) { o.MinRuns = 8 }, "too few runs (7, need 8)"},
		{func(o *Options) { o.MinSlack = 12 }, "no slack (median slack ratio 11.00 < 12.00)"},
	} {
		o := DefaultOptions()
		c.mut(&o)
		res, err := Run(context.Background(), in, o)
		if err != nil {
			t.Fatal(err)
		}
		if j := res.Jobs[0]; j.Actionable || j.Reason != c.want {
			t.Errorf("reason %q, want %q", j.Reason, c.want)
		}
	}
	// Without provenance nothing reads the output.
	res, err := Run(context.Background(), Input{Runs: in.Runs}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if j := res.Jobs[0]; j.Actionable || !strings.HasPrefix(j.Reason, "no consumer") || j.ArrivalFrom != "submit" {
		t.Errorf("no provenance: %+v", j)
	}
	if _, err := Run(context.Background(), Input{}, DefaultOptions()); err != ErrNoRuns {
		t.Errorf("no runs: %v", err)
	}
}

func TestOverrides(t *testing.T) {
	dir := t.TempDir()
	yml := filepath.Join(dir, "o.yaml")
	os.WriteFile(yml, []byte("version: 1\njobs:\n  - job: \"sales_rollup <date>\"\n    deadline_s: 36000\n    note: finance reads at 10:00\n  - job: nosuch\n    reject: true\n"), 0o644)
	ov, err := LoadOverrides(yml)
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	o.Overrides = ov
	res, err := Run(context.Background(), handWorld(), o)
	if err != nil {
		t.Fatal(err)
	}
	j := res.Jobs[0]
	if *j.DeadlineS != 36000 || !j.Actionable || j.Override == nil || j.Override.Note != "finance reads at 10:00" {
		t.Errorf("override not applied: %+v", j)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], `"nosuch"`) {
		t.Errorf("warnings %v", res.Warnings)
	}
	js := filepath.Join(dir, "o.json")
	os.WriteFile(js, []byte(`{"version":1,"jobs":[{"job":"sales_rollup <date>","reject":true}]}`), 0o644)
	if o.Overrides, err = LoadOverrides(js); err != nil {
		t.Fatal(err)
	}
	res, _ = Run(context.Background(), handWorld(), o)
	if j := res.Jobs[0]; j.Actionable || j.Reason != "rejected by override" {
		t.Errorf("reject: %+v", j)
	}
	// Every problem at once, each with its entry.
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"version":2,"jobs":[{"job":""},{"job":"a","period_s":-1,"accept":true,"reject":true},{"job":"a","arrival_s":10,"deadline_s":5}]}`), 0o644)
	_, err = LoadOverrides(bad)
	for _, want := range []string{"version 2", "jobs[0]: no job", "jobs[1]: period_s -1", "jobs[1]: both accept and reject", `jobs[2]: job "a" already in jobs[1]`, "jobs[2]: arrival_s 10 is not before deadline_s 5"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
	unknown := filepath.Join(dir, "u.yml")
	os.WriteFile(unknown, []byte("version: 1\njobs:\n  - job: a\n    dedline_s: 5\n"), 0o644)
	if _, err := LoadOverrides(unknown); err == nil || !strings.Contains(err.Error(), "dedline_s not found in a jobs entry (fields: job,") ||
		strings.Contains(err.Error(), "slo.Override") {
		t.Errorf("unknown YAML field: %v", err)
	}
}

// Bad input: a run without an end, a read of an output before its run
// ended, a read logged before the write it reads, rows out of order. Each
// is a warning with a count, never a crash, and the SLO is still found
// from the good runs.
func TestBadInputWarnings(t *testing.T) {
	in := handWorld()
	in.Runs[0].EndMs = dataset.NoTime
	day1 := in.Runs[1].StartMs - 3*3_600_000
	var rows []dataset.Provenance
	in.Provenance(func(p *dataset.Provenance) error { rows = append(rows, *p); return nil })
	extra := []dataset.Provenance{
		// day 1: a user reads the output before the run ends (03:29:55 < 03:30),
		// and someone opens a file of it before it exists
		{TimeMs: day1 + 3*3_600_000 + 1_795_000, Op: "read", Path: "/data/sales_rollup/2024-03-02/part-0", User: "auditor"},
	}
	early := dataset.Provenance{TimeMs: day1 + 3*3_600_000 + 20_000, Op: "read", Path: "/data/sales_rollup/2024-03-02/part-0", User: "auditor"}
	// day 2's input, read by its run, logged an hour before the file was
	// renamed into place (the NameNode clock of that line was off)
	day2 := in.Runs[2].StartMs - 3*3_600_000
	skewed := dataset.Provenance{TimeMs: day2 + 3*3_600_000 + 20_000, Op: "read", Path: "/landing/sales/2024-03-03/data.csv", User: "etl",
		Run: in.Runs[2].Run, Attribution: "callerContext"}
	var out []dataset.Provenance
	for _, p := range rows {
		out = append(out, p)
		if p.Op == "rename" && p.Dst == "/landing/sales/2024-03-03/data.csv" {
			out = append(out, dataset.Provenance{TimeMs: p.TimeMs - 3_600_000, Op: skewed.Op, Path: skewed.Path, User: "etl", Run: skewed.Run, Attribution: "callerContext"})
		}
		if p.TimeMs == day1+3*3_600_000+10_000 {
			out = append(out, early)
		}
		if p.Op == "rename" && p.Dst == "/data/sales_rollup/2024-03-02" {
			out = append(out, extra...)
		}
	}
	in.Provenance = func(fn func(*dataset.Provenance) error) error {
		for i := range out {
			if err := fn(&out[i]); err != nil {
				return err
			}
		}
		return nil
	}
	o := DefaultOptions()
	o.MinRuns = 5
	res, err := Run(context.Background(), in, o)
	if err != nil {
		t.Fatal(err)
	}
	j := res.Jobs[0]
	w := strings.Join(j.Warnings, "; ")
	for _, want := range []string{"1 runs without an end", "1 reads of its output before the run ended", "1 reads earlier than the write they read"} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings %q lack %q", w, want)
		}
	}
	if res.Graph.OutOfOrder != 1 || !strings.Contains(strings.Join(res.Warnings, ";"), "earlier than rows before them") {
		t.Errorf("out of order %d, warnings %v", res.Graph.OutOfOrder, res.Warnings)
	}
	if !j.Actionable || *j.DeadlineS != 32400 || j.RunsMeasured != 6 {
		t.Errorf("SLO from the six good runs: %+v", j)
	}
}

// A daily job whose input lands at about 02:00, that runs 03:00–03:30,
// and whose output a dashboard reads at 09:00.
func ExampleRun() {
	res, err := Run(context.Background(), handWorld(), DefaultOptions())
	if err != nil {
		panic(err)
	}
	for _, j := range res.Jobs {
		fmt.Printf("%s: period %.0f s, actionable %v, arrival %.0f s, deadline %.0f s, slack %.1f\n",
			j.Job, *j.PeriodS, j.Actionable, *j.ArrivalS, *j.DeadlineS, *j.SlackRatio)
	}
	// Output:
	// sales_rollup <date>: period 86400 s, actionable true, arrival 7542 s, deadline 32400 s, slack 11.0
}

// A run's job is the id ingest stored (runs.job), which its skylines and
// profiling runs carry too, so the report can join the stages by it: the
// slo stage does not normalise it again ("report-run17", as yarn-rm
// stores it, would become "report-run<n>"). OpenLineage job names, stored
// as logged, and runs without a job are grouped by their normalised name.
func TestJobKeyIsRunsJob(t *testing.T) {
	w := handWorld()
	for i := range w.Runs {
		w.Runs[i].Job, w.Runs[i].Source = "report-run17", "yarn-rm"
	}
	res, err := Run(context.Background(), w, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Jobs) != 1 || res.Jobs[0].Job != "report-run17" {
		t.Fatalf("jobs %+v: want the one job report-run17, as runs.job says", res.Jobs)
	}
	w = handWorld()
	for i := range w.Runs {
		w.Runs[i].Job, w.Runs[i].Source = w.Runs[i].Name, "openlineage"
	}
	if res, err = Run(context.Background(), w, DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	if len(res.Jobs) != 1 || res.Jobs[0].Job != "sales_rollup <date>" {
		t.Fatalf("openlineage jobs %+v: want the one job sales_rollup <date>", res.Jobs)
	}
}
