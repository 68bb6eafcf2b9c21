package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wlprof/wlprof/internal/k8sworld"
	"github.com/wlprof/wlprof/kube"
	"github.com/wlprof/wlprof/reports"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// TestKubernetesEndToEnd: a generated cluster (internal/k8sworld: three
// long-running workloads of one container each, an hourly CronJob of 4
// pods of container etl, a Job of its own) backfilled into a real
// Prometheus on 127.0.0.1 (Debian's prometheus, which make test
// installs), read by wlprof ingest prometheus --url, and exported by
// wlprof export kubernetes with no --node-cpu, --node-memory or
// --container: the patches, decoded strictly into the Kubernetes types,
// carry the generator's truth. The same from the saved prometheus-json
// file.
func TestKubernetesEndToEnd(t *testing.T) {
	cfg := k8sworld.Small()
	cfg.Duration, cfg.Jobs = 6*time.Hour, 1
	w := k8sworld.New(cfg)
	dir := t.TempDir()
	srv := k8sworld.Serve(t, w)

	api, capture := filepath.Join(dir, "api"), filepath.Join(dir, "capture.jsonl")
	mustRun(t, "ingest", "prometheus", "-d", api, "--url", srv.URL, "--start", cfg.Start.Format(time.RFC3339),
		"--end", cfg.Start.Add(cfg.Duration).Format(time.RFC3339), "--step", "1m", "--tenant-key", "workload", "--save", capture)
	file := filepath.Join(dir, "file")
	mustRun(t, "ingest", "prometheus-json", "-d", file, "--tenant-key", "workload", capture)

	var outs []string
	for _, ds := range []string{api, file} {
		out, errs, code := wlprof(t, "export", "kubernetes", "-d", ds)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", ds, code, errs)
		}
		checkTruth(t, filepath.Base(ds), w, out, errs)
		outs = append(outs, strings.ReplaceAll(out, ds, "DS"))
	}
	if outs[0] != outs[1] {
		t.Errorf("the saved file's patches differ from the API's:\n%s", diff(outs[0], outs[1]))
	}

	// The report's answers count a node's cores from the data (8), not
	// harvest's 12-core default.
	rep := filepath.Join(dir, "report")
	_, errs, code := wlprof(t, "report", "-d", api, "--out", rep)
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(filepath.Join(rep, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var idx reports.Index
	if err := json.Unmarshal(b, &idx); err != nil {
		t.Fatal(err)
	}
	if h := idx.Summary.Decisions.Harvest; h.CoresPerServer != int(cfg.NodeCores) || !strings.Contains(h.CoresFrom, "allocatable") {
		t.Errorf("report: %d cores per node from %q, want %g from the nodes' allocatable", h.CoresPerServer, h.CoresFrom, cfg.NodeCores)
	}
}

// checkTruth decodes every patch strictly and compares it with the world:
// each workload's one container by its name, its CPU and memory requests
// near what its pods used (cores from fractions of the data's 8-core,
// 32 GiB nodes), the CronJob's parallelism its pods, its container etl;
// the Job of its own skipped with the reason.
func checkTruth(t *testing.T, name string, w *k8sworld.World, out, errs string) {
	t.Helper()
	type doc struct {
		kind        string
		containers  []corev1.Container
		parallelism *int32
	}
	got := map[string]doc{}
	for i, d := range strings.Split(out, "\n---\n") {
		var tm metav1.TypeMeta
		var om struct {
			Metadata metav1.ObjectMeta `json:"metadata"`
		}
		if err := yaml.Unmarshal([]byte(d), &tm); err != nil {
			t.Fatalf("%s: document %d: %v", name, i, err)
		}
		if err := yaml.Unmarshal([]byte(d), &om); err != nil {
			t.Fatalf("%s: document %d: %v", name, i, err)
		}
		var x doc
		x.kind = tm.Kind
		var err error
		switch tm.Kind {
		case kube.Deployment:
			var o appsv1.Deployment
			err = yaml.UnmarshalStrict([]byte(d), &o)
			x.containers = o.Spec.Template.Spec.Containers
		case kube.StatefulSet:
			var o appsv1.StatefulSet
			err = yaml.UnmarshalStrict([]byte(d), &o)
			x.containers = o.Spec.Template.Spec.Containers
		case kube.CronJob:
			var o batchv1.CronJob
			err = yaml.UnmarshalStrict([]byte(d), &o)
			x.containers, x.parallelism = o.Spec.JobTemplate.Spec.Template.Spec.Containers, o.Spec.JobTemplate.Spec.Parallelism
		default:
			t.Errorf("%s: document %d: kind %s %q", name, i, tm.APIVersion, tm.Kind)
			continue
		}
		if err != nil {
			t.Fatalf("%s: document %d does not decode strictly into %s: %v\n%s", name, i, tm.Kind, err, d)
		}
		got[om.Metadata.Namespace+"/"+tm.Kind+"/"+om.Metadata.Name] = x
	}
	cfg := w.Config()
	if len(got) != len(w.Tenants())+len(w.CronJobs()) {
		t.Errorf("%s: %d patches, want one per workload (%d) and CronJob (%d):\n%s", name, len(got), len(w.Tenants()), len(w.CronJobs()), out)
	}
	cpu := func(c corev1.Container) float64 {
		q := c.Resources.Requests[corev1.ResourceCPU]
		return q.AsApproximateFloat64()
	}
	mem := func(c corev1.Container) float64 {
		q := c.Resources.Requests[corev1.ResourceMemory]
		return q.AsApproximateFloat64()
	}
	near := func(what string, got, want, tol float64) {
		if math.Abs(got-want) > tol*want {
			t.Errorf("%s: %s %.4g, want %.4g ± %g%%", name, what, got, want, 100*tol)
		}
	}
	const mib = 1 << 20
	for _, tn := range w.Tenants() {
		d, ok := got[tn.Workload]
		if !ok {
			t.Errorf("%s: no patch of %s", name, tn.Workload)
			continue
		}
		if len(d.containers) != 1 || d.containers[0].Name != tn.Container {
			t.Errorf("%s: %s containers %+v, want its container %s", name, tn.Workload, d.containers, tn.Container)
			continue
		}
		c := d.containers[0]
		// A replica's cores per sample: the level (constant), the level ×
		// (1 + 0.6 sin) over whole periods (periodic), whose p95 is
		// 1 + 0.6 sin(0.45π); its working set 512 MiB + 256 MiB a core,
		// at p99 the sine's 1 + 0.6 sin(0.49π). Within the generator's ±1%
		// noise and the rate's window.
		switch tn.Pattern {
		case k8sworld.Constant:
			near(tn.Workload+" cpu request", cpu(c), tn.Cores, 0.02)
			near(tn.Workload+" memory request", mem(c), (512+256*tn.Cores)*mib, 0.02)
		case k8sworld.Periodic:
			near(tn.Workload+" cpu request", cpu(c), tn.Cores*(1+0.6*math.Sin(0.45*math.Pi)), 0.03)
			near(tn.Workload+" memory request", mem(c), (512+256*tn.Cores*(1+0.6*math.Sin(0.49*math.Pi)))*mib, 0.03)
		default:
			if cpu(c) < tn.Cores || mem(c) < (512+256*tn.Cores)*mib {
				t.Errorf("%s: %s requests %v, want at least its level %g cores", name, tn.Workload, c.Resources.Requests, tn.Cores)
			}
		}
	}
	for _, cj := range w.CronJobs() {
		d, ok := got[cj.Namespace+"/CronJob/"+cj.Name]
		if !ok {
			t.Errorf("%s: no patch of CronJob %s", name, cj.ID)
			continue
		}
		if d.parallelism == nil || int(*d.parallelism) != len(cfg.CronShape) {
			t.Errorf("%s: CronJob %s parallelism %v, want its %d pods", name, cj.ID, d.parallelism, len(cfg.CronShape))
		}
		if len(d.containers) != 1 || d.containers[0].Name != cj.Container {
			t.Errorf("%s: CronJob %s containers %+v, want %s", name, cj.ID, d.containers, cj.Container)
			continue
		}
		c := d.containers[0]
		near(cj.ID+" cpu request", cpu(c), k8sworld.CronPodUsedCores, 0.01)
		near(cj.ID+" memory request", mem(c), k8sworld.CronPodWorkingSet, 0.002)
	}
	for _, j := range w.Jobs() {
		if !strings.Contains(errs, "skipped "+j.ID+": a Job of its own") {
			t.Errorf("%s: stderr does not skip Job %s as a Job of its own:\n%s", name, j.ID, errs)
		}
	}
}
