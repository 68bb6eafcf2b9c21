package estimate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// JobsFile is what the data lack, given by hand (--jobs, JSON, or YAML
// for .yaml/.yml). Version 1:
//
//	version: 1
//	jobs:
//	  - job: nightly_etl
//	    deadline_s: 7200        # seconds after --at; replaces the SLO's
//	    phases:                 # replace the task history's, in order
//	      - phase: map
//	        tasks: 200
//	        mu_s: 30            # omitted: the profiling runs' median runtime of this task
//	        pending: 150        # omitted: tasks (the job has not started)
//	        running_s: [12, 40] # elapsed time of each running task
//	      - phase: reduce
//	        tasks: 10
//	        mu_s: 120
type JobsFile struct {
	Version int       `json:"version" yaml:"version"`
	Jobs    []JobSpec `json:"jobs" yaml:"jobs"`
	Path    string    `json:"-" yaml:"-"`
}

// JobSpec is one job's entry.
type JobSpec struct {
	Job       string      `json:"job" yaml:"job"`
	DeadlineS *float64    `json:"deadline_s,omitempty" yaml:"deadline_s"`
	Phases    []PhaseSpec `json:"phases,omitempty" yaml:"phases"`
}

// PhaseSpec is one phase's profile and progress.
type PhaseSpec struct {
	Phase    string    `json:"phase" yaml:"phase"`
	Tasks    int       `json:"tasks" yaml:"tasks"`
	MuS      *float64  `json:"mu_s,omitempty" yaml:"mu_s"`
	Pending  *int      `json:"pending,omitempty" yaml:"pending"`
	RunningS []float64 `json:"running_s,omitempty" yaml:"running_s"`
}

// LoadJobsFile reads and checks a jobs file, every problem at once with
// the entry it is in.
func LoadJobsFile(path string) (*JobsFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f JobsFile
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml":
		dec := yaml.NewDecoder(bytes.NewReader(b))
		dec.KnownFields(true)
		err = dec.Decode(&f)
	default:
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		err = dec.Decode(&f)
	}
	if err != nil {
		msg := strings.NewReplacer("in type estimate.JobsFile", "at the top level (fields: version, jobs)",
			"in type estimate.JobSpec", "in a jobs entry (fields: job, deadline_s, phases)",
			"in type estimate.PhaseSpec", "in a phases entry (fields: phase, tasks, mu_s, pending, running_s)").Replace(err.Error())
		return nil, fmt.Errorf("%s: %s", path, msg)
	}
	var errs []error
	if f.Version != 1 {
		errs = append(errs, fmt.Errorf("version %d: want 1", f.Version))
	}
	seen := map[string]bool{}
	for i, j := range f.Jobs {
		at := fmt.Sprintf("jobs[%d] (%q)", i, j.Job)
		if j.Job == "" {
			errs = append(errs, fmt.Errorf("jobs[%d]: no job name", i))
		} else if seen[j.Job] {
			errs = append(errs, fmt.Errorf("%s: the job is listed twice", at))
		}
		seen[j.Job] = true
		if j.DeadlineS != nil && (math.IsNaN(*j.DeadlineS) || math.IsInf(*j.DeadlineS, 0)) {
			errs = append(errs, fmt.Errorf("%s: deadline_s %g is not a number of seconds", at, *j.DeadlineS))
		}
		for k, p := range j.Phases {
			pat := fmt.Sprintf("%s phases[%d] (%q)", at, k, p.Phase)
			if p.Phase == "" {
				errs = append(errs, fmt.Errorf("%s: no phase name", pat))
			}
			if p.Tasks < 0 {
				errs = append(errs, fmt.Errorf("%s: tasks %d: want ≥ 0", pat, p.Tasks))
			}
			if p.MuS != nil && !(*p.MuS > 0 && !math.IsInf(*p.MuS, 0)) {
				errs = append(errs, fmt.Errorf("%s: mu_s %g: want seconds > 0", pat, *p.MuS))
			}
			if p.Pending != nil && (*p.Pending < 0 || *p.Pending+len(p.RunningS) > p.Tasks) {
				errs = append(errs, fmt.Errorf("%s: pending %d and %d running of %d tasks", pat, *p.Pending, len(p.RunningS), p.Tasks))
			}
			if p.Pending == nil && len(p.RunningS) > 0 {
				errs = append(errs, fmt.Errorf("%s: running_s without pending: say how many tasks are not started", pat))
			}
			for _, r := range p.RunningS {
				if !(r >= 0) || math.IsInf(r, 0) {
					errs = append(errs, fmt.Errorf("%s: running_s %g: want elapsed seconds ≥ 0", pat, r))
				}
			}
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s: %w", path, errors.Join(errs...))
	}
	f.Path = path
	return &f, nil
}

func (f *JobsFile) find(job string) *JobSpec {
	if f == nil {
		return nil
	}
	for i := range f.Jobs {
		if f.Jobs[i].Job == job {
			return &f.Jobs[i]
		}
	}
	return nil
}
