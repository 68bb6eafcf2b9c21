package kube

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/bytesize"
	"github.com/wlprof/wlprof/internal/quantile"
	"github.com/wlprof/wlprof/profile"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Evidence says where one number of a patch came from.
type Evidence struct {
	// Field is the number's place: "containers[web].requests.cpu",
	// "parallelism".
	Field string `json:"field"`
	// Value is the number as the patch writes it ("250m", "512Mi", "4").
	Value string `json:"value"`
	// From is usage, elasticity or skyline.
	From string `json:"from"`
	// Statistic is how: "p95", "peak × 1.15", "least memory within 10%
	// slowdown", "peak reservation".
	Statistic string `json:"statistic"`
	// Samples, Nodes: the usage samples and the nodes they came from;
	// Runs: the job's runs the skyline or the model was fitted on.
	Samples int `json:"samples,omitempty"`
	Nodes   int `json:"nodes,omitempty"`
	Runs    int `json:"runs,omitempty"`
	// Window is the samples' or runs' span, RFC 3339 start/end.
	Window string `json:"window,omitempty"`
	// Model names the elasticity model or the skyline's fit.
	Model string `json:"model,omitempty"`
	// Capped says why the number is smaller than the statistic.
	Capped string `json:"capped,omitempty"`
	Note   string `json:"note,omitempty"`
}

// Sources of a number.
const (
	FromUsage      = "usage"
	FromInstances  = "instances"
	FromElasticity = "elasticity"
	FromSkyline    = "skyline"
)

// Container is the resources set on one container.
type Container struct {
	Name               string
	CPURequestMilli    int64 // 0: not set
	CPULimitMilli      int64
	MemoryRequestBytes int64
	MemoryLimitBytes   int64
}

// Patch is one object's patch, its numbers and their evidence.
type Patch struct {
	Ref        Ref
	Containers []Container // by name
	// Parallelism is the Job's (a CronJob's job template's), 0 when not
	// set.
	Parallelism int32
	Evidence    []Evidence
	// Cap is the node shape no request or limit exceeds.
	Cap NodeShape
}

// Result is the export: the patches by namespace, kind and name, and what
// was left out.
type Result struct {
	Patches  []*Patch
	Skipped  []Skipped
	Warnings []string
	command  string
}

// ErrNothing: no tenant or job of the dataset names a Kubernetes workload
// with a number to set.
var ErrNothing = errors.New("no Kubernetes workload to patch")

