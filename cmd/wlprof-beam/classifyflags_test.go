package main

import (
	"testing"

	"github.com/spf13/pflag"
	"github.com/wlprof/wlprof/classify"
)

// The classify command declares the stage's flags through
// classify.Options.AddFlags, as wlprof classify does: every flag of the
// stage is there with the same name, type, default and help, declared
// once (pflag panics on a second declaration), beside the command's own
// beam flags.
func TestClassifyStageFlags(t *testing.T) {
	cmd := newClassifyCmd(&globalOptions{})
	want := pflag.NewFlagSet("classify", pflag.ContinueOnError)
	o := classify.DefaultOptions()
	o.AddFlags(want)
	n := 0
	want.VisitAll(func(w *pflag.Flag) {
		n++
		got := cmd.Flags().Lookup(w.Name)
		if got == nil {
			t.Errorf("--%s: not a flag of wlprof-beam classify", w.Name)
			return
		}
		if got.Shorthand != w.Shorthand || got.DefValue != w.DefValue || got.Usage != w.Usage || got.Value.Type() != w.Value.Type() {
			t.Errorf("--%s: (-%s, %s, default %q, %q), the stage's (-%s, %s, default %q, %q)", w.Name,
				got.Shorthand, got.Value.Type(), got.DefValue, got.Usage, w.Shorthand, w.Value.Type(), w.DefValue, w.Usage)
		}
	})
	if n == 0 {
		t.Fatal("the stage registered no flags")
	}
	for _, own := range []string{"input", "format", "runner", "out"} {
		if cmd.Flags().Lookup(own) == nil {
			t.Errorf("--%s: the command's own flag is gone", own)
		}
	}
}
