package profiler

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/dataset"
)

func TestStatOf(t *testing.T) {
	s := statOf([]float64{3, 1, 2, 10})
	if s.Median != 2.5 || s.Min != 1 || s.Max != 10 || math.Abs(s.Spread-9/2.5) > 1e-12 {
		t.Errorf("%+v", s)
	}
	if s := statOf([]float64{4}); s.Spread != 0 || s.Median != 4 {
		t.Errorf("one value: %+v", s)
	}
}

const host2 = `{"hostname":"h","cpus":2,"mem_total_bytes":1000000,"kernel":"k","cgroup":"v1"}`

// A sweep whose answer is known by construction: two slots finish in 12 s
// (6 s per task), faster per task than one slot (10 s) or four (30 s).
// The chosen run's samples keep the node's two CPUs busy in the map phase
// (one CPU-second per second per task: a share of 0.5) and half busy in
// the reduce phase (0.25), with 400 kB resident for the two tasks on a
// node of 1 MB (0.2 of its memory each).
func knownSweep() ([]dataset.ProfRun, []dataset.ProfSample) {
	var runs []dataset.ProfRun
	for _, c := range []struct {
		slots int32
		walls []float64
	}{{1, []float64{10, 11, 9.5}}, {2, []float64{12, 13, 11}}, {4, []float64{30, 31, 29}}} {
		for i, w := range c.walls {
			runs = append(runs, dataset.ProfRun{Job: "j", Task: "map", Framework: "sandbox", MemoryBytes: 256 << 20, Slots: c.slots,
				Repetition: int32(i + 1), RuntimeS: w, Outcome: "ok", Host: host2, ReadBytes: 0, WriteBytes: int64(w * 1e6),
				RunID: fmt.Sprintf("s%d-r%d", c.slots, i+1)})
		}
	}
	runs = append(runs, dataset.ProfRun{Job: "j", Task: "map", MemoryBytes: 256 << 20, Slots: 2, Repetition: 4, RuntimeS: 1, Outcome: "oom-killed", ExitCode: -9, RunID: "s2-r4"})
	var ss []dataset.ProfSample
	cpu, wr := 0.0, int64(0)
	for k := 0; k <= 12; k++ {
		ph := "map"
		if k >= 8 {
			ph = "reduce"
		}
		ss = append(ss, dataset.ProfSample{Job: "j", Run: "s2-r1", OffsetS: float64(k), CPUS: cpu, RSSBytes: 400000, WriteBytes: wr, Phase: ph})
		if k < 8 {
			cpu += 2
			wr += 1e6
		} else {
			cpu += 1
		}
	}
	return runs, ss
}

func TestSummarize(t *testing.T) {
	runs, _ := knownSweep()
	SortRuns(runs)
	s := Summarize(runs)
	if len(s) != 3 {
		t.Fatalf("%d settings", len(s))
	}
	two := s[1]
	if two.Slots != 2 || two.Runs != 4 || two.OK != 3 || two.Outcomes["oom-killed"] != 1 || two.WallS.Median != 12 || math.Abs(two.WallS.Spread-2.0/12) > 1e-12 {
		t.Errorf("slots 2: %+v", two)
	}
}

func TestBuildProfileKnownShares(t *testing.T) {
	runs, ss := knownSweep()
	p := BuildProfile("map", runs, ss)
	if p == nil {
		t.Fatal("no profile")
	}
	if p.Slots != 2 || p.TaskS != 6 || p.Run != "s2-r1" {
		t.Fatalf("fastest: slots %d, %.2f s per task, run %s; want slots 2, 6 s, s2-r1", p.Slots, p.TaskS, p.Run)
	}
	if len(p.Phases) != 2 {
		t.Fatalf("phases %+v", p.Phases)
	}
	m, r := p.Phases[0], p.Phases[1]
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if m.Phase != "map" || !near(m.CPU, 0.5) || !near(m.Memory, 0.2) || m.StartS != 0 || m.EndS != 8 {
		t.Errorf("map phase %+v, want cpu 0.5, memory 0.2 over [0,8]", m)
	}
	if r.Phase != "reduce" || !near(r.CPU, 0.25) || r.IOBytesPerS != 0 || r.EndS != 12 {
		t.Errorf("reduce phase %+v, want cpu 0.25, no I/O, ending at 12", r)
	}
	// Capacity: the best average rate of any run is 1e6 B/s (every run
	// writes 1e6 per second of wall time); map writes 1e6/s over two tasks.
	if !near(p.IOCapacityBytesPerS, 1e6) || !near(m.IOBytesPerS, 5e5) || !near(m.IO, 0.5) {
		t.Errorf("io: capacity %.0f, map %.0f B/s (%.2f)", p.IOCapacityBytesPerS, m.IOBytesPerS, m.IO)
	}
}