// Run computes the patches. Every workload and job is patched or skipped
// with its reason; ErrNothing when none is patched.
func Run(ctx context.Context, in *Input, opts Options) (*Result, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	res := &Result{Skipped: append([]Skipped(nil), in.Skipped...), command: opts.Command}
	if len(in.Workloads) > 0 && len(in.Nodes) == 0 {
		return nil, ErrNoNodeShape
	}
	ns := ""
	if in.Kubernetes {
		ns = opts.Namespace
	}
	// The profiles by the object they describe.
	profs := map[Ref]*profile.Job{}
	for _, id := range in.Jobs.IDs() {
		p := in.Jobs[id]
		if p.Skyline == nil && len(p.Elasticity) == 0 {
			continue
		}
		ref, err := profileRef(id, ns)
		if err != nil {
			res.Skipped = append(res.Skipped, Skipped{ID: id, Reason: err.Error()})
			continue
		}
		profs[ref] = p
	}
	patches := map[Ref]*Patch{}
	get := func(r Ref) *Patch {
		p := patches[r]
		if p == nil {
			p = &Patch{Ref: r, Cap: nodeCap(in.Nodes, r.Kind)}
			patches[r] = p
		}
		return p
	}
	pods := map[Ref]bool{}
	for _, w := range in.Workloads {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if w.Ref.Kind == Job {
			res.Skipped = append(res.Skipped, Skipped{ID: w.Tenant, Reason: jobReason})
			continue
		}
		if len(w.CPU) == 0 && len(w.Memory) == 0 {
			res.Skipped = append(res.Skipped, Skipped{ID: w.Tenant, Reason: "no usage samples"})
			continue
		}
		if w.From == FromUsage && pods[w.Ref] {
			res.Skipped = append(res.Skipped, Skipped{ID: w.Tenant, Reason: fmt.Sprintf("the pods of %s are known one by one (instances), and give its numbers: a usage row sums its pods on a node", w.Ref)})
			continue
		}
		if w.From == FromInstances {
			pods[w.Ref] = true
		}
		p := get(w.Ref)
		name, note := w.Container, ""
		if name == "" {
			name, note = containerOf(w.Ref, opts)
			if w.From == FromInstances {
				note = joinNote(note, "the numbers are each pod's, all its containers together")
			} else {
				note = joinNote(note, "a sample is the workload's containers on one node together: one pod's where its replicas run on different nodes, more where they share one")
			}
		}
		if p.container(name) != nil {
			res.Skipped = append(res.Skipped, Skipped{ID: w.Tenant, Reason: fmt.Sprintf("container %s of %s already set from another tenant", name, w.Ref)})
			continue
		}
		c := Container{Name: name}
		fromUsage(p, &c, w, opts, note)
		if m := profs[w.Ref]; m != nil {
			fromModels(p, &c, m, opts, in.ProfRuns)
		}
		p.Containers = append(p.Containers, c)
	}
	// Jobs with a profile but no usage: the skyline's parallelism, and the
	// models' memory on the container named after the job.
	refs := make([]Ref, 0, len(profs))
	for r := range profs {
		refs = append(refs, r)
	}
	sort.Slice(refs, func(a, b int) bool { return refs[a].less(refs[b]) })
	for _, r := range refs {
		m := profs[r]
		id := m.Job
		if r.Kind == Job {
			res.Skipped = append(res.Skipped, Skipped{ID: id, Reason: jobReason})
			continue
		}
		if sk := m.Skyline; sk != nil && r.Kind == CronJob {
			if sk.PeakReservation <= 0 || sk.PeakReservation > math.MaxInt32 {
				res.Skipped = append(res.Skipped, Skipped{ID: id, Reason: fmt.Sprintf("skyline's peak reservation %d: no parallelism to set", sk.PeakReservation)})
			} else {
				p := get(r)
				p.Parallelism = int32(sk.PeakReservation)
				rs := in.Runs[id]
				p.Evidence = append(p.Evidence, Evidence{Field: "parallelism", Value: fmt.Sprint(p.Parallelism), From: FromSkyline,
					Statistic: "peak reservation", Runs: sk.Runs, Window: window(rs.FirstMs, rs.LastMs),
					Model: fmt.Sprintf("skyline fitted on %d runs (Jyothi et al., OSDI'16 §5): α %g, β %g, step %gs, model %s", sk.Runs, sk.Alpha, sk.Beta, sk.StepS, sk.Model),
					Note:  "the most pods the fitted reservation holds at once"})
			}
		}
		if len(m.Elasticity) == 0 {
			continue
		}
		if p := patches[r]; p != nil && len(p.Containers) > 0 {
			continue // the models were applied to the usage's containers
		}
		p := get(r)
		name, note := containerOf(r, opts)
		c := Container{Name: name}
		if fromModels(p, &c, m, opts, in.ProfRuns) {
			for i := range p.Evidence {
				if strings.HasPrefix(p.Evidence[i].Field, "containers["+c.Name+"]") {
					p.Evidence[i].Note = joinNote(p.Evidence[i].Note, "the job has no usage; "+note)
				}
			}
			p.Containers = append(p.Containers, c)
		}
	}
	shapes := sortedShapes(in.Nodes)
	for _, p := range patches {
		if len(p.Containers) == 0 && p.Parallelism == 0 {
			continue
		}
		p.fitPod(shapes)
		sort.Slice(p.Containers, func(a, b int) bool { return p.Containers[a].Name < p.Containers[b].Name })
		sort.SliceStable(p.Evidence, func(a, b int) bool { return p.Evidence[a].Field < p.Evidence[b].Field })
		res.Patches = append(res.Patches, p)
	}
	sort.Slice(res.Patches, func(a, b int) bool { return res.Patches[a].Ref.less(res.Patches[b].Ref) })
	sort.SliceStable(res.Skipped, func(a, b int) bool { return res.Skipped[a].ID < res.Skipped[b].ID })
	if len(res.Patches) == 0 {
		return res, ErrNothing
	}
	return res, nil
}

