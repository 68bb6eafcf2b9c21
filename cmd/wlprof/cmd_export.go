package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/stage"
	"github.com/wlprof/wlprof/internal/timeflag"
	"github.com/wlprof/wlprof/pipeline"
	"github.com/wlprof/wlprof/skyline"
	"github.com/wlprof/wlprof/slo"
)

func newExportCmd(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "export",
		Short:   "Export results for other systems (YARN reservations, Kubernetes patches)",
		Long:    "Export results in the formats other systems load.\n" + exitStatusHelp,
		Example: "  wlprof export yarn-reservation etl-daily --queue dedicated --reservation-id reservation_1700000000000_0001",
		Args:    args(cobra.NoArgs),
	}
	cmd.AddCommand(newExportYARNCmd(g), newExportKubernetesCmd(g))
	return group(cmd)
}

type exportYARNOptions struct {
	g              *globalOptions
	fit            skyline.Options
	Queue          string
	Name           string
	ReservationID  string
	NewReservation string
	Arrival        timeflag.Instant
	Deadline       timeflag.Instant
	Period         time.Duration
	MaxPeriodicity time.Duration
	MemoryMB       int64
	VCores         int64
	// slo holds --overrides, the slo stage's own flag.
	slo            slo.Options
	MinConcurrency int64
	Now            timeflag.Instant
}

func newExportYARNCmd(g *globalOptions) *cobra.Command {
	o := &exportYARNOptions{g: g, fit: skyline.DefaultOptions()}
	cmd := &cobra.Command{
		Use:   "yarn-reservation JOB",
		Short: "Print a YARN ReservationSubmissionRequest for a job's skyline",
		Long: `Fit the job's skyline (the flags of wlprof skyline apply) and print the
ReservationSubmissionRequest JSON that the YARN ResourceManager REST API
takes (POST /ws/v1/cluster/reservation/submit): steps of equal reservation
become stages, in order (R_ORDER_NO_GAP, or R_ORDER when the skyline has a
gap), of min-concurrency 1 (Morpheus' (Jyothi et al., OSDI'16) minimum parallelism; --min-concurrency
sets a gang size, 0 whole stages).

Arrival and deadline are epoch milliseconds. Without --arrival they come
from the job's SLO when the slo stage infers an actionable one (or
--overrides sets it): in the slo stage's next period after the last run
(periods start where the slo stage starts them: midnight UTC for periods
that divide a day, Monday for a week, else at the submissions' phase),
from its arrival to its deadline. Otherwise the request arrives one period
after the job's last run started and, without --deadline, ends when the
skyline does. Either way it moves on by whole periods until it does not
start before --now (default: the last instant in the dataset's runs table,
so the output does not depend on the clock); a request that starts before
the wall clock gets a warning on stderr. The period (--period, else the
slo stage's, else the median spacing of the runs' starts) becomes the
recurrence-expression and must divide --max-periodicity (the RM's
yarn.resourcemanager.reservation-system.max-periodicity) and exceed the
window. The output is exactly the request body, always JSON. The ResourceManager
refuses a request without an id: get one first (POST
/ws/v1/cluster/reservation/new-reservation) and pass it with
--reservation-id, or its response with --new-reservation; the request is
checked against the ResourceManager's validation rules before it is printed.
` + timesHelp + exitStatusHelp,
		Example: `  wlprof export yarn-reservation -d ds tpch_q12 --queue dedicated --reservation-id reservation_1700000000000_0001 --step 5s --period 1h
  curl -s -X POST http://rm:8088/ws/v1/cluster/reservation/new-reservation > new.json
  wlprof export yarn-reservation -d ds etl --queue q --new-reservation new.json --arrival 2026-11-22T02:00:00Z --deadline 2026-11-22T06:00:00Z`,
		Args:        jobArg(&o.fit.Job),
		Annotations: map[string]string{annotationOutputs: "json"},
		RunE:        func(cmd *cobra.Command, _ []string) error { return runExportYARN(cmd.Context(), o) },
	}
	f := cmd.Flags()
	// One job's fit: the skyline stage's flags but --alpha-sweep and
	// --workers, and --job as the argument's other form.
	stage.AddOnly(f, o.fit.AddFlags, slices.Concat(skyline.FitFlags, []string{"job"})...)
	f.Lookup("job").Usage = "job id (or give it as the argument)"
	completeModel(cmd)
	f.StringVar(&o.Queue, "queue", "", "reservation queue (required)")
	f.StringVar(&o.Name, "name", "", "reservation name (default: the job id)")
	f.StringVar(&o.ReservationID, "reservation-id", "", "the reservation's id, from the RM's new-reservation call (this or --new-reservation is required)")
	f.StringVar(&o.NewReservation, "new-reservation", "", "file holding the RM's new-reservation response (- for stdin), the id's other source")
	var arrival, deadline int64
	o.Arrival, o.Deadline = *timeflag.NewInstant(&arrival), *timeflag.NewInstant(&deadline)
	f.Var(&o.Arrival, "arrival", "earliest start (default: the SLO's arrival in the next period, else one period after the last run)")
	f.Var(&o.Deadline, "deadline", "latest end (default: the SLO's deadline, else arrival + the skyline's length)")
	f.Var(timeflag.NewDuration(&o.Period, 0), "period", "recurrence period (default: the slo stage's, else median spacing of the runs' starts; 0s with --arrival: one-off)")
	f.Var(timeflag.NewDuration(&o.MaxPeriodicity, 24*time.Hour), "max-periodicity", "the RM's reservation-system max-periodicity")
	stage.AddPrefixed(f, "", "(the slo stage's, as wlprof slo --overrides)", o.slo.AddFlags, "overrides")
	f.Int64Var(&o.MemoryMB, "container-memory", 0, "container memory in MB (default: from the skylines, else 1024)")
	f.Int64Var(&o.VCores, "container-vcores", 0, "container vcores (default: from the skylines, else 1)")
	f.Int64Var(&o.MinConcurrency, "min-concurrency", 1, "containers of a stage that must run at once (0: all of them)")
	var now int64
	o.Now = *timeflag.NewInstant(&now)
	f.Var(&o.Now, "now", "place the request at or after this instant (default: the dataset's last instant)")
	completeJob(cmd, g, dataset.SkylinesTable.Name)
	return cmd
}

