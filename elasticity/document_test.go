package elasticity

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/internal/stage/stagetest"
)

func TestSetFlag(t *testing.T) {
	if o, err := stagetest.Parse(Contract); o.Overrides != nil || err != nil {
		t.Errorf("none: %v, %v", o.Overrides, err)
	}
	o, err := stagetest.Parse(Contract, "--set", " mapreduce.job.maps = 400", "--set", "k=a=b", "--set", "k2=", "--set", "mapreduce.job.maps=8")
	if want := (Conf{"mapreduce.job.maps": "8", "k": "a=b", "k2": ""}); err != nil || !reflect.DeepEqual(o.Overrides, want) {
		t.Errorf("got %v, %v; want %v", o.Overrides, err, want)
	}
	for _, bad := range []string{"nokey", "=v", " =v"} {
		if _, err := stagetest.Parse(Contract, "--set", "a=b", "--set", bad); err == nil || err.Error() != `invalid argument "`+bad+`" for "--set" flag: want KEY=VALUE` {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// Sizes read as bytesize.Parse reads them; --input-bytes is 0 (as
// profiled) until given.
func TestSizeFlags(t *testing.T) {
	o, err := stagetest.Parse(Contract, "--grid", "256M", "--input-bytes", "10G")
	if err != nil || o.GridBytes != 256<<20 || o.InputBytes != 10<<30 {
		t.Errorf("256M, 10G: %d, %d, %v", o.GridBytes, o.InputBytes, err)
	}
	for _, bad := range [][]string{{"--grid", "0"}, {"--grid", "x"}, {"--input-bytes", "-1"}} {
		if _, err := stagetest.Parse(Contract, bad...); err == nil || !strings.Contains(err.Error(), "invalid argument") {
			t.Errorf("%v: %v", bad, err)
		}
	}
}

func TestMaxSlowdownAndDocument(t *testing.T) {
	m := &Model{Job: "j", Curve: []Point{{Slowdown: 1.5, Penalty: 0.5}, {Slowdown: 3.25, Penalty: 2.25}, {Slowdown: 1}}}
	if p := m.MaxSlowdown(); p != 3.25 {
		t.Errorf("max slowdown %g, want 3.25", p)
	}
	if p := (&Model{}).MaxSlowdown(); p != 0 {
		t.Errorf("no curve: %g", p)
	}
	b, err := json.Marshal((&Result{Models: []*Model{m}}).Document())
	if err != nil || !strings.HasPrefix(string(b), `{"version":1,"models":[{"job":"j",`) || !strings.HasSuffix(string(b), `"skipped":null}`) {
		t.Errorf("document %s (%v)", b, err)
	}
}
