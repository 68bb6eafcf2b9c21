package simulate

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	"github.com/wlprof/wlprof/internal/bytesize"
	"github.com/wlprof/wlprof/internal/stage"
	"github.com/wlprof/wlprof/internal/timeflag"
)

// Contract is the simulate stage as the command runs it. Without a
// dataset it still runs a --trace (no elasticity models then).
var Contract = stage.Define("simulate", DefaultOptions, Load, Run, (*Result).Document, ErrNoWorkload).
	WithoutDataset(func(o *Options, dir string, _ error) (string, error) {
		if o.Trace == "" {
			return "", fmt.Errorf("no workload: no dataset at %s to replay the job history of, and no --trace FILE (simjobs-csv) given", dir)
		}
		return fmt.Sprintf("note: no dataset at %s: no elasticity models; tasks use their trace's model or --default-model %s", dir, o.DefaultModel), nil
	})

// AddFlags registers the stage's options on fs, with their current values
// as defaults. Lists (several nodes counts or node memories) sweep the
// clusters; sizes are read by bytesize.Parse. --node-shapes replaces the
// clusters of --nodes and --node-memory: their values are dropped when it
// is given, unless they were given too (a conflict Validate reports).
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	c := &clusterFlags{o: o}
	fs.StringVar(&o.Trace, "trace", o.Trace, "the workload: a simjobs-csv file (default: the dataset's task attempts)")
	fs.Var(policies{&o.Policies}, "policy", "policies to simulate: yarn, yarn-me or both")
	fs.Var(nodeCounts{c}, "nodes", "nodes in the cluster (a list sweeps)")
	fs.Var(nodeMemories{c}, "node-memory", "memory of a node (a list sweeps; K, M, G, T: binary units)")
	fs.Var(nodeShapes{c}, "node-shapes", "a cluster of several node shapes instead of --nodes and --node-memory: COUNTxMEMORY[/CORES][@DISK],... e.g. 40x16G/16,10x64G/32@1G (given again, or ; between clusters: a sweep)")
	fs.IntVar(&o.NodeCores, "node-cores", o.NodeCores, "cores of a node (of a shape without /CORES); a task takes its phase's cores (1 unless the trace says)")
	fs.Var(bytesize.NewValue(&o.MemoryUnitBytes), "memory-unit", "memory is allocated in whole units of this size")
	fs.Var(bytesize.NewOptional(&o.NodeDiskBytesPerS, "0"), "node-disk-bandwidth", "a node's disk bandwidth per second (0: elastic tasks' disk is not limited)")
	fs.Float64Var(&o.ElasticDiskShare, "elastic-disk-share", o.ElasticDiskShare, "share of a node's disk bandwidth elastic tasks may take together")
	fs.Var(model{&o.DefaultModel}, "default-model", "model of tasks with none in the trace or dataset: none or step:SLOWDOWN")
	fs.BoolVar(&o.ReservedGaps, "reserved-gaps", o.ReservedGaps, "yarn-me: run other jobs' tasks on a reserved node when they end before the reserved job could start there")
	fs.Var(bytesize.NewOptional(&o.AlibabaMachineMemoryBytes, ""), "alibaba-machine-memory", "memory of the Alibaba 2018 trace's largest machine, which plan_mem is a percentage of (no default: the trace does not publish it; without it Alibaba jobs are not replayed)")
	fs.Var(timeflag.NewDuration(&o.TargetMakespan, o.TargetMakespan), "target-makespan", "name, per policy, the smallest swept cluster that runs the trace within this")
}

// splitList splits a comma-separated list, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// policies is --policy: a comma-separated list of policies, checked by
// Validate (every unknown or repeated one at once).
type policies struct{ p *[]Policy }

func (v policies) String() string {
	if v.p == nil {
		return ""
	}
	s := make([]string, len(*v.p))
	for i, p := range *v.p {
		s[i] = string(p)
	}
	return strings.Join(s, ",")
}

func (v policies) Set(s string) error {
	*v.p = nil
	for _, p := range splitList(s) {
		*v.p = append(*v.p, Policy(p))
	}
	return nil
}

func (policies) Type() string { return "string" }

// clusterFlags are the flags that describe the clusters, which share
// whether --nodes and --node-memory were given: --node-shapes drops their
// defaults only.
type clusterFlags struct {
	o                           *Options
	nodesSet, memSet, shapesSet bool
}

// nodeCounts is --nodes: whole numbers, comma-separated.
type nodeCounts struct{ c *clusterFlags }

