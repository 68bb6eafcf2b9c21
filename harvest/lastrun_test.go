package harvest

import (
	"context"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

// TestTypeFromFinishedRun: Zhang et al., OSDI'16 §4.1: "We categorize a
// job as short, medium, or long by comparing the duration of its last
// execution to two predefined thresholds (line 3)" and "We assume that a
// job that has not executed before is a medium job": at a submission only
// runs that have finished have a duration. Job J on day 5: run 1 at 0:00
// for 10 hours, run 2 at 1:00 for 60 s, run 3 at 1:00:30 for 20 minutes,
// run 4 at 3:00 for 60 s (thresholds 173 s and 433 s). Runs 1–3 find no
// run of J finished (medium); run 4 finds runs 2 and 3 finished, run 3
// last (20 minutes: long). Typing by the previous run by start gave
// medium, long (run 1, still going), short (run 2, still going), long.
func TestTypeFromFinishedRun(t *testing.T) {
	day5 := time.Date(2025, 3, 8, 0, 0, 0, 0, time.UTC).UnixMilli()
	h := int64(time.Hour / time.Millisecond)
	runs := []dataset.Run{
		{Job: "J", Run: "1", StartMs: day5, EndMs: day5 + 10*h},
		{Job: "J", Run: "2", StartMs: day5 + h, EndMs: day5 + h + 60_000},
		{Job: "J", Run: "3", StartMs: day5 + h + 30_000, EndMs: day5 + h + 30_000 + 20*60_000},
		{Job: "J", Run: "4", StartMs: day5 + 3*h, EndMs: day5 + 3*h + 60_000},
	}
	o := DefaultOptions()
	o.ShortBelow, o.LongAbove = 173*time.Second, 433*time.Second
	res, err := Run(context.Background(), Input{Series: plantedWorld(1, 10), Runs: runs}, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Jobs != 4 || res.JobsByType["medium"] != 3 || res.JobsByType["long"] != 1 || res.JobsByType["short"] != 0 {
		t.Fatalf("jobs by type %v, want medium 3 (runs 1–3), long 1 (run 4)", res.JobsByType)
	}
	// Now every run has finished: the last to finish, run 1 (10 hours).
	if got := LastRuns(runs)["J"]; got != 36000 {
		t.Fatalf("last run now %g s, want 36000 (run 1 ends last)", got)
	}
}
