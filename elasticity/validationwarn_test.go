package elasticity

import (
	"strings"
	"testing"

	"github.com/wlprof/wlprof/dataset"
)

// A model that misses the run it was not fitted to by 38% (the mean error
// of a real sweep's model) is published with a warning that names the
// error and the bar of Iorgulescu et al., ATC'17 §2 (Fig. 1c: "within 5%
// for most cases", "well within 10%"); a model within the bar has none.
func TestValidationFarAboveTheBarWarns(t *testing.T) {
	group := func(third float64) Outcome {
		var runs []dataset.ProfRun
		for _, r := range []struct {
			mem     int64
			runtime float64
		}{{4 << 20, 10}, {64 << 20, 5}, {128 << 20, third}} {
			for rep := int32(1); rep <= 2; rep++ {
				runs = append(runs, dataset.ProfRun{Job: "j", Task: "map", Framework: "sandbox", MemoryBytes: r.mem, Slots: 1, Repetition: rep,
					InputBytes: 32 << 20, RuntimeS: r.runtime, PeakRSSBytes: 40 << 20, Outcome: "ok"})
			}
		}
		return ModelGroup(Group{Job: "j", Task: "map", Framework: "sandbox", Slots: 1}, runs, DefaultOptions())
	}
	far := group(8) // the step model predicts 5 s at 128 MiB: 37.5% off
	if far.Model == nil {
		t.Fatalf("no model: %+v", far.Skipped)
	}
	v := far.Model.Validation
	if v.Runs == 0 || v.MeanAbsError < 0.3 {
		t.Fatalf("validation %+v, want the 128 MiB runs about 37.5%% off", v)
	}
	var warned string
	for _, w := range far.Model.Warnings {
		if strings.Contains(w, "validation error") {
			warned = w
		}
	}
	if !strings.Contains(warned, "38%") || !strings.Contains(warned, "10%") || !strings.Contains(warned, "ATC'17") {
		t.Errorf("warnings %q: want one naming the 38%% error and the 10%% bar", far.Model.Warnings)
	}
	near := group(5.1)
	if near.Model == nil {
		t.Fatalf("no model: %+v", near.Skipped)
	}
	for _, w := range near.Model.Warnings {
		if strings.Contains(w, "validation error") {
			t.Errorf("a model %.0f%% off warns: %q", 100*near.Model.Validation.MeanAbsError, w)
		}
	}
}
