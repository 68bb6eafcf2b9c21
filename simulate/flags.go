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
	Policies          string // yarn, yarn-me or both
	Nodes             string // node counts, e.g. 50,100
	NodeMemory        string // byte sizes, e.g. 32G,64G
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
