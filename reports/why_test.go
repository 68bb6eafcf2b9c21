package reports

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/profile"
)

// section is the HTML of the section with the given id.
func section(t *testing.T, html, id string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)<section (?:class="job" )?id="` + regexp.QuoteMeta(id) + `">.*?</section>`).FindString(html)
	if m == "" {
		t.Fatalf("no section %q", id)
	}
	return m
}

// Every insufficient, not computed, left-out or not actionable item shows
// its reason where it appears (issue 22), and the summary cards count what
// the sections list.
func TestReportSaysWhy(t *testing.T) {
	in := synthInput(40, 4, 13)
	for i := range in.Tenants.File.Tenants {
		if tn := &in.Tenants.File.Tenants[i]; tn.Pattern == profile.Insufficient {
			tn.Reason = "1d of history, need at least 3d"
		}
	}
	// job-0000 has no SLO (no runs in the runs table), job-0001 a skipped
	// skyline (whose stage also warned about it), job-0002 a task the
	// elasticity stage left out, and a job with no section was left out
	// by both.
	in.Absent = map[string]string{StageSLO: "no runs of this job in the runs table"}
	in.Jobs[0].Profile.SLO = nil
	in.Jobs[1].Profile.Skyline = nil
	in.Jobs[1].Profile.Warnings = []string{"skyline not fitted: 1 run, fewer than --min-runs 2", "another caveat"}
	in.Skipped = []Skipped{
		{Stage: StageSkyline, Job: "job-0001", Reason: "1 run, fewer than --min-runs 2"},
		{Stage: StageElasticity, Job: "job-0002", Reason: "task map (hadoop, 1 slots, 1 runs): not enough information"},
		{Stage: StageSkyline, Job: "gone", Reason: "every sample is zero"},
	}
	idx, dir := writeReport(t, in, DefaultOptions())
	b, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	html := string(b)
	s := idx.Summary

	tenants := section(t, html, "classify")
	if n := strings.Count(tenants, "insufficient: <span class=\"muted\">1d of history, need at least 3d</span>"); n == 0 || n != s.TenantsByPattern[profile.Insufficient] {
		t.Errorf("%d insufficient tenants say why, want all %d", n, s.TenantsByPattern[profile.Insufficient])
	}

	// The SLO card and section count the same jobs.
	notActionable := 0
	for _, j := range in.Jobs {
		if j.Profile.SLO != nil && !j.Profile.SLO.Actionable {
			notActionable++
			if !strings.Contains(section(t, html, "slo"), ">"+j.Profile.SLO.Reason+"<") {
				t.Errorf("the SLO table lacks %s's reason %q", j.Profile.Job, j.Profile.SLO.Reason)
			}
		}
	}
	if s.JobsWithSLO != 3 || s.JobsActionable+notActionable != 3 {
		t.Fatalf("summary %d with SLO, %d actionable; %d not actionable", s.JobsWithSLO, s.JobsActionable, notActionable)
	}
	for _, w := range []string{
		fmt.Sprintf("Actionable SLOs<b>%d / 3</b>of the 3 jobs with an inferred SLO (4 jobs in all)", s.JobsActionable),
		fmt.Sprintf("<p>3 jobs with an inferred SLO: %d actionable, %d not (why is in the last column); 1 of the 4 jobs have none (their sections below say why)", s.JobsActionable, notActionable),
		"Caveats<b>" + fmt.Sprint(s.Warnings+3) + "</b>" + fmt.Sprint(s.Warnings) + " warnings, 3 skipped",
		"3 jobs weighted by runs a day; 2 left out",
		"4 models; 1 task left out",
	} {
		if !strings.Contains(html, w) {
			t.Errorf("index.html lacks %q", w)
		}
	}
	if s.Skipped != 3 {
		t.Errorf("summary skipped %d, want 3", s.Skipped)
	}

	// Left-out jobs are listed in their stage's section, linked to their
	// job when it has a section.
	sky := section(t, html, "skyline")
	for _, w := range []string{`Left out (2):`, `<a href="#job-2">job-0001</a>: 1 run, fewer than --min-runs 2`, `<li>gone: every sample is zero</li>`} {
		if !strings.Contains(sky, w) {
			t.Errorf("the skyline section lacks %q", w)
		}
	}
	if !strings.Contains(section(t, html, "elasticity"), `<a href="#job-3">job-0002</a>: task map (hadoop, 1 slots, 1 runs): not enough information`) {
		t.Error("the elasticity section does not list the task left out")
	}

	// Each job's section says why a part is missing, once.
	for id, w := range map[string]string{
		"job-1": "SLO: not computed: no runs of this job in the runs table.",
		"job-2": "Skyline: not fitted: 1 run, fewer than --min-runs 2.",
		"job-3": "Elasticity: not modelled: task map (hadoop, 1 slots, 1 runs): not enough information.",
	} {
		if sec := section(t, html, id); !strings.Contains(sec, w) {
			t.Errorf("%s lacks %q:\n%s", id, w, sec)
		}
	}
	if sec := section(t, html, "job-2"); strings.Count(sec, "fewer than --min-runs 2") != 1 || !strings.Contains(sec, "another caveat") {
		t.Errorf("job-0001 should say once that its skyline was not fitted, and keep its other warning:\n%s", sec)
	}
	jobs := html[strings.Index(html, `<section id="jobs">`):strings.Index(html, `<section id="caveats">`)]
	if strings.Contains(jobs, "not computed.</p>") {
		t.Error("a job's section says not computed without a reason")
	}

	// A stage that left out every job says so where it says "not computed".
	for i := range in.Jobs {
		in.Jobs[i].Profile.Skyline = nil
	}
	in.Plan = nil
	if _, err := Write(dir, in, DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(filepath.Join(dir, "index.html"))
	if sky := section(t, string(b), "skyline"); !strings.Contains(sky, "Not computed: every job was left out, for the reasons below.") {
		t.Errorf("the skyline section without fits:\n%s", sky)
	}
}
