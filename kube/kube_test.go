package kube

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/datasettest"
	"github.com/wlprof/wlprof/profile"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

const gi = 1 << 30

// world is a small cluster written through the dataset's writers, named
// the Kubernetes way: what the export reads.
type world struct {
	nodes   map[string]NodeShape
	usage   []dataset.Usage
	runs    []dataset.Run
	prof    []dataset.ProfRun
	pods    []dataset.Instance
	formats []string
}

func (w world) write(t *testing.T) *dataset.Dataset {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ds")
	_, tx := datasettest.Begin(t, dir)
	names := make([]string, 0, len(w.nodes))
	for n := range w.nodes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s := w.nodes[n]
		tx.MachineEvents().Append(&dataset.MachineEvent{Machine: n, TimeMs: 0, Type: dataset.MachineAdd, CPUs: s.CPU, Memory: float64(s.MemoryBytes), Source: "prometheus"})
	}
	for i := range w.usage {
		tx.Usage().Append(&w.usage[i])
	}
	for i := range w.runs {
		tx.Runs().Append(&w.runs[i])
	}
	for i := range w.prof {
		tx.ProfRuns().Append(&w.prof[i])
	}
	for i := range w.pods {
		tx.Instances().Append(&w.pods[i])
	}
	for _, f := range w.formats {
		tx.AddSource(dataset.Source{Path: "cluster." + f, Format: f, Accepted: 1})
	}
	datasettest.Commit(t, tx)
	ds, err := dataset.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// samples adds n minutes of usage of tenant on node, cpu and memory drawn
// from [lo, hi) fractions of the node.
func (w *world) samples(rng *rand.Rand, tenant, node string, n int, cpuLo, cpuHi, memLo, memHi float64) {
	for i := 0; i < n; i++ {
		w.usage = append(w.usage, dataset.Usage{Tenant: tenant, Server: node, TimeMs: int64(1_800_000_000_000 + i*60_000),
			CPU: cpuLo + rng.Float64()*(cpuHi-cpuLo), Memory: memLo + rng.Float64()*(memHi-memLo)})
	}
}

// type7 is the percentile the export promises (Hyndman & Fan type 7),
// written again here from its definition.
func type7(x []float64, p float64) float64 {
	y := append([]float64(nil), x...)
	sort.Float64s(y)
	h := float64(len(y)-1) * p / 100
	i := int(h)
	if i+1 >= len(y) {
		return y[len(y)-1]
	}
	return y[i] + (h-float64(i))*(y[i+1]-y[i])
}

// expected computes what the export must write for a tenant from the
// samples the test wrote, in cores and bytes.
func expected(w world, tenant string, o Options, capCPU float64, capMem int64) (cpuReq, memReq, memLim int64) {
	var cpu, mem []float64
	for _, u := range w.usage {
		if u.Tenant == tenant && !idle(&u) {
			s := w.nodes[u.Server]
			cpu = append(cpu, u.CPU*s.CPU)
			mem = append(mem, u.Memory*float64(s.MemoryBytes))
		}
	}
	peak := 0.0
	for _, m := range mem {
		peak = math.Max(peak, m)
	}
	cpuReq = int64(math.Ceil(type7(cpu, o.CPUPercentile)*1000 - 1e-9))
	memReq = int64(math.Ceil(type7(mem, o.MemoryPercentile)/mi-1e-9)) * mi
	memLim = int64(math.Ceil(peak*(1+o.MemoryMargin)/mi-1e-9)) * mi
	cpuReq = min(cpuReq, int64(capCPU*1000))
	memReq, memLim = min(memReq, capMem/mi*mi), min(memLim, capMem/mi*mi)
	return
}

