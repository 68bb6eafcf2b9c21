package plan

import (
	"errors"

	"github.com/spf13/pflag"
	"github.com/wlprof/wlprof/internal/stage"
	"github.com/wlprof/wlprof/internal/timeflag"
	"github.com/wlprof/wlprof/skyline"
)

// ErrNoSkylines is the plan stage's "nothing to work on": no job has
// skylines.
var ErrNoSkylines = errors.New("plan: no skylines to plan (ingest job runs: yarn-rm, spark-eventlog, re-native or skyline-csv, first)")

// Contract is the plan stage as the command runs it.
var Contract = stage.Define("plan", DefaultOptions, Load, Run, (*Result).Document, ErrNoSkylines)

// AddFlags registers the stage's options on fs, with their current values
// as defaults: the skyline stage's flags of one fit (skyline.FitFlags, as
// the skyline stage declares them), and the plan's own.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	stage.AddOnly(fs, o.Skyline.AddFlags, skyline.FitFlags...)
	fs.StringVar(&o.Job, "job", o.Job, "plan only this job")
	fs.Float64Var(&o.Holdout, "holdout", o.Holdout, "share of each job's runs, the latest, held out of the fit and replayed")
	fs.Var(&timeflag.Duration{D: &o.LCMCap}, "lcm-cap", "largest LCM of the periods; a period that does not divide it gets one reservation per instance")
	stage.AddPrefixed(fs, "", "(the slo stage's, as wlprof slo --overrides)", o.SLO.AddFlags, "overrides")
	fs.IntVar(&o.EndPoints, "end-points", o.EndPoints, "end points LowCost tries per job")
	fs.Var(capacity{&o.Capacity}, "capacity", "cost a step by its largest share of this cluster: containers=N,memory=SIZE,cores=N (any of them; default: the load in containers)")
}

// capacity is --capacity, read by ParseCapacity.
type capacity struct{ c *Capacity }

func (v capacity) String() string {
	if v.c == nil {
		return ""
	}
	return v.c.String()
}

func (v capacity) Set(s string) error {
	c, err := ParseCapacity(s)
	if err != nil {
		return err
	}
	*v.c = c
	return nil
}

func (capacity) Type() string { return "string" }
