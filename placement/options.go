package placement

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/wlprof/wlprof/classify"

	"github.com/wlprof/wlprof/internal/bytesize"
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
	Classify classify.Options

	// The durability and availability replay (§6, Fig. 15/16; replay.go):
	// Blocks blocks of Replicas replicas (0: no replay), written at the
	// window's start; a replica is unavailable while its tenant's CPU is
	// above BusyThreshold; a lost replica is detected Detect later and
	// re-replicated at BlocksPerHour per source server; Accesses accesses
	// uniform over the window and the blocks; Seeds runs from Seed.
	Blocks        int
	Replicas      int
	BusyThreshold float64
	BlocksPerHour float64
	Detect        time.Duration
	Accesses      int
	Seed          uint64
	Seeds         int
}

// DefaultOptions: 4 TiB per server, monthly stability windows; the replay
// of §6 (3 replicas, busy above 66% CPU, 30 blocks per hour per server)
// with 10,000 blocks, detection after 10 minutes (HDFS declares a
// datanode dead after 10.5), 100,000 accesses, five seeds (§6: five runs).
func DefaultOptions() Options {
	return Options{ServerStorageBytes: 4 << 40, StabilityWindow: Month,
		Blocks: 10000, Replicas: 3, BusyThreshold: 0.66, BlocksPerHour: 30, Detect: 10 * time.Minute, Accesses: 100000, Seed: 1, Seeds: 5}
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
	if o.Blocks < 0 || o.Blocks > 1<<24 {
		bad("blocks %d: want 0 (no replay) to 16777216", o.Blocks)
	}
	if o.Replicas < 1 || o.Replicas > 9 {
		bad("replicas %d: want 1 to 9", o.Replicas)
	}
	if !(o.BusyThreshold >= 0 && o.BusyThreshold <= 1) {
		bad("busy threshold %g: want a fraction of a server in [0, 1]", o.BusyThreshold)
	}
	if !(o.BlocksPerHour > 0) || math.IsInf(o.BlocksPerHour, 0) {
		bad("re-replication rate %g blocks per hour: want more than 0", o.BlocksPerHour)
	}
	if o.Detect < 0 {
		bad("detection delay %v: want 0 or more", o.Detect)
	}
	if o.Accesses < 0 || o.Accesses > 1<<26 {
		bad("accesses %d: want 0 to 67108864", o.Accesses)
	}
	if o.Seeds < 1 || o.Seeds > 1000 {
		bad("seeds %d: want 1 to 1000", o.Seeds)
	}
	if err := o.Classify.Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// ParseBytes reads a size in the grammar of every size flag
// (bytesize.Parse: 4TB is 4 TiB, 500G, 1.5e12 bytes).
func ParseBytes(s string) (float64, error) {
	b, err := bytesize.Parse(s)
	return float64(b), err
}

// FormatBytes writes a size with a binary unit, as ParseBytes reads it:
// 4 TiB, 444.4 GiB.
func FormatBytes(b float64) string {
	for _, u := range []struct {
		name string
		mul  float64
	}{{"PiB", 1 << 50}, {"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if b >= u.mul {
			return strconv.FormatFloat(math.Round(10*b/u.mul)/10, 'f', -1, 64) + " " + u.name
		}
	}
	return strconv.FormatFloat(b, 'f', 0, 64) + " B"
}