func runExportYARN(ctx context.Context, o *exportYARNOptions) error {
	g := o.g
	if o.fit.Job == "" || o.Queue == "" {
		return usagef("the job (argument or --job) and --queue are required")
	}
	if err := o.reservationID(); err != nil {
		return err
	}
	opts := o.fit
	if err := opts.Validate(); err != nil {
		return usageError{err}
	}
	if o.MinConcurrency < 0 {
		return usagef("--min-concurrency %d: want 1 or more, or 0 for all of a stage's containers at once", o.MinConcurrency)
	}
	ro := pipeline.ReservationOptions{Skyline: opts, Around: tuneStage,
		Spec: skyline.ReservationSpec{Queue: o.Queue, Name: o.Name, ReservationID: o.ReservationID, MaxPeriodicityMs: o.MaxPeriodicity.Milliseconds(),
			Capability: skyline.YARNCapability{MemoryMB: o.MemoryMB, VCores: o.VCores}, MinConcurrency: o.MinConcurrency},
		Window: pipeline.WindowOptions{Period: o.Period, SLOOverrides: o.slo.OverridesFile}}
	if o.MinConcurrency == 0 {
		ro.Spec.MinConcurrency = skyline.FullGang
	}
	if o.Arrival.Given {
		ro.ArrivalMs = o.Arrival.Ms
	}
	if o.Deadline.Given {
		ro.Window.DeadlineMs = o.Deadline.Ms
	}
	if o.Now.Given {
		ro.Window.NowMs = o.Now.Ms
	}
	ds, err := dataset.Open(g.Dataset)
	if err != nil {
		return err
	}
	req, err := pipeline.Reservation(ctx, ds, ro)
	if err != nil {
		return err
	}
	if at := time.UnixMilli(req.Definition.ArrivalMs); at.Before(time.Now()) {
		fmt.Fprintf(g.io.Err, "warning: the reservation arrives at %s, in the past; give --now or --arrival to place it later\n", at.UTC().Format(time.RFC3339))
	}
	if err := skyline.CheckSubmission(req, ro.Spec.MaxPeriodicityMs); err != nil {
		return fmt.Errorf("the request would be refused by the ResourceManager: %w", err)
	}
	return writeJSON(g.io.Out, req)
}

// reservationID sets o.ReservationID from --new-reservation's response
// when given, and checks that the id is there and well formed: the
// ResourceManager refuses a submission without one.
func (o *exportYARNOptions) reservationID() error {
	const how = "get one with: curl -X POST http://RM:8088/ws/v1/cluster/reservation/new-reservation, then pass --reservation-id ID or save the response and pass --new-reservation FILE"
	if o.NewReservation != "" {
		if o.ReservationID != "" {
			return usagef("--reservation-id and --new-reservation both give the id: pass one")
		}
		var b []byte
		var err error
		if o.NewReservation == "-" {
			b, err = io.ReadAll(o.g.io.In)
		} else {
			b, err = os.ReadFile(o.NewReservation)
		}
		if err != nil {
			return fmt.Errorf("--new-reservation: %w", err)
		}
		var resp struct {
			ID string `json:"reservation-id"`
		}
		if err := json.Unmarshal(b, &resp); err != nil || resp.ID == "" {
			return usagef("--new-reservation %s: not a new-reservation response ({\"reservation-id\": \"reservation_…\"})", o.NewReservation)
		}
		o.ReservationID = resp.ID
	}
	switch {
	case o.ReservationID == "":
		return usagef("a reservation id is required (the ResourceManager refuses a request without one); %s", how)
	case !skyline.ValidReservationID(o.ReservationID):
		return usagef("reservation id %q is not of the form reservation_<cluster timestamp>_<number>; %s", o.ReservationID, how)
	}
	return nil
}
