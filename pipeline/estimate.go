package pipeline

import (
	"context"
	"errors"
	"fmt"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/estimate"
	"github.com/wlprof/wlprof/reports"
)

// addEstimate runs the estimate stage as wlprof estimate does and keeps
// what the report's section shows; each estimated job's profile gets its
// estimate.
func (r *reportInput) addEstimate(ctx context.Context, ds *dataset.Dataset, o Options) error {
	if o.Estimate == nil {
		r.note(reports.StageEstimate, "Not asked for: --estimate (with --estimate-jobs FILE for the deadlines, task counts and µ the dataset lacks) adds each job's s_req, s_fit and the availability Ω(t) the periodic tenants leave (Polo, PhD thesis, UPC 2014, §3.4, §5.3).")
		return nil
	}
	opts := *o.Estimate
	if opts.SLO.Overrides == nil && opts.SLO.OverridesFile == "" {
		opts.SLO.OverridesFile = o.SLOOverrides
	}
	var res *estimate.Result
	err := r.around(reports.StageEstimate, func() error {
		// Without a job the section still shows the availability.
		in, err := estimate.Load(ctx, ds, opts)
		if err != nil && !errors.Is(err, estimate.ErrNoJobs) {
			return err
		}
		res, err = estimate.Run(ctx, in, opts)
		return err
	})
	if err != nil {
		return fmt.Errorf("estimate: %w", err)
	}
	e := &reports.Estimate{At: res.At, AtS: float64(res.AtMs) / 1000, SlotCPU: res.SlotCPU, AvailabilityFrom: res.AvailabilityFrom, Warnings: res.Warnings}
	for _, s := range res.Availability {
		e.StartS, e.Slots = append(e.StartS, s.StartS), append(e.Slots, s.Slots)
	}
	for _, j := range res.Jobs {
		e.Rows = append(e.Rows, reports.EstimateRow{Job: j.Job, DeadlineS: j.DeadlineS, Phase: j.Phase, Pending: j.PendingTasks, MuS: j.MuS,
			SReq: j.SReq, SFit: j.SFit, AvailMeanSlots: j.AvailMeanSlots, ShortTasks: j.ShortTasks, MeetsGoal: j.MeetsGoal,
			SReqWaves: j.SReqWaves, LateTasks: j.LateTasks, Rank: j.Rank})
	}
	for _, n := range res.NotEstimated {
		e.NotEstimated = append(e.NotEstimated, reports.Skipped{Stage: reports.StageEstimate, Job: n.Job, Reason: n.Reason})
	}
	if len(e.Rows) == 0 {
		r.note(reports.StageEstimate, fmt.Sprintf("No job could be estimated (%d without a deadline, task counts or µ): give them in --estimate-jobs.", len(e.NotEstimated)))
	}
	if err := res.Profile(r.jobs); err != nil {
		return err
	}
	r.in.Estimate = e
	return nil
}