func shopWorld() world {
	rng := rand.New(rand.NewSource(1))
	w := world{nodes: map[string]NodeShape{"node-a": {CPU: 4, MemoryBytes: 16 * gi}, "node-b": {CPU: 8, MemoryBytes: 32 * gi}},
		formats: []string{"prometheus"}}
	w.samples(rng, "shop/Deployment/web/nginx", "node-a", 500, 0.05, 0.2, 0.02, 0.04)
	w.samples(rng, "shop/Deployment/web/nginx", "node-b", 500, 0.02, 0.1, 0.01, 0.02)
	w.samples(rng, "shop/Deployment/web/log-shipper", "node-a", 300, 0.001, 0.01, 0.001, 0.003)
	w.samples(rng, "monitoring/DaemonSet/node-exporter", "node-a", 200, 0.01, 0.03, 0.005, 0.01)
	w.samples(rng, "monitoring/DaemonSet/node-exporter", "node-b", 200, 0.005, 0.015, 0.002, 0.005)
	// A database whose memory grows past the largest node with the margin.
	w.samples(rng, "shop/StatefulSet/db/postgres", "node-b", 400, 0.3, 0.5, 0.8, 0.95)
	w.samples(rng, "kube-system", "node-a", 100, 0.1, 0.2, 0.1, 0.2)
	// Where none of a tenant's pods ran, a Kubernetes ingest writes rows
	// of 0 CPU and 0 memory on the node it last ran on: no pod's sample;
	// an earlier wlprof wrote them on server "<none>".
	w.samples(rng, "shop/Deployment/web/nginx", "node-a", 50, 0, 0, 0, 0)
	w.samples(rng, "shop/Deployment/web/nginx", "<none>", 50, 0, 0, 0, 0)
	w.samples(rng, "batch/CronJob/etl/etl", "node-b", 300, 0.1, 0.4, 0.1, 0.2)
	for i := 0; i < 5; i++ {
		start := int64(1_800_000_000_000 + i*86_400_000)
		w.runs = append(w.runs, dataset.Run{Job: "batch/etl", Run: fmt.Sprintf("etl-%d", 29000000+i), StartMs: start, EndMs: start + 3_600_000, SubmitMs: start})
	}
	for i, m := range []int64{1, 2, 3, 4} {
		w.prof = append(w.prof, dataset.ProfRun{Job: "batch/etl", Task: "etl", Framework: "spark", MemoryBytes: m * gi, RuntimeS: 100,
			StartMs: int64(1_800_000_000_000 + i*600_000), RunID: fmt.Sprint("p", i)})
	}
	return w
}

func etlProfile() profile.Jobs {
	jobs := profile.Jobs{}
	p := jobs.Get("batch/etl")
	p.Skyline = &profile.Skyline{Runs: 5, StepS: 60, Alpha: 0.1, Beta: 0.1, Model: "reduced", PeakReservation: 6}
	p.Elasticity = []profile.ElasticityModel{{Task: "etl", Kind: "spill-rate", IdealMemoryBytes: 4 * gi, IdealRuntimeS: 100,
		Curve:      []profile.CurvePoint{{MemoryBytes: 1 * gi, Penalty: 0.8}, {MemoryBytes: 2.5 * gi, Penalty: 0.08}, {MemoryBytes: 3 * gi, Penalty: 0.03}, {MemoryBytes: 4 * gi}},
		Validation: &profile.Validation{Runs: 3, MeanAbsError: 0.04}}}
	return jobs
}

func export(t *testing.T, w world, jobs profile.Jobs, o Options) (*Result, []byte) {
	t.Helper()
	ds := w.write(t)
	in, err := Load(context.Background(), ds, jobs, o)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), in, o)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := res.WriteYAML(&b); err != nil {
		t.Fatal(err)
	}
	return res, b.Bytes()
}

// decoded is one emitted document decoded strictly into its API type.
type decoded struct {
	meta        metav1.ObjectMeta
	kind        string
	containers  []corev1.Container
	parallelism *int32
}

// decodeAll splits the YAML stream and decodes every document strictly
// (unknown or duplicate fields are errors) into the Kubernetes type its
// kind names.
func decodeAll(t *testing.T, b []byte) []decoded {
	t.Helper()
	var out []decoded
	for i, doc := range strings.Split(string(b), "\n---\n") {
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal([]byte(doc), &tm); err != nil {
			t.Fatalf("document %d: %v", i, err)
		}
		var d decoded
		d.kind = tm.Kind
		var err error
		switch tm.APIVersion + " " + tm.Kind {
		case "apps/v1 Deployment":
			var o appsv1.Deployment
			err = yaml.UnmarshalStrict([]byte(doc), &o)
			d.meta, d.containers = o.ObjectMeta, o.Spec.Template.Spec.Containers
		case "apps/v1 StatefulSet":
			var o appsv1.StatefulSet
			err = yaml.UnmarshalStrict([]byte(doc), &o)
			d.meta, d.containers = o.ObjectMeta, o.Spec.Template.Spec.Containers
		case "apps/v1 DaemonSet":
			var o appsv1.DaemonSet
			err = yaml.UnmarshalStrict([]byte(doc), &o)
			d.meta, d.containers = o.ObjectMeta, o.Spec.Template.Spec.Containers
		case "batch/v1 CronJob":
			var o batchv1.CronJob
			err = yaml.UnmarshalStrict([]byte(doc), &o)
			d.meta, d.containers, d.parallelism = o.ObjectMeta, o.Spec.JobTemplate.Spec.Template.Spec.Containers, o.Spec.JobTemplate.Spec.Parallelism
		case "batch/v1 Job":
			var o batchv1.Job
			err = yaml.UnmarshalStrict([]byte(doc), &o)
			d.meta, d.containers, d.parallelism = o.ObjectMeta, o.Spec.Template.Spec.Containers, o.Spec.Parallelism
		default:
			t.Fatalf("document %d: apiVersion %q kind %q", i, tm.APIVersion, tm.Kind)
		}
		if err != nil {
			t.Fatalf("document %d does not decode strictly into %s: %v\n%s", i, tm.Kind, err, doc)
		}
		out = append(out, d)
	}
	return out
}

