package pipeline

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/wlprof/wlprof/classify"
	"github.com/wlprof/wlprof/constraints"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/estimate"
	"github.com/wlprof/wlprof/harvest"
	"github.com/wlprof/wlprof/placement"
	"github.com/wlprof/wlprof/profile"
	"github.com/wlprof/wlprof/simulate"
	"github.com/wlprof/wlprof/skyline"
	"github.com/wlprof/wlprof/slo"
)

// Options of Report.
type Options struct {
	// Title heads the report; "" gives "wlprof report of DIR".
	Title string
	// Skyline are the fit's options (wlprof skyline's flags).
	Skyline skyline.Options
	// SLOOverrides is the slo stage's overrides file (user sign-offs); "":
	// none.
	SLOOverrides string
	// YARNQueue, when set, adds each fitted job's YARN reservation request
	// for this queue; MaxPeriodicity is the RM's
	// yarn.resourcemanager.reservation-system.max-periodicity.
	YARNQueue      string
	MaxPeriodicity time.Duration
	// Simulate, when it names a trace, adds the simulate stage's what-if
	// of that workload (its first cluster) with the dataset's models.
	Simulate *simulate.Options
	// Estimate, when set, adds the estimate stage's section (s_req, s_fit,
	// Ω(t)) and each estimated job's profile estimate; SLOOverrides
	// applies unless it has its own.
	Estimate *estimate.Options
	// JobTypes, when set, adds each job's length type (Zhang et al., OSDI'16 §4.1,
	// package harvest) to its profile.
	JobTypes *harvest.Options
	// Harvest, when set, adds the harvest stage's section (Zhang et al., OSDI'16's
	// replay, history against blind) and, with the runs workload, each
	// job's length type to its profile.
	Harvest *harvest.Options
	// Placement, when set, adds the placement stage's section (Zhang et al., OSDI'16's
	// 3 × 3 classes, their stability and the durability replay).
	Placement *placement.Options
	// Constraints, when set, adds the constraints stage's section (Thinakaran et al., Phoenix: constraint table, CRV over time, M/G/1 waits).
	Constraints *constraints.Options
	// Planner are the options of the answers to the planner's questions
	// (the cluster sizing's target makespan, cores per server, capacity).
	Planner PlannerOptions
	// Around, when set, is called around each stage that Report runs
	// (named as reports.Stages names them) and must call run: where a
	// program sets process-wide settings, such as the collector's pace,
	// for one stage. Library code never changes them itself.
	Around func(stage string, run func() error) error
}

func (o Options) around(stage string, run func() error) error {
	if o.Around == nil {
		return run()
	}
	return o.Around(stage, run)
}

// Classify loads and runs the classify stage: a fresh series table is
// classified as it is read; otherwise the series are built and stored
// (classify.Series) before they are classified.
func Classify(ctx context.Context, ds *dataset.Dataset, opts classify.Options) (*classify.Result, error) {
	return classify.Contract.Execute(ctx, ds, opts)
}

// SLO loads and runs the slo stage, with the user's overrides file when
// one is given.
func SLO(ctx context.Context, ds *dataset.Dataset, opts slo.Options, overrides string) (*slo.Result, error) {
	opts.OverridesFile = overrides
	return slo.Contract.Execute(ctx, ds, opts)
}

// WindowOptions are what the user fixed of a reservation's placement.
type WindowOptions struct {
	// Period, when positive, replaces the inferred period.
	Period time.Duration
	// DeadlineMs, when not nil, replaces the SLO's deadline (epoch ms).
	DeadlineMs *int64
	// SLOOverrides is the slo stage's overrides file; "": none.
	SLOOverrides string
	// NowMs, when not nil, is the instant the reservation must not start
	// before (epoch ms); nil: the dataset's last instant (DataEnd).
	NowMs *int64
}

// DataEnd is the dataset's last instant as far as jobs go: the latest
// submit, start or end in the runs table (epoch ms); ok is false when the
// table holds no time at all. Reservations are placed after it, so they
// never start in the past of the data they were fitted on, and outputs do
// not depend on the wall clock.
func DataEnd(ctx context.Context, ds *dataset.Dataset) (ms int64, ok bool, err error) {
	err = dataset.Scan(ctx, ds, dataset.RunsTable, func(r *dataset.Run) error {
		for _, t := range [...]int64{r.SubmitMs, r.StartMs, r.EndMs} {
			if t != dataset.NoTime && (!ok || t > ms) {
				ms, ok = t, true
			}
		}
		return nil
	})
	return ms, ok, err
}

// Window places the next reservation of job as the report does: the
// period is w.Period, else the slo stage's, else the median spacing of the
// runs' starts (slo.Identify); with an actionable SLO on the slo stage's
// period, the window is the next period's arrival to deadline, otherwise
// it starts one period after the last run (skyline.NextWindow); either way
// not before w.NowMs (default: DataEnd).
func Window(ctx context.Context, ds *dataset.Dataset, job string, w WindowOptions) (arrivalMs, deadlineMs, periodMs int64, err error) {
	jobs := profile.Jobs{}
	p := jobs.Get(job)
	var anchor *skyline.Anchor
	// With a period and a deadline the SLO would not be used (its period
	// and its window both give way), so the provenance is not read.
	if ds.Rows(dataset.RunsTable.Name) > 0 && (w.Period <= 0 || w.DeadlineMs == nil) {
		res, err := SLO(ctx, ds, slo.DefaultOptions(), w.SLOOverrides)
		if err != nil && !errors.Is(err, slo.ErrNoRuns) {
			return 0, 0, 0, err
		}
		if err == nil {
			res.Profile(jobs)
			for _, sj := range res.Jobs {
				if pm, am, ok := sj.Anchor(); ok && sj.Job == job && w.DeadlineMs == nil {
					anchor = &skyline.Anchor{PeriodMs: pm, AnchorMs: am}
				}
			}
		}
	}
	if err := slo.Identify(ctx, ds, profile.Jobs{job: p}); err != nil {
		return 0, 0, 0, err
	}
	if w.Period > 0 {
		p.PeriodS = &profile.Number{Value: w.Period.Seconds(), Source: profile.SourceOverride}
	}
	switch {
	case p.Identity.LastStartMs == nil:
		return 0, 0, 0, fmt.Errorf("job %s: no run starts in the runs table: give --arrival", job)
	case p.PeriodS == nil:
		return 0, 0, 0, fmt.Errorf("job %s: %d run start(s) in the runs table, too few for a period: give --period", job, p.Identity.Runs)
	}
	var now int64
	if w.NowMs != nil {
		now = *w.NowMs
	} else if now, _, err = DataEnd(ctx, ds); err != nil {
		return 0, 0, 0, err
	}
	arrivalMs, deadlineMs, periodMs = skyline.NextWindow(p.PeriodS.Value, *p.Identity.LastStartMs, now, p.SLO, anchor)
	if w.DeadlineMs != nil {
		deadlineMs = *w.DeadlineMs
	}
	return arrivalMs, deadlineMs, periodMs, nil
}

// SimulateSection is the simulate section's options as wlprof report and
// run take them (the simulate stage's flags under --simulate-, and
// --simulate-history): nil without a workload, opts validated otherwise.
func SimulateSection(opts simulate.Options, history bool) (*simulate.Options, error) {
	if opts.Trace != "" && history {
		return nil, fmt.Errorf("--simulate-trace and --simulate-history both given: the section simulates one workload, a trace or the dataset's job history")
	}
	if opts.Trace == "" && !history {
		return nil, nil
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	return &opts, nil
}
