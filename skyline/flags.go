package skyline

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"github.com/wlprof/wlprof/internal/stage"
	"github.com/wlprof/wlprof/internal/timeflag"
)

// ErrNoSkylines is the skyline stage's "nothing to work on": the dataset
// has no skylines. Run returns it for an Input without jobs unless
// AllowNoFit (the report notes the absence itself).
var ErrNoSkylines = errors.New("skyline: no skylines (ingest re-native, yarn-rm, spark-eventlog or skyline-csv inputs first)")

// Contract is the skyline stage as the command runs it.
var Contract = stage.Define("skyline", DefaultOptions, Load, Run, (*Result).Document, ErrNoSkylines)

// FitFlags are the flags of one fit, without the ones that only make
// sense over many jobs (--job, --alpha-sweep, --workers): what a command
// that fits one job (export yarn-reservation) or wraps the fit in its own
// (plan, report) exposes, through stage.AddOnly.
var FitFlags = []string{"alpha", "beta", "step", "min-runs", "timeout", "model"}

// AddFlags registers the stage's options on fs, with their current values
// as defaults.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.Float64Var(&o.Alpha, "alpha", o.Alpha, "weight of over-allocation against under-allocation, in [0,1]")
	fs.Var(beta{o}, "beta", "weight of the regularisation term (≥ 0), or auto")
	fs.Var(step{&o.StepS}, "step", "time step the runs are quantised to")
	fs.IntVar(&o.MinRuns, "min-runs", o.MinRuns, "fewest runs a job needs to be fitted")
	fs.Var(&timeflag.Duration{D: &o.Timeout}, "timeout", "give up on a job's fit after this long (0: no limit)")
	fs.Var((*model)(&o.Model), "model", "LP formulation: reduced (fast, same optimum) or textbook")
	fs.StringVar(&o.Job, "job", o.Job, "fit only this job (an error if it has too few runs)")
	fs.Var(alphaSweep{&o.AlphaSweep}, "alpha-sweep", "comma-separated alphas: also report the over/under-allocation trade-off")
	fs.IntVar(&o.Workers, "workers", o.Workers, "jobs fitted at once (0: one per core)")
}

// beta is --beta: a number ≥ 0, or auto (BetaAuto).
type beta struct{ o *Options }

func (b beta) String() string {
	switch {
	case b.o == nil:
		return ""
	case b.o.BetaAuto:
		return "auto"
	}
	return strconv.FormatFloat(b.o.Beta, 'g', -1, 64)
}

func (b beta) Set(s string) error {
	if s == "auto" {
		b.o.BetaAuto = true
		return nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("want a number ≥ 0 or auto")
	}
	b.o.Beta, b.o.BetaAuto = v, false
	return nil
}

func (beta) Type() string { return "string" }

// step is --step: a duration (timeflag.ParseDuration) kept as seconds,
// printed as Go prints a duration (1m0s), as the flag always has been.
type step struct{ s *float64 }

func (v step) String() string {
	if v.s == nil || *v.s == 0 {
		return "0"
	}
	return time.Duration(*v.s * float64(time.Second)).String()
}

func (v step) Set(s string) error {
	d, err := timeflag.ParseDuration(s)
	if err != nil {
		return err
	}
	*v.s = d.Seconds()
	return nil
}

func (step) Type() string { return "duration" }

// model is --model; Validate checks the name.
type model Model

func (m *model) String() string { return string(*m) }

func (m *model) Set(s string) error {
	*m = model(s)
	return nil
}

func (*model) Type() string { return "string" }

// alphaSweep is --alpha-sweep: alphas, comma-separated; "" is none.
// Validate checks their range.
type alphaSweep struct{ a *[]float64 }

func (v alphaSweep) String() string {
	if v.a == nil {
		return ""
	}
	s := make([]string, len(*v.a))
	for i, a := range *v.a {
		s[i] = strconv.FormatFloat(a, 'g', -1, 64)
	}
	return strings.Join(s, ",")
}

func (v alphaSweep) Set(s string) error {
	var out []float64
	if s != "" {
		for _, f := range strings.Split(s, ",") {
			a, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil {
				return fmt.Errorf("%q is not an alpha in [0,1]", f)
			}
			out = append(out, a)
		}
	}
	*v.a = out
	return nil
}

func (alphaSweep) Type() string { return "string" }
