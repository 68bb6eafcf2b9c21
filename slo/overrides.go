package slo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Overrides are user sign-offs and corrections of inferred SLOs, kept in a
// file (JSON, or YAML for .yaml/.yml) that every run of the slo stage
// applies and reports. Format (version 1):
//
//	{"version": 1, "jobs": [
//	  {"job": "daily_sales <date>", "deadline_s": 36000, "note": "finance reads at 10:00"},
//	  {"job": "adhoc_export", "reject": true},
//	  {"job": "hourly_clicks", "accept": true}
//	]}
//
// job is the normalised job name as the slo output shows it. period_s
// replaces the detected period before offsets are measured; arrival_s and
// deadline_s replace the inferred values and make the job actionable
// (the user stated its SLO); accept signs off the inferred SLO as it is;
// reject makes the job not actionable whatever the data say.
type Overrides struct {
	Version int        `json:"version" yaml:"version"`
	Jobs    []Override `json:"jobs" yaml:"jobs"`
	// Path is the file LoadOverrides read, named in the profiles as the
	// source of every number it sets.
	Path string `json:"-" yaml:"-"`
}

// Override is one job's entry; the slo output echoes it.
type Override struct {
	Job       string   `json:"job" yaml:"job"`
	PeriodS   *float64 `json:"period_s,omitempty" yaml:"period_s"`
	ArrivalS  *float64 `json:"arrival_s,omitempty" yaml:"arrival_s"`
	DeadlineS *float64 `json:"deadline_s,omitempty" yaml:"deadline_s"`
	Accept    bool     `json:"accept,omitempty" yaml:"accept"`
	Reject    bool     `json:"reject,omitempty" yaml:"reject"`
	Note      string   `json:"note,omitempty" yaml:"note"`
}

// LoadOverrides reads and validates an overrides file. All problems are
// reported at once, each with the entry it is in.
func LoadOverrides(path string) (*Overrides, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var ov Overrides
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml":
		dec := yaml.NewDecoder(bytes.NewReader(b))
		dec.KnownFields(true)
		err = dec.Decode(&ov)
	default:
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		err = dec.Decode(&ov)
	}
	if err != nil {
		// The decoders name Go types ("field x not found in type
		// slo.Override"); the user wrote a file, so name its parts.
		msg := strings.NewReplacer("in type slo.Overrides", "at the top level (fields: version, jobs)",
			"in type slo.Override", "in a jobs entry (fields: job, period_s, arrival_s, deadline_s, accept, reject, note)").Replace(err.Error())
		return nil, fmt.Errorf("%s: %s", path, msg)
	}
	if err := ov.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	ov.Path = path
	return &ov, nil
}

func (ov *Overrides) validate() error {
	var errs []error
	if ov.Version != 1 {
		errs = append(errs, fmt.Errorf("version %d: want 1", ov.Version))
	}
	seen := map[string]int{}
	for i, o := range ov.Jobs {
		at := fmt.Sprintf("jobs[%d]", i)
		if o.Job == "" {
			errs = append(errs, fmt.Errorf("%s: no job", at))
		} else if k, dup := seen[o.Job]; dup {
			errs = append(errs, fmt.Errorf("%s: job %q already in jobs[%d]", at, o.Job, k))
		}
		seen[o.Job] = i
		if o.PeriodS != nil && *o.PeriodS <= 0 {
			errs = append(errs, fmt.Errorf("%s: period_s %v: want > 0", at, *o.PeriodS))
		}
		if o.ArrivalS != nil && *o.ArrivalS < 0 {
			errs = append(errs, fmt.Errorf("%s: arrival_s %v: want ≥ 0", at, *o.ArrivalS))
		}
		if o.DeadlineS != nil && *o.DeadlineS < 0 {
			errs = append(errs, fmt.Errorf("%s: deadline_s %v: want ≥ 0", at, *o.DeadlineS))
		}
		if o.ArrivalS != nil && o.DeadlineS != nil && *o.ArrivalS >= *o.DeadlineS {
			errs = append(errs, fmt.Errorf("%s: arrival_s %v is not before deadline_s %v", at, *o.ArrivalS, *o.DeadlineS))
		}
		if o.Accept && o.Reject {
			errs = append(errs, fmt.Errorf("%s: both accept and reject", at))
		}
	}
	return errors.Join(errs...)
}

// Find is the override of job, or nil (also on a nil *Overrides).
func (ov *Overrides) Find(job string) *Override { return ov.find(job) }

func (ov *Overrides) find(job string) *Override {
	if ov == nil {
		return nil
	}
	for i := range ov.Jobs {
		if ov.Jobs[i].Job == job {
			return &ov.Jobs[i]
		}
	}
	return nil
}

// apply puts a job's override into its inferred SLO.
func (ov *Overrides) apply(j *Job) {
	o := ov.find(j.Job)
	if o == nil {
		return
	}
	cp := *o
	j.Override = &cp
	if o.PeriodS != nil {
		j.PeriodS, j.Periodic = ptr(*o.PeriodS), true
	}
	if o.ArrivalS != nil {
		j.ArrivalS = ptr(*o.ArrivalS)
		j.ArrivalFrom = "override"
	}
	if o.DeadlineS != nil {
		j.DeadlineS = ptr(*o.DeadlineS)
	}
	switch {
	case o.Reject:
		j.Actionable, j.Reason = false, "rejected by override"
	case o.DeadlineS != nil && j.PeriodS != nil:
		j.Actionable, j.Reason = true, ""
	case o.Accept && j.Actionable:
	case o.Accept:
		j.Warnings = append(j.Warnings, "signed off by override, but not actionable: "+j.Reason)
	}
}
