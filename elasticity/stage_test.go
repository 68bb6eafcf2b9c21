package elasticity

import (
	"context"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/profile"
)

// Profile: the profile's penalty is the model's (runtime / ideal) less
// one, memory is in bytes, the model's warnings become the job's with the
// task named, and a model without validation runs has none.
func TestResultProfile(t *testing.T) {
	r := &Result{Models: []*Model{{Job: "j", Task: "reduce", Framework: "hadoop", Kind: "spill-rate",
		IdealMemoryBytes: 1 << 30, IdealRuntimeS: 100, Warnings: []string{"few runs"},
		Curve:      []Point{{MemoryBytes: 1 << 29, RuntimeS: 150, Penalty: 0.5, Slowdown: 1.5}, {MemoryBytes: 1 << 30, RuntimeS: 100, Penalty: 0, Slowdown: 1}},
		Validation: Validation{Runs: 2, MeanAbsError: 0.03, MaxAbsError: 0.05}},
		{Job: "j", Task: "map", Kind: "step", IdealMemoryBytes: 1 << 20}}}
	jobs := profile.Jobs{}
	r.Profile(jobs)
	p := jobs["j"]
	if len(p.Elasticity) != 2 {
		t.Fatalf("models %+v", p.Elasticity)
	}
	m := p.Elasticity[0]
	if m.Curve[0].Penalty != 0.5 || m.Curve[1].Penalty != 0 || m.Curve[0].Slowdown != 1.5 || m.Curve[0].MemoryBytes != 1<<29 || m.Params == nil {
		t.Errorf("curve %+v params %v", m.Curve, m.Params)
	}
	if m.Validation == nil || m.Validation.Runs != 2 || p.Elasticity[1].Validation != nil {
		t.Errorf("validation %+v / %+v", m.Validation, p.Elasticity[1].Validation)
	}
	if len(p.Warnings) != 1 || p.Warnings[0] != "elasticity reduce: few runs" {
		t.Errorf("warnings %v", p.Warnings)
	}
}

// Options are validated in Load and Run, every problem at once.
func TestValidate(t *testing.T) {
	o := Options{GridBytes: 0, Overrides: Conf{"": "x"}}
	err := o.Validate()
	if err == nil || !strings.Contains(err.Error(), "grid 0 bytes") || !strings.Contains(err.Error(), "empty key") {
		t.Errorf("error %v", err)
	}
	if _, err := Run(context.Background(), Input{}, o); err == nil {
		t.Error("Run accepted bad options")
	}
	if _, err := Run(context.Background(), Input{}, DefaultOptions()); err != ErrNoRuns {
		t.Errorf("no runs: %v, want ErrNoRuns", err)
	}
}