// jobReason is why a Job of its own (no CronJob owns it) is not patched.
const jobReason = "a Job of its own (no CronJob owns it): its runs are Jobs that have finished, which a patch no longer changes, and a Job's pod template cannot be changed once it exists; set its parallelism and resources where the Job is created"

// containerOf names the container of an object whose data names none:
// --container's, else the object's own name (what kubectl create and
// kubectl run give a single container), and the note saying which.
func containerOf(r Ref, opts Options) (string, string) {
	if c, ok := opts.Containers[r]; ok {
		return c, "the container is named by --container"
	}
	return r.Name, fmt.Sprintf("no container named in the data: the container is taken to be named after the %s, as kubectl create and kubectl run name it (--container %s=NAME to name it)", r.Kind, r)
}

func (p *Patch) container(name string) *Container {
	for i := range p.Containers {
		if p.Containers[i].Name == name {
			return &p.Containers[i]
		}
	}
	return nil
}

// profileRef reads a profile's job id: NAMESPACE/KIND/NAME with any kind
// wlprof patches (a profiled Deployment), else as ParseJob does.
func profileRef(id, ns string) (Ref, error) {
	if p := strings.Split(id, "/"); len(p) == 3 {
		r, err := newRef(p[0], p[1], p[2])
		if err != nil {
			return Ref{}, fmt.Errorf("job %q: %w", id, err)
		}
		return r, nil
	}
	return ParseJob(id, ns)
}

// nodeCap is the node shape a pod of kind must fit: the largest node's
// allocatable (a pod is placed on one node), the smallest's for a
// DaemonSet (its pods run on every node). CPU and memory are taken
// separately: the largest CPU and the largest memory.
func nodeCap(nodes map[string]NodeShape, kind string) NodeShape {
	var c NodeShape
	first := true
	for _, n := range sortedShapes(nodes) {
		switch {
		case first:
			c, first = n, false
		case kind == DaemonSet:
			c.CPU, c.MemoryBytes = math.Min(c.CPU, n.CPU), min(c.MemoryBytes, n.MemoryBytes)
		default:
			c.CPU, c.MemoryBytes = math.Max(c.CPU, n.CPU), max(c.MemoryBytes, n.MemoryBytes)
		}
	}
	return c
}

func sortedShapes(nodes map[string]NodeShape) []NodeShape {
	names := make([]string, 0, len(nodes))
	for n := range nodes {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]NodeShape, len(names))
	for i, n := range names {
		out[i] = nodes[n]
	}
	return out
}

const mi = 1 << 20

// milli rounds cores up to whole millicores (at least 1); the 1e-9 keeps a
// sum such as 0.1 × 2.5 = 0.25000000000000006 at 250m.
func milli(cores float64) int64 {
	return max(1, int64(math.Ceil(cores*1000-1e-9)))
}

// mebi rounds bytes up to whole MiB (at least 1).
func mebi(b float64) int64 {
	return max(1, int64(math.Ceil(b/mi-1e-9))) * mi
}

// CPUQuantity and MemoryQuantity are how the patches write the numbers.
func CPUQuantity(m int64) resource.Quantity    { return *resource.NewMilliQuantity(m, resource.DecimalSI) }
func MemoryQuantity(b int64) resource.Quantity { return *resource.NewQuantity(b, resource.BinarySI) }

func cpuText(m int64) string { q := CPUQuantity(m); return q.String() }
func memText(b int64) string { q := MemoryQuantity(b); return q.String() }

