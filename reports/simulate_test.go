package reports

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

// synthSimulation is a what-if of jobs jobs under both policies, yarn-me
// the faster, with memory series over the makespan.
func synthSimulation(r *rand.Rand, jobs int) *Simulation {
	s := &Simulation{Trace: "trace.csv", Cluster: "4 nodes of 16 GiB and 16 cores"}
	for pi, p := range []string{"yarn", "yarn-me"} {
		sp := SimPolicy{Policy: p, Tasks: int64(10 * jobs), MakespanS: 3600 / float64(pi+1), MemoryUtilisation: 0.7 + 0.1*float64(pi)}
		for j := 0; j < max(jobs, 1); j++ {
			sp.JCTS = append(sp.JCTS, (100+r.Float64()*1000)/float64(pi+1))
			sp.MeanJCTS += sp.JCTS[j] / float64(max(jobs, 1))
		}
		sp.MedianJCTS, sp.P95JCTS = sp.MeanJCTS, 1.5*sp.MeanJCTS
		if pi == 1 {
			sp.ElasticTasks = int64(jobs)
		}
		for k := 0; k < 20; k++ {
			w := sp.MakespanS / 20
			sp.MemoryStartS = append(sp.MemoryStartS, float64(k)*w)
			sp.MemoryEndS = append(sp.MemoryEndS, float64(k+1)*w)
			sp.MemoryUtilSeries = append(sp.MemoryUtilSeries, r.Float64())
		}
		s.Policies = append(s.Policies, sp)
	}
	return s
}

// The section shows each policy, both figures, the jobs left out and the
// warnings, trace strings escaped.
func TestSimulationSection(t *testing.T) {
	in := synthInput(0, 3, 5)
	in.Simulation.Trace = xss
	in.Simulation.LeftOut = []Skipped{{Stage: StageSimulate, Job: "big" + xss, Reason: "a task needs 40 GiB"}}
	in.Simulation.Warnings = []string{"warning " + xss}
	idx, names, html := writeSection(t, in, StageSimulate)
	if strings.Join(names, ",") != "simulate-jct-cdf,simulate-memory" {
		t.Errorf("simulate plots %v", names)
	}
	i := strings.Index(html, `<section id="simulate">`)
	if i < 0 {
		t.Fatal("no simulate section")
	}
	sec := html[i:]
	sec = sec[:strings.Index(sec, "</section>")]
	for _, w := range []string{`<td class="t">YARN-ME</td>`, `<td class="n">1h</td>`, `<td class="n">30m</td>`, "Job completion times", "Memory in use over time", "a task needs 40 GiB", "<svg"} {
		if !strings.Contains(sec, w) {
			t.Errorf("section lacks %q", w)
		}
	}
	if strings.Contains(html, xss) {
		t.Error("a trace string is not escaped")
	}
	for _, s := range idx.Stages {
		if s.Stage == StageSimulate && (!s.Computed || s.Jobs != 3) {
			t.Errorf("index stage %+v", s)
		}
	}
	if SimJCTCDF(nil) != nil || SimMemory(&Simulation{}) != nil {
		t.Error("plots of nothing")
	}
}

// With the real runs' JCTs (a workload from the job history), the CDF
// draws them as a third line, and its axis reaches the slowest of them.
func TestSimJCTCDFObserved(t *testing.T) {
	s := synthSimulation(rand.New(rand.NewPCG(3, 4)), 5)
	svg := func(s *Simulation) string {
		wt, err := SimJCTCDF(s).WriterTo(4*vg.Inch, 3*vg.Inch, "svg")
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if _, err := wt.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	if strings.Contains(svg(s), "observed runs") {
		t.Errorf("an observed line without observed runs")
	}
	s.ObservedJCTS = []float64{50, 4000}
	with := SimJCTCDF(s)
	if !strings.Contains(svg(s), "observed runs (mean 2025s)") && !strings.Contains(svg(s), "observed runs (mean 33m45s)") {
		t.Errorf("no observed line in the legend")
	}
	if with.X.Max < 4000/60.0-1e-9 && with.X.Max < 4000-1e-9 {
		t.Errorf("x axis ends at %g: the 4000 s observed run is cut off", with.X.Max)
	}
}

// writeReport writes the report of in to a new directory and returns its
// index and the directory.
func writeReport(t *testing.T, in *Input, opts Options) (*Index, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "r")
	idx, err := Write(dir, in, opts)
	if err != nil {
		t.Fatal(err)
	}
	return idx, dir
}

// writeSection writes the report of in and returns its index, the names
// of the plots of stage (in the index's order) and the page.
func writeSection(t *testing.T, in *Input, stage string) (*Index, []string, string) {
	t.Helper()
	idx, dir := writeReport(t, in, DefaultOptions())
	var names []string
	for _, p := range idx.Plots {
		if p.Stage == stage {
			names = append(names, p.Name)
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	return idx, names, string(b)
}