// numbers lists every number of a decoded document by evidence field.
func (d decoded) numbers() map[string]string {
	m := map[string]string{}
	for _, c := range d.containers {
		for name, q := range c.Resources.Requests {
			m["containers["+c.Name+"].requests."+string(name)] = q.String()
		}
		for name, q := range c.Resources.Limits {
			m["containers["+c.Name+"].limits."+string(name)] = q.String()
		}
	}
	if d.parallelism != nil {
		m["parallelism"] = fmt.Sprint(*d.parallelism)
	}
	return m
}

func (d decoded) evidence(t *testing.T) []Evidence {
	t.Helper()
	var ev []Evidence
	if err := json.Unmarshal([]byte(d.meta.Annotations[AnnotationEvidence]), &ev); err != nil {
		t.Fatalf("%s/%s: evidence annotation: %v", d.meta.Namespace, d.meta.Name, err)
	}
	return ev
}

// checkEvidence: every number of the document has exactly one evidence
// entry with the same value, and every entry names a number there.
func checkEvidence(t *testing.T, d decoded) {
	t.Helper()
	nums := d.numbers()
	seen := map[string]bool{}
	for _, e := range d.evidence(t) {
		v, ok := nums[e.Field]
		switch {
		case !ok:
			t.Errorf("%s %s: evidence for %s, which the patch does not set", d.kind, d.meta.Name, e.Field)
		case v != e.Value:
			t.Errorf("%s %s: %s is %s, its evidence says %s", d.kind, d.meta.Name, e.Field, v, e.Value)
		case seen[e.Field]:
			t.Errorf("%s %s: two evidence entries for %s", d.kind, d.meta.Name, e.Field)
		}
		seen[e.Field] = true
		complete := e.Statistic != ""
		switch e.From {
		case FromUsage:
			complete = complete && e.Samples > 0 && e.Nodes > 0 && e.Window != ""
		case FromInstances:
			complete = complete && e.Samples > 0 && e.Nodes > 0 && e.Runs > 0 && e.Window != ""
		case FromSkyline:
			complete = complete && e.Runs > 0 && e.Model != ""
		case FromElasticity:
			complete = complete && e.Model != ""
		default:
			complete = false
		}
		if !complete {
			t.Errorf("%s %s: %s's evidence is incomplete: %+v", d.kind, d.meta.Name, e.Field, e)
		}
	}
	for f := range nums {
		if !seen[f] {
			t.Errorf("%s %s: %s has no evidence", d.kind, d.meta.Name, f)
		}
	}
	for k := range d.meta.Annotations {
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			t.Errorf("annotation key %q: %v", k, errs)
		}
	}
}

