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

func TestMaxPenaltyAndDocument(t *testing.T) {
	m := &Model{Job: "j", Curve: []Point{{Penalty: 1.5}, {Penalty: 3.25}, {Penalty: 1}}}
	if p := m.MaxPenalty(); p != 3.25 {
		t.Errorf("max penalty %g, want 3.25", p)
	}
	if p := (&Model{}).MaxPenalty(); p != 0 {
		t.Errorf("no curve: %g", p)
	}
	b, err := json.Marshal((&Result{Models: []*Model{m}}).Document())
	if err != nil || !strings.HasPrefix(string(b), `{"version":1,"models":[{"job":"j",`) || !strings.HasSuffix(string(b), `"skipped":null}`) {
		t.Errorf("document %s (%v)", b, err)
	}
}
