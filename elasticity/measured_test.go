package elasticity

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/dataset"
)

// A Hadoop mapper profiled at nine memory settings whose runs at 512 MiB
// and more measured no spill: the runs are evidence, so the model's ideal
// memory is where they stop spilling, whatever the sort-buffer simulation
// (here, with a 100 MB io.sort.mb against a 2 GB map output, about 20 GB)
// says. Before, the group was refused: "no well-sized run, all 9 settings
// spill (simulated ideal memory …)".
func TestMeasuredSpillsOverrideTheSimulator(t *testing.T) {
	const mib = 1 << 20
	var runs []dataset.ProfRun
	for _, m := range []int64{128, 192, 256, 320, 384, 512, 768, 1024, 2048} {
		spill, rt := int64(0), 60.0
		if m < 512 {
			spill, rt = 2<<30, 90+float64(512-m)/16
		}
		for rep := int32(0); rep < 3; rep++ {
			runs = append(runs, dataset.ProfRun{Job: "sortjob", Task: "map", Framework: "mapreduce", Slots: 1,
				MemoryBytes: m * mib, Repetition: rep, RuntimeS: rt + float64(rep)*0.1, InputBytes: 2 << 30,
				OutputBytes: 2 << 30, OutputRecords: 20e6, SpilledBytes: spill,
				Config: `{"mapreduce.task.io.sort.mb":"100","mapreduce.map.memory.mb":"1024"}`})
		}
	}
	m := onlyModel(t, runs, DefaultOptions())
	if m.IdealMemoryBytes <= 384*mib || m.IdealMemoryBytes > 512*mib {
		t.Errorf("ideal memory %d MiB, want in (384, 512] MiB where the runs stop spilling", m.IdealMemoryBytes/mib)
	}
	if m.Kind != "step" {
		t.Errorf("kind %s, want step", m.Kind)
	}
	if got := m.Predict(256 * mib); got < 95 || got > 120 {
		t.Errorf("predicted %g s at 256 MiB, measured ~106 s", got)
	}
	if !hasWarning(m.Warnings, "measured") {
		t.Errorf("no warning says the measured spills overrode the simulation: %q", m.Warnings)
	}
}

// A mapper measured faster with less memory (noise, or a task that is not
// monotone) never gives a curve that says "less memory is faster": no
// negative penalty, a slowdown of at least 1, and a warning. Before, the
// step model's under-sized runtime was published as is (penalty −0.2).
func TestNoNegativePenalty(t *testing.T) {
	const mib = 1 << 20
	runs := twoReps(dataset.ProfRun{Job: "odd", Task: "map", Framework: "generic", Slots: 1, InputBytes: 1 << 30},
		[]sweepPoint{{200, 1 << 30, 48}, {400, 1 << 30, 49}, {1024, 0, 60}, {2048, 0, 61}})
	m := onlyModel(t, runs, DefaultOptions())
	for _, p := range m.Curve {
		if p.Penalty < 0 || p.Slowdown < 1 || p.RuntimeS < m.IdealRuntimeS {
			t.Errorf("point %+v says less memory is faster (ideal runtime %g s)", p, m.IdealRuntimeS)
		}
	}
	if !hasWarning(m.Warnings, "non-monotone") {
		t.Errorf("no non-monotone warning: %q", m.Warnings)
	}
}

// Retarget carries a model to r times the input: every curve point's
// memory, runtime and spilled bytes times r, penalties and disk bandwidth
// unchanged, and Predict(r·m) = r·Predict(m). Options.InputBytes does it
// for every model Run builds; a bad size is refused.
func TestRetarget(t *testing.T) {
	runs := twoReps(dataset.ProfRun{Job: "j", Task: "reduce", Framework: "sandbox", Slots: 1, InputBytes: 1 << 29},
		[]sweepPoint{{100, 1 << 30, 30}, {200, 1 << 30, 29}, {300, 1 << 30, 31}, {1024, 0, 20}, {2048, 0, 20.5}})
	m := onlyModel(t, runs, DefaultOptions())
	opts := DefaultOptions()
	opts.InputBytes = 10 << 29
	big := onlyModel(t, runs, opts)
	if big.InputBytes != 10<<29 || big.RetargetedFromBytes != 1<<29 || big.IdealMemoryBytes < 10*m.IdealMemoryBytes-10 || big.IdealMemoryBytes > 10*m.IdealMemoryBytes {
		t.Errorf("input %d (from %d), ideal %d, want 10 × %d", big.InputBytes, big.RetargetedFromBytes, big.IdealMemoryBytes, m.IdealMemoryBytes)
	}
	if len(big.Curve) != len(m.Curve) {
		t.Fatalf("curve of %d points, was %d", len(big.Curve), len(m.Curve))
	}
	for i, p := range m.Curve {
		q := big.Curve[i]
		if math.Abs(q.RuntimeS-10*p.RuntimeS) > 1e-9*q.RuntimeS || math.Abs(float64(q.MemoryBytes-10*p.MemoryBytes)) > 5 ||
			math.Abs(float64(q.SpilledBytes-10*p.SpilledBytes)) > 5 || q.Penalty != p.Penalty || q.DiskBytesPS != p.DiskBytesPS {
			t.Errorf("point %d: %+v, want 10 × %+v", i, q, p)
		}
	}
	for _, mem := range []int64{150 * mib, 500 * mib, 4096 * mib} {
		if got, want := big.Predict(10*mem), 10*m.Predict(mem); math.Abs(got-want) > 1e-9*want {
			t.Errorf("Predict(10 × %d MiB) = %g, want 10 × %g", mem/mib, got, want/10)
		}
	}
	opts.InputBytes = -1
	if _, err := Run(context.Background(), Input{Runs: runs}, opts); err == nil {
		t.Error("a negative input size was accepted")
	}
}

// sweepPoint is one memory setting of a hand-made sweep: MiB, spilled
// bytes, runtime in seconds.
type sweepPoint struct {
	memMiB, spill int64
	rt            float64
}

// twoReps is two repetitions of run at each point of a sweep.
// onlyModel runs the stage on runs and returns its one model; no model,
// or more, fails t.
func onlyModel(t *testing.T, runs []dataset.ProfRun, opts Options) *Model {
	t.Helper()
	res, err := Run(context.Background(), Input{Runs: runs}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Models) != 1 {
		t.Fatalf("%d models, want one; skipped %+v", len(res.Models), res.Skipped)
	}
	return res.Models[0]
}

func twoReps(run dataset.ProfRun, pts []sweepPoint) []dataset.ProfRun {
	var runs []dataset.ProfRun
	for _, p := range pts {
		for rep := int32(0); rep < 2; rep++ {
			r := run
			r.MemoryBytes, r.Repetition, r.RuntimeS, r.SpilledBytes = p.memMiB<<20, rep, p.rt, p.spill
			runs = append(runs, r)
		}
	}
	return runs
}

// hasWarning reports whether one of warnings says what.
func hasWarning(warnings []string, what string) bool {
	for _, w := range warnings {
		if strings.Contains(w, what) {
			return true
		}
	}
	return false
}