// Seeded property: on random sweeps with monotone counters, the profile
// picks a setting with the least wall time per task, its phases tile the
// sampled span, and every share is non-negative with I/O in [0,1].
func TestBuildProfileProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for trial := 0; trial < 200; trial++ {
		var runs []dataset.ProfRun
		var ss []dataset.ProfSample
		best := math.Inf(1)
		for _, k := range []int32{1, 2, 4} {
			for rep := int32(1); rep <= 3; rep++ {
				id := fmt.Sprintf("k%d-r%d", k, rep)
				wall := 1 + 9*r.Float64()
				runs = append(runs, dataset.ProfRun{Task: "t", Slots: k, Repetition: rep, RuntimeS: wall, Outcome: "ok", Host: host2,
					RunID: id, ReadBytes: r.Int64N(1e9), WriteBytes: r.Int64N(1e9)})
				var s dataset.ProfSample
				s.Run = id
				for off := 0.0; off < wall; off += 0.1 {
					s.OffsetS = off
					s.CPUS += 0.2 * r.Float64()
					s.ReadBytes += r.Int64N(1e7)
					s.WriteBytes += r.Int64N(1e7)
					s.RSSBytes = r.Int64N(1e5)
					if r.IntN(20) == 0 {
						s.Phase = fmt.Sprint("p", r.IntN(3))
					}
					ss = append(ss, s)
				}
			}
		}
		for _, s := range Summarize(sorted(runs)) {
			best = math.Min(best, s.WallS.Median/float64(s.Slots))
		}
		p := BuildProfile("t", runs, ss)
		if p == nil || math.Abs(p.TaskS-best) > 1e-12 {
			t.Fatalf("trial %d: profile %+v, best time per task %.3f", trial, p, best)
		}
		for i, ph := range p.Phases {
			if ph.CPU < 0 || ph.Memory < 0 || ph.IO < 0 || ph.IO > 1+1e-12 || ph.EndS < ph.StartS {
				t.Fatalf("trial %d: phase %+v", trial, ph)
			}
			if i > 0 && p.Phases[i-1].EndS != ph.StartS {
				t.Fatalf("trial %d: phases do not tile: %+v", trial, p.Phases)
			}
		}
	}
}

func sorted(runs []dataset.ProfRun) []dataset.ProfRun {
	c := append([]dataset.ProfRun(nil), runs...)
	SortRuns(c)
	return c
}

// A phase a few percent over the node's I/O capacity (a throttled disk's
// first slice, a calibration's error) is not noted; one well over it is.
func TestIOOverCapacityNote(t *testing.T) {
	for _, c := range []struct {
		capacity float64
		note     bool
	}{{5e5 / 1.03, false}, {5e5 / 1.25, true}} {
		runs, ss := knownSweep()
		for i := range runs {
			runs[i].Host = fmt.Sprintf(`{"hostname":"h","cpus":2,"mem_total_bytes":1000000,"kernel":"k","cgroup":"v1","io_capacity_bytes_per_s":%.0f,"io_capacity_source":"flag"}`, c.capacity)
		}
		p := BuildProfile("map", runs, ss)
		noted := strings.Contains(strings.Join(p.Warnings, "\n"), "the node's I/O capacity")
		if noted != c.note || p.Phases[0].IOBytesPerS != 5e5 {
			t.Errorf("capacity %.0f: map at %.0f B/s, warnings %q, want a note: %v", c.capacity, p.Phases[0].IOBytesPerS, p.Warnings, c.note)
		}
	}
}
