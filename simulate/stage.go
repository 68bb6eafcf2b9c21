package simulate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/elasticity"
	"github.com/wlprof/wlprof/internal/bytesize"
	"github.com/wlprof/wlprof/internal/quantile"
	"github.com/wlprof/wlprof/internal/timeflag"
)

// Options of the simulate stage. Start from DefaultOptions.
type Options struct {
	// Trace is the simjobs-csv workload Load reads.
	Trace string
	// Policies are simulated in this order (default yarn, yarn-me).
	Policies []Policy
	// Nodes and NodeMemoryBytes are the clusters: every count with every
	// memory (a sweep when either has more than one), counts first.
	Nodes           []int
	NodeMemoryBytes []int64
	// NodeShapes, instead of Nodes and NodeMemoryBytes (both then empty),
	// are clusters of nodes of several shapes, each in node order;
	// several are swept. A shape's NodeCores 0 is NodeCores.
	NodeShapes [][]NodeShape
	// NodeCores per node (DSS: 16); a task takes its phase's cores (1).
	NodeCores int
	// MemoryUnitBytes is the allocation granularity (DSS: 100 MB).
	MemoryUnitBytes int64
	// NodeDiskBytesPerS is a node's disk bandwidth and ElasticDiskShare the
	// share of it elastic tasks may take together (§2.6, §3); a bandwidth
	// of 0 sets no limit.
	NodeDiskBytesPerS int64
	ElasticDiskShare  float64
	// DefaultModel is the model spec (ParseModel) of tasks with no model in
	// the trace or the dataset: none, or step:SLOWDOWN.
	DefaultModel string
	// ReservedGaps lets yarn-me use reserved nodes when that does not
	// delay the reserved job (§3).
	ReservedGaps bool
	// TargetMakespan, when positive, picks per policy the smallest swept
	// cluster whose makespan meets it.
	TargetMakespan time.Duration
	// Elasticity are the options the dataset's models are fitted with.
	Elasticity elasticity.Options
	// AlibabaMachineMemoryBytes is the memory plan_mem is a percentage of
	// when the history replays Alibaba 2018 jobs (HistoryOptions); 0
	// leaves them out.
	AlibabaMachineMemoryBytes int64
	// KeepSchedule keeps every task of the first cluster's simulations
	// (PolicySummary.Schedule); SeriesPoints, when positive, their memory
	// in use over time in that many buckets.
	KeepSchedule bool
	SeriesPoints int
}

// DefaultOptions: DSS's cluster (§4: 100 nodes of 16 cores and 10 GB,
// memory in 100 MB units; here GiB and MiB, as every size in wlprof),
// both policies, no model for tasks without one, a node disk of 500 MiB/s
// of which elastic tasks may take half.
func DefaultOptions() Options {
	return Options{Policies: []Policy{YARN, YARNME}, Nodes: []int{100}, NodeMemoryBytes: []int64{10 << 30}, NodeCores: 16,
		MemoryUnitBytes: 100 << 20, NodeDiskBytesPerS: 500 << 20, ElasticDiskShare: 0.5, DefaultModel: "none", ReservedGaps: true,
		Elasticity: elasticity.DefaultOptions()}
}

