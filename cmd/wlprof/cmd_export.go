package main

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/profile"
	"github.com/wlprof/wlprof/reports"
	"github.com/wlprof/wlprof/skyline"
)

func newExportCmd(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "export",
		Short:   "Export results for other systems (YARN reservations)",
		Long:    "Export results in the formats other systems load.\n" + exitStatusHelp,
		Example: "  wlprof export yarn-reservation --job etl-daily --queue dedicated",
		Args:    args(cobra.NoArgs),
	}
	cmd.AddCommand(newExportYARNCmd(g))
	return cmd
}

type exportYARNOptions struct {
	fit            skylineOptions
	Queue          string
	Name           string
	ReservationID  string
	Arrival        string
	Deadline       string
	Period         time.Duration
	MaxPeriodicity time.Duration
	MemoryMB       int64
	VCores         int64
	Overrides      string
}

func newExportYARNCmd(g *globalOptions) *cobra.Command {
	o := &exportYARNOptions{fit: skylineOptions{g: g}}
	cmd := &cobra.Command{
		Use:   "yarn-reservation",
		Short: "Print a YARN ReservationSubmissionRequest for a job's skyline",
		Long: `Fit the job's skyline (the flags of wlprof skyline apply) and print the
ReservationSubmissionRequest JSON that the YARN ResourceManager REST API
takes (POST /ws/v1/cluster/reservation/submit): steps of equal reservation
become stages of min-concurrency = num-containers, in order
(R_ORDER_NO_GAP, or R_ORDER when the skyline has a gap).

Arrival and deadline are epoch milliseconds. Without --arrival they come
from the job's SLO when the slo stage infers an actionable one on a natural
period (or --overrides sets it): the next period after the last run, from
its arrival to its deadline. Otherwise the request arrives one period after
the job's last run started and, without --deadline, ends when the skyline
does. The period (--period, else the slo stage's, else the median spacing
of the runs' starts) becomes the recurrence-expression and must divide
--max-periodicity (the RM's
yarn.resourcemanager.reservation-system.max-periodicity) and exceed the
window. The output is exactly the request body, always JSON.
` + exitStatusHelp,
		Example: `  wlprof export yarn-reservation -d ds --job tpch_q12 --queue dedicated --step 5s --period 1h
  wlprof export yarn-reservation -d ds --job etl --queue q --arrival 2026-11-22T02:00:00Z --deadline 2026-11-22T06:00:00Z`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runExportYARN(cmd.Context(), o) },
	}
	o.fit.bindFitFlags(cmd)
	f := cmd.Flags()
	f.StringVar(&o.fit.Job, "job", "", "job id (required)")
	f.StringVar(&o.Queue, "queue", "", "reservation queue (required)")
	f.StringVar(&o.Name, "name", "", "reservation name (default: the job id)")
	f.StringVar(&o.ReservationID, "reservation-id", "", "id from the RM's new-reservation call")
	f.StringVar(&o.Arrival, "arrival", "", "earliest start, RFC 3339 or epoch ms (default: one period after the last run)")
	f.StringVar(&o.Deadline, "deadline", "", "latest end, RFC 3339 or epoch ms (default: arrival + the skyline's length)")
	f.DurationVar(&o.Period, "period", 0, "recurrence period (default: median spacing of the runs' starts; 0s with --arrival: one-off)")
	f.DurationVar(&o.MaxPeriodicity, "max-periodicity", 24*time.Hour, "the RM's reservation-system max-periodicity")
	f.StringVar(&o.Overrides, "overrides", "", "the slo stage's overrides file (JSON or YAML), as wlprof slo --overrides")
	f.Int64Var(&o.MemoryMB, "container-memory", 0, "container memory in MB (default: from the skylines, else 1024)")
	f.Int64Var(&o.VCores, "container-vcores", 0, "container vcores (default: from the skylines, else 1)")
	return cmd
}

func parseInstant(s string) (int64, error) {
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
		return ms, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return 0, fmt.Errorf("%q is neither RFC 3339 nor epoch milliseconds", s)
	}
	return t.UnixMilli(), nil
}

func runExportYARN(ctx context.Context, o *exportYARNOptions) error {
	g := o.fit.g
	if o.fit.Job == "" || o.Queue == "" {
		return usagef("--job and --queue are required")
	}
	opts, _, err := o.fit.skylineOpts()
	if err != nil {
		return err
	}
	if err := opts.Validate(); err != nil {
		return usageError{err}
	}
	spec := skyline.ReservationSpec{Queue: o.Queue, Name: o.Name, ReservationID: o.ReservationID,
		MaxPeriodicityMs: o.MaxPeriodicity.Milliseconds(), PeriodMs: o.Period.Milliseconds()}
	if spec.Name == "" {
		spec.Name = o.fit.Job
	}
	if o.Arrival != "" {
		if spec.ArrivalMs, err = parseInstant(o.Arrival); err != nil {
			return usagef("--arrival: %v", err)
		}
	}
	if o.Deadline != "" {
		if spec.DeadlineMs, err = parseInstant(o.Deadline); err != nil {
			return usagef("--deadline: %v", err)
		}
	}
	ds, err := dataset.Open(g.Dataset)
	if err != nil {
		return err
	}
	jobs, err := skyline.Load(ctx, ds, o.fit.Job)
	if err != nil {
		return err
	}
	if len(jobs) == 0 {
		return fmt.Errorf("job %q has no skylines in %s", o.fit.Job, g.Dataset)
	}
	fromSLO := false
	if o.Arrival == "" {
		if fromSLO, err = scheduleFromSLO(ctx, ds, o, &spec); err != nil {
			return err
		}
	}
	if !fromSLO && (o.Arrival == "" || o.Period == 0) {
		if err := scheduleFromRuns(ctx, ds, o, &spec); err != nil {
			return err
		}
	}
	spec.Capability, err = containerSize(ctx, ds, o)
	if err != nil {
		return err
	}
	fit, err := skyline.Solve(ctx, jobs[0], opts)
	if err != nil {
		return err
	}
	req, err := skyline.Reservation(fit, spec)
	if err != nil && o.Period == 0 && o.Arrival == "" {
		return fmt.Errorf("%w (the period is the median spacing of the runs' starts; set one with --period)", err)
	}
	if err != nil {
		return err
	}
	return writeJSON(g.io.Out, req)
}