func TestPatchesRoundTripThroughTheKubernetesTypes(t *testing.T) {
	w := shopWorld()
	o := DefaultOptions()
	o.Command = "wlprof export kubernetes -d ds"
	res, out := export(t, w, etlProfile(), o)
	docs := decodeAll(t, out)
	got := map[string]decoded{}
	for _, d := range docs {
		got[d.kind+" "+d.meta.Namespace+"/"+d.meta.Name] = d
		checkEvidence(t, d)
		if d.meta.Annotations[AnnotationCommand] != o.Command {
			t.Errorf("%s %s: command annotation %q", d.kind, d.meta.Name, d.meta.Annotations[AnnotationCommand])
		}
	}
	var keys []string
	for k := range got {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if want := "CronJob batch/etl,DaemonSet monitoring/node-exporter,Deployment shop/web,StatefulSet shop/db"; strings.Join(keys, ",") != want {
		t.Fatalf("objects %v, want %s", keys, want)
	}
	// Fields a patch must not carry: each would clear the live object's.
	for _, bad := range []string{"schedule:", "selector:", "status:", "creationTimestamp:", "null", `""`} {
		if bytes.Contains(out, []byte(bad)) {
			t.Errorf("the patches carry %s:\n%s", bad, out)
		}
	}
	// The numbers are the test's own percentiles of the samples it wrote.
	check := func(key, container, tenant string, capCPU float64, capMem int64) {
		t.Helper()
		cr, mr, ml := expected(w, tenant, o, capCPU, capMem)
		var c *corev1.Container
		for i := range got[key].containers {
			if got[key].containers[i].Name == container {
				c = &got[key].containers[i]
			}
		}
		if c == nil {
			t.Fatalf("%s: no container %s", key, container)
		}
		want := corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: *resource.NewMilliQuantity(cr, resource.DecimalSI), corev1.ResourceMemory: *resource.NewQuantity(mr, resource.BinarySI)},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: *resource.NewQuantity(ml, resource.BinarySI)}}
		for _, l := range []struct {
			got, want corev1.ResourceList
		}{{c.Resources.Requests, want.Requests}, {c.Resources.Limits, want.Limits}} {
			if len(l.got) != len(l.want) {
				t.Errorf("%s %s: %v, want %v", key, container, l.got, l.want)
			}
			for n, q := range l.want {
				if g := l.got[n]; g.Cmp(q) != 0 {
					t.Errorf("%s %s %s: %s, want %s", key, container, n, g.String(), q.String())
				}
			}
		}
	}
	check("Deployment shop/web", "nginx", "shop/Deployment/web/nginx", 8, 32*gi)
	check("Deployment shop/web", "log-shipper", "shop/Deployment/web/log-shipper", 8, 32*gi)
	check("DaemonSet monitoring/node-exporter", "node-exporter", "monitoring/DaemonSet/node-exporter", 4, 16*gi)
	check("StatefulSet shop/db", "postgres", "shop/StatefulSet/db/postgres", 8, 32*gi)
	// The database's memory limit (peak × 1.15 > 32 GiB) is capped at the
	// largest node and says so.
	db := got["StatefulSet shop/db"]
	if q := db.containers[0].Resources.Limits[corev1.ResourceMemory]; q.String() != "32Gi" {
		t.Errorf("db memory limit %s, want the largest node's 32Gi", q.String())
	}
	capped := false
	for _, e := range db.evidence(t) {
		if e.Field == "containers[postgres].limits.memory" && strings.Contains(e.Capped, "largest node") {
			capped = true
		}
	}
	if !capped {
		t.Errorf("db's capped memory limit does not say so: %v", db.evidence(t))
	}
	// The CronJob: parallelism from the skyline, memory from the model
	// (the least within 10%: 2.5 GiB at +8%), CPU from its usage.
	etl := got["CronJob batch/etl"]
	if etl.parallelism == nil || *etl.parallelism != 6 {
		t.Errorf("etl parallelism %v, want the skyline's peak 6", etl.parallelism)
	}
	c := etl.containers[0]
	if q := c.Resources.Requests[corev1.ResourceMemory]; q.String() != "2560Mi" {
		t.Errorf("etl memory request %s, want the model's 2.5 GiB = 2560Mi", q.String())
	}
	if q := c.Resources.Limits[corev1.ResourceMemory]; q.String() != "2560Mi" {
		t.Errorf("etl memory limit %s, want the model's 2560Mi", q.String())
	}
	cr, _, _ := expected(w, "batch/CronJob/etl/etl", o, 8, 32*gi)
	if q := c.Resources.Requests[corev1.ResourceCPU]; q.MilliValue() != cr {
		t.Errorf("etl cpu request %s, want %dm", q.String(), cr)
	}
	for _, e := range etl.evidence(t) {
		if e.Field == "parallelism" && (e.Runs != 5 || e.Window != "2027-01-15T08:00:00Z/2027-01-19T09:00:00Z") {
			t.Errorf("parallelism's evidence: %+v, want 5 runs over the runs table's window", e)
		}
		if e.From == FromElasticity && (e.Runs != 4 || e.Window != "2027-01-15T08:00:00Z/2027-01-15T08:31:40Z") {
			t.Errorf("the model's evidence: %+v, want its 4 profiling runs and their span", e)
		}
	}
	// The namespace's usage is skipped, and said why.
	if len(res.Skipped) != 1 || res.Skipped[0].ID != "kube-system" || !strings.Contains(res.Skipped[0].Reason, "namespace") {
		t.Errorf("skipped %+v, want kube-system as a namespace", res.Skipped)
	}
}

