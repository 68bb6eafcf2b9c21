package ingest

import (
	"errors"
	"fmt"
	"time"
)

// Flags are the options wlprof ingest and wlprof run take as text.
type Flags struct {
	CPUUnit string // auto, fraction, percent or raw; "" keeps o's
	TZ      string // an IANA time zone name; "" keeps o's
}

// Apply parses f into o and returns every bad value at once, named as its
// flag.
func (f Flags) Apply(o *Options) error {
	var errs []error
	if f.CPUUnit != "" {
		u, err := ParseCPUUnit(f.CPUUnit)
		if err != nil {
			errs = append(errs, err)
		}
		o.CPUUnit = u
	}
	if f.TZ != "" {
		loc, err := time.LoadLocation(f.TZ)
		if err != nil {
			errs = append(errs, fmt.Errorf("--tz %q: %v", f.TZ, err))
		} else {
			o.Location = loc
		}
	}
	return errors.Join(errs...)
}