func (v nodeCounts) String() string {
	if v.c == nil {
		return ""
	}
	s := make([]string, len(v.c.o.Nodes))
	for i, n := range v.c.o.Nodes {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

func (v nodeCounts) Set(s string) error {
	var ns []int
	var errs []error
	for _, f := range splitList(s) {
		n, err := strconv.Atoi(f)
		if err != nil {
			errs = append(errs, fmt.Errorf("%q: want whole numbers, e.g. 50,100", f))
			continue
		}
		ns = append(ns, n)
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	v.c.o.Nodes, v.c.nodesSet = ns, true
	return nil
}

func (nodeCounts) Type() string { return "string" }

// nodeMemories is --node-memory: sizes, comma-separated.
type nodeMemories struct{ c *clusterFlags }

func (v nodeMemories) String() string {
	if v.c == nil {
		return ""
	}
	s := make([]string, len(v.c.o.NodeMemoryBytes))
	for i, m := range v.c.o.NodeMemoryBytes {
		s[i] = bytesize.Format(m)
	}
	return strings.Join(s, ",")
}

func (v nodeMemories) Set(s string) error {
	var ms []int64
	var errs []error
	for _, f := range splitList(s) {
		m, err := bytesize.Parse(f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ms = append(ms, m)
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	v.c.o.NodeMemoryBytes, v.c.memSet = ms, true
	return nil
}

func (nodeMemories) Type() string { return "string" }

// nodeShapes is --node-shapes: clusters separated by ; (or given again),
// each its shapes comma-separated (ParseNodeShape). Every bad shape of a
// value is reported at once.
type nodeShapes struct{ c *clusterFlags }

func (v nodeShapes) String() string {
	if v.c == nil {
		return ""
	}
	return strings.Join(v.GetSlice(), ";")
}

func (v nodeShapes) Set(s string) error {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	var clusters [][]NodeShape
	var errs []error
	for _, cluster := range strings.Split(s, ";") {
		var shapes []NodeShape
		for _, f := range splitList(cluster) {
			sh, err := ParseNodeShape(f)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			shapes = append(shapes, sh)
		}
		if len(shapes) > 0 {
			clusters = append(clusters, shapes)
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	c := v.c
	if !c.shapesSet { // the first shapes replace the default clusters
		c.shapesSet, c.o.NodeShapes = true, nil
		if !c.nodesSet {
			c.o.Nodes = nil
		}
		if !c.memSet {
			c.o.NodeMemoryBytes = nil
		}
	}
	c.o.NodeShapes = append(c.o.NodeShapes, clusters...)
	return nil
}

// Type is as pflag's StringArray names it: the flag may be given again.
func (nodeShapes) Type() string { return "stringArray" }

// GetSlice, Append and Replace make --node-shapes a list flag
// (pflag.SliceValue), one item per cluster.
func (v nodeShapes) GetSlice() []string {
	out := make([]string, len(v.c.o.NodeShapes))
	for i, sh := range v.c.o.NodeShapes {
		out[i] = ShapesString(sh)
	}
	return out
}

func (v nodeShapes) Append(s string) error { return v.Set(s) }

func (v nodeShapes) Replace(ss []string) error {
	v.c.shapesSet, v.c.o.NodeShapes = false, nil
	for _, s := range ss {
		if err := v.Set(s); err != nil {
			return err
		}
	}
	return nil
}

// model is --default-model: a model spec ParseModel reads, kept as
// written.
type model struct{ p *string }

func (v model) String() string {
	if v.p == nil {
		return ""
	}
	return *v.p
}

func (v model) Set(s string) error {
	if _, err := ParseModel(s); err != nil {
		return err
	}
	*v.p = s
	return nil
}

func (model) Type() string { return "string" }

// ParseNodeShape reads one node shape, COUNTxMEMORY[/CORES][@DISK]
// (40x16G/16@1G; memory and disk bytes per second as bytesize.Parse reads
// them; no cores: 0, --node-cores; no disk: 0, --node-disk-bandwidth).
// Counts and cores are checked to be whole numbers here, their ranges by
// Options.Validate.
func ParseNodeShape(s string) (NodeShape, error) {
	bad := func(why string) (NodeShape, error) {
		return NodeShape{}, fmt.Errorf("%q: %s; want COUNTxMEMORY[/CORES][@DISK], e.g. 40x16G/16 or 40x16G/16@1G", s, why)
	}
	spec, disk, hasDisk := strings.Cut(strings.ToLower(strings.TrimSpace(s)), "@")
	var diskBytes int64
	if hasDisk {
		d, err := bytesize.Parse(disk)
		if err != nil || d < 1 {
			return bad(fmt.Sprintf("disk bandwidth %q: want bytes per second, e.g. 500M", strings.TrimSpace(disk)))
		}
		diskBytes = d
	}
	count, rest, ok := strings.Cut(spec, "x")
	if !ok {
		return bad("no x between the node count and the memory")
	}
	n, err := strconv.Atoi(strings.TrimSpace(count))
	if err != nil {
		return bad(fmt.Sprintf("node count %q is not a whole number", strings.TrimSpace(count)))
	}
	mem, cores, hasCores := strings.Cut(rest, "/")
	m, err := bytesize.Parse(mem)
	if err != nil {
		return bad(fmt.Sprintf("memory %q is no size", strings.TrimSpace(mem)))
	}
	sh := NodeShape{Nodes: n, NodeMemoryBytes: m, DiskBytesPerS: diskBytes}
	if hasCores {
		c, err := strconv.Atoi(strings.TrimSpace(cores))
		if err != nil || c < 1 {
			return bad(fmt.Sprintf("cores %q: want a whole number of at least 1", strings.TrimSpace(cores)))
		}
		sh.NodeCores = c
	}
	return sh, nil
}

// Document is what wlprof simulate prints: the result itself (its -o
// json document is the Result's fields).
type Document struct{ *Result }

// Document is the result as wlprof simulate prints it.
func (r *Result) Document() Document { return Document{r} }

// WriteText writes the cluster, a row per policy, the jobs, the sweep and
// targets, then what was not simulated and the warnings.
func (d Document) WriteText(w io.Writer) error { return d.Result.WriteText(w) }

// WriteCSV writes one row per job and policy of the first cluster.
func (d Document) WriteCSV(w io.Writer) error { return d.Result.WriteCSV(w) }
