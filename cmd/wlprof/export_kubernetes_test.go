package main

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/datasettest"
	"github.com/wlprof/wlprof/profile"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"
)

// kubeDataset is a small cluster as a Kubernetes ingest would leave it:
// two nodes' allocatable in machine_events, workloads' usage named
// NAMESPACE/KIND/NAME[/CONTAINER] on them, and a CronJob's Jobs as runs
// with their pods over time as skylines.
func kubeDataset(t *testing.T, format string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ds")
	_, tx := datasettest.Begin(t, dir)
	for _, n := range []struct {
		name string
		cpu  float64
		mem  float64
	}{{"node-a", 3.92, 15.2 * (1 << 30)}, {"node-b", 7.91, 30.5 * (1 << 30)}} {
		tx.MachineEvents().Append(&dataset.MachineEvent{Machine: n.name, TimeMs: 1_800_000_000_000, Type: dataset.MachineAdd, CPUs: n.cpu, Memory: n.mem, Source: format})
	}
	rng := rand.New(rand.NewSource(5))
	add := func(tenant, node string, n int, cpu, mem float64) {
		for i := 0; i < n; i++ {
			tx.Usage().Append(&dataset.Usage{Tenant: tenant, Server: node, TimeMs: int64(1_800_000_000_000 + i*60_000),
				CPU: cpu * (0.5 + rng.Float64()), Memory: mem * (0.8 + 0.4*rng.Float64())})
		}
	}
	add("shop/Deployment/web/nginx", "node-a", 240, 0.05, 0.03)
	add("shop/Deployment/web/nginx", "node-b", 240, 0.03, 0.015)
	add("shop/Deployment/web/envoy", "node-a", 240, 0.01, 0.005)
	add("monitoring/DaemonSet/node-exporter", "node-a", 120, 0.01, 0.004)
	add("monitoring/DaemonSet/node-exporter", "node-b", 120, 0.005, 0.002)
	add("shop/StatefulSet/db/postgres", "node-b", 240, 0.3, 0.85)
	// As an earlier wlprof ingest prometheus --tenant-key workload wrote
	// them: no container, the pods on a node summed, and 0 on <none> where
	// none ran; now 0 on the node it last ran on.
	add("shop/Deployment/cart", "node-a", 240, 0.04, 0.02)
	add("batch/CronJob/nightly-report", "node-b", 60, 0.2, 0.1)
	add("batch/CronJob/nightly-report", "<none>", 60, 0, 0)
	for i := 0; i < 60; i++ {
		tx.Usage().Append(&dataset.Usage{Tenant: "batch/CronJob/nightly-report", Server: "node-b", TimeMs: int64(1_800_003_600_000 + i*60_000)})
	}
	add("kube-system", "node-a", 60, 0.1, 0.1)
	for r := 0; r < 3; r++ {
		start := int64(1_800_000_000_000 + r*86_400_000)
		run := fmt.Sprintf("nightly-report-%d", 29_000_000+r*1440)
		tx.Runs().Append(&dataset.Run{Job: "batch/nightly-report", Run: run, Name: "nightly-report", SubmitMs: start, StartMs: start, EndMs: start + 1_200_000, Status: "FINISHED", Source: format})
		for i, pods := range []float64{2, 4 + float64(r), 3, 0} {
			tx.Skylines().Append(&dataset.SkylineSample{Job: "batch/nightly-report", Run: run, OffsetS: float64(i * 300), Containers: pods, MemoryBytes: 1 << 30, VCores: 1})
		}
		for k := 0; k < 4+r; k++ {
			node := []string{"node-a", "node-b"}[k%2]
			tx.Instances().Append(&dataset.Instance{Job: "batch/nightly-report", Stage: run, Task: fmt.Sprintf("%s-%d", run, k), Instance: fmt.Sprintf("%s-%d", run, k),
				StartMs: start, EndMs: start + 1_200_000, Machine: node, CPUAvg: 0.5 + rng.Float64(), CPUMax: 1.5 + rng.Float64(),
				MemAvg: 0.02, MemMax: 0.03 + 0.02*rng.Float64(), Source: format})
		}
	}
	tx.AddSource(dataset.Source{Path: "prometheus.json", Format: format, Accepted: 1})
	datasettest.Commit(t, tx)
	return dir
}

func TestExportKubernetesGolden(t *testing.T) {
	ds := kubeDataset(t, "prometheus-json")
	out, errs, code := wlprof(t, "export", "kubernetes", "-d", ds, "--step", "5m", "--container", "shop/deploy/cart=cart-api")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// The dataset's path is a temporary directory: the golden keeps DS.
	golden(t, "export-kubernetes.yaml", strings.ReplaceAll(out, ds, "DS"))
	if want := "skipped kube-system: tenant \"kube-system\" names no workload (NAMESPACE/KIND/NAME[/CONTAINER]): a namespace's usage cannot be patched"; !strings.Contains(errs, want) {
		t.Errorf("stderr %q, want %q", errs, want)
	}
	// Every document decodes strictly into its Kubernetes type; the
	// CronJob's parallelism is the skyline's peak (the runs peak at 4, 5
	// and 6 pods).
	docs := strings.Split(out, "\n---\n")
	if len(docs) != 5 {
		t.Fatalf("%d documents, want 5 (CronJob, DaemonSet, two Deployments, StatefulSet):\n%s", len(docs), out)
	}
	var cj batchv1.CronJob
	if err := yaml.UnmarshalStrict([]byte(docs[0]), &cj); err != nil {
		t.Fatal(err)
	}
	if p := cj.Spec.JobTemplate.Spec.Parallelism; p == nil || *p < 4 || *p > 6 {
		t.Errorf("CronJob parallelism %v, want the skyline's peak, 4 to 6", p)
	}
	for i, into := range []any{&appsv1.DaemonSet{}, &appsv1.Deployment{}, &appsv1.Deployment{}, &appsv1.StatefulSet{}} {
		if err := yaml.UnmarshalStrict([]byte(docs[i+1]), into); err != nil {
			t.Errorf("document %d: %v", i+1, err)
		}
	}
	if got, want := cj.Annotations["wlprof/command"], "wlprof export kubernetes --container shop/deploy/cart=cart-api --dataset "+ds+" --step 5m0s"; got != want {
		t.Errorf("command annotation %q, want %q", got, want)
	}
}

