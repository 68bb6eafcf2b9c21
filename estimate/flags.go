package estimate

import (
	"fmt"

	"github.com/wlprof/wlprof/slo"
)

// Flags are the options wlprof estimate takes as file names: the jobs
// file and the slo stage's overrides.
type Flags struct {
	Jobs      string // --jobs: JobsFile
	Overrides string // --overrides: slo.Overrides
}

// Apply reads the files into o and returns every problem, named as its
// flag.
func (f Flags) Apply(o *Options) []error {
	var errs []error
	if f.Jobs != "" {
		jf, err := LoadJobsFile(f.Jobs)
		if err != nil {
			errs = append(errs, fmt.Errorf("--jobs: %w", err))
		}
		o.Jobs = jf
	}
	if f.Overrides != "" {
		ov, err := slo.LoadOverrides(f.Overrides)
		if err != nil {
			errs = append(errs, fmt.Errorf("--overrides: %w", err))
		}
		o.SLO.Overrides = ov
	}
	return errs
}
