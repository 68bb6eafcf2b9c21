package simulate

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/wlprof/wlprof/internal/bytesize"
)

// Flags are the options wlprof simulate takes as text: comma-separated
// lists (several nodes counts or node memories sweep the clusters) and
// byte sizes.
type Flags struct {
	Policies   string // yarn, yarn-me or both
	Nodes      string // node counts, e.g. 50,100
	NodeMemory string // byte sizes, e.g. 32G,64G
	// NodeShapes are clusters of node shapes, each its shapes
	// COUNTxMEMORY[/CORES][@DISK] comma-separated, clusters separated by
	// ; (several are swept), e.g. 40x16G/16,10x64G/32;60x32G/16 (no
	// cores: --node-cores). With it, Nodes and NodeMemory are empty unless
	// given (a conflict Options.Validate reports).
	NodeShapes        string
	MemoryUnit        string // a byte size
	NodeDiskBandwidth string // bytes per second; "0": not limited
}

// Apply parses f into o and returns every bad value, named as its flag.
func (f Flags) Apply(o *Options) []error {
	var errs []error
	o.Policies = nil
	for _, p := range splitList(f.Policies) {
		o.Policies = append(o.Policies, Policy(p))
	}
	o.Nodes = nil
	for _, s := range splitList(f.Nodes) {
		n, err := strconv.Atoi(s)
		if err != nil {
			errs = append(errs, fmt.Errorf("--nodes %q: want whole numbers, e.g. 50,100", s))
			continue
		}
		o.Nodes = append(o.Nodes, n)
	}
	o.NodeMemoryBytes = nil
	for _, s := range splitList(f.NodeMemory) {
		m, err := bytesize.Parse(s)
		if err != nil {
			errs = append(errs, fmt.Errorf("--node-memory: %w", err))
			continue
		}
		o.NodeMemoryBytes = append(o.NodeMemoryBytes, m)
	}
	o.NodeShapes = nil
	if strings.TrimSpace(f.NodeShapes) != "" {
		for _, cluster := range strings.Split(f.NodeShapes, ";") {
			var shapes []NodeShape
			for _, s := range splitList(cluster) {
				sh, err := ParseNodeShape(s)
				if err != nil {
					errs = append(errs, fmt.Errorf("--node-shapes: %w", err))
					continue
				}
				shapes = append(shapes, sh)
			}
			if len(shapes) > 0 {
				o.NodeShapes = append(o.NodeShapes, shapes)
			}
		}
	}
	var err error
	if o.MemoryUnitBytes, err = bytesize.Parse(f.MemoryUnit); err != nil {
		errs = append(errs, fmt.Errorf("--memory-unit: %w", err))
	}
	if strings.TrimSpace(f.NodeDiskBandwidth) == "0" {
		o.NodeDiskBytesPerS = 0
	} else if o.NodeDiskBytesPerS, err = bytesize.Parse(f.NodeDiskBandwidth); err != nil {
		errs = append(errs, fmt.Errorf("--node-disk-bandwidth: %w", err))
	}
	return errs
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

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