// capCPU and capMemory bound a number by the node shape, saying why.
func (p *Patch) capCPU(m int64) (int64, string) {
	lim := int64(math.Floor(p.Cap.CPU*1000 + 1e-9))
	if p.Cap.CPU > 0 && m > lim {
		return lim, fmt.Sprintf("%s is more than %s allocatable CPU (%s, %s): capped there", cpuText(m), p.capWhose(), cpuText(lim), p.Cap.From)
	}
	return m, ""
}

func (p *Patch) capMemory(b int64) (int64, string) {
	lim := p.Cap.MemoryBytes / mi * mi
	if p.Cap.MemoryBytes > 0 && b > lim {
		return lim, fmt.Sprintf("%s is more than %s allocatable memory (%s, %s): capped there", memText(b), p.capWhose(), memText(lim), p.Cap.From)
	}
	return b, ""
}

// fitPod scales the pod's requests down where their sums over its
// containers fit no node (for a DaemonSet: not every node): the scheduler
// places a pod by the sum, so containers each within a node can still make
// a pod that stays Pending. The target is the node the pod fits best (the
// one it overflows least), and each container keeps its share.
func (p *Patch) fitPod(shapes []NodeShape) {
	var cpu, mem int64
	for _, c := range p.Containers {
		cpu += c.CPURequestMilli
		mem += c.MemoryRequestBytes
	}
	if len(shapes) == 0 {
		// Only profiles, no usage: no node is known to check against.
		for i := range p.Evidence {
			if strings.HasPrefix(p.Evidence[i].Field, "containers[") {
				p.Evidence[i].Note = joinNote(p.Evidence[i].Note, "no node shape known (no usage in the dataset, no --node-cpu and --node-memory): not checked against the nodes")
			}
		}
		return
	}
	if cpu == 0 && mem == 0 {
		return
	}
	room := func(n NodeShape) (int64, int64) { return int64(math.Floor(n.CPU*1000 + 1e-9)), n.MemoryBytes / mi * mi }
	fits := func(n NodeShape) bool { c, m := room(n); return cpu <= c && mem <= m }
	target, where := p.Cap, "the smallest node (a DaemonSet runs on every node)"
	if p.Ref.Kind != DaemonSet {
		where = "no node"
		best := -1.0
		for _, n := range shapes {
			if fits(n) {
				return
			}
			c, m := room(n)
			r := math.Inf(1)
			if cpu > 0 {
				r = math.Min(r, float64(c)/float64(cpu))
			}
			if mem > 0 {
				r = math.Min(r, float64(m)/float64(mem))
			}
			if r > best {
				best, target = r, n
			}
		}
	} else if fits(target) {
		return
	}
	tc, tm := room(target)
	why := fmt.Sprintf("the pod's requests (%s CPU and %s memory over its %d containers) fit %s: scaled to a node of %s CPU and %s allocatable (%s), each container keeping its share",
		cpuText(cpu), memText(mem), len(p.Containers), where, cpuText(tc), memText(tm), target.From)
	for i := range p.Containers {
		c := &p.Containers[i]
		if cpu > tc && c.CPURequestMilli > 0 {
			c.CPURequestMilli = max(1, int64(math.Floor(float64(c.CPURequestMilli)*float64(tc)/float64(cpu))))
			p.recap("containers["+c.Name+"].requests.cpu", cpuText(c.CPURequestMilli), why)
		}
		if mem > tm && c.MemoryRequestBytes > 0 {
			c.MemoryRequestBytes = max(mi, int64(math.Floor(float64(c.MemoryRequestBytes)*float64(tm)/float64(mem)/mi))*mi)
			p.recap("containers["+c.Name+"].requests.memory", memText(c.MemoryRequestBytes), why)
		}
	}
}

// recap sets a number's evidence to its capped value and says why.
func (p *Patch) recap(field, value, why string) {
	for i := range p.Evidence {
		if e := &p.Evidence[i]; e.Field == field {
			e.Value, e.Capped = value, joinNote(e.Capped, why)
		}
	}
}

