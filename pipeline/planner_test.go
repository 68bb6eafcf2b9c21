package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/plan"
	"github.com/wlprof/wlprof/simulate"
	"github.com/wlprof/wlprof/slo"
)

// The sizing's search finds, per policy, the cluster simulate's own
// target picker finds over every node count from 1 to 16 (the bundled
// demo trace of 11 jobs on nodes of 16 GiB, a 1.5× step model for tasks
// without one).
// demoSection is the simulate section of the demo trace on 4 nodes of
// 16 GiB, tasks without a model slowed down 1.5 times below ideal.
func demoSection() simulate.Options {
	so := simulate.DefaultOptions()
	so.Trace, so.Nodes, so.NodeMemoryBytes, so.DefaultModel = "../testdata/simulate/demo.csv", []int{4}, []int64{16 << 30}, "step:1.5"
	return so
}

func TestSizingMatchesExhaustiveSweep(t *testing.T) {
	ctx := context.Background()
	sim, err := SimulateSection(demoSection(), false)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	ro := runOptions(filepath.Join(t.TempDir(), "out"), &lines)
	ro.Report.Simulate = sim
	ro.Report.Planner = PlannerOptions{TargetMakespan: 15 * time.Minute}
	rep, err := Run(ctx, []string{"../testdata/resourceestimator/tpch_q12.txt"}, ro)
	if err != nil {
		t.Fatal(err)
	}
	got := rep.Report.Summary.Decisions.Cluster.Sizes

	// Every count from 1 to 16 at once, and simulate's pick.
	all := *sim
	all.Nodes, all.NodeMemoryBytes, all.TargetMakespan = nil, []int64{16 << 30}, 15*time.Minute
	for n := 1; n <= 16; n++ {
		all.Nodes = append(all.Nodes, n)
	}
	ds := openDataset(t, rep.Dataset)
	in, err := simulate.Load(ctx, ds, all)
	if err != nil {
		t.Fatal(err)
	}
	res, err := simulate.Run(ctx, in, all)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(res.Targets) {
		t.Fatalf("sizes %+v, sweep's targets %+v", got, res.Targets)
	}
	for i, tg := range res.Targets {
		g := got[i]
		if g.Policy != string(tg.Policy) || (g.Nodes == nil) != (tg.Nodes == nil) || g.Nodes != nil && (*g.Nodes != *tg.Nodes || *g.MemoryBytes != *tg.MemoryBytes || *g.MakespanS != *tg.MakespanS) {
			t.Errorf("%s: search found %v nodes, the sweep %v", tg.Policy, deref(g.Nodes), deref(tg.Nodes))
		}
	}
	if got[0].Nodes == nil || got[1].Nodes == nil || *got[1].Nodes >= *got[0].Nodes {
		t.Errorf("YARN-ME should meet the target on fewer nodes than stock YARN: %v vs %v", deref(got[1].Nodes), deref(got[0].Nodes))
	}
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

func openDataset(t *testing.T, dir string) *dataset.Dataset {
	t.Helper()
	ds, err := dataset.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// On the demo's job inputs (the bundled ResourceEstimator, skyline and
// Spark logs, the provenance world, the plan overrides of
// testdata/plan/overrides.yaml) the four answers are in index.json, and
// the cluster's footprint is the one wlprof plan computes on its own and
// the plan section shows.
func TestDecisionsOnDemoJobs(t *testing.T) {
	ctx := context.Background()
	sim, err := SimulateSection(demoSection(), false)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	out := filepath.Join(t.TempDir(), "out")
	ro := runOptions(out, &lines)
	ro.Report.Simulate, ro.Report.SLOOverrides = sim, "../testdata/plan/overrides.yaml"
	ro.Report.Planner = PlannerOptions{TargetMakespan: 15 * time.Minute, CapacityContainers: 10000}
	rep, err := Run(ctx, []string{"../testdata/jobs", "../testdata/provenance", "../testdata/resourceestimator/tpch_q12.txt"}, ro)
	if err != nil {
		t.Fatal(err)
	}
	d := rep.Report.Summary.Decisions
	if d.Version != 1 || d.Cluster.Answer == "" || d.Harvest.Answer == "" || d.AtRisk.Answer == "" {
		t.Fatalf("decisions %+v", d)
	}
	if len(d.Cluster.Sizes) != 2 || d.Cluster.FootprintContainers == nil {
		t.Fatalf("cluster %+v", d.Cluster)
	}
	po := plan.DefaultOptions()
	po.Skyline = ro.Report.Skyline
	po.Skyline.SkipBadJobs, po.Skyline.AlphaSweep = true, nil
	ov, err := slo.LoadOverrides(ro.Report.SLOOverrides)
	if err != nil {
		t.Fatal(err)
	}
	po.SLO.Overrides = ov
	ds := openDataset(t, rep.Dataset)
	pin, err := plan.Load(ctx, ds, po)
	if err != nil {
		t.Fatal(err)
	}
	pres, err := plan.Run(ctx, pin, po)
	if err != nil {
		t.Fatal(err)
	}
	if *d.Cluster.FootprintContainers != pres.Footprint || *d.Cluster.NaivePeakContainers != pres.NaiveFootprint {
		t.Errorf("footprint %d / naive %d, wlprof plan says %d / %d", *d.Cluster.FootprintContainers, *d.Cluster.NaivePeakContainers, pres.Footprint, pres.NaiveFootprint)
	}
	if *d.Cluster.FootprintShare != float64(pres.Footprint)/10000 {
		t.Errorf("footprint share %g of 10,000 containers, want %g", *d.Cluster.FootprintShare, float64(pres.Footprint)/10000)
	}
	html, err := os.ReadFile(filepath.Join(out, "report", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), fmt.Sprintf("Footprint <b>%d</b>", pres.Footprint)) {
		t.Error("the plan section does not show the footprint the answer gives")
	}
	for _, a := range d.Actions {
		if a.Command == "" || !strings.Contains(a.Command, "-d "+rep.Dataset) {
			t.Errorf("action %q: command %q does not name the dataset", a.Text, a.Command)
		}
	}
}
