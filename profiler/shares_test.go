package profiler

import (
	"math"
	"runtime"
	"testing"

	"github.com/wlprof/wlprof/dataset"
)

// records turns finished runs into what the dataset keeps of them.
func records(runs ...*Run) ([]dataset.ProfRun, []dataset.ProfSample) {
	var rs []dataset.ProfRun
	var ss []dataset.ProfSample
	for _, r := range runs {
		rs = append(rs, r.Record)
		ss = append(ss, r.Samples...)
	}
	return rs, ss
}

// cpu_share is seed 002's share of the node (§4.2.6: a node at 100% CPU
// with 4 maps running gives each 25%), not the fraction of the phase's
// wall time the task spent on a CPU: one single-threaded spinner alone on
// an N-CPU node has a share of at most 1/N (less when the shared machine
// keeps it waiting), and the published phase says which node (node_cpus).
func TestCPUShareIsShareOfNode(t *testing.T) {
	o, pids := sweepOpts(t, "spin")
	r := one(t, o, childArgv("600ms")...)
	if r.Record.Outcome != "ok" {
		t.Fatalf("outcome %s: %s", r.Record.Outcome, r.Tail)
	}
	n := float64(runtime.NumCPU())
	runs, samples := records(r)
	p := BuildProfile("task", runs, samples)
	if p == nil || len(p.Phases) != 1 {
		t.Fatalf("profile %+v", p)
	}
	ph := p.Phases[0]
	if ph.CPU > 1.05/n || ph.CPU < 0.3/n {
		t.Errorf("cpu share of one spinning thread on %v CPUs = %.3f, want about 1/%v (a share of the node)", n, ph.CPU, n)
	}
	sb := Sandboxes(runs, samples)
	if len(sb) != 1 || len(sb[0].Phases) != 1 {
		t.Fatalf("sandboxes %+v", sb)
	}
	pub := sb[0].Phases[0]
	if math.Abs(pub.CPUShare-ph.CPU) > 1e-12 || pub.NodeCPUs != runtime.NumCPU() {
		t.Errorf("published cpu_share %.3f node_cpus %d, want %.3f of a %d-CPU node", pub.CPUShare, pub.NodeCPUs, ph.CPU, runtime.NumCPU())
	}
	checkClean(t, o, pids)
}
