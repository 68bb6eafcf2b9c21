package pipeline

import (
	"context"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/harvest"
	"github.com/wlprof/wlprof/skyline"
)

// kubeDays is kubeWorld over days days: enough history (the classify
// stage wants three days before a reclassification) for the harvest
// replay.
func kubeDays(t *testing.T, format string, days int) *dataset.Dataset {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ds")
	ds, err := dataset.OpenOrCreate(dir)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := ds.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i, cpu := range []float64{3.92, 7.91, 15.9} {
		tx.MachineEvents().Append(&dataset.MachineEvent{Machine: fmt.Sprintf("node-%d", i), Type: dataset.MachineAdd, CPUs: cpu, Memory: 16 << 30, Source: format})
	}
	rng := rand.New(rand.NewSource(2))
	for _, ns := range []string{"shop", "search", "batch"} {
		for i := 0; i < days*1440; i += 5 {
			tx.Usage().Append(&dataset.Usage{Tenant: ns, Server: fmt.Sprintf("node-%d", i%3), TimeMs: int64(1_800_000_000_000 + i*60_000), CPU: 0.2 + 0.1*rng.Float64(), Memory: 0.3})
		}
	}
	for r := 0; r < days; r++ {
		start := int64(1_800_000_000_000 + r*86_400_000)
		tx.Runs().Append(&dataset.Run{Job: "batch/nightly", Run: fmt.Sprintf("batch/nightly-%d", r), SubmitMs: start, StartMs: start, EndMs: start + 900_000, Status: "FINISHED", Source: format})
	}
	tx.AddSource(dataset.Source{Path: "capture.json", Format: format, Accepted: 1})
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if ds, err = dataset.Open(dir); err != nil {
		t.Fatal(err)
	}
	return ds
}

// On Kubernetes data the harvest section's servers are the nodes: their
// cores are the median node's allocatable (7.91, rounded: 8), as the
// answers count them, and the section says so; the same data from another
// format keeps harvest's 12-core servers.
func TestHarvestOfKubernetesDataCountsNodeCores(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		format string
		cores  string
	}{{"prometheus-json", "servers of 8 cores"}, {"csv", "servers of 12 cores"}} {
		ds := kubeDays(t, c.format, 6)
		ho := harvest.DefaultOptions()
		o := Options{Skyline: skyline.DefaultOptions(), Harvest: &ho}
		in, err := Report(ctx, ds, o)
		if err != nil {
			t.Fatal(err)
		}
		h := in.Harvest
		if h == nil {
			t.Fatalf("%s: no harvest section (notes %v)", c.format, in.Notes)
		}
		all := strings.Join(h.Assumptions, "\n")
		if !strings.Contains(all, c.cores) {
			t.Errorf("%s: harvest assumptions %q, want %q", c.format, all, c.cores)
		}
		if node := strings.Contains(all, "a Kubernetes node of 8 cores: the nodes' allocatable CPU: 7.91 cores on the median of 3 nodes"); node != (c.format != "csv") {
			t.Errorf("%s: harvest assumptions %q: saying the node's cores came from its allocatable is %v", c.format, all, node)
		}
	}
}