// scheduleFromSLO places the reservation as the report does: the slo
// stage's period (unless --period), and with an actionable SLO on a natural
// period, the next period's arrival and deadline. It reports false when
// the slo stage finds no period for the job.
func scheduleFromSLO(ctx context.Context, ds *dataset.Dataset, o *exportYARNOptions, spec *skyline.ReservationSpec) (bool, error) {
	if ds.Rows(dataset.RunsTable.Name) == 0 {
		return false, nil
	}
	rj := &reportJobs{byID: map[string]*reports.Job{}, aligned: map[string]bool{}}
	if err := addSLO(ctx, ds, &reports.Input{Notes: map[string][]string{}}, rj, o.Overrides); err != nil {
		return false, err
	}
	if err := addIdentity(ctx, ds, rj); err != nil {
		return false, err
	}
	j := rj.byID[o.fit.Job]
	if j == nil || j.Profile.PeriodS == nil || j.Profile.Identity.LastStartMs == nil {
		return false, nil
	}
	p := j.Profile
	if o.Period > 0 {
		p.PeriodS = &profile.Number{Value: o.Period.Seconds(), Source: profile.SourceOverride}
	}
	if o.Deadline != "" {
		deadline := spec.DeadlineMs
		spec.ArrivalMs, _, spec.PeriodMs = reservationWindow(p, *p.Identity.LastStartMs, false)
		spec.DeadlineMs = deadline
		return true, nil
	}
	spec.ArrivalMs, spec.DeadlineMs, spec.PeriodMs = reservationWindow(p, *p.Identity.LastStartMs, rj.aligned[o.fit.Job])
	return true, nil
}

// scheduleFromRuns fills in the period (median spacing of the job's run
// starts) and the arrival (one period after the last start) from the runs
// table, for what the flags left open.
func scheduleFromRuns(ctx context.Context, ds *dataset.Dataset, o *exportYARNOptions, spec *skyline.ReservationSpec) error {
	var starts []int64
	err := dataset.Scan(ctx, ds, dataset.RunsTable, func(r *dataset.Run) error {
		if r.Job == o.fit.Job && r.StartMs != dataset.NoTime {
			starts = append(starts, r.StartMs)
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.Slice(starts, func(a, b int) bool { return starts[a] < starts[b] })
	if o.Period == 0 && o.Arrival == "" {
		if len(starts) < 2 {
			return fmt.Errorf("job %s: %d run start(s) in the runs table, too few for a period: give --period and --arrival", o.fit.Job, len(starts))
		}
		gaps := make([]int64, len(starts)-1)
		for i := range gaps {
			gaps[i] = starts[i+1] - starts[i]
		}
		sort.Slice(gaps, func(a, b int) bool { return gaps[a] < gaps[b] })
		spec.PeriodMs = gaps[len(gaps)/2]
	}
	if o.Arrival == "" {
		if len(starts) == 0 {
			return fmt.Errorf("job %s: no run starts in the runs table: give --arrival", o.fit.Job)
		}
		if spec.PeriodMs <= 0 {
			return fmt.Errorf("job %s: give --period (or --arrival for a one-off reservation)", o.fit.Job)
		}
		spec.ArrivalMs = starts[len(starts)-1] + spec.PeriodMs
	}
	return nil
}

// containerSize is the flags' capability, else the median memory and
// vcores per container in the job's skylines, else <1024 MB, 1 vcore>.
func containerSize(ctx context.Context, ds *dataset.Dataset, o *exportYARNOptions) (skyline.YARNCapability, error) {
	var mem, cores []float64
	err := dataset.Scan(ctx, ds, dataset.SkylinesTable, func(s *dataset.SkylineSample) error {
		if s.Job == o.fit.Job && s.Containers > 0 {
			if s.MemoryBytes > 0 {
				mem = append(mem, float64(s.MemoryBytes)/s.Containers/(1<<20))
			}
			if s.VCores > 0 {
				cores = append(cores, s.VCores/s.Containers)
			}
		}
		return nil
	})
	if err != nil {
		return skyline.YARNCapability{}, err
	}
	median := func(v []float64, def int64) int64 {
		if len(v) == 0 {
			return def
		}
		sort.Float64s(v)
		return int64(v[len(v)/2] + 0.5)
	}
	c := skyline.YARNCapability{MemoryMB: median(mem, 1024), VCores: median(cores, 1)}
	if o.MemoryMB > 0 {
		c.MemoryMB = o.MemoryMB
	}
	if o.VCores > 0 {
		c.VCores = o.VCores
	}
	return c, nil
}
