package simulate

import (
	"slices"
	"strings"
	"testing"
)

func TestFlagsApply(t *testing.T) {
	o := DefaultOptions()
	errs := Flags{Policies: "yarn, yarn-me", Nodes: "50,100", NodeMemory: "32G,64G", MemoryUnit: "100M", NodeDiskBandwidth: "0"}.Apply(&o)
	if len(errs) != 0 || !slices.Equal(o.Nodes, []int{50, 100}) || !slices.Equal(o.NodeMemoryBytes, []int64{32 << 30, 64 << 30}) ||
		o.MemoryUnitBytes != 100<<20 || o.NodeDiskBytesPerS != 0 || !slices.Equal(o.Policies, []Policy{"yarn", "yarn-me"}) {
		t.Fatalf("%+v %v", o, errs)
	}
	errs = Flags{Nodes: "x,4", NodeMemory: "lots", MemoryUnit: "1Q", NodeDiskBandwidth: "fast"}.Apply(&o)
	var all []string
	for _, e := range errs {
		all = append(all, e.Error())
	}
	got := strings.Join(all, "\n")
	for _, w := range []string{`--nodes "x"`, "--node-memory", "--memory-unit", "--node-disk-bandwidth"} {
		if !strings.Contains(got, w) {
			t.Errorf("errors %q: want one naming %s", got, w)
		}
	}
}
