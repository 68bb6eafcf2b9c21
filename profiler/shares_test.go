package profiler

import (
	"encoding/json"
	"math"
	"runtime"
	"strings"
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

// cpu_share is Polo's (PhD thesis, UPC 2014) share of the node (§4.2.6: a node at 100% CPU
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

// hostCap is host facts with the node's I/O capacity, as a sweep records them.
const hostCap = `{"hostname":"h","cpus":2,"mem_total_bytes":1000000,"kernel":"k","cgroup":"v1",` +
	`"io_capacity_bytes_per_s":100000000,"io_capacity_source":"measured"}`

// ioJob is a job of one run at one slot whose only phase moves rate bytes
// per second of storage I/O for 10 s.
func ioJob(job string, rate float64) ([]dataset.ProfRun, []dataset.ProfSample) {
	runs := []dataset.ProfRun{{Job: job, Task: "t", Framework: "sandbox", Slots: 1, Repetition: 1, RuntimeS: 10,
		Outcome: "ok", Host: hostCap, RunID: job + "-r1", WriteBytes: int64(rate * 10)}}
	var ss []dataset.ProfSample
	for k := 0; k <= 10; k++ {
		ss = append(ss, dataset.ProfSample{Job: job, Run: job + "-r1", OffsetS: float64(k), WriteBytes: int64(rate * float64(k))})
	}
	return runs, ss
}

// io_share is a share of the node's I/O capacity (Polo, PhD thesis, UPC 2014 Table 4.2: of
// the TaskTracker's capacity), so it compares across jobs: a job moving 50
// MB/s on a node of 100 MB/s has 0.5, one moving 10 MB/s has 0.1. Divided
// by each job's own best rate both were 1.
func TestIOShareIsShareOfNodeCapacity(t *testing.T) {
	for _, c := range []struct {
		job        string
		rate, want float64
	}{{"fast", 50e6, 0.5}, {"slow", 10e6, 0.1}} {
		runs, ss := ioJob(c.job, c.rate)
		p := BuildProfile("t", runs, ss)
		if p == nil || len(p.Phases) != 1 {
			t.Fatalf("%s: profile %+v", c.job, p)
		}
		if got := p.Phases[0].IO; math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s moves %.0f B/s on a node of 1e8 B/s: io share %.3f, want %.3f", c.job, c.rate, got, c.want)
		}
		if p.IOCapacityBytesPerS != 1e8 || p.IOCapacitySource != "measured" {
			t.Errorf("%s: capacity %.0f (%s), want the recorded 1e8 (measured)", c.job, p.IOCapacityBytesPerS, p.IOCapacitySource)
		}
		pub := Sandboxes(runs, ss)[0].Phases[0]
		if math.Abs(pub.IOShare-c.want) > 1e-9 || pub.IOCapacityBytesPerS != 1e8 || pub.IOCapacitySource != "measured" {
			t.Errorf("%s: published %+v", c.job, pub)
		}
	}
}

// A phase that moves more than the recorded capacity (writes the page
// cache absorbed, or a capacity set too low) is not hidden: the share
// says so (above 1), a warning explains it, and the published share,
// a fraction by the format's rules, is capped at 1.
func TestIOShareAboveCapacityIsWarned(t *testing.T) {
	runs, ss := ioJob("burst", 150e6)
	p := BuildProfile("t", runs, ss)
	if p == nil || math.Abs(p.Phases[0].IO-1.5) > 1e-9 {
		t.Fatalf("profile %+v, want an io share of 1.5", p)
	}
	if len(p.Warnings) == 0 || !strings.Contains(strings.Join(p.Warnings, "\n"), "capacity") {
		t.Errorf("warnings %q, want one about the capacity", p.Warnings)
	}
	if pub := Sandboxes(runs, ss)[0].Phases[0]; pub.IOShare != 1 {
		t.Errorf("published io_share %.3f, want 1", pub.IOShare)
	}
}

// A sweep records the node's I/O capacity with its host facts: measured
// once on the spill directory's file system, or the value given
// (Options.IOCapacity, --io-capacity), and says which.
func TestSweepRecordsIOCapacity(t *testing.T) {
	o, pids := sweepOpts(t, "nap")
	o.IOCapacity = 0 // measure
	r := one(t, o, childArgv("10ms")...)
	var h hostInfo
	if err := json.Unmarshal([]byte(r.Record.Host), &h); err != nil {
		t.Fatal(err)
	}
	t.Logf("calibrated on %s: %s", o.SpillDir, r.Record.Host)
	if h.IOCapacitySource != "measured" || !(h.IOCapacityBytesPerS > 1e6) || h.IOCapacityDetail == "" {
		t.Errorf("host facts %s: want a measured capacity above 1 MB/s and how it was measured", r.Record.Host)
	}
	checkClean(t, o, pids) // the calibration file is gone too

	o.IOCapacity = 200 << 20
	r = one(t, o, childArgv("10ms")...)
	h = hostInfo{}
	json.Unmarshal([]byte(r.Record.Host), &h)
	if h.IOCapacitySource != "flag" || h.IOCapacityBytesPerS != 200<<20 {
		t.Errorf("host facts %s: want 200 MiB/s from the option", r.Record.Host)
	}
	checkClean(t, o, pids)
}

// Rows recorded before the capacity was (profruns of older sweeps) still
// give a profile, relative to the job's best rate as before, and say so:
// source "observed" and a warning that the shares do not compare across
// jobs.
func TestIOShareWithoutRecordedCapacity(t *testing.T) {
	runs, ss := knownSweep()
	p := BuildProfile("map", runs, ss)
	if p == nil || p.IOCapacitySource != "observed" || p.IOCapacityBytesPerS != 1e6 {
		t.Fatalf("profile %+v, want the best observed rate 1e6 as capacity, source observed", p)
	}
	if !strings.Contains(strings.Join(p.Warnings, "\n"), "not comparable across jobs") {
		t.Errorf("warnings %q", p.Warnings)
	}
}
