package ingest_test

import (
	"context"
	"math"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/wlprof/wlprof/classify"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/ingest"
	"github.com/wlprof/wlprof/internal/k8sworld"
	"github.com/wlprof/wlprof/skyline"
)

// promWorld is a generated cluster backfilled into a real Prometheus
// (Debian's prometheus package, which make test installs), served on
// 127.0.0.1.
type promWorld struct {
	cfg   k8sworld.Config
	world *k8sworld.World
	srv   *k8sworld.Server
	dir   string
}

func startPromWorld(t testing.TB, cfg k8sworld.Config) *promWorld {
	t.Helper()
	dir := t.TempDir()
	w := k8sworld.New(cfg)
	srv := k8sworld.Serve(t, w)
	return &promWorld{cfg: cfg, world: w, srv: srv, dir: dir}
}

func (pw *promWorld) options(save string) ingest.Options {
	opts := ingest.DefaultOptions()
	opts.MaxRejects = 0
	opts.Prometheus = ingest.PrometheusOptions{URL: pw.srv.URL, Start: pw.cfg.Start, End: pw.cfg.Start.Add(pw.cfg.Duration),
		Step: time.Minute, Save: save}
	return opts
}

// TestPrometheusWorld ingests a generated cluster through a real
// Prometheus server's API and from the saved responses, and checks the
// tenants' patterns (classify) and the CronJobs' skylines (skyline)
// against the generator's truth; both forms must give the same tables.
func TestPrometheusWorld(t *testing.T) {
	ctx := context.Background()
	pw := startPromWorld(t, k8sworld.Small())
	capture := filepath.Join(pw.dir, "capture.jsonl")
	res, api, err := ingest.Into(ctx, filepath.Join(pw.dir, "api"), "prometheus", nil, pw.options(capture))
	if err != nil {
		t.Fatal(err)
	}
	if res.Rejected != 0 || res.Accepted == 0 {
		t.Fatalf("API ingest: %d accepted, %d rejected", res.Accepted, res.Rejected)
	}
	fres, file, err := ingest.Into(ctx, filepath.Join(pw.dir, "file"), "prometheus-json", []string{capture}, ingest.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if fres.Accepted != res.Accepted || fres.Rejected != res.Rejected {
		t.Errorf("file form: %d accepted, %d rejected; API: %d, %d", fres.Accepted, fres.Rejected, res.Accepted, res.Rejected)
	}
	// The manifest says where the data came from.
	src := api.Manifest().Sources
	if len(src) != 1 || src[0].Format != "prometheus" || src[0].Path != pw.srv.URL || src[0].SHA256 == "" {
		t.Errorf("API manifest sources: %+v", src)
	}
	if fs := file.Manifest().Sources; len(fs) != 1 || fs[0].Format != "prometheus-json" {
		t.Errorf("file manifest sources: %+v", fs)
	}
	sameTable(t, api, file, dataset.UsageTable)
	sameTable(t, api, file, dataset.RunsTable)
	sameTable(t, api, file, dataset.SkylinesTable)
	sameTable(t, api, file, dataset.InstancesTable)

	for name, ds := range map[string]*dataset.Dataset{"api": api, "file": file} {
		checkPatterns(t, name, ds, func(tn k8sworld.Tenant) string { return tn.Namespace }, pw.world, true)
		checkSkylines(t, name, ds, pw.world)
	}
	checkRunRows(t, api, pw.world)

	// Why the presence window is the step: with the gauge as it is,
	// Prometheus' 5-minute lookback holds a finished pod's last value,
	// and every Job's skyline is 5 minutes too long.
	lb := pw.options("")
	lb.Prometheus.Queries = map[string]string{"memory": `container_memory_working_set_bytes{container!="",container!="POD",pod!=""}`}
	_, lbds, err := ingest.Into(ctx, filepath.Join(pw.dir, "lookback"), "prometheus", nil, lb)
	if err != nil {
		t.Fatal(err)
	}
	sky, err := dataset.ReadAll(ctx, lbds, dataset.SkylinesTable)
	if err != nil {
		t.Fatal(err)
	}
	// The last scrape of the longest pod is at 885 s (scrapes at 15 s past
	// each half minute); held 300 s more, the last minute point is 1185 s
	// rounded down, 1140 s: 240 s longer than the pods ran.
	if last := sky[len(sky)-1]; last.Containers != 0 || last.OffsetS != 1140 {
		t.Errorf("with the lookback the last run's skyline ends at %gs, want 1140 s (the last scrape at 885 s + the 5-minute lookback, on the minute grid)", last.OffsetS)
	}

	// The workload tenants from the same capture.
	wopts := ingest.DefaultOptions()
	wopts.TenantKey = "workload"
	_, wds, err := ingest.Into(ctx, filepath.Join(pw.dir, "workload"), "prometheus-json", []string{capture}, wopts)
	if err != nil {
		t.Fatal(err)
	}
	checkPatterns(t, "workload", wds, func(tn k8sworld.Tenant) string { return tn.Workload + "/" + tn.Container }, pw.world, true)
	checkNodes(t, api, pw.world)
	checkNodes(t, wds, pw.world)
}

// checkNodes: the nodes' allocatable is in machine_events, one ADD per
// node, in cores and bytes, at the first point of the minute grid its
// label window covers with a sample (the world's first scrape is 15 s
// after the range's start, so the first minute point, start + 1 min,
// where the first usage rows are too); every usage row is on one
// of the world's nodes (a tenant's idle rows too), and the instances' task
// is the pods' container.
func checkNodes(t *testing.T, ds *dataset.Dataset, w *k8sworld.World) {
	t.Helper()
	ctx := context.Background()
	cfg := w.Config()
	ev, err := dataset.ReadAll(ctx, ds, dataset.MachineEventsTable)
	if err != nil {
		t.Fatal(err)
	}
	if len(ev) != cfg.Nodes {
		t.Errorf("%d machine_events rows, want one per node (%d)", len(ev), cfg.Nodes)
	}
	nodes := map[string]bool{}
	for _, e := range ev {
		nodes[e.Machine] = true
		if e.Type != dataset.MachineAdd || e.TimeMs != cfg.Start.Add(time.Minute).UnixMilli() || e.CPUs != cfg.NodeCores || e.Memory != cfg.NodeMemory {
			t.Errorf("machine event %+v, want ADD at start + 1 min, %g cores, %g bytes", e, cfg.NodeCores, cfg.NodeMemory)
		}
	}
	servers := map[string]int{}
	zeros := 0
	err = dataset.Scan(ctx, ds, dataset.UsageTable, func(u *dataset.Usage) error {
		servers[u.Server]++
		if u.CPU == 0 && u.Memory == 0 {
			zeros++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for s := range servers {
		if !nodes[s] {
			t.Errorf("usage rows on server %q, which is no node (%d rows)", s, servers[s])
		}
	}
	if zeros == 0 {
		t.Error("no idle rows: the CronJobs' tenants ran nowhere between runs")
	}
	inst, err := dataset.ReadAll(ctx, ds, dataset.InstancesTable)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range inst {
		if in.Task != k8sworld.CronContainer {
			t.Fatalf("instance %+v: task %q, want the pod's container %q", in, in.Task, k8sworld.CronContainer)
		}
	}
}

// checkPatterns classifies ds and compares every generated tenant's
// pattern and period with the truth; the CronJob namespaces are periodic
// at their schedule.
func checkPatterns(t *testing.T, name string, ds *dataset.Dataset, key func(k8sworld.Tenant) string, w *k8sworld.World, cron bool) {
	t.Helper()
	ctx := context.Background()
	opts := classify.Options{}
	in, err := classify.Load(ctx, ds, opts)
	if err != nil {
		t.Fatal(err)
	}
	res, err := classify.Run(ctx, in, opts)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]classify.Tenant{}
	for _, tn := range res.Tenants {
		got[tn.Tenant] = tn
	}
	want := map[string]float64{} // tenant → period (0: not periodic)
	pattern := map[string]string{}
	for _, tn := range w.Tenants() {
		pattern[key(tn)], want[key(tn)] = tn.Pattern, tn.PeriodS
	}
	if cron {
		for _, cj := range w.CronJobs() {
			k := cj.Namespace
			if name == "workload" {
				k = cj.Namespace + "/CronJob/" + cj.Name + "/" + cj.Container
			}
			pattern[k], want[k] = k8sworld.Periodic, w.Config().CronPeriod.Seconds()
		}
	}
	if len(got) != len(pattern) {
		t.Errorf("%s: %d tenants classified, the world has %d", name, len(got), len(pattern))
	}
	for k, p := range pattern {
		tn, ok := got[k]
		if !ok {
			t.Errorf("%s: tenant %s not classified", name, k)
			continue
		}
		if string(tn.Pattern) != p {
			t.Errorf("%s: tenant %s: %s (strength %.2f), generated %s", name, k, tn.Pattern, tn.Strength, p)
			continue
		}
		if p == k8sworld.Periodic && (tn.PeriodS == nil || math.Abs(*tn.PeriodS-want[k]) > 60) {
			t.Errorf("%s: tenant %s: period %v, generated %gs", name, k, tn.PeriodS, want[k])
		}
	}
}

// checkSkylines fits every CronJob's runs and compares the skyline with
// the pods each Job ran (identical runs: the LP's optimum is their shape).
func checkSkylines(t *testing.T, name string, ds *dataset.Dataset, w *k8sworld.World) {
	t.Helper()
	ctx := context.Background()
	opts := skyline.DefaultOptions()
	in, err := skyline.Load(ctx, ds, opts)
	if err != nil {
		t.Fatal(err)
	}
	res, err := skyline.Run(ctx, in, opts)
	if err != nil {
		t.Fatal(err)
	}
	fits := map[string]*skyline.Fit{}
	for _, f := range res.Jobs {
		fits[f.Job] = f
	}
	for _, cj := range w.CronJobs() {
		f := fits[cj.ID]
		if f == nil {
			t.Errorf("%s: CronJob %s: no skyline (skipped: %+v)", name, cj.ID, res.Skipped)
			continue
		}
		if f.Runs != cj.Runs {
			t.Errorf("%s: CronJob %s: %d runs, generated %d", name, cj.ID, f.Runs, cj.Runs)
		}
		got := make([]float64, len(f.Containers))
		for i, c := range f.Containers {
			got[i] = math.Round(c*1e6) / 1e6
		}
		if !reflect.DeepEqual(got, cj.Containers) {
			t.Errorf("%s: CronJob %s: skyline %v, generated %v", name, cj.ID, got, cj.Containers)
		}
	}
}

func sameTable[T any](t *testing.T, a, b *dataset.Dataset, tbl *dataset.Table[T]) {
	t.Helper()
	ra, err := dataset.ReadAll(context.Background(), a, tbl)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := dataset.ReadAll(context.Background(), b, tbl)
	if err != nil {
		t.Fatal(err)
	}
	if len(ra) == 0 {
		t.Errorf("%s: no rows", tbl.Name)
	}
	if len(ra) != len(rb) {
		t.Errorf("%s: %d rows from the API, %d from the file", tbl.Name, len(ra), len(rb))
		return
	}
	for i := range ra {
		if !reflect.DeepEqual(stripSource(ra[i]), stripSource(rb[i])) {
			t.Errorf("%s row %d: API %+v, file %+v", tbl.Name, i, ra[i], rb[i])
			return
		}
	}
}

// stripSource blanks the source column, which names the format.
func stripSource(r any) any {
	switch x := r.(type) {
	case dataset.Run:
		x.Source = ""
		return x
	case dataset.Instance:
		x.Source = ""
		return x
	case dataset.Usage:
		if math.IsNaN(x.Memory) {
			x.Memory = -1
		}
		return x
	}
	return r
}

// checkRunRows compares the runs, skylines and instances tables with the
// Jobs the generator started: every Job a FINISHED run of 15 minutes, its
// skyline the pods' change points with their requests, its pods instances.
func checkRunRows(t *testing.T, ds *dataset.Dataset, w *k8sworld.World) {
	t.Helper()
	ctx := context.Background()
	runs, err := dataset.ReadAll(ctx, ds, dataset.RunsTable)
	if err != nil {
		t.Fatal(err)
	}
	sky, err := dataset.ReadAll(ctx, ds, dataset.SkylinesTable)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := dataset.ReadAll(ctx, ds, dataset.InstancesTable)
	if err != nil {
		t.Fatal(err)
	}
	cfg := w.Config()
	longest := 0.0
	for _, d := range cfg.CronShape {
		longest = max(longest, d)
	}
	want := 0
	for _, cj := range w.CronJobs() {
		want += cj.Runs
	}
	if len(runs) != want || len(inst) != want*len(cfg.CronShape) {
		t.Fatalf("%d runs and %d instances, generated %d Jobs of %d pods", len(runs), len(inst), want, len(cfg.CronShape))
	}
	for _, r := range runs {
		if r.Status != "FINISHED" || float64(r.EndMs-r.StartMs)/1000 != longest || (r.StartMs-cfg.Start.UnixMilli())%cfg.CronPeriod.Milliseconds() != 0 {
			t.Fatalf("run %+v: want FINISHED, %gs from a scheduled start", r, longest)
		}
	}
	// The change points: the pods' requests, 4 then 2 then none.
	cj := w.CronJobs()[0]
	var wantSky []dataset.SkylineSample
	for i, c := range cj.Containers {
		if i == 0 || c != cj.Containers[i-1] {
			wantSky = append(wantSky, dataset.SkylineSample{Job: cj.ID, OffsetS: float64(i * k8sworld.CronStep),
				Containers: c, VCores: cj.VCores[i], MemoryBytes: cj.MemoryBytes[i]})
		}
	}
	wantSky = append(wantSky, dataset.SkylineSample{Job: cj.ID, OffsetS: longest})
	if len(sky) != want*len(wantSky) {
		t.Fatalf("%d skyline rows, want %d per run", len(sky), len(wantSky))
	}
	for i, s := range sky {
		ws := wantSky[i%len(wantSky)]
		ws.Run = s.Run
		if s != ws {
			t.Fatalf("skyline row %d: %+v, want %+v", i, s, ws)
		}
	}
	for _, in := range inst {
		d := float64(in.EndMs-in.StartMs) / 1000
		if in.Machine == "" || (d != 600 && d != 900) || math.Abs(in.CPUAvg-k8sworld.CronPodUsedCores) > 0.05 {
			t.Fatalf("instance %+v: want a node, 600 or 900 s, %g cores", in, k8sworld.CronPodUsedCores)
		}
	}
}