// Validate reports every bad option at once.
func (o *Options) Validate() error {
	var errs []error
	seen := map[Policy]bool{}
	if len(o.Policies) == 0 {
		errs = append(errs, errors.New("policy: want yarn, yarn-me or both"))
	}
	for _, p := range o.Policies {
		switch {
		case p != YARN && p != YARNME:
			errs = append(errs, fmt.Errorf("policy %q: want yarn or yarn-me", p))
		case seen[p]:
			errs = append(errs, fmt.Errorf("policy %q given twice", p))
		}
		seen[p] = true
	}
	shapes := len(o.NodeShapes) > 0
	if shapes {
		if len(o.Nodes) > 0 {
			errs = append(errs, errors.New("nodes and node-shapes both given: use --node-shapes alone (its shapes carry the node counts, e.g. 40x16G/16,10x64G/32), or --nodes with --node-memory"))
		}
		if len(o.NodeMemoryBytes) > 0 {
			errs = append(errs, errors.New("node-memory and node-shapes both given: use --node-shapes alone (its shapes carry the node memories, e.g. 40x16G/16,10x64G/32), or --node-memory with --nodes"))
		}
	} else {
		if len(o.Nodes) == 0 {
			errs = append(errs, errors.New("nodes: want at least one node count"))
		}
		if len(o.NodeMemoryBytes) == 0 {
			errs = append(errs, errors.New("node-memory: want at least one size"))
		}
	}
	for _, n := range o.Nodes {
		if n < 1 || n > 1_000_000 {
			errs = append(errs, fmt.Errorf("nodes %d: want 1 to 1000000", n))
		}
	}
	if !(o.MemoryUnitBytes > 0) {
		errs = append(errs, fmt.Errorf("memory-unit %d: want a size above 0", o.MemoryUnitBytes))
	}
	memOK := func(m int64) bool {
		return o.MemoryUnitBytes <= 0 || (m >= o.MemoryUnitBytes && m/o.MemoryUnitBytes <= math.MaxInt32/4)
	}
	for _, m := range o.NodeMemoryBytes {
		if !memOK(m) {
			errs = append(errs, fmt.Errorf("node-memory %s: want at least one memory unit (%s) and at most 2^29 of them", bytesize.Format(m), bytesize.Format(o.MemoryUnitBytes)))
		}
	}
	for _, cluster := range o.NodeShapes {
		total := 0
		for _, s := range cluster {
			var bad []string
			if s.Nodes < 1 || s.Nodes > 1_000_000 {
				bad = append(bad, fmt.Sprintf("%d nodes: want 1 to 1000000", s.Nodes))
			} else {
				total += s.Nodes
			}
			if !memOK(s.NodeMemoryBytes) {
				bad = append(bad, fmt.Sprintf("memory %s: want at least one memory unit (%s) and at most 2^29 of them", bytesize.Format(max(s.NodeMemoryBytes, 0)), bytesize.Format(o.MemoryUnitBytes)))
			}
			if s.NodeCores < 0 || s.NodeCores > 1<<20 {
				bad = append(bad, fmt.Sprintf("%d cores: want 1 or more (or none: --node-cores)", s.NodeCores))
			}
			if s.DiskBytesPerS < 0 {
				bad = append(bad, fmt.Sprintf("disk %d bytes/s: want more than 0 (or none: --node-disk-bandwidth)", s.DiskBytesPerS))
			}
			for _, b := range bad {
				errs = append(errs, fmt.Errorf("node-shapes %s: %s", s, b))
			}
		}
		if total > 1_000_000 {
			errs = append(errs, fmt.Errorf("node-shapes %s: %d nodes in all; want at most 1000000", ShapesString(cluster), total))
		}
		if len(cluster) == 0 {
			errs = append(errs, errors.New("node-shapes: an empty cluster (two ; in a row?)"))
		}
	}
	if o.NodeCores < 1 || o.NodeCores > 1<<20 {
		errs = append(errs, fmt.Errorf("node-cores %d: want 1 or more", o.NodeCores))
	}
	if o.NodeDiskBytesPerS < 0 {
		errs = append(errs, fmt.Errorf("node-disk-bandwidth %d: want 0 (no limit) or more", o.NodeDiskBytesPerS))
	}
	if !(o.ElasticDiskShare >= 0 && o.ElasticDiskShare <= 1) {
		errs = append(errs, fmt.Errorf("elastic-disk-share %g: want a share in [0, 1]", o.ElasticDiskShare))
	}
	if _, err := ParseModel(o.DefaultModel); err != nil {
		errs = append(errs, fmt.Errorf("default-model: %w", err))
	}
	if o.TargetMakespan < 0 {
		errs = append(errs, fmt.Errorf("target-makespan %s: want 0 (none) or more", timeflag.FormatDuration(o.TargetMakespan)))
	}
	if o.AlibabaMachineMemoryBytes < 0 {
		errs = append(errs, fmt.Errorf("alibaba-machine-memory %d: want a positive size, e.g. 512G (or 0: none)", o.AlibabaMachineMemoryBytes))
	}
	if o.SeriesPoints < 0 || o.SeriesPoints > 100_000 {
		errs = append(errs, fmt.Errorf("series points %d: want 0 to 100000", o.SeriesPoints))
	}
	if err := o.Elasticity.Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// ErrNoWorkload is returned by Load when there is no trace to read and
// the dataset has no task attempts to build the workload from.
var ErrNoWorkload = errors.New("simulate: no workload: the dataset has no task attempts to replay (ingest MapReduce .jhist files or Spark event logs first), and no --trace FILE (simjobs-csv) was given")

// ErrNoJobs is returned by Run when the input has no job.
var ErrNoJobs = errors.New("no jobs to simulate")

// Input is what Run simulates: the jobs, ordered by submission then id,
// every phase with its model, and what Load noticed on the way.
type Input struct {
	Jobs     []Job
	Warnings []string
	Workload Workload
}

// Workload says where the simulated jobs came from.
type Workload struct {
	// Source is "trace" (a simjobs-csv file, Trace) or "dataset" (the
	// dataset's task attempts, History).
	Source  string           `json:"source"`
	Trace   string           `json:"trace,omitempty"`
	History *HistoryWorkload `json:"history,omitempty"`
}

// Load reads the trace and gives every phase its model: the trace's
// model column, else the dataset's elasticity model of (job, task), else
// DefaultModel. A dataset model's ideal memory wins over the trace's (a
// warning when they differ by more than 10%). ds may be nil (no models).
func Load(ctx context.Context, ds *dataset.Dataset, opts Options) (Input, error) {
	if err := opts.Validate(); err != nil {
		return Input{}, err
	}
	var (
		jobs  []Job
		warns []string
		wl    = Workload{Source: "trace", Trace: opts.Trace}
	)
	if opts.Trace == "" {
		var hist HistoryWorkload
		var err error
		jobs, hist, warns, err = FromHistoryWith(ctx, ds, HistoryOptions{AlibabaMachineMemoryBytes: opts.AlibabaMachineMemoryBytes})
		if err != nil {
			return Input{}, err
		}
		if len(jobs) == 0 && hist.InstanceJobsSkipped > 0 {
			for _, w := range warns {
				if strings.HasPrefix(w, "Alibaba job") {
					return Input{}, fmt.Errorf("%w; %s", ErrNoWorkload, w)
				}
			}
		}
		if len(jobs) == 0 {
			return Input{}, ErrNoWorkload
		}
		wl = Workload{Source: "dataset", History: &hist}
	} else {
		var err error
		if jobs, err = ReadTraceFile(opts.Trace); err != nil {
			return Input{}, err
		}
	}
	var models []*elasticity.Model
	if ds != nil && ds.Rows(dataset.ProfRunsTable.Name) > 0 {
		eo := opts.Elasticity
		ein, err := elasticity.Load(ctx, ds, eo)
		if err != nil {
			return Input{}, err
		}
		res, err := elasticity.Run(ctx, ein, eo)
		if err != nil && !errors.Is(err, elasticity.ErrNoRuns) {
			return Input{}, err
		}
		if res != nil {
			models = res.Models
		}
	}
	def, _ := ParseModel(opts.DefaultModel)
	return Input{Jobs: jobs, Warnings: append(warns, ResolveModels(jobs, models, def)...), Workload: wl}, nil
}

// ResolveModels gives every phase without a trace model the fitted model
// of its (job, task), whose ideal memory then replaces the trace's, else
// def. Where several models fit one (job, task) (frameworks, slot
// counts), the one of the fewest slots, then the first framework by
// name, is used.
func ResolveModels(jobs []Job, models []*elasticity.Model, def Model) []string {
	var warns []string
	byKey := map[[2]string][]*elasticity.Model{}
	for _, m := range models {
		k := [2]string{m.Job, m.Task}
		byKey[k] = append(byKey[k], m)
	}
	for ji := range jobs {
		j := &jobs[ji]
		for pi := range j.Phases {
			p := &j.Phases[pi]
			if p.modelSet {
				continue
			}
			mj := j.ModelJob
			if mj == "" {
				mj = j.ID
			}
			ms := byKey[[2]string{mj, p.Task}]
			if len(ms) == 0 {
				p.Model, p.ModelSource = def, "default"
				continue
			}
			sort.SliceStable(ms, func(a, b int) bool {
				if ms[a].Slots != ms[b].Slots {
					return ms[a].Slots < ms[b].Slots
				}
				return ms[a].Framework < ms[b].Framework
			})
			m := ms[0]
			if len(ms) > 1 {
				warns = append(warns, fmt.Sprintf("job %s task %s: %d elasticity models (frameworks, slot counts); the %s one with %d slot(s) is used",
					j.ID, p.Task, len(ms), m.Framework, m.Slots))
			}
			if m.IdealMemoryBytes > 0 {
				if r := float64(m.IdealMemoryBytes) / float64(p.MemoryBytes); r > 1.1 || r < 1/1.1 {
					warns = append(warns, fmt.Sprintf("job %s task %s: the model's ideal memory %s differs from the trace's %s by more than 10%%; the model's is used",
						j.ID, p.Task, bytesize.Human(float64(m.IdealMemoryBytes)), bytesize.Human(float64(p.MemoryBytes))))
				}
				p.MemoryBytes = m.IdealMemoryBytes
			}
			p.Model, p.ModelSource = FittedModel{m}, "dataset"
		}
	}
	return warns
}

// Cluster is one simulated cluster: Nodes identical nodes, or the nodes
// of Shapes in that order. A cluster given as shapes has Nodes their
// total, and NodeMemoryBytes and NodeCores what every node has, or 0 when
// the nodes differ in that.
type Cluster struct {
	Nodes           int         `json:"nodes"`
	NodeMemoryBytes int64       `json:"node_memory_bytes"`
	NodeCores       int         `json:"node_cores"`
	Shapes          []NodeShape `json:"shapes,omitempty"`
}

// NodeShape is Nodes nodes of one memory, number of cores (0: the
// options' NodeCores) and disk bandwidth (0: the options'
// NodeDiskBytesPerS).
type NodeShape struct {
	Nodes           int   `json:"nodes"`
	NodeMemoryBytes int64 `json:"node_memory_bytes"`
	NodeCores       int   `json:"node_cores"`
	DiskBytesPerS   int64 `json:"node_disk_bytes_per_s,omitempty"`
}

// ShapesString writes a cluster of shapes as --node-shapes reads it,
// comma-separated.
func ShapesString(shapes []NodeShape) string {
	parts := make([]string, len(shapes))
	for i, s := range shapes {
		parts[i] = s.String()
	}
	return strings.Join(parts, ",")
}

// MemoryBytes is the cluster's memory: nodes × node memory, or the sum
// over its shapes.
func (c Cluster) MemoryBytes() int64 {
	if len(c.Shapes) == 0 {
		return int64(c.Nodes) * c.NodeMemoryBytes
	}
	var m int64
	for _, s := range c.Shapes {
		m += int64(s.Nodes) * s.NodeMemoryBytes
	}
	return m
}

// String writes the shape as --node-shapes reads it:
// COUNTxMEMORY[/CORES][@DISK].
func (s NodeShape) String() string {
	out := strconv.Itoa(s.Nodes) + "x" + bytesize.Format(s.NodeMemoryBytes)
	if s.NodeCores != 0 {
		out += "/" + strconv.Itoa(s.NodeCores)
	}
	if s.DiskBytesPerS != 0 {
		out += "@" + bytesize.Format(s.DiskBytesPerS)
	}
	return out
}

// ShapesCluster is the cluster of shapes (NodeCores 0: defCores): Nodes
// their total, NodeMemoryBytes and NodeCores what every node has, else 0.
func ShapesCluster(shapes []NodeShape, defCores int) Cluster {
	c := Cluster{Shapes: make([]NodeShape, len(shapes))}
	for i, s := range shapes {
		if s.NodeCores == 0 {
			s.NodeCores = defCores
		}
		c.Shapes[i] = s
		c.Nodes += s.Nodes
		if i == 0 {
			c.NodeMemoryBytes, c.NodeCores = s.NodeMemoryBytes, s.NodeCores
		}
		if s.NodeMemoryBytes != c.NodeMemoryBytes {
			c.NodeMemoryBytes = 0
		}
		if s.NodeCores != c.NodeCores {
			c.NodeCores = 0
		}
	}
	return c
}

// Uniform: every node of c has the same memory and cores, and no shape
// has a disk bandwidth of its own.
func (c Cluster) Uniform() bool {
	for _, s := range c.Shapes {
		if s.DiskBytesPerS > 0 {
			return false
		}
	}
	return c.NodeMemoryBytes > 0 && c.NodeCores > 0
}

// Describe writes the cluster for people: "4 nodes of 16 GiB and 16
// cores", or its shapes when the nodes differ: "50 nodes: 40 of 16 GiB
// and 16 cores, 10 of 64 GiB and 32 cores".
func (c Cluster) Describe() string {
	if c.Uniform() {
		return fmt.Sprintf("%d %s of %s and %d cores", c.Nodes, plural(c.Nodes, "node", "nodes"), bytesize.Human(float64(c.NodeMemoryBytes)), c.NodeCores)
	}
	parts := make([]string, len(c.Shapes))
	for i, s := range c.Shapes {
		parts[i] = fmt.Sprintf("%d of %s and %d cores", s.Nodes, bytesize.Human(float64(s.NodeMemoryBytes)), s.NodeCores)
		if s.DiskBytesPerS > 0 {
			parts[i] += fmt.Sprintf(" with %s/s of disk", bytesize.Human(float64(s.DiskBytesPerS)))
		}
	}
	return fmt.Sprintf("%d %s: %s", c.Nodes, plural(c.Nodes, "node", "nodes"), strings.Join(parts, ", "))
}

// ClusterInfo is the cluster of the result's policies and jobs, with the
// settings that shaped it.
type ClusterInfo struct {
	Cluster
	MemoryUnitBytes   int64   `json:"memory_unit_bytes"`
	NodeDiskBytesPerS int64   `json:"node_disk_bytes_per_s"`
	ElasticDiskShare  float64 `json:"elastic_disk_share"`
}

// PolicySummary is one policy on one cluster.
type PolicySummary struct {
	Policy    Policy  `json:"policy"`
	MakespanS float64 `json:"makespan_s"`
	// JCT is a job's completion time: its last task's end minus its
	// submission (§4's "job runtime").
	MeanJCTS          float64 `json:"mean_jct_s"`
	MedianJCTS        float64 `json:"median_jct_s"`
	P95JCTS           float64 `json:"p95_jct_s"`
	MemoryUtilisation float64 `json:"memory_utilisation"`
	ElasticTasks      int64   `json:"elastic_tasks"`
	Tasks             int64   `json:"tasks"`
	Jobs              int     `json:"jobs"`
	// TaskEvents counts task starts and finishes simulated.
	TaskEvents   int64         `json:"task_events"`
	MemorySeries []SeriesPoint `json:"memory_series,omitempty"`
	Schedule     []TaskRun     `json:"-"`
}

// JobOutcome is one job under one policy.
type JobOutcome struct {
	Job          string  `json:"job"`
	Policy       Policy  `json:"policy"`
	SubmitS      float64 `json:"submit_s"`
	FinishS      float64 `json:"finish_s"`
	JCTS         float64 `json:"jct_s"`
	Tasks        int32   `json:"tasks"`
	ElasticTasks int32   `json:"elastic_tasks"`
	// ObservedJCTS is the run's JCT in the history the workload was
	// built from (a workload from the dataset), absent otherwise: the
	// simulation of a cluster like the real one should come close.
	ObservedJCTS float64 `json:"observed_jct_s,omitempty"`
}

// SweepPoint is one policy on one swept cluster.
type SweepPoint struct {
	Nodes           int   `json:"nodes"`
	NodeMemoryBytes int64 `json:"node_memory_bytes"`
	// Shapes are the cluster's node shapes when it was given as shapes
	// (NodeMemoryBytes is then 0 unless every node has the same);
	// MemoryBytes is the cluster's memory in all.
	Shapes            []NodeShape `json:"shapes,omitempty"`
	MemoryBytes       int64       `json:"memory_bytes"`
	Policy            Policy      `json:"policy"`
	MakespanS         float64     `json:"makespan_s"`
	MeanJCTS          float64     `json:"mean_jct_s"`
	MemoryUtilisation float64     `json:"memory_utilisation"`
	ElasticTasks      int64       `json:"elastic_tasks"`
	// JobsLeftOut counts jobs with tasks larger than the cluster's nodes.
	JobsLeftOut int `json:"jobs_left_out"`
}

// Target is, for one policy, the smallest swept cluster (by total memory,
// then nodes) that runs every job within the target makespan; nil fields
// when none does.
type Target struct {
	Policy          Policy   `json:"policy"`
	TargetMakespanS float64  `json:"target_makespan_s"`
	Nodes           *int     `json:"nodes"`
	NodeMemoryBytes *int64   `json:"node_memory_bytes"`
	MakespanS       *float64 `json:"makespan_s"`
	// Shapes and MemoryBytes as in SweepPoint (absent when none meets).
	Shapes      []NodeShape `json:"shapes,omitempty"`
	MemoryBytes *int64      `json:"memory_bytes,omitempty"`
}

// Unschedulable is a job left out because a task is larger than a node.
type Unschedulable struct {
	Job    string `json:"job"`
	Task   string `json:"task"`
	Reason string `json:"reason"`
}

// PhaseInfo says which model a phase ran with.
type PhaseInfo struct {
	Job              string  `json:"job"`
	Task             string  `json:"task"`
	Tasks            int     `json:"tasks"`
	RuntimeS         float64 `json:"runtime_s"`
	IdealMemoryBytes int64   `json:"ideal_memory_bytes"`
	Cores            int     `json:"cores"`
	After            string  `json:"after,omitempty"`
	Model            string  `json:"model"`        // spec, or "fitted"
	ModelSource      string  `json:"model_source"` // trace, dataset, default
}

// Result is the simulation: the first cluster's policies and jobs, the
// sweep over every cluster, the targets.
type Result struct {
	Version       int             `json:"version"`
	Cluster       ClusterInfo     `json:"cluster"`
	Policies      []PolicySummary `json:"policies"`
	Jobs          []JobOutcome    `json:"jobs"`
	Sweep         []SweepPoint    `json:"sweep,omitempty"`
	Targets       []Target        `json:"targets,omitempty"`
	Unschedulable []Unschedulable `json:"unschedulable"`
	Phases        []PhaseInfo     `json:"phases"`
	Warnings      []string        `json:"warnings"`
	// Workload says where the jobs came from (a trace or the dataset's
	// task attempts); absent when Run was given jobs directly.
	Workload *Workload `json:"workload,omitempty"`
}

// Clusters lists the clusters opts describes: every count with every
// memory, counts first; or each cluster of shapes, in order.
func (o *Options) Clusters() []Cluster {
	if len(o.NodeShapes) > 0 {
		cs := make([]Cluster, len(o.NodeShapes))
		for i, sh := range o.NodeShapes {
			cs[i] = ShapesCluster(sh, o.NodeCores)
		}
		return cs
	}
	var cs []Cluster
	for _, n := range o.Nodes {
		for _, m := range o.NodeMemoryBytes {
			cs = append(cs, Cluster{Nodes: n, NodeMemoryBytes: m, NodeCores: o.NodeCores})
		}
	}
	return cs
}

// config is the engine's view of one cluster and policy.
func (o *Options) config(c Cluster, p Policy) Config {
	disk := int64(-1)
	if o.NodeDiskBytesPerS > 0 {
		disk = int64(math.Floor(o.ElasticDiskShare * float64(o.NodeDiskBytesPerS)))
	}
	shapes := c.Shapes
	if len(shapes) == 0 {
		shapes = []NodeShape{{Nodes: c.Nodes, NodeMemoryBytes: c.NodeMemoryBytes, NodeCores: c.NodeCores}}
	}
	cfg := Config{Policy: p, UnitBytes: o.MemoryUnitBytes, ElasticDiskBytesPerS: disk, ReservedGaps: o.ReservedGaps}
	for _, s := range shapes {
		cores := s.NodeCores
		if cores == 0 {
			cores = o.NodeCores
		}
		g := NodeGroup{Count: s.Nodes, Units: int32(s.NodeMemoryBytes / o.MemoryUnitBytes), Cores: int32(cores), MemoryBytes: s.NodeMemoryBytes}
		if s.DiskBytesPerS > 0 {
			g.OwnDisk, g.ElasticDiskBytesPerS = true, int64(math.Floor(o.ElasticDiskShare*float64(s.DiskBytesPerS)))
		}
		cfg.Groups = append(cfg.Groups, g)
	}
	return cfg
}

// leftOut marks the jobs with a task that fits no node of the cluster
// (memory and cores together).
func leftOut(w *prepared, jobs []Job, cfg Config) ([]bool, []Unschedulable) {
	skip := make([]bool, len(w.jobs))
	var out []Unschedulable
	big := cfg.Groups[0] // the largest node's memory, the most cores
	for _, g := range cfg.Groups[1:] {
		if g.Units > big.Units {
			big.Units, big.MemoryBytes = g.Units, g.MemoryBytes
		}
		big.Cores = max(big.Cores, g.Cores)
	}
	a := "a node's"
	for _, g := range cfg.Groups {
		if g.Units != big.Units || g.Cores != big.Cores {
			a = "the largest node's" // memory, or cores: the most any node has
		}
	}
	for ji, pj := range w.jobs {
		for i := pj.p0; i < pj.p0+pj.np; i++ {
			p := &w.phases[i]
			fits := false
			for _, g := range cfg.Groups {
				fits = fits || (p.ideal <= g.Units && p.cores <= g.Cores)
			}
			mem := bytesize.Human(float64(jobs[ji].Phases[i-pj.p0].MemoryBytes))
			var why string
			switch {
			case fits:
				continue
			case p.ideal > big.Units:
				why = fmt.Sprintf("a task needs %s (%d units of %s), more than %s %s (%d units): the job is not simulated",
					mem, p.ideal, bytesize.Format(cfg.UnitBytes), a, bytesize.Human(float64(big.MemoryBytes)), big.Units)
			case p.cores > big.Cores:
				why = fmt.Sprintf("a task needs %d cores, more than %s %d: the job is not simulated", p.cores, a, big.Cores)
			default:
				why = fmt.Sprintf("a task needs %s (%d units of %s) and %d cores: no node has both, the job is not simulated", mem, p.ideal, bytesize.Format(cfg.UnitBytes), p.cores)
			}
			skip[ji] = true
			out = append(out, Unschedulable{Job: pj.id, Task: jobs[ji].Phases[i-pj.p0].Task, Reason: why})
		}
	}
	return skip, out
}

// Simulate runs jobs (ordered as SortJobs orders them, models resolved)
// on one cluster under one policy with opts' settings: the stage's
// per-key core. Jobs with a task larger than a node are left out (their
// FinishS is NaN) and listed.
func Simulate(ctx context.Context, jobs []Job, c Cluster, p Policy, opts Options) (*Outcome, []Unschedulable, error) {
	if err := opts.Validate(); err != nil {
		return nil, nil, err
	}
	w := prepare(jobs, opts.MemoryUnitBytes)
	cfg := opts.config(c, p)
	cfg.KeepSchedule, cfg.SeriesPoints = opts.KeepSchedule, opts.SeriesPoints
	skip, un := leftOut(w, jobs, cfg)
	out, err := simulate(ctx, w, skip, cfg)
	return out, un, err
}

// Run simulates every policy on every cluster (in parallel; the results
// do not depend on it) and summarises.
func Run(ctx context.Context, in Input, opts Options) (*Result, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if len(in.Jobs) == 0 {
		return nil, ErrNoJobs
	}
	w := prepare(in.Jobs, opts.MemoryUnitBytes)
	clusters := opts.Clusters()
	type run struct {
		c    int
		p    Policy
		cfg  Config
		skip []bool
		un   []Unschedulable
		out  *Outcome
		err  error
	}
	var runs []*run
	for ci, c := range clusters {
		for _, p := range opts.Policies {
			cfg := opts.config(c, p)
			if ci == 0 {
				cfg.KeepSchedule, cfg.SeriesPoints = opts.KeepSchedule, opts.SeriesPoints
			}
			skip, un := leftOut(w, in.Jobs, cfg)
			runs = append(runs, &run{c: ci, p: p, cfg: cfg, skip: skip, un: un})
		}
	}
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	var wg sync.WaitGroup
	for _, r := range runs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			r.out, r.err = simulate(ctx, w, r.skip, r.cfg)
		}()
	}
	wg.Wait()
	for _, r := range runs {
		if r.err != nil {
			return nil, r.err
		}
	}
	res := &Result{Version: 1, Cluster: ClusterInfo{Cluster: clusters[0], MemoryUnitBytes: opts.MemoryUnitBytes,
		NodeDiskBytesPerS: opts.NodeDiskBytesPerS, ElasticDiskShare: opts.ElasticDiskShare},
		Policies: []PolicySummary{}, Jobs: []JobOutcome{}, Unschedulable: []Unschedulable{}, Phases: []PhaseInfo{},
		Warnings: append([]string{}, in.Warnings...)}
	if in.Workload.Source != "" {
		wl := in.Workload
		res.Workload = &wl
	}
	for _, j := range in.Jobs {
		for _, p := range j.Phases {
			spec := ModelSpec(p.Model)
			if spec == "" {
				spec = "fitted"
			}
			res.Phases = append(res.Phases, PhaseInfo{Job: j.ID, Task: p.Task, Tasks: p.Tasks, RuntimeS: p.RuntimeS, IdealMemoryBytes: p.MemoryBytes,
				Cores: p.Cores, After: p.After, Model: spec, ModelSource: p.ModelSource})
		}
	}
	res.Warnings = append(res.Warnings, diskWarnings(w, in.Jobs, opts.config(clusters[0], YARNME))...)
	sweep := len(clusters) > 1
	for _, r := range runs {
		s := summarise(r.p, r.out, r.skip, w)
		if r.c == 0 {
			res.Policies = append(res.Policies, s)
			if r.p == opts.Policies[0] {
				res.Unschedulable = append(res.Unschedulable, r.un...)
			}
			for ji, pj := range w.jobs {
				if r.skip[ji] {
					continue
				}
				res.Jobs = append(res.Jobs, JobOutcome{Job: pj.id, Policy: r.p, SubmitS: pj.submit, FinishS: r.out.FinishS[ji],
					JCTS: r.out.FinishS[ji] - pj.submit, Tasks: r.out.Tasks[ji], ElasticTasks: r.out.ElasticTasks[ji], ObservedJCTS: in.Jobs[ji].ObservedS})
			}
		}
		if sweep || opts.TargetMakespan > 0 {
			left := 0
			for _, s := range r.skip {
				if s {
					left++
				}
			}
			c := clusters[r.c]
			res.Sweep = append(res.Sweep, SweepPoint{Nodes: c.Nodes, NodeMemoryBytes: c.NodeMemoryBytes, Shapes: c.Shapes, MemoryBytes: c.MemoryBytes(), Policy: r.p, MakespanS: s.MakespanS,
				MeanJCTS: s.MeanJCTS, MemoryUtilisation: s.MemoryUtilisation, ElasticTasks: s.ElasticTasks, JobsLeftOut: left})
		}
	}
	if opts.TargetMakespan > 0 {
		res.Targets = targets(res.Sweep, opts.Policies, opts.TargetMakespan.Seconds())
	}
	return res, nil
}

