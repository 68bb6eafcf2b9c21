package kube

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/profile"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Options are the export's settings; DefaultOptions gives the defaults.
type Options struct {
	// CPUPercentile and MemoryPercentile (in (0, 100]) pick the requests
	// from the usage samples: default 95 and 99.
	CPUPercentile, MemoryPercentile float64
	// MemoryMargin is the memory limit's margin over the peak sample, a
	// fraction: default 0.15.
	MemoryMargin float64
	// CPULimit is "none" (default) or "peak".
	CPULimit string
	// MaxSlowdown is the runtime penalty (a fraction) an elasticity
	// model's memory may cost: default 0.1, the report's.
	MaxSlowdown float64
	// NodeCPU (cores) and NodeMemoryBytes are the allocatable of nodes the
	// dataset gives no shape for; 0: none given.
	NodeCPU         float64
	NodeMemoryBytes int64
	// Namespace is where a bare job name's CronJob lives, in a dataset from
	// Kubernetes: default "default".
	Namespace string
	// Command is the command line written in each patch's wlprof/command
	// annotation.
	Command string
	// Containers name the container of objects whose data names none
	// (ParseContainer reads --container's NAMESPACE/KIND/NAME=CONTAINER);
	// default: the object's name.
	Containers    map[Ref]string
	containerArgs []string // --container as given
}

// ParseContainer reads one --container value, OBJECT=CONTAINER, OBJECT
// being NAMESPACE/KIND/NAME or a job's NAMESPACE/NAME (a CronJob).
func ParseContainer(s string) (Ref, string, error) {
	obj, c, ok := strings.Cut(s, "=")
	if !ok {
		return Ref{}, "", fmt.Errorf("--container %q: want NAMESPACE/KIND/NAME=CONTAINER", s)
	}
	var ref Ref
	var err error
	if strings.Count(obj, "/") == 2 {
		ref, _, err = ParseTenant(obj)
	} else {
		ref, err = ParseJob(obj, "")
	}
	if err != nil {
		return Ref{}, "", fmt.Errorf("--container %q: %w", s, err)
	}
	if errs := validation.IsDNS1123Label(c); len(errs) > 0 {
		return Ref{}, "", fmt.Errorf("--container %q: container name %q: %s", s, c, errs[0])
	}
	return ref, c, nil
}

// CPU limit rules.
const (
	CPULimitNone = "none"
	CPULimitPeak = "peak"
)

// DefaultOptions are the options of wlprof export kubernetes.
func DefaultOptions() Options {
	return Options{CPUPercentile: 95, MemoryPercentile: 99, MemoryMargin: 0.15, CPULimit: CPULimitNone, MaxSlowdown: 0.1, Namespace: "default"}
}

// Validate reports every bad option at once.
func (o *Options) Validate() error {
	var errs []error
	for _, p := range []struct {
		name string
		v    float64
	}{{"cpu percentile", o.CPUPercentile}, {"memory percentile", o.MemoryPercentile}} {
		if !(p.v > 0 && p.v <= 100) {
			errs = append(errs, fmt.Errorf("%s %v: want a percentile in (0, 100]", p.name, p.v))
		}
	}
	if !(o.MemoryMargin >= 0) || math.IsInf(o.MemoryMargin, 0) {
		errs = append(errs, fmt.Errorf("memory margin %v: want a fraction ≥ 0", o.MemoryMargin))
	}
	if !(o.MaxSlowdown >= 0) || math.IsInf(o.MaxSlowdown, 0) {
		errs = append(errs, fmt.Errorf("max slowdown %v: want a fraction ≥ 0", o.MaxSlowdown))
	}
	if o.CPULimit != CPULimitNone && o.CPULimit != CPULimitPeak {
		errs = append(errs, fmt.Errorf("cpu limit %q: want none or peak", o.CPULimit))
	}
	if o.NodeCPU < 0 || math.IsNaN(o.NodeCPU) || math.IsInf(o.NodeCPU, 0) || o.NodeMemoryBytes < 0 {
		errs = append(errs, fmt.Errorf("node shape %v cores, %d bytes: want positive values", o.NodeCPU, o.NodeMemoryBytes))
	} else if (o.NodeCPU > 0) != (o.NodeMemoryBytes > 0) {
		errs = append(errs, errors.New("node shape: give both the CPU and the memory of a node"))
	}
	return errors.Join(errs...)
}

// NodeShape is a node's allocatable.
type NodeShape struct {
	CPU         float64 // cores
	MemoryBytes int64
	// From says where the shape came from: the machine_events source, or
	// the option.
	From string
}