// Seeded property: whatever the samples and the nodes (the largest CPU
// and the largest memory on different nodes, pods of several containers),
// every request is at most its limit, the pod's requests summed over its
// containers fit some node (every node, for a DaemonSet), no limit is
// above the largest node's (the smallest's), and every number decodes back
// strictly with its evidence.
func TestRequestsNeverExceedTheNodeShape(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	scaled := 0
	for trial := 0; trial < 40; trial++ {
		w := world{nodes: map[string]NodeShape{}, formats: []string{"prometheus-json"}}
		nn := 1 + rng.Intn(4)
		for i := 0; i < nn; i++ {
			w.nodes[fmt.Sprintf("n%d", i)] = NodeShape{CPU: float64(1+rng.Intn(640)) / 10, MemoryBytes: int64(1+rng.Intn(256)) * gi}
		}
		kinds := []string{"Deployment", "sts", "DaemonSet", "cronjob"}
		for k := 0; k < 1+rng.Intn(6); k++ {
			tenant := fmt.Sprintf("ns%d/%s/w%d", rng.Intn(3), kinds[rng.Intn(len(kinds))], k)
			containers := []string{""}
			if rng.Intn(2) == 0 {
				containers = []string{"/a", "/b", "/c"}[:1+rng.Intn(3)]
			}
			for _, c := range containers {
				for i := 0; i < 1+rng.Intn(nn); i++ {
					hi := rng.Float64()
					w.samples(rng, tenant+c, fmt.Sprintf("n%d", i), 1+rng.Intn(50), 0, hi, 0, hi)
				}
			}
		}
		o := DefaultOptions()
		o.CPULimit = CPULimitPeak
		o.MemoryMargin = rng.Float64()
		o.CPUPercentile, o.MemoryPercentile = 50+50*rng.Float64(), 50+50*rng.Float64()
		res, out := export(t, w, nil, o)
		for i, d := range decodeAll(t, out) {
			checkEvidence(t, d)
			p := res.Patches[i]
			for _, e := range d.evidence(t) {
				if strings.Contains(e.Capped, "pod's requests") {
					scaled++
				}
			}
			var limCPU, limMem float64
			for _, n := range w.nodes {
				limCPU, limMem = math.Max(limCPU, n.CPU), math.Max(limMem, float64(n.MemoryBytes))
			}
			if p.Ref.Kind == DaemonSet {
				limCPU, limMem = math.Inf(1), math.Inf(1)
				for _, n := range w.nodes {
					limCPU, limMem = math.Min(limCPU, n.CPU), math.Min(limMem, float64(n.MemoryBytes))
				}
			}
			var cpu, mem int64
			for _, c := range d.containers {
				r, l := c.Resources.Requests, c.Resources.Limits
				cpu += r.Cpu().MilliValue()
				mem += r.Memory().Value()
				if r.Memory().Value()%mi != 0 || l.Memory().Value()%mi != 0 {
					t.Errorf("trial %d %s: memory %v / %v not in whole Mi", trial, p.Ref, r, l)
				}
				if l.Cpu().MilliValue() > int64(limCPU*1000+1e-6) || l.Cpu().Cmp(*r.Cpu()) < 0 {
					t.Errorf("trial %d %s: cpu limit %s (request %s, node %g)", trial, p.Ref, l.Cpu(), r.Cpu(), limCPU)
				}
				if float64(l.Memory().Value()) > limMem || l.Memory().Cmp(*r.Memory()) < 0 {
					t.Errorf("trial %d %s: memory limit %s (request %s, node %g)", trial, p.Ref, l.Memory(), r.Memory(), limMem)
				}
			}
			fitsSome, fitsAll := false, true
			for _, n := range w.nodes {
				f := cpu <= int64(n.CPU*1000+1e-6) && mem <= n.MemoryBytes
				fitsSome, fitsAll = fitsSome || f, fitsAll && f
			}
			if !fitsSome || p.Ref.Kind == DaemonSet && !fitsAll {
				t.Errorf("trial %d %s: the pod's requests (%dm, %d bytes) fit %v of the nodes %v", trial, p.Ref, cpu, mem, map[bool]string{true: "some but not all", false: "none"}[fitsSome], w.nodes)
			}
		}
	}
	if scaled == 0 {
		t.Error("no trial scaled a pod's requests: the property was not exercised")
	}
}

// wlprof's sizes are binary, Kubernetes' "G" decimal: the patches write
// memory in Mi or Gi only, never a decimal suffix.
func TestMemoryIsWrittenInBinaryUnits(t *testing.T) {
	for _, c := range []struct {
		bytes float64
		want  string
	}{{1, "1Mi"}, {mi, "1Mi"}, {mi + 1, "2Mi"}, {4 * gi, "4Gi"}, {4e9, "3815Mi"}, {1.5 * gi, "1536Mi"}} {
		if got := memText(mebi(c.bytes)); got != c.want {
			t.Errorf("%v bytes: %s, want %s", c.bytes, got, c.want)
		}
	}
	for _, c := range []struct {
		cores float64
		want  string
	}{{0.0001, "1m"}, {0.25, "250m"}, {0.1 * 2.5, "250m"}, {2, "2"}, {1.0001, "1001m"}} {
		if got := cpuText(milli(c.cores)); got != c.want {
			t.Errorf("%v cores: %s, want %s", c.cores, got, c.want)
		}
	}
}