func summarise(p Policy, out *Outcome, skip []bool, w *prepared) PolicySummary {
	s := PolicySummary{Policy: p, MakespanS: out.MakespanS, MemoryUtilisation: out.MemoryUtilisation, TaskEvents: out.TaskEvents,
		MemorySeries: out.MemorySeries, Schedule: out.Schedule}
	var jct []float64
	for ji := range w.jobs {
		if skip[ji] {
			continue
		}
		jct = append(jct, out.FinishS[ji]-w.jobs[ji].submit)
		s.Tasks += int64(out.Tasks[ji])
		s.ElasticTasks += int64(out.ElasticTasks[ji])
	}
	s.Jobs = len(jct)
	if len(jct) > 0 {
		sum := 0.0
		for _, x := range jct {
			sum += x
		}
		s.MeanJCTS = sum / float64(len(jct))
		s.MedianJCTS = quantile.Median(jct)
		s.P95JCTS = quantile.Percentile(jct, 95)
	}
	return s
}

// targets picks per policy the smallest cluster (total memory, then
// nodes, then sweep order) with every job run and the makespan met.
func targets(sweep []SweepPoint, policies []Policy, target float64) []Target {
	var out []Target
	for _, p := range policies {
		t := Target{Policy: p, TargetMakespanS: target}
		var best *SweepPoint
		for i := range sweep {
			s := &sweep[i]
			if s.Policy != p || s.JobsLeftOut > 0 || s.MakespanS > target {
				continue
			}
			if best == nil {
				best = s
				continue
			}
			if s.MemoryBytes < best.MemoryBytes || (s.MemoryBytes == best.MemoryBytes && s.Nodes < best.Nodes) {
				best = s
			}
		}
		if best != nil {
			n, m, mk, tm := best.Nodes, best.NodeMemoryBytes, best.MakespanS, best.MemoryBytes
			t.Nodes, t.NodeMemoryBytes, t.MakespanS, t.MemoryBytes, t.Shapes = &n, &m, &mk, &tm, best.Shapes
		}
		out = append(out, t)
	}
	return out
}

