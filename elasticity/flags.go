package elasticity

import (
	"sort"
	"strings"

	"github.com/spf13/pflag"
	"github.com/wlprof/wlprof/internal/bytesize"
	"github.com/wlprof/wlprof/internal/stage"
)

// Contract is the elasticity stage as the command runs it.
var Contract = stage.Define("elasticity", DefaultOptions, Load, Run, (*Result).Document, ErrNoRuns)

// AddFlags registers the stage's options on fs, with their current values
// as defaults.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Job, "job", o.Job, "model only this job")
	fs.Var(bytesize.NewValue(&o.GridBytes), "grid", "memory step of the curve (bytes, or with K, M, G: binary units)")
	fs.Var(&settings{c: &o.Overrides}, "set", "KEY=VALUE configuration key applied to every run (repeatable)")
	fs.Var(bytesize.NewOptional(&o.InputBytes, ""), "input-bytes", "carry every model to a task input of this size (e.g. 10G): ideal memory, spill and runtimes scale with it")
	fs.BoolVar(&o.WallTime, "wall-time", o.WallTime, "model wall time even where one-slot runs measured their wait for a CPU (cpu_wait_s)")
	fs.StringVar(&o.Fit, "fit", o.Fit, "how the model is learnt: pair (an under-sized and a well-sized setting, as Iorgulescu et al., ATC'17 §2 do) or least-squares (every run; steadier for --input-bytes)")
}

// settings is --set KEY=VALUE, repeatable: each pair goes into the
// overrides, the last of a repeated key winning; the first one given
// replaces the defaults.
type settings struct {
	c       *Conf
	changed bool
}

func (s *settings) String() string {
	if s.c == nil || len(*s.c) == 0 {
		return ""
	}
	return "[" + strings.Join(s.GetSlice(), ",") + "]"
}

func (s *settings) Set(kv string) error {
	k, v, err := setting(kv)
	if err != nil {
		return err
	}
	if !s.changed || *s.c == nil {
		*s.c, s.changed = Conf{}, true
	}
	(*s.c)[k] = v
	return nil
}

// Type is "stringArray", as the flag was before it parsed its pairs.
func (*settings) Type() string { return "stringArray" }

// Append is Set (pflag.SliceValue).
func (s *settings) Append(kv string) error { return s.Set(kv) }

// Replace sets the overrides to exactly kvs (none: nil).
func (s *settings) Replace(kvs []string) error {
	var c Conf
	for _, kv := range kvs {
		k, v, err := setting(kv)
		if err != nil {
			return err
		}
		if c == nil {
			c = Conf{}
		}
		c[k] = v
	}
	*s.c, s.changed = c, true
	return nil
}

// GetSlice is the overrides as KEY=VALUE, by key.
func (s *settings) GetSlice() []string {
	out := make([]string, 0, len(*s.c))
	for k, v := range *s.c {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}
