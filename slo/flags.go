package slo

import (
	"fmt"

	"github.com/spf13/pflag"
	"github.com/wlprof/wlprof/internal/stage"
	"github.com/wlprof/wlprof/internal/timeflag"
)

// Contract is the slo stage as the command runs it.
var Contract = stage.Define("slo", DefaultOptions, Load, Run, (*Result).Document, ErrNoRuns).
	WithWarnings(func(r *Result) []string { return r.Warnings })

// AddFlags registers the stage's options on fs, with their current values
// as defaults.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.Var(percentiles{o}, "percentiles", "arrival and deadline percentiles (of T_inAvail and T_outRead)")
	fs.StringVar(&o.OverridesFile, "overrides", o.OverridesFile, "YAML or JSON file of user sign-offs and overrides")
	fs.StringVar(&o.Job, "job", o.Job, "only this job (normalised name, as listed)")
	fs.IntVar(&o.MinRuns, "min-runs", o.MinRuns, "fewest runs for an SLO")
	fs.Float64Var(&o.MaxPeriodCV, "max-period-cv", o.MaxPeriodCV, "submission spacing CV (MAD/median) above which a job is irregular")
	fs.Float64Var(&o.SnapTolerance, "snap", o.SnapTolerance, "relative distance within which a period snaps to a natural one (hour, day, ...)")
	fs.Float64Var(&o.MaxReadCV, "max-read-cv", o.MaxReadCV, "CV (MAD/median) of T_outRead above which reads are unstable")
	fs.Float64Var(&o.MaxReadSpread, "max-read-spread", o.MaxReadSpread, "MAD of T_outRead, as a fraction of the period, above which reads are unstable")
	fs.Float64Var(&o.MinSlack, "min-slack", o.MinSlack, "median slack ratio below which a deadline is not actionable")
	fs.Var(timeflag.NewSeconds(&o.WindowGraceS, o.WindowGraceS), "window-grace", "slack around a run's [start, end] for user-window attribution (a duration, or seconds)")
}

// percentiles is --percentiles: ARRIVAL,DEADLINE.
type percentiles struct{ o *Options }

func (p percentiles) String() string {
	if p.o == nil {
		return ""
	}
	return fmt.Sprintf("%g,%g", p.o.ArrivalPercentile, p.o.DeadlinePercentile)
}

func (p percentiles) Set(s string) error {
	a, d, err := ParsePercentiles(s)
	if err != nil {
		return err
	}
	p.o.ArrivalPercentile, p.o.DeadlinePercentile = a, d
	return nil
}

func (percentiles) Type() string { return "string" }