// Without a node shape the usage cannot become cores and bytes: an error
// naming the nodes and the flags; with the flags, patches.
func TestExportKubernetesNeedsANodeShape(t *testing.T) {
	ds := kubeDataset(t, "csv") // machine_events of another source: not Kubernetes allocatable
	_, errs, code := wlprof(t, "export", "kubernetes", "-d", ds)
	if code != 1 || !strings.Contains(errs, "node-a, node-b") || !strings.Contains(errs, "--node-cpu and --node-memory") {
		t.Fatalf("exit %d, %q: want 1 naming the nodes and the flags", code, errs)
	}
	out, errs, code := wlprof(t, "export", "kubernetes", "-d", ds, "--node-cpu", "4", "--node-memory", "16G")
	if code != 0 || !strings.Contains(out, "kind: StatefulSet") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// Bad flags are usage errors (exit 2), each saying which.
	for _, bad := range [][]string{{"--cpu-limit", "max"}, {"--memory-percentile", "0"}, {"--node-cpu", "4"}, {"--node-memory", "lots", "--node-cpu", "4"}} {
		if _, errs, code := wlprof(t, append([]string{"export", "kubernetes", "-d", ds}, bad...)...); code != 2 {
			t.Errorf("%v: exit %d (%s), want 2", bad, code, errs)
		}
	}
}

// --out writes each object's patch to a file of its own, the same
// document as on stdout, and prints the files' names.
func TestExportKubernetesOut(t *testing.T) {
	ds := kubeDataset(t, "prometheus")
	all, _, code := wlprof(t, "export", "kubernetes", "-d", ds)
	if code != 0 {
		t.Fatal(code)
	}
	dir := filepath.Join(t.TempDir(), "patches")
	out, errs, code := wlprof(t, "export", "kubernetes", "-d", ds, "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	names := strings.Fields(out)
	want := []string{"batch_cronjob_nightly-report.yaml", "monitoring_daemonset_node-exporter.yaml", "shop_deployment_cart.yaml", "shop_deployment_web.yaml", "shop_statefulset_db.yaml"}
	if len(names) != len(want) {
		t.Fatalf("files %v, want %v", names, want)
	}
	var docs []string
	for i, n := range names {
		if filepath.Base(n) != want[i] {
			t.Errorf("file %s, want %s", n, want[i])
		}
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(b))
	}
	// The command annotation differs by --out; the rest is the same.
	strip := func(s string) string {
		var keep []string
		for _, l := range strings.Split(s, "\n") {
			if !strings.Contains(l, "wlprof/command:") && !strings.HasPrefix(l, "      --") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	if got := strip(strings.Join(docs, "---\n")); got != strip(all) {
		t.Errorf("the files differ from stdout:\n%s", diff(strip(all), got))
	}
}

// --profiles takes the skylines and models from profile files (a
// report's) instead of fitting them: the CronJob's parallelism is the
// file's peak, its memory the file's model.
func TestExportKubernetesProfiles(t *testing.T) {
	ds := kubeDataset(t, "prometheus")
	dir := filepath.Join(t.TempDir(), "report", "profiles")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	jobs := profile.Jobs{}
	p := jobs.Get("batch/nightly-report")
	p.Skyline = &profile.Skyline{Runs: 3, StepS: 300, Alpha: 0.1, Beta: 0.1, Model: "reduced", PeakReservation: 9,
		Containers: []float64{9}, Reservation: []int64{9}}
	p.Elasticity = []profile.ElasticityModel{{Task: "nightly-report", Kind: "step", IdealMemoryBytes: 3 << 30, IdealRuntimeS: 60,
		Curve: []profile.CurvePoint{{MemoryBytes: 1 << 30, Penalty: 0.5, Slowdown: 1.5}, {MemoryBytes: 2 << 30, Penalty: 0.05, Slowdown: 1.05}, {MemoryBytes: 3 << 30, Slowdown: 1}}}}
	if err := p.WriteFile(filepath.Join(dir, profile.FileName(p.Job))); err != nil {
		t.Fatal(err)
	}
	out, errs, code := wlprof(t, "export", "kubernetes", "-d", ds, "--profiles", filepath.Dir(dir))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var cj batchv1.CronJob
	if err := yaml.UnmarshalStrict([]byte(strings.Split(out, "\n---\n")[0]), &cj); err != nil {
		t.Fatal(err)
	}
	c := cj.Spec.JobTemplate.Spec.Template.Spec.Containers[0]
	if p := cj.Spec.JobTemplate.Spec.Parallelism; p == nil || *p != 9 {
		t.Errorf("parallelism %v, want the profile's 9", p)
	}
	if q := c.Resources.Requests.Memory(); q.String() != "2Gi" {
		t.Errorf("memory request %s, want the model's least within 10%%: 2Gi", q.String())
	}
	if _, errs, code := wlprof(t, "export", "kubernetes", "-d", ds, "--profiles", t.TempDir()); code != 1 || !strings.Contains(errs, "no job profile") {
		t.Errorf("an empty --profiles: exit %d, %q", code, errs)
	}
}
