package slo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/datasettest"
	"github.com/wlprof/wlprof/profile"
)

// Profile names where every number came from: the inferred ones say how,
// with the percentiles Run used; an overridden one names the file, and the
// SLO lists the fields the override sets.
func TestResultProfileProvenance(t *testing.T) {
	o := DefaultOptions()
	o.ArrivalPercentile, o.DeadlinePercentile = 90, 60
	res, err := Run(context.Background(), handWorld(), o)
	if err != nil {
		t.Fatal(err)
	}
	jobs := profile.Jobs{}
	res.Profile(jobs)
	p := jobs["sales_rollup <date>"]
	if p == nil || p.SLO == nil || p.PeriodS == nil || p.SLO.ArrivalS == nil || p.SLO.DeadlineS == nil {
		t.Fatalf("profile %+v", p)
	}
	if p.PeriodS.Source != profile.SourceInferred || !strings.HasPrefix(p.PeriodS.Detail, "median spacing of ") ||
		!strings.HasSuffix(p.PeriodS.Detail, ", snapped to a natural period") {
		t.Errorf("period %+v", p.PeriodS)
	}
	if d := p.SLO.ArrivalS.Detail; !strings.HasPrefix(d, "p90 of T_inAvail") {
		t.Errorf("arrival detail %q", d)
	}
	if d := p.SLO.DeadlineS.Detail; !strings.HasPrefix(d, "p60 of T_outRead") {
		t.Errorf("deadline detail %q", d)
	}
	if p.SLO.Override.Applies || len(p.SLO.Override.Fields) != 0 {
		t.Errorf("override %+v without an overrides file", p.SLO.Override)
	}

	file := filepath.Join(t.TempDir(), "o.yaml")
	os.WriteFile(file, []byte("version: 1\njobs:\n  - job: \"sales_rollup <date>\"\n    deadline_s: 36000\n    accept: true\n"), 0o644)
	if o.Overrides, err = LoadOverrides(file); err != nil {
		t.Fatal(err)
	}
	if res, err = Run(context.Background(), handWorld(), o); err != nil {
		t.Fatal(err)
	}
	jobs = profile.Jobs{}
	res.Profile(jobs)
	s := jobs["sales_rollup <date>"].SLO
	if s.DeadlineS.Value != 36000 || s.DeadlineS.Source != profile.SourceOverride || s.DeadlineS.Detail != "overrides file "+file {
		t.Errorf("deadline %+v", s.DeadlineS)
	}
	if s.ArrivalS.Source != profile.SourceInferred {
		t.Errorf("arrival %+v: the override does not set it", s.ArrivalS)
	}
	if !s.Override.Applies || s.Override.File != file || !reflect.DeepEqual(s.Override.Fields, []string{"deadline_s", "accept"}) {
		t.Errorf("override %+v", s.Override)
	}
}

// Identify fills in names (at most five), first and last start and the
// run count from the runs table, and gives a job without a period the
// median spacing of its run starts; a job with a period keeps it, and jobs
// not among the profiles are not read.
func TestIdentify(t *testing.T) {
	ds, tx := datasettest.Begin(t, filepath.Join(t.TempDir(), "ds"))
	var runs []dataset.Run
	starts := []int64{0, 3600_000, 7200_000, 14400_000, 18000_000, 21600_000}
	for i, st := range starts {
		for _, job := range []string{"a", "b", "other"} {
			runs = append(runs, dataset.Run{Job: job, Run: job + string(rune('0'+i)), Name: job + "-name-" + string(rune('0'+i)),
				SubmitMs: st, StartMs: st, EndMs: st + 60_000, Status: "SUCCEEDED"})
		}
	}
	// Run a3 logged a second time (a Spark .inprogress log beside the
	// final one): still one run.
	runs = append(runs, dataset.Run{Job: "a", Run: "a3", Name: "a-name-3", SubmitMs: 14400_000, StartMs: 14400_000, Status: "RUNNING"})
	datasettest.Append(t, tx.Runs(), runs)
	datasettest.Commit(t, tx)
	jobs := profile.Jobs{}
	jobs.Get("a")
	jobs.Get("b").PeriodS = &profile.Number{Value: 86400, Source: profile.SourceOverride}
	jobs.Get("lonely")
	if err := Identify(context.Background(), ds, jobs); err != nil {
		t.Fatal(err)
	}
	a := jobs["a"]
	if len(a.Identity.Names) != 5 || a.Identity.Names[0] != "a-name-0" || a.Identity.Runs != 6 ||
		*a.Identity.FirstStartMs != 0 || *a.Identity.LastStartMs != 21600_000 || !reflect.DeepEqual(a.Identity.Sources, []string{"runs"}) {
		t.Errorf("identity %+v", a.Identity)
	}
	// Gaps 1h, 1h, 2h, 1h, 1h: the median is an hour.
	if a.PeriodS == nil || a.PeriodS.Value != 3600 || a.PeriodS.Detail != "median spacing of 6 run starts (runs table)" {
		t.Errorf("period %+v", a.PeriodS)
	}
	if jobs["b"].PeriodS.Value != 86400 {
		t.Errorf("b's period %+v was replaced", jobs["b"].PeriodS)
	}
	if l := jobs["lonely"]; l.PeriodS != nil || l.Identity.LastStartMs != nil || len(l.Identity.Names) != 0 {
		t.Errorf("a job without runs: %+v", l)
	}
	if _, ok := jobs["other"]; ok {
		t.Error("Identify added a job")
	}
}

// OpenLineage job names carry the run's date, and the slo stage files the
// job under their key (profile.JobKey): Identify reads those runs under
// the same key, so the profile gets their names, starts and count rather
// than an empty identity beside an SLO of six runs.
func TestIdentifyOpenLineageRuns(t *testing.T) {
	ds, tx := datasettest.Begin(t, filepath.Join(t.TempDir(), "ds"))
	var runs []dataset.Run
	day := int64(86400_000)
	for i := int64(0); i < 6; i++ {
		name := fmt.Sprintf("daily_sales_01 2024-01-%02d", i+1)
		runs = append(runs, dataset.Run{Job: name, Run: fmt.Sprintf("run-%d", i), Name: name, Source: "openlineage",
			SubmitMs: i * day, StartMs: i*day + 1000, EndMs: i*day + 60_000, Status: "COMPLETE"})
	}
	datasettest.Append(t, tx.Runs(), runs)
	datasettest.Commit(t, tx)
	jobs := profile.Jobs{}
	key := profile.JobKey("daily_sales_01 2024-01-01")
	jobs.Get(key).SLO = &profile.SLO{Runs: 6}
	if err := Identify(context.Background(), ds, jobs); err != nil {
		t.Fatal(err)
	}
	id := jobs[key].Identity
	if id.Runs != 6 || len(id.Names) != 5 || id.Names[0] != "daily_sales_01 2024-01-01" || id.FirstStartMs == nil ||
		*id.FirstStartMs != 1000 || *id.LastStartMs != 5*day+1000 || !reflect.DeepEqual(id.Sources, []string{"runs"}) {
		t.Errorf("identity of %q: %+v", key, id)
	}
}

// Validate reports every bad option at once; Run refuses them.
func TestValidate(t *testing.T) {
	o := DefaultOptions()
	o.MinRuns, o.MinSlack, o.DeadlinePercentile = 1, -1, 101
	err := o.Validate()
	for _, want := range []string{"min-runs 1", "min-slack -1", "deadline percentile 101"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
	if _, err := Run(context.Background(), handWorld(), o); err == nil {
		t.Error("Run accepted bad options")
	}
	def := DefaultOptions()
	if err := def.Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
}
