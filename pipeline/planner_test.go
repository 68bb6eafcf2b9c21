package pipeline

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/simulate"
)

// The sizing's search finds, per policy, the cluster simulate's own
// target picker finds over every node count from 1 to 16 (the bundled
// demo trace of 11 jobs on nodes of 16 GiB, a 1.5× step model for tasks
// without one).
func TestSizingMatchesExhaustiveSweep(t *testing.T) {
	ctx := context.Background()
	sim, err := SimulateSection("../testdata/simulate/demo.csv", false, 4, "16G", "", "step:1.5")
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
