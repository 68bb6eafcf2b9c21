package elasticity

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestParseSettings(t *testing.T) {
	if c, err := ParseSettings(nil); c != nil || err != nil {
		t.Errorf("none: %v, %v", c, err)
	}
	c, err := ParseSettings([]string{" mapreduce.job.maps = 400", "k=a=b", "k2=", "mapreduce.job.maps=8"})
	if want := (Conf{"mapreduce.job.maps": "8", "k": "a=b", "k2": ""}); err != nil || !reflect.DeepEqual(c, want) {
		t.Errorf("got %v, %v; want %v", c, err, want)
	}
	for _, bad := range []string{"nokey", "=v", " =v"} {
		if _, err := ParseSettings([]string{"a=b", bad}); err == nil || err.Error() != `--set "`+bad+`": want KEY=VALUE` {
			t.Errorf("%q: %v", bad, err)
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
