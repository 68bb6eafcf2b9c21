package skyline

import (
	"context"
	"math"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/quantile"
	"github.com/wlprof/wlprof/profile"
)

// Anchor is where the slo stage starts a job's periods: period k starts at
// AnchorMs + k·PeriodMs (epoch milliseconds). The SLO's arrival and
// deadline are offsets from those starts.
type Anchor struct{ PeriodMs, AnchorMs int64 }

// NextWindow places a job's next reservation after its last run started
// and not before nowMs (the end of the data the skyline was fitted on, so
// a reservation never lies in the past of its own data): with an
// actionable SLO (arrival and deadline set) on the slo stage's own period
// (a, not nil, with a.PeriodMs equal to the period), the first period
// after the one the last run started in whose arrival is at or after
// nowMs, from its arrival to its deadline; otherwise the first instant
// lastStartMs + k·period (k ≥ 1) at or after nowMs, for as long as the
// skyline (deadline 0, see ReservationSpec). periodS is the job's period
// in seconds.
func NextWindow(periodS float64, lastStartMs, nowMs int64, slo *profile.SLO, a *Anchor) (arrivalMs, deadlineMs, periodMs int64) {
	periodMs = int64(math.Round(periodS * 1000))
	// skip is the number of whole periods to add so that t ≥ nowMs.
	skip := func(t int64) int64 {
		if periodMs <= 0 || t >= nowMs {
			return 0
		}
		return (nowMs - t + periodMs - 1) / periodMs
	}
	if slo != nil && slo.Actionable && slo.ArrivalS != nil && slo.DeadlineS != nil && a != nil && a.PeriodMs == periodMs && periodMs > 0 {
		k := lastStartMs - a.AnchorMs
		k = (k - ((k%periodMs)+periodMs)%periodMs) / periodMs // floor((last − anchor) / period)
		next := a.AnchorMs + (k+1)*periodMs
		arr, dl := int64(math.Round(slo.ArrivalS.Value*1000)), int64(math.Round(slo.DeadlineS.Value*1000))
		next += skip(next+arr) * periodMs
		return next + arr, next + dl, periodMs
	}
	first := lastStartMs + periodMs
	return first + skip(first)*periodMs, 0, periodMs
}

// DefaultCapability is a container's size where the skylines say none.
var DefaultCapability = YARNCapability{MemoryMB: 1024, VCores: 1}

// ContainerSizes is, per job, the median memory and vcores per container
// of its skyline samples (DefaultCapability's where the samples have none).
func ContainerSizes(ctx context.Context, ds *dataset.Dataset) (map[string]YARNCapability, error) {
	mem, cores := map[string][]float64{}, map[string][]float64{}
	err := dataset.Scan(ctx, ds, dataset.SkylinesTable, func(s *dataset.SkylineSample) error {
		if s.Containers > 0 {
			if s.MemoryBytes > 0 {
				mem[s.Job] = append(mem[s.Job], float64(s.MemoryBytes)/s.Containers/(1<<20))
			}
			if s.VCores > 0 {
				cores[s.Job] = append(cores[s.Job], s.VCores/s.Containers)
			}
		}
		return nil
	})
	// The upper median, rounded to a whole MB or vcore (at least 1).
	median := func(v []float64, def int64) int64 {
		if len(v) == 0 {
			return def
		}
		return max(1, int64(quantile.UpperMedian(v)+0.5))
	}
	out := map[string]YARNCapability{}
	for job, v := range mem {
		out[job] = YARNCapability{MemoryMB: median(v, DefaultCapability.MemoryMB), VCores: median(cores[job], DefaultCapability.VCores)}
	}
	for job, v := range cores {
		if _, ok := out[job]; !ok {
			out[job] = YARNCapability{MemoryMB: DefaultCapability.MemoryMB, VCores: median(v, DefaultCapability.VCores)}
		}
	}
	return out, err
}
