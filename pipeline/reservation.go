package pipeline

import (
	"context"
	"fmt"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/reports"
	"github.com/wlprof/wlprof/skyline"
)

// ReservationOptions are what the user fixed of one job's YARN
// reservation request (wlprof export yarn-reservation); Reservation
// derives the rest.
type ReservationOptions struct {
	// Skyline are the fit's options; Skyline.Job is the job.
	Skyline skyline.Options
	// Spec is the request's queue, name ("": the job's id), reservation id
	// and max-periodicity, and the container size where it is set: a
	// capability field left 0 comes from the job's skylines
	// (skyline.ContainerSizes), else from skyline.DefaultCapability. Its
	// window and period are ArrivalMs's and Window's.
	Spec skyline.ReservationSpec
	// ArrivalMs, when not nil, is the request's arrival (epoch ms), and
	// the window is Window.DeadlineMs's (nil: arrival + the skyline's
	// length) with Window.Period (0: one-off). Nil: the window is placed
	// as Window places it.
	ArrivalMs *int64
	Window    WindowOptions
	// Around is Options.Around, for the slo stage that Window runs.
	Around func(stage string, run func() error) error
}

// Reservation fits the skyline of a job and turns it into its next YARN
// reservation request.
func Reservation(ctx context.Context, ds *dataset.Dataset, o ReservationOptions) (*skyline.YARNReservation, error) {
	job, spec := o.Skyline.Job, o.Spec
	if spec.Name == "" {
		spec.Name = job
	}
	spec.PeriodMs = o.Window.Period.Milliseconds()
	if o.ArrivalMs != nil {
		spec.ArrivalMs = *o.ArrivalMs
	}
	if o.Window.DeadlineMs != nil {
		spec.DeadlineMs = *o.Window.DeadlineMs
	}
	// Load says when the job has no skylines (dataset.ErrUnknownJob).
	in, err := skyline.Load(ctx, ds, o.Skyline)
	if err != nil {
		return nil, err
	}
	if o.ArrivalMs == nil {
		err := Options{Around: o.Around}.around(reports.StageSLO, func() (err error) {
			spec.ArrivalMs, spec.DeadlineMs, spec.PeriodMs, err = Window(ctx, ds, job, o.Window)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	caps, err := skyline.ContainerSizes(ctx, ds)
	if err != nil {
		return nil, err
	}
	c, ok := caps[job]
	if !ok {
		c = skyline.DefaultCapability
	}
	if spec.Capability.MemoryMB <= 0 {
		spec.Capability.MemoryMB = c.MemoryMB
	}
	if spec.Capability.VCores <= 0 {
		spec.Capability.VCores = c.VCores
	}
	fit, err := skyline.Solve(ctx, in.Jobs[0], o.Skyline)
	if err != nil {
		return nil, err
	}
	req, err := skyline.Reservation(fit, spec)
	if err != nil && o.Window.Period == 0 && o.ArrivalMs == nil {
		return nil, fmt.Errorf("%w (the period is inferred from the runs; set one with --period)", err)
	}
	return req, err
}
