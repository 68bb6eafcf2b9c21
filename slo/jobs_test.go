package slo

import (
	"math"
	"strings"
	"testing"
)

// Submissions at one instant give a spacing CV of +Inf: the reason says
// what happened instead of printing "CV +Inf > 0.20".
func TestReasonSameInstantSubmissions(t *testing.T) {
	o := DefaultOptions()
	e := evidence{runs: 6, submits: 6, period: Period{CV: math.Inf(1)}}
	if got := e.reason(o); !strings.Contains(got, "share an instant") || strings.Contains(got, "Inf") {
		t.Errorf("reason %q", got)
	}
}