// diskWarnings names the phases whose elastic tasks would need more disk
// bandwidth than a node's elastic share at every memory: they never run
// elastically.
func diskWarnings(w *prepared, jobs []Job, cfg Config) []string {
	// The largest share any node gives; no warning when a node sets no
	// limit.
	largest := int64(-1)
	for _, g := range cfg.Groups {
		c := cfg.elasticDisk(g)
		if c < 0 {
			return nil
		}
		largest = max(largest, c)
	}
	if largest < 0 {
		return nil
	}
	var out []string
	for ji, pj := range w.jobs {
		for i := pj.p0; i < pj.p0+pj.np; i++ {
			t := w.phases[i].tab
			if t == nil {
				continue
			}
			least := int64(math.MaxInt64)
			for k, c := range t.choice {
				if c >= 0 && !math.IsInf(t.rt[k], 1) {
					least = min(least, t.disk[k])
				}
			}
			if least != math.MaxInt64 && least > largest {
				out = append(out, fmt.Sprintf("job %s task %s: an elastic task needs %s/s of disk, more than a node's elastic share (%s/s): it never runs elastically",
					pj.id, jobs[ji].Phases[i-pj.p0].Task, bytesize.Human(float64(least)), bytesize.Human(float64(largest))))
			}
		}
	}
	return out
}
