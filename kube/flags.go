package kube

import (
	"strings"

	"github.com/spf13/pflag"
	"github.com/wlprof/wlprof/internal/bytesize"
)

// AddFlags registers the export's options on fs, with their current values
// as defaults: wlprof export kubernetes declares them here only.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.Float64Var(&o.CPUPercentile, "cpu-percentile", o.CPUPercentile, "percentile of the CPU samples the CPU request covers")
	fs.Float64Var(&o.MemoryPercentile, "memory-percentile", o.MemoryPercentile, "percentile of the memory samples the memory request covers")
	fs.Float64Var(&o.MemoryMargin, "memory-margin", o.MemoryMargin, "memory limit's margin over the peak sample, a fraction (the VPA recommender's default)")
	fs.StringVar(&o.CPULimit, "cpu-limit", o.CPULimit, "CPU limit: none, or peak (the peak sample)")
	fs.Float64Var(&o.MaxSlowdown, "max-slowdown", o.MaxSlowdown, "runtime penalty an elasticity model's memory may cost, a fraction")
	fs.Float64Var(&o.NodeCPU, "node-cpu", o.NodeCPU, "allocatable cores of nodes the dataset gives no shape for")
	fs.Var(bytesize.NewOptional(&o.NodeMemoryBytes, ""), "node-memory", "allocatable memory of those nodes (binary: 64G is 64 GiB)")
	fs.StringVar(&o.Namespace, "namespace", o.Namespace, "namespace of bare job names, in a dataset from Kubernetes")
	fs.Var(containers{o}, "container", "NAMESPACE/KIND/NAME=CONTAINER: the container to set where the data names none (default: the workload's name); repeat for several")
}

// containers is --container, repeatable: each OBJECT=CONTAINER read by
// ParseContainer into Options.Containers.
type containers struct{ o *Options }

func (c containers) String() string {
	if c.o == nil || len(c.o.containerArgs) == 0 {
		return "" // so --help shows no default, as for pflag's own lists
	}
	return "[" + strings.Join(c.o.containerArgs, ",") + "]"
}

func (c containers) Set(s string) error {
	ref, name, err := ParseContainer(s)
	if err != nil {
		return err
	}
	if c.o.Containers == nil {
		c.o.Containers = map[Ref]string{}
	}
	c.o.Containers[ref] = name
	c.o.containerArgs = append(c.o.containerArgs, s)
	return nil
}

func (containers) Type() string { return "stringArray" }

// GetSlice is the values as given, for the command line the patches
// record.
func (c containers) GetSlice() []string { return append([]string(nil), c.o.containerArgs...) }

func (c containers) Append(s string) error { return c.Set(s) }

func (c containers) Replace(ss []string) error {
	c.o.Containers, c.o.containerArgs = nil, nil
	for _, s := range ss {
		if err := c.Set(s); err != nil {
			return err
		}
	}
	return nil
}