// Workload is one usage tenant that names a workload, or one job's pods
// (instances), its samples in cores and bytes.
type Workload struct {
	Tenant    string // the usage tenant, or the instances' job
	Ref       Ref
	Container string // "" when the tenant names none
	// From is FromUsage (CPU and Memory are samples over time) or
	// FromInstances (one value per pod: CPU its peak cores, Memory its
	// peak working set).
	From   string
	CPU    []float64
	Memory []float64 // samples with a memory value
	Nodes  []string  // the servers it ran on, sorted
	// Runs are the Jobs the pods belonged to (instances only).
	Runs int
	// FirstMs and LastMs bound the samples.
	FirstMs, LastMs int64
}

// RunStats are a recurring job's runs in the runs table.
type RunStats struct {
	Runs            int
	FirstMs, LastMs int64 // first start (or submit), last end (or start); NoTime when unknown
}

// Skipped is a tenant or job left out, and why.
type Skipped struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// Input is what Run reads: plain data.
type Input struct {
	Workloads []*Workload // by tenant
	// Nodes are the shapes of the cluster's nodes by name: the known
	// ones, and every usage server under the option's shape.
	Nodes map[string]NodeShape
	// Jobs are the profiles (skylines, elasticity models) the caller
	// computed or read; Runs the runs table's counts per job id.
	Jobs profile.Jobs
	Runs map[string]RunStats
	// ProfRuns are the profiling runs (profruns table) per job and task:
	// what the elasticity models were fitted on.
	ProfRuns   map[[2]string]RunStats
	Kubernetes bool
	Skipped    []Skipped
}