func TestNames(t *testing.T) {
	for _, c := range []struct {
		tenant, ref, container, err string
	}{
		{"shop/Deployment/web", "shop/Deployment/web", "", ""},
		{"shop/deploy/web/nginx", "shop/Deployment/web", "nginx", ""},
		{"shop/sts/db", "shop/StatefulSet/db", "", ""},
		{"shop", "", "", "a namespace's usage"},
		{"web-1234", "", "", "a namespace's usage"},
		{"Shop/Deployment/web", "", "", "namespace"},
		{"shop/ReplicaSet/web-abc", "", "", "ReplicaSet"},
		{"shop/Deployment/web/Nginx", "", "", "container name"},
		{"a/b", "", "", "not a Kubernetes workload"},
	} {
		r, ct, err := ParseTenant(c.tenant)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want one saying %q", c.tenant, err, c.err)
		case c.err == "" && (err != nil || r.String() != c.ref || ct != c.container):
			t.Errorf("%s: %v %q %v, want %s %q", c.tenant, r, ct, err, c.ref, c.container)
		}
	}
	for _, c := range []struct{ job, ns, ref, err string }{
		{"batch/etl", "", "batch/CronJob/etl", ""},
		{"batch/CronJob/etl", "", "batch/CronJob/etl", ""},
		{"etl", "default", "default/CronJob/etl", ""},
		{"etl", "", "", "no namespace"},
		{"tpch_q12", "default", "", "name"},
		{"batch/Deployment/etl", "", "", "a job's runs"},
		{"batch/" + strings.Repeat("x", 53), "", "", "52 characters"},
	} {
		r, err := ParseJob(c.job, c.ns)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want one saying %q", c.job, err, c.err)
		case c.err == "" && (err != nil || r.String() != c.ref):
			t.Errorf("%s: %v %v, want %s", c.job, r, err, c.ref)
		}
	}
}

func TestFromKubernetes(t *testing.T) {
	for _, c := range []struct {
		formats []string
		want    bool
	}{{nil, false}, {[]string{"csv"}, false}, {[]string{"csv", "prometheus"}, true}, {[]string{"prometheus-json"}, true}} {
		m := &dataset.Manifest{}
		for _, f := range c.formats {
			m.Sources = append(m.Sources, dataset.Source{Format: f})
		}
		if got := FromKubernetes(m); got != c.want {
			t.Errorf("%v: %v, want %v", c.formats, got, c.want)
		}
	}
}

// Usage on a node without a shape is an error naming the node and the
// flags, never a silent drop; with the flags' shape it is read.
func TestUnknownNodeShape(t *testing.T) {
	w := world{nodes: map[string]NodeShape{}}
	w.samples(rand.New(rand.NewSource(3)), "shop/Deployment/web", "ip-10-0-0-1", 10, 0.1, 0.2, 0.1, 0.2)
	ds := w.write(t)
	_, err := Load(context.Background(), ds, nil, DefaultOptions())
	if !errors.Is(err, ErrNoNodeShape) || !strings.Contains(err.Error(), "ip-10-0-0-1") || !strings.Contains(err.Error(), "--node-cpu") {
		t.Fatalf("error %v, want one naming the node and --node-cpu", err)
	}
	o := DefaultOptions()
	o.NodeCPU, o.NodeMemoryBytes = 2, 8*gi
	in, err := Load(context.Background(), ds, nil, o)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), in, o)
	if err != nil || len(res.Patches) != 1 || res.Patches[0].Containers[0].Name != "web" {
		t.Fatalf("%v %+v", err, res)
	}
}

func TestOptionsValidate(t *testing.T) {
	o := Options{CPUPercentile: 0, MemoryPercentile: 101, MemoryMargin: -1, CPULimit: "max", MaxSlowdown: math.NaN(), NodeCPU: 2}
	err := o.Validate()
	for _, want := range []string{"cpu percentile 0", "memory percentile 101", "memory margin", "cpu limit", "max slowdown", "both"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want one saying %q", err, want)
		}
	}
}

