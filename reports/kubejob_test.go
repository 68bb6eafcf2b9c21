package reports

import (
	"strings"
	"testing"
)

// A Job no CronJob owns (NAMESPACE/Job/NAME, as wlprof ingest prometheus
// names it) has finished: its actions name it a Job and say to set its
// numbers where it is created, not point at wlprof export kubernetes,
// which skips it.
func TestDecisionsOfAJobOfItsOwn(t *testing.T) {
	in := synthInput(40, 6, 1)
	in.Planner = plannerFor(in)
	in.Planner.Platform = PlatformKubernetes
	in.Planner.Commands["kubernetes"] = "wlprof export kubernetes -d ds"
	for _, j := range in.Jobs {
		j.Profile.Job = "batch/Job/" + strings.NewReplacer("/", "-", "_", "-").Replace(j.Profile.Job)
	}
	d := decide(in, in.Jobs, DefaultOptions())
	kinds := map[string]int{}
	for _, a := range d.Actions {
		if a.Job == "" {
			continue
		}
		kinds[a.Kind]++
		if a.Command == "wlprof export kubernetes -d ds" || strings.Contains(a.Text, "CronJob") {
			t.Errorf("action %q (%s) treats Job %s as a CronJob", a.Text, a.Command, a.Job)
		}
		switch a.Kind {
		case "reserve-skyline":
			if !strings.HasPrefix(a.Text, "create Job batch/Job/") {
				t.Errorf("action %q, want the Job created with its parallelism", a.Text)
			}
		case "shrink-memory":
			if !strings.Contains(a.Text, "of Job batch/Job/") {
				t.Errorf("action %q, want the Job's tasks", a.Text)
			}
		}
	}
	if kinds["reserve-skyline"] == 0 || kinds["shrink-memory"] == 0 {
		t.Errorf("actions %v: the synthetic input should give skyline and memory actions", kinds)
	}
}
