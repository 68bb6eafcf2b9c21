package pipeline

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/datasettest"
	"github.com/wlprof/wlprof/reports"
	"github.com/wlprof/wlprof/skyline"
)

// spareStart is a UTC midnight; the namespaces' usage is every spareStep
// for spareN steps (3 days).
const (
	spareStart = int64(1_800_000_000_000) / 86_400_000 * 86_400_000 // a UTC midnight
	spareStep  = int64(300_000)
	spareN     = 3 * 288
)

// The spare cores of nodes the namespaces share: per node its allocatable
// less what all namespaces on it use together, per job type as Zhang et
// al., OSDI'16 §4.1 defines headroom: "For a short job, we define it as 1
// minus the current average CPU utilization of the servers in the class.
// For a medium job, we use 1 minus Max(average CPU utilization, current
// CPU utilization). For a long job, we use 1 minus Max(peak CPU
// utilization, current CPU utilization)." Here a node is the server and
// its utilisation is the sum of its namespaces'. Summing each class's
// headroom × its nodes instead counts node-2 (three namespaces) three
// times.
func TestSpareCoresOfSharedNodes(t *testing.T) {
	ctx := context.Background()
	alloc := map[string]float64{"node-0": 8, "node-1": 8, "node-2": 16}
	// Constant namespaces, cores per node: db on all three, web on 0 and
	// 2, cache on 1 and 2; the wave, batch, on node-2.
	levels := map[string]map[string]float64{
		"db":    {"node-0": 2, "node-1": 2, "node-2": 2},
		"web":   {"node-0": 1, "node-2": 3},
		"cache": {"node-1": 1.5, "node-2": 1.5},
	}
	const waveNode, waveNS, waveLevel, waveAmp = "node-2", "batch", 2.0, 0.5
	dir := filepath.Join(t.TempDir(), "ds")
	ds, tx := datasettest.Begin(t, dir)
	for _, n := range []string{"node-0", "node-1", "node-2"} {
		datasettest.Append(t, tx.MachineEvents(), []dataset.MachineEvent{{Machine: n, TimeMs: spareStart, Type: dataset.MachineAdd, CPUs: alloc[n], Memory: 32 << 30, Source: "prometheus-json"}})
	}
	var rows []dataset.Usage
	for _, ns := range []string{"cache", "db", "web"} {
		for _, n := range []string{"node-0", "node-1", "node-2"} {
			c, ok := levels[ns][n]
			if !ok {
				continue
			}
			for i := 0; i < spareN; i++ {
				rows = append(rows, dataset.Usage{Tenant: ns, Server: n, TimeMs: spareStart + int64(i)*spareStep, CPU: c / alloc[n], Memory: 0.1})
			}
		}
	}
	phase := 1.5*math.Pi - 2*math.Pi*float64(spareN-1)/288
	for i := 0; i < spareN; i++ {
		c := waveLevel * (1 + waveAmp*math.Sin(2*math.Pi*float64(i)/288+phase))
		rows = append(rows, dataset.Usage{Tenant: waveNS, Server: waveNode, TimeMs: spareStart + int64(i)*spareStep, CPU: c / alloc[waveNode], Memory: 0.1})
	}
	datasettest.Append(t, tx.Usage(), rows)
	tx.AddSource(dataset.Source{Path: "capture.json", Format: "prometheus-json", Accepted: int64(len(rows))})
	datasettest.Commit(t, tx)
	ds, err := dataset.Open(dir)
	if err != nil {
		t.Fatal(err)
	}

	// By hand: allocatable 32 cores, the constant namespaces use 13; the
	// wave is at its trough now (1 core), its mean 2, its peak 3.
	var free float64
	for n, a := range alloc {
		free += a
		for _, l := range levels {
			free -= l[n]
		}
	}
	want := reports.JobTypeCores{Short: free - waveLevel*(1-waveAmp), Medium: free - waveLevel, Long: free - waveLevel*(1+waveAmp)}
	if free != 19 {
		t.Fatalf("the world's free cores before the wave: %g, want 19", free)
	}

	o := Options{Skyline: skyline.DefaultOptions()}
	in, err := Report(ctx, ds, o)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := reports.Write(filepath.Join(t.TempDir(), "report"), in, reports.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	h := idx.Summary.Decisions.Harvest
	if h.SpareCores == nil || h.ClassSpareCores == nil {
		t.Fatalf("no spare cores: %q", h.Answer)
	}
	got := *h.SpareCores
	// The long jobs' peak is the node's P99 over 864 samples of a sine
	// sampled 288 times a period: within 1 − cos(2π·4/288) of its top.
	for _, c := range []struct {
		name      string
		got, want float64
		tol       float64
	}{{"short", got.Short, want.Short, 1e-9}, {"medium", got.Medium, want.Medium, 1e-9}, {"long", got.Long, want.Long, 0.01}} {
		if math.Abs(c.got-c.want) > c.tol {
			t.Errorf("%s jobs: %.4f spare cores, want %.4f (allocatable less every namespace's use, node by node)", c.name, c.got, c.want)
		}
	}
	// Over the day the wave averages its level, so each hour's spare cores
	// sum to 24 × (19 − 2) core-hours.
	if h.SpareCoreHPerDay == nil || math.Abs(*h.SpareCoreHPerDay-24*(free-waveLevel)) > 1e-6 {
		t.Errorf("spare core-hours a day %v, want %g", h.SpareCoreHPerDay, 24*(free-waveLevel))
	}
	if cs := h.ClassSpareCores; cs.Short <= got.Short+1 {
		t.Errorf("the classes' sum %+v is not above the nodes' %+v: a node shared by three namespaces should count three times there", *cs, got)
	}
	for _, s := range []string{"on the 3 nodes the namespaces run on", "each node's cores less what all its namespaces use together", "32 cores in all"} {
		if !strings.Contains(h.SpareAnswer, s) {
			t.Errorf("answer %q lacks %q", h.SpareAnswer, s)
		}
	}
	for _, s := range []string{"Σ over the 3 nodes", "each its allocatable CPU", "Max(P99, now) for long", "would count a node once per namespace on it"} {
		if !strings.Contains(h.SpareRule, s) {
			t.Errorf("rule %q lacks %q", h.SpareRule, s)
		}
	}
	t.Logf("nodes' spare cores %+v; the classes' sum (the old answer) %+v; %s", got, *h.ClassSpareCores, h.SpareAnswer)
}