// A usage row sums a tenant's pods on one node; a Job's pods known one by
// one (instances) give per-pod numbers instead, and the usage is skipped
// with the reason.
func TestJobPodsGivePerPodNumbers(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	w := world{nodes: map[string]NodeShape{"node-a": {CPU: 4, MemoryBytes: 16 * gi}, "node-b": {CPU: 8, MemoryBytes: 32 * gi}},
		formats: []string{"prometheus"}}
	// The usage: four pods at once on node-b, summed.
	w.samples(rng, "batch/CronJob/etl", "node-b", 100, 0.4, 0.8, 0.2, 0.4)
	var cpuPeak, memMax []float64
	for j := 0; j < 3; j++ {
		for k := 0; k < 4; k++ {
			node := []string{"node-a", "node-b"}[k%2]
			avg, peak, mem := 0.5+rng.Float64(), 1.5+rng.Float64(), 0.05+0.1*rng.Float64()
			start := int64(1_800_000_000_000 + j*86_400_000)
			w.pods = append(w.pods, dataset.Instance{Job: "batch/etl", Stage: fmt.Sprintf("batch/etl-%d", j), Task: fmt.Sprintf("etl-%d-%d", j, k),
				Instance: fmt.Sprintf("etl-%d-%d", j, k), StartMs: start, EndMs: start + 600_000, Machine: node,
				CPUAvg: avg, CPUMax: peak, MemAvg: mem / 2, MemMax: mem, Source: "prometheus"})
			cpuPeak = append(cpuPeak, peak)
			memMax = append(memMax, mem*float64(w.nodes[node].MemoryBytes))
		}
	}
	o := DefaultOptions()
	o.Containers = map[Ref]string{{Namespace: "batch", Kind: CronJob, Name: "etl"}: "report"}
	res, out := export(t, w, nil, o)
	docs := decodeAll(t, out)
	if len(docs) != 1 || docs[0].kind != CronJob || len(docs[0].containers) != 1 || docs[0].containers[0].Name != "report" {
		t.Fatalf("want one CronJob patch of container report (--container):\n%s", out)
	}
	checkEvidence(t, docs[0])
	r := docs[0].containers[0].Resources
	peak := 0.0
	for _, m := range memMax {
		peak = math.Max(peak, m)
	}
	for _, c := range []struct {
		name string
		got  resource.Quantity
		want int64
	}{
		{"cpu request", r.Requests[corev1.ResourceCPU], int64(math.Ceil(type7(cpuPeak, 95)*1000 - 1e-9))},
		{"memory request", r.Requests[corev1.ResourceMemory], int64(math.Ceil(type7(memMax, 99)/mi-1e-9)) * mi},
		{"memory limit", r.Limits[corev1.ResourceMemory], int64(math.Ceil(peak*1.15/mi-1e-9)) * mi},
	} {
		v := c.got.Value()
		if c.name == "cpu request" {
			v = c.got.MilliValue()
		}
		if v != c.want {
			t.Errorf("%s %s, want %d", c.name, c.got.String(), c.want)
		}
	}
	for _, e := range docs[0].evidence(t) {
		if e.From != FromInstances || e.Samples != 12 || e.Runs != 3 || e.Nodes != 2 {
			t.Errorf("evidence %+v, want 12 pods of 3 Jobs on 2 nodes", e)
		}
	}
	if len(res.Skipped) != 1 || res.Skipped[0].ID != "batch/CronJob/etl" || !strings.Contains(res.Skipped[0].Reason, "sums its pods") {
		t.Errorf("skipped %+v, want the CronJob's usage, saying why", res.Skipped)
	}
}

