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

// --node-shapes: COUNTxMEMORY[/CORES], comma-separated; every bad shape
// is reported, each with what is wrong.
func TestFlagsNodeShapes(t *testing.T) {
	o := DefaultOptions()
	errs := Flags{Policies: "yarn", NodeShapes: "40x16G/16, 10X64g/32@1G,2x1.5G ; 5x1G", MemoryUnit: "100M", NodeDiskBandwidth: "0"}.Apply(&o)
	want := []NodeShape{{40, 16 << 30, 16, 0}, {10, 64 << 30, 32, 1 << 30}, {2, 3 << 29, 0, 0}}
	if len(errs) != 0 || len(o.NodeShapes) != 2 || !slices.Equal(o.NodeShapes[0], want) || !slices.Equal(o.NodeShapes[1], []NodeShape{{5, 1 << 30, 0, 0}}) ||
		o.Nodes != nil || o.NodeMemoryBytes != nil {
		t.Fatalf("%+v %v", o, errs)
	}
	if err := o.Validate(); err != nil {
		t.Errorf("validate: %v", err)
	}
	if got := ShapesString(o.NodeShapes[0]); got != "40x16G/16,10x64G/32@1G,2x1536M" {
		t.Errorf("String %q", got)
	}
	errs = Flags{Policies: "yarn", NodeShapes: "40*16G,ax16G,4xlots,4x16G/0,4x16G/many,4x16G@fast,4x16G", MemoryUnit: "100M", NodeDiskBandwidth: "0"}.Apply(&o)
	var all []string
	for _, e := range errs {
		all = append(all, e.Error())
	}
	got := strings.Join(all, "\n")
	for _, w := range []string{`"40*16G": no x`, `"ax16G": node count "a"`, `"4xlots": memory "lots" is no size`, `"4x16G/0": cores "0"`, `"4x16G/many": cores "many"`, `"4x16G@fast": disk bandwidth "fast"`} {
		if !strings.Contains(got, w) {
			t.Errorf("errors %q: want one with %s", got, w)
		}
	}
	if len(errs) != 6 || len(o.NodeShapes) != 1 || len(o.NodeShapes[0]) != 1 {
		t.Errorf("%d errors, %v shapes kept; want 6, one cluster of 1", len(errs), o.NodeShapes)
	}
}
