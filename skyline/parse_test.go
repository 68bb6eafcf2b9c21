package skyline

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/internal/stage/stagetest"
)

func TestBetaFlag(t *testing.T) {
	if o, err := stagetest.Parse(Contract, "--beta", "0.25"); err != nil || o.Beta != 0.25 || o.BetaAuto {
		t.Errorf("0.25: beta %g auto %v, %v", o.Beta, o.BetaAuto, err)
	}
	if o, err := stagetest.Parse(Contract, "--beta", "auto"); err != nil || !o.BetaAuto || o.Beta != DefaultOptions().Beta {
		t.Errorf("auto: beta %g auto %v, %v", o.Beta, o.BetaAuto, err)
	}
	if o, err := stagetest.Parse(Contract, "--beta", "auto", "--beta", "0.5"); err != nil || o.BetaAuto || o.Beta != 0.5 {
		t.Errorf("auto then 0.5: beta %g auto %v, %v", o.Beta, o.BetaAuto, err)
	}
	if o, err := stagetest.Parse(Contract, "--beta", "lots"); err == nil || err.Error() != `invalid argument "lots" for "--beta" flag: want a number ≥ 0 or auto` || o.Beta != 0.1 {
		t.Errorf("lots: %v, beta %g", err, o.Beta)
	}
	// A negative number parses; Validate rejects it.
	if o, err := stagetest.Parse(Contract, "--beta", "-1"); err != nil || o.Validate() == nil {
		t.Errorf("-1: parse %v, validate %v", err, o.Validate())
	}
}

func TestAlphaSweepFlag(t *testing.T) {
	if o, err := stagetest.Parse(Contract, "--alpha-sweep", ""); err != nil || o.AlphaSweep != nil {
		t.Errorf("empty: %v %v", o.AlphaSweep, err)
	}
	if o, err := stagetest.Parse(Contract, "--alpha-sweep", "0.01, 0.5,1"); err != nil || !reflect.DeepEqual(o.AlphaSweep, []float64{0.01, 0.5, 1}) {
		t.Errorf("list: %v %v", o.AlphaSweep, err)
	}
	if _, err := stagetest.Parse(Contract, "--alpha-sweep", "0.1,x"); err == nil || err.Error() != `invalid argument "0.1,x" for "--alpha-sweep" flag: "x" is not an alpha in [0,1]` {
		t.Errorf("0.1,x: %v", err)
	}
	if o, err := stagetest.Parse(Contract, "--alpha-sweep", "1.5"); err != nil || o.Validate() == nil || !strings.Contains(o.Validate().Error(), "alpha-sweep: 1.5") {
		t.Errorf("1.5: parse %v, validate %v", err, o.Validate())
	}
}

// The step is a duration as the flag always read it, kept in seconds.
func TestStepFlag(t *testing.T) {
	if o, err := stagetest.Parse(Contract, "--step", "5s"); err != nil || o.StepS != 5 {
		t.Errorf("5s: %g s, %v", o.StepS, err)
	}
	if o, err := stagetest.Parse(Contract, "--step", "1d"); err != nil || o.StepS != 86400 {
		t.Errorf("1d: %g s, %v", o.StepS, err)
	}
	if o, err := stagetest.Parse(Contract, "--step", "250ms"); err != nil || o.StepS != 0.25 {
		t.Errorf("250ms: %g s, %v", o.StepS, err)
	}
	if _, err := stagetest.Parse(Contract, "--step", "5"); err == nil {
		t.Error("a bare number was taken as a step")
	}
}

func TestPeakAndDocument(t *testing.T) {
	f := &Fit{Job: "j", Reservation: []int64{2, 7, 0, 7, 3}}
	if p := f.Peak(); p != 7 {
		t.Errorf("peak %d, want 7", p)
	}
	if p := (&Fit{}).Peak(); p != 0 {
		t.Errorf("empty peak %d", p)
	}
	b, err := json.Marshal((&Result{Jobs: []*Fit{f}, Skipped: []Skipped{{Job: "k", Reason: "r"}}}).Document())
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(b, &doc); err != nil || string(doc["version"]) != "1" || len(doc) != 3 || doc["jobs"] == nil || doc["skipped"] == nil {
		t.Errorf("document %s (%v): want version, jobs and skipped", b, err)
	}
	if !strings.HasPrefix(string(b), `{"version":1,`) {
		t.Errorf("version is not first: %s", b)
	}
}