func (p *Patch) capWhose() string {
	if p.Ref.Kind == DaemonSet {
		return "the smallest node's (a DaemonSet runs on every node)"
	}
	return "the largest node's"
}

func fromUsage(p *Patch, c *Container, w *Workload, opts Options, note string) {
	field := func(f string) string { return "containers[" + c.Name + "]." + f }
	win := window(w.FirstMs, w.LastMs)
	ev := func(f, v, stat string, n int, capped string) {
		p.Evidence = append(p.Evidence, Evidence{Field: field(f), Value: v, From: w.From, Statistic: stat, Samples: n, Nodes: len(w.Nodes),
			Runs: w.Runs, Window: win, Capped: capped, Note: note})
	}
	// What the statistics are of, in words.
	cpuOf, cpuPeakOf, memOf, memPeakOf := "the CPU samples", "peak CPU sample", "the memory samples", "peak memory sample"
	if w.From == FromInstances {
		cpuOf, cpuPeakOf, memOf, memPeakOf = "the pods' peak CPU", "largest pod's peak CPU", "the pods' peak memory", "largest pod's peak memory"
	}
	if len(w.CPU) > 0 {
		m, why := p.capCPU(milli(quantile.Percentile(w.CPU, opts.CPUPercentile)))
		c.CPURequestMilli = m
		ev("requests.cpu", cpuText(m), "p"+pct(opts.CPUPercentile)+" of "+cpuOf, len(w.CPU), why)
		if opts.CPULimit == CPULimitPeak {
			l, why := p.capCPU(milli(maxOf(w.CPU)))
			c.CPULimitMilli = max(l, m)
			ev("limits.cpu", cpuText(c.CPULimitMilli), cpuPeakOf, len(w.CPU), why)
		}
	}
	if len(w.Memory) > 0 {
		r, why := p.capMemory(mebi(quantile.Percentile(w.Memory, opts.MemoryPercentile)))
		c.MemoryRequestBytes = r
		ev("requests.memory", memText(r), "p"+pct(opts.MemoryPercentile)+" of "+memOf, len(w.Memory), why)
		l, why := p.capMemory(mebi(maxOf(w.Memory) * (1 + opts.MemoryMargin)))
		c.MemoryLimitBytes = max(l, r)
		ev("limits.memory", memText(c.MemoryLimitBytes), fmt.Sprintf("%s × %s", memPeakOf, trimFloat(1+opts.MemoryMargin)), len(w.Memory), why)
	}
}