// Load reads the usage, machine_events and runs tables and the manifest;
// jobs are the profiles to take skylines and elasticity models from (nil:
// none). A usage row of a workload on a node of unknown shape is an error
// naming the nodes and the options that give a shape.
func Load(ctx context.Context, ds *dataset.Dataset, jobs profile.Jobs, opts Options) (*Input, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	in := &Input{Nodes: map[string]NodeShape{}, Jobs: jobs, Runs: map[string]RunStats{}, ProfRuns: map[[2]string]RunStats{}, Kubernetes: FromKubernetes(ds.Manifest())}
	if in.Jobs == nil {
		in.Jobs = profile.Jobs{}
	}
	if err := loadNodes(ctx, ds, in); err != nil {
		return nil, err
	}
	if err := loadUsage(ctx, ds, in, opts); err != nil {
		return nil, err
	}
	if len(in.Nodes) == 0 && opts.NodeCPU > 0 {
		// No node in the data (profiles only): the option's shape still
		// bounds the numbers.
		in.Nodes["(--node-cpu and --node-memory)"] = NodeShape{CPU: opts.NodeCPU, MemoryBytes: opts.NodeMemoryBytes, From: "--node-cpu and --node-memory"}
	}
	err := dataset.Scan(ctx, ds, dataset.RunsTable, func(r *dataset.Run) error {
		s, ok := in.Runs[r.Job]
		if !ok {
			s = RunStats{FirstMs: dataset.NoTime, LastMs: dataset.NoTime}
		}
		s.Runs++
		first, last := r.StartMs, r.EndMs
		if first == dataset.NoTime {
			first = r.SubmitMs
		}
		if last == dataset.NoTime {
			last = first
		}
		if first != dataset.NoTime && (s.FirstMs == dataset.NoTime || first < s.FirstMs) {
			s.FirstMs = first
		}
		if last != dataset.NoTime && (s.LastMs == dataset.NoTime || last > s.LastMs) {
			s.LastMs = last
		}
		in.Runs[r.Job] = s
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = dataset.Scan(ctx, ds, dataset.ProfRunsTable, func(r *dataset.ProfRun) error {
		k := [2]string{r.Job, r.Task}
		s, ok := in.ProfRuns[k]
		if !ok {
			s = RunStats{FirstMs: dataset.NoTime, LastMs: dataset.NoTime}
		}
		s.Runs++
		if r.StartMs != dataset.NoTime {
			end := r.StartMs + int64(r.RuntimeS*1000)
			if s.FirstMs == dataset.NoTime || r.StartMs < s.FirstMs {
				s.FirstMs = r.StartMs
			}
			if s.LastMs == dataset.NoTime || end > s.LastMs {
				s.LastMs = end
			}
		}
		in.ProfRuns[k] = s
		return nil
	})
	return in, err
}

// NodeShapes are the allocatable of the nodes a Kubernetes ingest
// recorded (machine_events), by node name; empty when it recorded none.
func NodeShapes(ctx context.Context, ds *dataset.Dataset) (map[string]NodeShape, error) {
	in := &Input{Nodes: map[string]NodeShape{}}
	err := loadNodes(ctx, ds, in)
	return in.Nodes, err
}

// loadNodes takes each machine's last shape from machine_events rows a
// Kubernetes ingest wrote (cores and bytes); other sources write other
// units (Google's NCU, Alibaba's mem_size / 100) and are not read.
func loadNodes(ctx context.Context, ds *dataset.Dataset, in *Input) error {
	last := map[string]int64{}
	return dataset.Scan(ctx, ds, dataset.MachineEventsTable, func(e *dataset.MachineEvent) error {
		if !kubeFormat(e.Source) || e.Type == dataset.MachineRemove || e.Type == dataset.MachineOut {
			return nil
		}
		if !(e.CPUs > 0) || !(e.Memory > 0) {
			return nil
		}
		if t, ok := last[e.Machine]; ok && e.TimeMs < t {
			return nil
		}
		last[e.Machine] = e.TimeMs
		in.Nodes[e.Machine] = NodeShape{CPU: e.CPUs, MemoryBytes: int64(e.Memory), From: "machine_events (" + e.Source + ")"}
		return nil
	})
}

func kubeFormat(f string) bool {
	for _, k := range Formats {
		if f == k {
			return true
		}
	}
	return false
}

func loadUsage(ctx context.Context, ds *dataset.Dataset, in *Input, opts Options) error {
	byTenant := map[string]*Workload{}
	bad := map[string]bool{}
	nodes := map[*Workload]map[string]bool{}
	unknown := map[string]bool{}
	err := dataset.Scan(ctx, ds, dataset.UsageTable, func(u *dataset.Usage) error {
		if bad[u.Tenant] || idle(u) {
			return nil
		}
		w := byTenant[u.Tenant]
		if w == nil {
			ref, c, err := ParseTenant(u.Tenant)
			if err != nil {
				bad[u.Tenant] = true
				in.Skipped = append(in.Skipped, Skipped{ID: u.Tenant, Reason: err.Error()})
				return nil
			}
			w = &Workload{Tenant: u.Tenant, Ref: ref, Container: c, From: FromUsage, FirstMs: u.TimeMs, LastMs: u.TimeMs}
			byTenant[u.Tenant] = w
			nodes[w] = map[string]bool{}
		}
		shape, ok := in.Nodes[u.Server]
		if !ok {
			if opts.NodeCPU <= 0 {
				unknown[u.Server] = true
				return nil
			}
			shape = NodeShape{CPU: opts.NodeCPU, MemoryBytes: opts.NodeMemoryBytes, From: "--node-cpu and --node-memory"}
			in.Nodes[u.Server] = shape
		}
		nodes[w][u.Server] = true
		if !math.IsNaN(u.CPU) {
			w.CPU = append(w.CPU, u.CPU*shape.CPU)
		}
		if !math.IsNaN(u.Memory) {
			w.Memory = append(w.Memory, u.Memory*float64(shape.MemoryBytes))
		}
		w.FirstMs, w.LastMs = min(w.FirstMs, u.TimeMs), max(w.LastMs, u.TimeMs)
		return nil
	})
	if err != nil {
		return err
	}
	if err := loadInstances(ctx, ds, in, opts, unknown); err != nil {
		return err
	}
	if len(unknown) > 0 {
		names := sortedKeys(unknown)
		more := ""
		if len(names) > 5 {
			more = fmt.Sprintf(" and %d more", len(names)-5)
			names = names[:5]
		}
		return fmt.Errorf("%w: %s%s: the dataset has no Kubernetes allocatable for them (machine_events from a prometheus ingest); give the node shape (--node-cpu and --node-memory)",
			ErrNoNodeShape, strings.Join(names, ", "), more)
	}
	for _, w := range byTenant {
		w.Nodes = sortedKeys(nodes[w])
		in.Workloads = append(in.Workloads, w)
	}
	// A job's pods before its usage: Run prefers them.
	sort.Slice(in.Workloads, func(a, b int) bool {
		wa, wb := in.Workloads[a], in.Workloads[b]
		if wa.From != wb.From {
			return wa.From == FromInstances
		}
		if wa.Tenant != wb.Tenant {
			return wa.Tenant < wb.Tenant
		}
		return wa.Container < wb.Container
	})
	sort.Slice(in.Skipped, func(a, b int) bool { return in.Skipped[a].ID < in.Skipped[b].ID })
	return nil
}

// ErrNoNodeShape: usage on nodes whose allocatable is not known, so its
// fractions cannot be turned into cores and bytes.
var ErrNoNodeShape = errors.New("no node shape for the servers")

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// idle says whether a usage row is no pod's sample: 0 CPU and 0 memory,
// which a Kubernetes ingest writes where none of a tenant's containers ran
// (a namespace of CronJobs between runs), on the node the tenant last ran
// on. A running container's working set is never 0 bytes, so no running
// pod's sample is taken for one (the rows an earlier wlprof wrote on
// server "<none>" are such rows too).
func idle(u *dataset.Usage) bool { return u.CPU == 0 && u.Memory == 0 }

// loadInstances reads the pods of Kubernetes Jobs (instances rows a
// Kubernetes ingest wrote: job the CronJob, stage the Job, task the pod's
// containers joined with ",", instance the pod, machine the node, cpu_avg
// and cpu_max in cores, mem_max a fraction of the node's allocatable
// memory). A pod of one container names the container its numbers set;
// the pods of a job whose pods have several are not read (a pod's numbers
// are its containers together, which cannot be split among them), and the
// containers' usage tenants give their numbers; a task equal to the
// instance (what an earlier wlprof wrote: the pod's name) names no
// container. A usage row sums a tenant's pods on one node, so
// where a Job's pods are known one by one they, not its usage, give the
// per-pod numbers. A pod's CPU is its peak rate (cpu_max): a Job's pod
// runs until it is done, so what it needs is its rate while running; its
// mean is pulled down by the first and last points of its rate window (on
// a generated cluster whose pods use 0.4 cores, the pods' means gave
// 387m, their peaks 400m).
func loadInstances(ctx context.Context, ds *dataset.Dataset, in *Input, opts Options, unknown map[string]bool) error {
	ns := ""
	if in.Kubernetes {
		ns = opts.Namespace
	}
	byJob := map[[2]string]*Workload{} // job, container
	runs := map[*Workload]map[string]bool{}
	nodes := map[*Workload]map[string]bool{}
	bad := map[string]bool{}
	several := map[string]string{} // job → a task of several containers
	err := dataset.Scan(ctx, ds, dataset.InstancesTable, func(r *dataset.Instance) error {
		if !kubeFormat(r.Source) || bad[r.Job] || math.IsNaN(r.CPUAvg) {
			return nil
		}
		container := r.Task
		if container == r.Instance {
			container = ""
		}
		if strings.Contains(container, ",") {
			if _, ok := several[r.Job]; !ok {
				several[r.Job] = container
			}
			return nil
		}
		k := [2]string{r.Job, container}
		w := byJob[k]
		if w == nil {
			ref, err := ParseJob(r.Job, ns)
			if err != nil {
				bad[r.Job] = true
				in.Skipped = append(in.Skipped, Skipped{ID: r.Job, Reason: "instances: " + err.Error()})
				return nil
			}
			if container != "" {
				if errs := validation.IsDNS1123Label(container); len(errs) > 0 {
					bad[r.Job] = true
					in.Skipped = append(in.Skipped, Skipped{ID: r.Job, Reason: fmt.Sprintf("instances: container name %q: %s", container, errs[0])})
					return nil
				}
			}
			w = &Workload{Tenant: r.Job, Ref: ref, Container: container, From: FromInstances, FirstMs: dataset.NoTime, LastMs: dataset.NoTime}
			byJob[k], runs[w], nodes[w] = w, map[string]bool{}, map[string]bool{}
		}
		shape, ok := in.Nodes[r.Machine]
		if !ok {
			if opts.NodeCPU <= 0 {
				unknown[r.Machine] = true
				return nil
			}
			shape = NodeShape{CPU: opts.NodeCPU, MemoryBytes: opts.NodeMemoryBytes, From: "--node-cpu and --node-memory"}
			in.Nodes[r.Machine] = shape
		}
		runs[w][r.Stage], nodes[w][r.Machine] = true, true
		cpu := r.CPUMax
		if math.IsNaN(cpu) {
			cpu = r.CPUAvg
		}
		w.CPU = append(w.CPU, cpu)
		if !math.IsNaN(r.MemMax) {
			w.Memory = append(w.Memory, r.MemMax*float64(shape.MemoryBytes))
		}
		for _, t := range []int64{r.StartMs, r.EndMs} {
			if t == dataset.NoTime {
				continue
			}
			if w.FirstMs == dataset.NoTime || t < w.FirstMs {
				w.FirstMs = t
			}
			if w.LastMs == dataset.NoTime || t > w.LastMs {
				w.LastMs = t
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for k, w := range byJob {
		if _, ok := several[k[0]]; ok {
			continue
		}
		w.Nodes, w.Runs = sortedKeys(nodes[w]), len(runs[w])
		in.Workloads = append(in.Workloads, w)
	}
	for job, task := range several {
		if !bad[job] {
			in.Skipped = append(in.Skipped, Skipped{ID: job, Reason: fmt.Sprintf("instances: its pods run several containers (%s): a pod's numbers are theirs together and cannot be split among them; its containers' usage (--tenant-key workload) gives their numbers", task)})
		}
	}
	return nil
}
