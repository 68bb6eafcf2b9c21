package stage_test

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"github.com/wlprof/wlprof/internal/stage"
)

type opts struct {
	Nodes int
	Trace string
}

func (o *opts) add(fs *pflag.FlagSet) {
	fs.IntVar(&o.Nodes, "nodes", o.Nodes, "nodes of the cluster")
	fs.StringVar(&o.Trace, "trace", o.Trace, "workload file")
}

// A prefixed flag is the stage's own: its value lands in the stage's
// options, its default is the options' value when registered, and only
// the names asked for are registered.
func TestAddPrefixed(t *testing.T) {
	o := opts{Nodes: 100}
	fs := pflag.NewFlagSet("report", pflag.ContinueOnError)
	stage.AddPrefixed(fs, "simulate-", "(the simulate section)", o.add, "nodes")
	f := fs.Lookup("simulate-nodes")
	if f == nil {
		t.Fatal("no --simulate-nodes")
	}
	if f.DefValue != "100" || !strings.HasSuffix(f.Usage, "nodes of the cluster (the simulate section)") {
		t.Errorf("default %q, help %q", f.DefValue, f.Usage)
	}
	if fs.Lookup("simulate-trace") != nil || fs.Lookup("nodes") != nil {
		t.Error("registered a flag not asked for, or under its own name")
	}
	if err := fs.Parse([]string{"--simulate-nodes", "7"}); err != nil {
		t.Fatal(err)
	}
	if o.Nodes != 7 {
		t.Errorf("options got %d, want 7", o.Nodes)
	}
	defer func() {
		if recover() == nil {
			t.Error("an unknown name did not panic")
		}
	}()
	stage.AddPrefixed(fs, "x-", "", o.add, "nosuch")
}
