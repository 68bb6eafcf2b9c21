package skyline

import (
	"testing"

	"github.com/wlprof/wlprof/internal/stage"
	"github.com/wlprof/wlprof/internal/stage/stagetest"
)

// The stage contract, checked by the compiler: Contract has exactly
// these types, and its result sets job profiles.
var (
	_ stage.Stage[Options, Input, Result, Document] = Contract
	_ stage.JobProfiler                             = (*Result)(nil)
)

func TestContract(t *testing.T) { stagetest.Check(t, Contract, true) }

// A document read back from JSON says "nothing fitted" as Run does: no
// job fitted and one skipped with enough runs (it failed on its data);
// jobs skipped only for too few runs are a result.
func TestDocumentNothingFitted(t *testing.T) {
	few := Document{Result: &Result{Skipped: []Skipped{{Job: "a", Runs: 1, Reason: "too few runs"}}}}
	if err := few.NothingFitted(2); err != nil {
		t.Errorf("too few runs only: %v", err)
	}
	bad := Document{Result: &Result{Skipped: []Skipped{{Job: "a", Runs: 1, Reason: "too few runs"}, {Job: "b", Runs: 5, Reason: "job b: time limit"}}}}
	if err := bad.NothingFitted(2); err == nil || err.Error() != "job b: time limit" {
		t.Errorf("a data failure: %v", err)
	}
	fitted := Document{Result: &Result{Jobs: []*Fit{{Job: "c"}}, Skipped: bad.Skipped}}
	if err := fitted.NothingFitted(2); err != nil {
		t.Errorf("a job fitted: %v", err)
	}
}
