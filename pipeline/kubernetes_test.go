package pipeline

import (
	"context"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/datasettest"
	"github.com/wlprof/wlprof/kube"
	"github.com/wlprof/wlprof/reports"
	"github.com/wlprof/wlprof/skyline"
)

// kubeWorld writes three days of a cluster as a Kubernetes ingest leaves
// it (format): three nodes' allocatable, namespaces' usage on them, a
// CronJob's Jobs as runs and skylines.
func kubeWorld(t *testing.T, format string) *dataset.Dataset { return kubeDays(t, format, 3) }

// kubeDays is kubeWorld over days days (the harvest replay wants more
// history: the classify stage wants three days before a
// reclassification).
func kubeDays(t *testing.T, format string, days int) *dataset.Dataset {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ds")
	_, tx := datasettest.Begin(t, dir)
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
		run := fmt.Sprintf("batch/nightly-%d", r)
		tx.Runs().Append(&dataset.Run{Job: "batch/nightly", Run: run, SubmitMs: start, StartMs: start, EndMs: start + 900_000, Status: "FINISHED", Source: format})
		for i, pods := range []float64{2, 4 + float64(r), 3, 0} {
			tx.Skylines().Append(&dataset.SkylineSample{Job: "batch/nightly", Run: run, OffsetS: float64(i * 300), Containers: pods, MemoryBytes: 1 << 30, VCores: 1})
		}
	}
	tx.AddSource(dataset.Source{Path: "capture.json", Format: format, Accepted: 1})
	datasettest.Commit(t, tx)
	ds, err := dataset.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// The report of data from Kubernetes speaks of nodes, namespaces and
// CronJobs, counts a node's cores from its allocatable, and points at the
// patches; the same data from another format keeps the YARN words.
func TestReportOfKubernetesData(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		format   string
		platform string
		cores    int
	}{{"prometheus-json", reports.PlatformKubernetes, 8}, {"csv", "", 12}} {
		ds := kubeWorld(t, c.format)
		o := Options{Skyline: skyline.DefaultOptions()}
		o.Planner.Dataset = "ds"
		in, err := Report(ctx, ds, o)
		if err != nil {
			t.Fatal(err)
		}
		p := in.Planner
		if p.Platform != c.platform || p.CoresPerServer != c.cores {
			t.Errorf("%s: platform %q, %d cores per server (%s); want %q and %d (the median node's 7.91, rounded)", c.format, p.Platform, p.CoresPerServer, p.CoresFrom, c.platform, c.cores)
		}
		if c.platform == "" {
			continue
		}
		if p.Commands["kubernetes"] != "wlprof export kubernetes -d ds --step 1m" {
			t.Errorf("command %q", p.Commands["kubernetes"])
		}
		dir := filepath.Join(t.TempDir(), "report")
		idx, err := reports.Write(dir, in, reports.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		d := idx.Summary.Decisions
		if d.Platform != reports.PlatformKubernetes || !strings.Contains(d.Harvest.Answer, "on the 3 nodes the namespaces run on") {
			t.Errorf("harvest answer %q (platform %q), want namespaces and nodes", d.Harvest.Answer, d.Platform)
		}
		if !strings.HasPrefix(d.AtRisk.Answer, "No CronJob at risk") {
			t.Errorf("at-risk answer %q, want CronJobs", d.AtRisk.Answer)
		}
		// The patches the answers point at set the skyline's parallelism.
		res, err := Kubernetes(ctx, ds, KubernetesOptions{Export: kube.DefaultOptions(), Skyline: skyline.DefaultOptions()})
		if err != nil {
			t.Fatal(err)
		}
		var peak int64
		for _, j := range in.Jobs {
			if j.Profile.Job == "batch/nightly" && j.Profile.Skyline != nil {
				peak = j.Profile.Skyline.PeakReservation
			}
		}
		if len(res.Patches) != 1 || res.Patches[0].Ref.String() != "batch/CronJob/nightly" || peak == 0 || int64(res.Patches[0].Parallelism) != peak {
			t.Errorf("patches %+v, want the CronJob's parallelism %d, its skyline's peak", res.Patches, peak)
		}
	}
}