// The patches do what kubectl patch --type strategic does with them: the
// API server's strategic merge (apimachinery's strategicpatch, the code it
// runs) applied to live objects sets each container's resources by name
// and the Job template's parallelism, and keeps everything else: images,
// other containers and their order, replicas, selector, schedule,
// annotations. (The merge lists the containers a patch names in the
// patch's order among themselves, by name here, and keeps the others'
// places: a patch of one container never reorders; the Deployment below
// lists its two patched containers by name, as the doc says to expect.)
func TestPatchesApplyAsStrategicMerge(t *testing.T) {
	res, out := export(t, shopWorld(), etlProfile(), DefaultOptions())
	docs := strings.Split(string(out), "\n---\n")
	if len(docs) != len(res.Patches) {
		t.Fatalf("%d documents, %d patches", len(docs), len(res.Patches))
	}
	three := int32(3)
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}
	live := func(names ...string) corev1.PodTemplateSpec {
		tpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "x"}}}
		for _, n := range append([]string{"istio-proxy"}, append(names, "other")...) {
			tpl.Spec.Containers = append(tpl.Spec.Containers, corev1.Container{Name: n, Image: "registry.example/" + n + ":1",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("5"), corev1.ResourceEphemeralStorage: resource.MustParse("1Gi")}}})
		}
		return tpl
	}
	meta := func(ns, name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: map[string]string{"owner": "team-a"}}
	}
	for i, p := range res.Patches {
		var obj any
		var tpl *corev1.PodTemplateSpec
		var par **int32
		switch p.Ref.Kind {
		case Deployment:
			o := &appsv1.Deployment{ObjectMeta: meta(p.Ref.Namespace, p.Ref.Name), Spec: appsv1.DeploymentSpec{Replicas: &three, Selector: sel, Template: live("log-shipper", "nginx")}}
			obj, tpl = o, &o.Spec.Template
		case StatefulSet:
			o := &appsv1.StatefulSet{ObjectMeta: meta(p.Ref.Namespace, p.Ref.Name), Spec: appsv1.StatefulSetSpec{Replicas: &three, Selector: sel, ServiceName: "db", Template: live("postgres")}}
			obj, tpl = o, &o.Spec.Template
		case DaemonSet:
			o := &appsv1.DaemonSet{ObjectMeta: meta(p.Ref.Namespace, p.Ref.Name), Spec: appsv1.DaemonSetSpec{Selector: sel, Template: live("node-exporter")}}
			obj, tpl = o, &o.Spec.Template
		case CronJob:
			o := &batchv1.CronJob{ObjectMeta: meta(p.Ref.Namespace, p.Ref.Name), Spec: batchv1.CronJobSpec{Schedule: "0 2 * * *",
				JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: live("etl")}}}}
			obj, tpl, par = o, &o.Spec.JobTemplate.Spec.Template, &o.Spec.JobTemplate.Spec.Parallelism
		}
		before, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		patch, err := yaml.YAMLToJSON([]byte(docs[i]))
		if err != nil {
			t.Fatal(err)
		}
		after, err := strategicpatch.StrategicMergePatch(before, patch, obj)
		if err != nil {
			t.Fatalf("%s: the API server's strategic merge refuses the patch: %v", p.Ref, err)
		}
		wantTpl := tpl.DeepCopy()
		for _, c := range p.Containers {
			for k := range wantTpl.Spec.Containers {
				if wc := &wantTpl.Spec.Containers[k]; wc.Name == c.Name {
					r := c.Resources()
					for n, q := range r.Requests {
						wc.Resources.Requests[n] = q
					}
					if len(r.Limits) > 0 {
						wc.Resources.Limits = r.Limits
					}
				}
			}
		}
		if err := json.Unmarshal(after, obj); err != nil {
			t.Fatal(err)
		}
		// The live object's own fields survive the patch.
		var got appsv1.Deployment
		json.Unmarshal(after, &got)
		if got.Annotations["owner"] != "team-a" || got.Annotations[AnnotationEvidence] == "" {
			t.Errorf("%s: annotations %v, want the live ones and the evidence", p.Ref, got.Annotations)
		}
		for k, c := range tpl.Spec.Containers {
			w := wantTpl.Spec.Containers[k]
			if c.Name != w.Name || c.Image != w.Image {
				t.Errorf("%s: container %d is %s %s, want %s %s", p.Ref, k, c.Name, c.Image, w.Name, w.Image)
			}
			for n, q := range w.Resources.Requests {
				if g := c.Resources.Requests[n]; g.Cmp(q) != 0 {
					t.Errorf("%s %s: requests.%s %s, want %s", p.Ref, c.Name, n, g.String(), q.String())
				}
			}
			for n, q := range w.Resources.Limits {
				if g := c.Resources.Limits[n]; g.Cmp(q) != 0 {
					t.Errorf("%s %s: limits.%s %s, want %s", p.Ref, c.Name, n, g.String(), q.String())
				}
			}
		}
		if len(tpl.Spec.Containers) != len(wantTpl.Spec.Containers) {
			t.Errorf("%s: %d containers after the patch, want %d", p.Ref, len(tpl.Spec.Containers), len(wantTpl.Spec.Containers))
		}
		switch o := obj.(type) {
		case *appsv1.Deployment:
			if *o.Spec.Replicas != 3 || o.Spec.Selector == nil || o.Spec.Selector.MatchLabels["app"] != "x" {
				t.Errorf("%s: replicas or selector lost: %+v", p.Ref, o.Spec)
			}
		case *batchv1.CronJob:
			if o.Spec.Schedule != "0 2 * * *" || *par == nil || **par != p.Parallelism {
				t.Errorf("%s: schedule %q, parallelism %v; want 0 2 * * * and %d", p.Ref, o.Spec.Schedule, *par, p.Parallelism)
			}
		}
	}
}

// With profiles but no usage no node is known: the numbers say they were
// not checked against the nodes; --node-cpu and --node-memory bound them.
func TestProfilesWithoutNodes(t *testing.T) {
	w := world{formats: []string{"prometheus"}}
	o := DefaultOptions()
	o.MaxSlowdown = 0 // the model's ideal: 4 GiB
	_, out := export(t, w, etlProfile(), o)
	d := decodeAll(t, out)[0]
	checkEvidence(t, d)
	if q := d.containers[0].Resources.Requests.Memory(); q.String() != "4Gi" || !strings.Contains(d.meta.Annotations[AnnotationEvidence], "not checked against the nodes") {
		t.Errorf("memory %s, evidence %s: want 4Gi, not checked", q, d.meta.Annotations[AnnotationEvidence])
	}
	o.NodeCPU, o.NodeMemoryBytes = 2, 3*gi
	_, out = export(t, w, etlProfile(), o)
	d = decodeAll(t, out)[0]
	if q := d.containers[0].Resources.Requests.Memory(); q.String() != "3Gi" || !strings.Contains(d.meta.Annotations[AnnotationEvidence], "capped there") {
		t.Errorf("memory %s, evidence %s: want 3Gi, capped by --node-memory", q, d.meta.Annotations[AnnotationEvidence])
	}
}
