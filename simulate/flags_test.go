package simulate

import (
	"slices"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/internal/stage/stagetest"
)

// parse registers a fresh DefaultOptions' flags and parses args.
func parse(t *testing.T, args ...string) (Options, error) {
	t.Helper()
	return stagetest.Parse(Contract, args...)
}

func TestFlags(t *testing.T) {
	o, err := parse(t, "--policy", "yarn, yarn-me", "--nodes", "50,100", "--node-memory", "32G,64G", "--memory-unit", "100M", "--node-disk-bandwidth", "0",
		"--alibaba-machine-memory", "512G", "--default-model", "step:1.5")
	if err != nil || !slices.Equal(o.Nodes, []int{50, 100}) || !slices.Equal(o.NodeMemoryBytes, []int64{32 << 30, 64 << 30}) ||
		o.MemoryUnitBytes != 100<<20 || o.NodeDiskBytesPerS != 0 || !slices.Equal(o.Policies, []Policy{"yarn", "yarn-me"}) ||
		o.AlibabaMachineMemoryBytes != 512<<30 || o.DefaultModel != "step:1.5" {
		t.Fatalf("%+v %v", o, err)
	}
	// A bad value is refused by its flag, named with what is wrong.
	for _, c := range []struct{ flag, value, want string }{
		{"--nodes", "x,4", `"x": want whole numbers`},
		{"--node-memory", "lots", `size "lots"`},
		{"--memory-unit", "1Q", `size "1Q"`},
		{"--node-disk-bandwidth", "fast", `size "fast"`},
		{"--alibaba-machine-memory", "0", `size "0"`},
		{"--default-model", "fast", `model "fast": unknown model`},
	} {
		_, err := parse(t, c.flag, c.value)
		if err == nil || !strings.Contains(err.Error(), `"`+c.flag+`" flag`) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v, want an error of the flag with %s", c.flag, c.value, err, c.want)
		}
	}
	// Policies are checked by Validate, every bad one at once.
	o, err = parse(t, "--policy", "fifo,yarn,yarn")
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), `policy "fifo"`) || !strings.Contains(err.Error(), `policy "yarn" given twice`) {
		t.Errorf("validate: %v", err)
	}
}

// --node-shapes: COUNTxMEMORY[/CORES], comma-separated; every bad shape
// is reported, each with what is wrong.
func TestFlagsNodeShapes(t *testing.T) {
	o, err := parse(t, "--policy", "yarn", "--node-shapes", "40x16G/16, 10X64g/32@1G,2x1.5G ; 5x1G")
	want := []NodeShape{{40, 16 << 30, 16, 0}, {10, 64 << 30, 32, 1 << 30}, {2, 3 << 29, 0, 0}}
	if err != nil || len(o.NodeShapes) != 2 || !slices.Equal(o.NodeShapes[0], want) || !slices.Equal(o.NodeShapes[1], []NodeShape{{5, 1 << 30, 0, 0}}) ||
		o.Nodes != nil || o.NodeMemoryBytes != nil {
		t.Fatalf("%+v %v", o, err)
	}
	if err := o.Validate(); err != nil {
		t.Errorf("validate: %v", err)
	}
	if got := ShapesString(o.NodeShapes[0]); got != "40x16G/16,10x64G/32@1G,2x1536M" {
		t.Errorf("String %q", got)
	}
	// Given again: one more cluster of the sweep.
	if o, err = parse(t, "--node-shapes", "40x16G", "--node-shapes", "30x32G@1G"); err != nil || len(o.NodeShapes) != 2 {
		t.Errorf("given twice: %v %v", o.NodeShapes, err)
	}
	_, err = parse(t, "--node-shapes", "40*16G,ax16G,4xlots,4x16G/0,4x16G/many,4x16G@fast,4x16G")
	got := ""
	if err != nil {
		got = err.Error()
	}
	for _, w := range []string{`"40*16G": no x`, `"ax16G": node count "a"`, `"4xlots": memory "lots" is no size`, `"4x16G/0": cores "0"`, `"4x16G/many": cores "many"`, `"4x16G@fast": disk bandwidth "fast"`} {
		if !strings.Contains(got, w) {
			t.Errorf("error %q: want one with %s", got, w)
		}
	}
}

// --node-shapes replaces the default clusters of --nodes and
// --node-memory, not given ones: in either order, both given is the
// conflict Validate names.
func TestFlagsNodeShapesConflict(t *testing.T) {
	for _, args := range [][]string{
		{"--nodes", "4", "--node-shapes", "2x16G"},
		{"--node-shapes", "2x16G", "--nodes", "4"},
		{"--node-memory", "16G", "--node-shapes", "2x16G"},
		{"--node-shapes", "2x16G", "--node-memory", "16G"},
	} {
		o, err := parse(t, args...)
		if err != nil {
			t.Fatal(err)
		}
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "both given") {
			t.Errorf("%v: %v, want the conflict", args, err)
		}
	}
}
