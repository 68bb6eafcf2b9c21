package skyline

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestParseBeta(t *testing.T) {
	o := DefaultOptions()
	if err := o.ParseBeta("0.25"); err != nil || o.Beta != 0.25 || o.BetaAuto {
		t.Errorf("0.25: beta %g auto %v, %v", o.Beta, o.BetaAuto, err)
	}
	o = DefaultOptions()
	if err := o.ParseBeta("auto"); err != nil || !o.BetaAuto || o.Beta != DefaultOptions().Beta {
		t.Errorf("auto: beta %g auto %v, %v", o.Beta, o.BetaAuto, err)
	}
	o = DefaultOptions()
	if err := o.ParseBeta("lots"); err == nil || err.Error() != `--beta "lots": want a number ≥ 0 or auto` || o.Beta != 0.1 {
		t.Errorf("lots: %v, beta %g", err, o.Beta)
	}
	// A negative number parses; Validate rejects it.
	if err := o.ParseBeta("-1"); err != nil || o.Validate() == nil {
		t.Errorf("-1: parse %v, validate %v", err, o.Validate())
	}
}

func TestParseAlphaSweep(t *testing.T) {
	o := DefaultOptions()
	if err := o.ParseAlphaSweep(""); err != nil || o.AlphaSweep != nil {
		t.Errorf("empty: %v %v", o.AlphaSweep, err)
	}
	if err := o.ParseAlphaSweep("0.01, 0.5,1"); err != nil || !reflect.DeepEqual(o.AlphaSweep, []float64{0.01, 0.5, 1}) {
		t.Errorf("list: %v %v", o.AlphaSweep, err)
	}
	o = DefaultOptions()
	if err := o.ParseAlphaSweep("0.1,x"); err == nil || err.Error() != `--alpha-sweep: "x" is not an alpha in [0,1]` {
		t.Errorf("0.1,x: %v", err)
	}
	o = DefaultOptions()
	if err := o.ParseAlphaSweep("1.5"); err != nil || o.Validate() == nil || !strings.Contains(o.Validate().Error(), "alpha-sweep: 1.5") {
		t.Errorf("1.5: parse %v, validate %v", err, o.Validate())
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