// fromModels sets the container's memory from the job's elasticity
// models, replacing the usage's: request = limit = the least memory
// within opts.MaxSlowdown, the largest over the models that apply. It
// says whether a model applied.
func fromModels(p *Patch, c *Container, job *profile.Job, opts Options, prof map[[2]string]RunStats) bool {
	var use []profile.ElasticityModel
	for _, m := range job.Elasticity {
		if m.Task == c.Name && !unreliable(m) {
			use = append(use, m)
		}
	}
	if len(use) == 0 {
		for _, m := range job.Elasticity {
			if !unreliable(m) && m.IdealMemoryBytes > 0 {
				use = append(use, m)
			}
		}
	}
	if len(use) == 0 {
		return false
	}
	var best profile.ElasticityModel
	least, pen := -1.0, 0.0
	for _, m := range use {
		l, pe := leastMemory(m, opts.MaxSlowdown)
		if l > least {
			best, least, pen = m, l, pe
		}
	}
	b, why := p.capMemory(mebi(least))
	// The models replace the usage's memory numbers.
	kept := p.Evidence[:0]
	for _, e := range p.Evidence {
		if e.Field != "containers["+c.Name+"].requests.memory" && e.Field != "containers["+c.Name+"].limits.memory" {
			kept = append(kept, e)
		}
	}
	p.Evidence = kept
	c.MemoryRequestBytes, c.MemoryLimitBytes = b, b
	model := fmt.Sprintf("%s model of the %s tasks of job %s (Iorgulescu et al., ATC'17 §2): ideal %s in %ss; %s at +%s runtime",
		best.Kind, best.Task, job.Job, bytesize.Human(best.IdealMemoryBytes), trimFloat(round3(best.IdealRuntimeS)), bytesize.Human(least), pctText(pen))
	if v := best.Validation; v != nil && v.Runs > 0 {
		model += fmt.Sprintf("; mean error %s on %d runs not used to fit", pctText(v.MeanAbsError), v.Runs)
	}
	note := ""
	if len(use) > 1 {
		note = fmt.Sprintf("the largest of %d models' memories: the pod runs every task kind", len(use))
	}
	if best.Task != c.Name {
		note = joinNote(note, "no model is for a task named after the container")
	}
	stat := fmt.Sprintf("least memory within %s slowdown", pctText(opts.MaxSlowdown))
	rs := prof[[2]string{job.Job, best.Task}]
	if rs.Runs == 0 {
		model += "; its profiling runs are not in this dataset"
	}
	for _, f := range []string{"requests.memory", "limits.memory"} {
		p.Evidence = append(p.Evidence, Evidence{Field: "containers[" + c.Name + "]." + f, Value: memText(b), From: FromElasticity, Statistic: stat,
			Runs: rs.Runs, Window: window(rs.FirstMs, rs.LastMs), Model: model, Capped: why, Note: note})
	}
	return true
}

// leastMemory is the least memory of the curve whose penalty is within
// maxPenalty, and that penalty; the ideal memory when no point is.
func leastMemory(m profile.ElasticityModel, maxPenalty float64) (float64, float64) {
	best, pen := m.IdealMemoryBytes, 0.0
	for _, c := range m.Curve {
		if c.Penalty <= maxPenalty && c.MemoryBytes < best {
			best, pen = c.MemoryBytes, c.Penalty
		}
	}
	return best, pen
}

// unreliable says whether a model's own warnings say its measurements
// contradict it (a smaller memory ran faster), as the report does: no
// number is built on such a model.
func unreliable(m profile.ElasticityModel) bool {
	for _, w := range m.Warnings {
		if strings.Contains(w, "non-monotone") || strings.Contains(w, "less than the ideal runtime") {
			return true
		}
	}
	return false
}

// Resources are the container's requests and limits as the API types
// hold them.
func (c Container) Resources() corev1.ResourceRequirements {
	var r corev1.ResourceRequirements
	set := func(l *corev1.ResourceList, name corev1.ResourceName, q resource.Quantity) {
		if *l == nil {
			*l = corev1.ResourceList{}
		}
		(*l)[name] = q
	}
	if c.CPURequestMilli > 0 {
		set(&r.Requests, corev1.ResourceCPU, CPUQuantity(c.CPURequestMilli))
	}
	if c.MemoryRequestBytes > 0 {
		set(&r.Requests, corev1.ResourceMemory, MemoryQuantity(c.MemoryRequestBytes))
	}
	if c.CPULimitMilli > 0 {
		set(&r.Limits, corev1.ResourceCPU, CPUQuantity(c.CPULimitMilli))
	}
	if c.MemoryLimitBytes > 0 {
		set(&r.Limits, corev1.ResourceMemory, MemoryQuantity(c.MemoryLimitBytes))
	}
	return r
}

func maxOf(x []float64) float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, v)
	}
	return m
}

func window(first, last int64) string {
	if first == dataset.NoTime || last == dataset.NoTime {
		return ""
	}
	f := func(ms int64) string { return time.UnixMilli(ms).UTC().Format(time.RFC3339) }
	return f(first) + "/" + f(last)
}

func pct(p float64) string { return trimFloat(p) }

func pctText(f float64) string { return trimFloat(round3(100*f)) + "%" }

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

func trimFloat(x float64) string { return fmt.Sprintf("%g", x) }

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
