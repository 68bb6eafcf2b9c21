package classify

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/stage"
	"github.com/wlprof/wlprof/internal/timeflag"
)

// Contract is the classify stage as the command runs it.
var Contract = stage.Define("classify", DefaultOptions, Load, Run, (*Result).Document, ErrNoSeries).
	WithWarnings((*Result).CommandWarnings)

// DefaultOptions returns the documented defaults: the zero value of every
// field is its default (withDefaults), and "current" is the last slot.
func DefaultOptions() Options { return Options{AtMs: dataset.NoTime} }

// AddFlags registers the stage's options on fs, with their current values
// as defaults.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.Var(timeflag.NewDuration(&o.Step, o.Step), "step", "grid step (default 2m, coarser when the data is)")
	fs.IntVar(&o.K, "k", o.K, "classes per pattern (default: chosen from the data)")
	fs.BoolVar(&o.Tenants, "tenants", o.Tenants, "also list every tenant with its pattern, period and class")
	fs.Var(&instant{o}, "at", "instant that is \"current\" for headroom (default: the last slot)")
}

// CommandWarnings are the result's caveats as the command prints them on
// stderr: the run's warnings, then how many tenants have warnings of their
// own (in -o json).
func (r *Result) CommandWarnings() []string {
	w := append([]string{}, r.Warnings...)
	if n := r.Document().WarnedTenants(); n > 0 {
		w = append(w, fmt.Sprintf("%d tenant(s) have warnings (gaps); see -o json", n))
	}
	return w
}

// instant is --at: an instant as timeflag reads it; "" (its default text)
// is the end of the data.
type instant struct{ o *Options }

func (i *instant) String() string {
	if i.o == nil || i.o.AtMs == dataset.NoTime || i.o.AtMs == 0 {
		return ""
	}
	return time.UnixMilli(i.o.AtMs).UTC().Format(time.RFC3339Nano)
}

func (i *instant) Set(s string) error {
	if s == "" {
		i.o.AtMs = dataset.NoTime
		return nil
	}
	t, err := timeflag.ParseInstant(s)
	if err != nil {
		return err
	}
	i.o.AtMs = t.UnixMilli()
	return nil
}

func (*instant) Type() string { return "instant" }
