package placement

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/wlprof/wlprof/fft"
)

// Month is the unit of the reimage rate (§3: reimages per server per
// month): 30 days.
const Month = 30 * 24 * time.Hour

// Options of the placement stage. Start from DefaultOptions.
type Options struct {
	// ServerStorageBytes is the storage each server offers for harvesting.
	// No trace wlprof reads records disk capacity (Google's capacity is CPU
	// and memory, Alibaba's too), so every server gets the same.
	ServerStorageBytes float64
	// StabilityWindow is the window of the group-stability measure (§3,
	// Fig. 6: months); the trace needs two whole windows.
	StabilityWindow time.Duration
	// Classify are the options of the classify stage, whose peaks (the
	// 99th percentile of each tenant's average server) are the columns.
	Classify fft.Options
}

// DefaultOptions: 4 TB per server, monthly stability windows.
func DefaultOptions() Options {
	return Options{ServerStorageBytes: 4e12, StabilityWindow: Month}
}

// Validate reports every bad option at once.
func (o *Options) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf("placement: "+format, a...)) }
	if !(o.ServerStorageBytes > 0) || math.IsInf(o.ServerStorageBytes, 0) {
		bad("server storage %g bytes: want more than 0", o.ServerStorageBytes)
	}
	if o.StabilityWindow < time.Hour {
		bad("stability window %v: want at least 1h", o.StabilityWindow)
	}
	if err := o.Classify.Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// ParseBytes reads a size such as 4TB, 500GiB, 1.5e12 or 4096 (bytes):
// decimal (kB, MB, GB, TB, PB) and binary (KiB … PiB) units.
func ParseBytes(s string) (float64, error) {
	t := strings.TrimSpace(s)
	units := []struct {
		suf string
		mul float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"PiB", 1 << 50},
		{"kB", 1e3}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"PB", 1e15}, {"B", 1}}
	mul := 1.0
	for _, u := range units {
		if strings.HasSuffix(t, u.suf) {
			t, mul = strings.TrimSpace(strings.TrimSuffix(t, u.suf)), u.mul
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		return 0, fmt.Errorf("%q is not a size (such as 4TB, 500GiB or a number of bytes)", s)
	}
	return v * mul, nil
}

// FormatBytes writes a size with a decimal unit: 4 TB, 444.4 GB.
func FormatBytes(b float64) string {
	for _, u := range []struct {
		name string
		mul  float64
	}{{"PB", 1e15}, {"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"kB", 1e3}} {
		if b >= u.mul {
			return strconv.FormatFloat(math.Round(10*b/u.mul)/10, 'f', -1, 64) + " " + u.name
		}
	}
	return strconv.FormatFloat(b, 'f', 0, 64) + " B"
}
