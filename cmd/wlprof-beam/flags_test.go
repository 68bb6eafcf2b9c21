package main

import (
	"slices"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/wlprof/wlprof/elasticity"
	"github.com/wlprof/wlprof/skyline"
)

// TestStageFlags: each command that runs a wlprof stage declares the
// stage's flags through the stage's AddFlags, so a flag has the name,
// default, type and help of wlprof's own command; a stage flag the command
// leaves out is left out on purpose, by name.
func TestStageFlags(t *testing.T) {
	g := &globalOptions{}
	for _, c := range []struct {
		cmd   *cobra.Command
		stage func(*pflag.FlagSet)
		not   []string // the stage's flags the command does not take
	}{
		{newSkylineCmd(g), func(fs *pflag.FlagSet) { o := skyline.DefaultOptions(); o.AddFlags(fs) }, []string{"workers"}},
		{newElasticityCmd(g), func(fs *pflag.FlagSet) { o := elasticity.DefaultOptions(); o.AddFlags(fs) }, nil},
	} {
		want := pflag.NewFlagSet(c.cmd.Name(), pflag.ContinueOnError)
		c.stage(want)
		want.VisitAll(func(w *pflag.Flag) {
			got := c.cmd.Flags().Lookup(w.Name)
			switch {
			case slices.Contains(c.not, w.Name):
				if got != nil {
					t.Errorf("%s --%s: declared, but listed as left out", c.cmd.Name(), w.Name)
				}
			case got == nil:
				t.Errorf("%s: no --%s (a flag of the stage: take it, or list it as left out)", c.cmd.Name(), w.Name)
			case got.DefValue != w.DefValue || got.Usage != w.Usage || got.Value.Type() != w.Value.Type():
				t.Errorf("%s --%s: default %q, %s, %q; the stage's: %q, %s, %q", c.cmd.Name(), w.Name,
					got.DefValue, got.Value.Type(), got.Usage, w.DefValue, w.Value.Type(), w.Usage)
			}
		})
		for _, n := range c.not {
			if want.Lookup(n) == nil {
				t.Errorf("%s: --%s is listed as left out but is no flag of the stage", c.cmd.Name(), n)
			}
		}
	}
}
