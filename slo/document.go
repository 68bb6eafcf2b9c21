package slo

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Document is the versioned JSON document of wlprof slo -o json: the
// result, and the options it was inferred with.
type Document struct {
	Version int `json:"version"`
	Result
	Options DocumentOptions `json:"options"`
}

// DocumentOptions are the options a Document names.
type DocumentOptions struct {
	ArrivalPercentile  float64 `json:"arrival_percentile"`
	DeadlinePercentile float64 `json:"deadline_percentile"`
	MinRuns            int     `json:"min_runs"`
	MaxPeriodCV        float64 `json:"max_period_cv"`
	MaxReadCV          float64 `json:"max_read_cv"`
	MaxReadSpread      float64 `json:"max_read_spread"`
	MinSlack           float64 `json:"min_slack"`
	SnapTolerance      float64 `json:"snap_tolerance"`
	WindowGraceS       float64 `json:"window_grace_s"`
	Overrides          string  `json:"overrides,omitempty"` // the overrides file, as given
}

// Document returns the result with the options Run inferred it with.
func (r *Result) Document() Document {
	o := r.opts
	d := Document{Version: 1, Result: *r, Options: DocumentOptions{
		ArrivalPercentile: o.ArrivalPercentile, DeadlinePercentile: o.DeadlinePercentile,
		MinRuns: o.MinRuns, MaxPeriodCV: o.MaxPeriodCV, MaxReadCV: o.MaxReadCV, MaxReadSpread: o.MaxReadSpread,
		MinSlack: o.MinSlack, SnapTolerance: o.SnapTolerance, WindowGraceS: o.WindowGraceS}}
	if o.Overrides != nil {
		d.Options.Overrides = o.Overrides.Path
	}
	return d
}

// Only keeps the jobs named job (normalised, as listed) and reports
// whether there was one; without one the result is left as it was.
func (r *Result) Only(job string) bool {
	var keep []Job
	for _, j := range r.Jobs {
		if j.Job == job {
			keep = append(keep, j)
		}
	}
	if keep == nil {
		return false
	}
	r.Jobs = keep
	return true
}

// ParsePercentiles reads the arrival and deadline percentiles as
// --percentiles takes them: ARRIVAL,DEADLINE, each in [0,100].
func ParsePercentiles(s string) (arrival, deadline float64, err error) {
	parts := strings.Split(s, ",")
	if len(parts) != 2 {
		return 0, 0, fmt.Errorf("--percentiles %q: want ARRIVAL,DEADLINE such as 95,50", s)
	}
	var v [2]float64
	for i, p := range parts {
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || x < 0 || x > 100 || math.IsNaN(x) {
			return 0, 0, fmt.Errorf("--percentiles %q: %q is not a percentile in [0,100]", s, p)
		}
		v[i] = x
	}
	return v[0], v[1], nil
}
