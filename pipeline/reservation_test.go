package pipeline

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/ingest"
	"github.com/wlprof/wlprof/reports"
	"github.com/wlprof/wlprof/skyline"
)

// tpchDataset ingests Hadoop ResourceEstimator's tpch_q12 fixture: one
// job, 13 runs, with run starts in the runs table and no provenance.
func tpchDataset(t *testing.T) *dataset.Dataset {
	t.Helper()
	_, ds, err := ingest.Into(context.Background(), filepath.Join(t.TempDir(), "ds"), "re-native",
		[]string{"../testdata/resourceestimator/tpch_q12.txt"}, ingest.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func fitOptions() skyline.Options {
	o := skyline.DefaultOptions()
	o.Job, o.StepS = "tpch_q12", 5
	return o
}

// With the window given, the request is the fit's, in that window, named
// after the job, with the capability the user set and the skylines' for
// the rest; the slo stage is not run.
func TestReservationGivenWindow(t *testing.T) {
	ctx := context.Background()
	ds := tpchDataset(t)
	arrival, deadline := int64(1_800_000_000_000), int64(1_800_000_000_000+2*3600_000)
	var stages []string
	o := ReservationOptions{Skyline: fitOptions(), ArrivalMs: &arrival,
		Spec:   skyline.ReservationSpec{Queue: "q", MaxPeriodicityMs: 86400_000, Capability: skyline.YARNCapability{MemoryMB: 2048}},
		Window: WindowOptions{Period: time.Hour * 24, DeadlineMs: &deadline},
		Around: func(stage string, run func() error) error { stages = append(stages, stage); return run() }}
	req, err := Reservation(ctx, ds, o)
	if err != nil {
		t.Fatal(err)
	}
	caps, err := skyline.ContainerSizes(ctx, ds)
	if err != nil {
		t.Fatal(err)
	}
	c, ok := caps["tpch_q12"]
	if !ok {
		c = skyline.DefaultCapability
	}
	d := req.Definition
	if req.Queue != "q" || d.Name != "tpch_q12" || d.ArrivalMs != arrival || d.DeadlineMs != deadline || d.Recurrence != "86400000" {
		t.Errorf("request %+v", req)
	}
	if got := d.Requests.Requests[0].Capability; got != (skyline.YARNCapability{MemoryMB: 2048, VCores: c.VCores}) {
		t.Errorf("capability %+v, want 2048 MB and the skylines' %d vcores", got, c.VCores)
	}
	if len(stages) != 0 {
		t.Errorf("stages run: %v, want none with the window given", stages)
	}
}

// Without an arrival the window is Window's, found through the slo stage,
// and the request is what Window and skyline.Reservation give.
func TestReservationPlacesTheWindow(t *testing.T) {
	ctx := context.Background()
	ds := tpchDataset(t)
	var stages []string
	o := ReservationOptions{Skyline: fitOptions(), Window: WindowOptions{Period: time.Hour},
		Spec:   skyline.ReservationSpec{Queue: "q", Name: "n", MaxPeriodicityMs: 86400_000},
		Around: func(stage string, run func() error) error { stages = append(stages, stage); return run() }}
	req, err := Reservation(ctx, ds, o)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(stages, []string{reports.StageSLO}) {
		t.Errorf("stages run: %v, want the slo stage", stages)
	}
	spec := o.Spec
	if spec.ArrivalMs, spec.DeadlineMs, spec.PeriodMs, err = Window(ctx, ds, "tpch_q12", o.Window); err != nil {
		t.Fatal(err)
	}
	caps, _ := skyline.ContainerSizes(ctx, ds)
	if spec.Capability = caps["tpch_q12"]; spec.Capability.MemoryMB == 0 {
		spec.Capability = skyline.DefaultCapability
	}
	in, err := skyline.Load(ctx, ds, o.Skyline)
	if err != nil {
		t.Fatal(err)
	}
	fit, err := skyline.Solve(ctx, in.Jobs[0], o.Skyline)
	if err != nil {
		t.Fatal(err)
	}
	want, err := skyline.Reservation(fit, spec)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(req, want) {
		t.Errorf("request\n%+v\nwant\n%+v", req, want)
	}
}

func TestReservationErrors(t *testing.T) {
	ctx := context.Background()
	ds := tpchDataset(t)
	o := ReservationOptions{Skyline: fitOptions(), Spec: skyline.ReservationSpec{Queue: "q", MaxPeriodicityMs: 86400_000}}
	o.Skyline.Job = "nosuch"
	if _, err := Reservation(ctx, ds, o); !errors.Is(err, dataset.ErrUnknownJob) || !strings.HasPrefix(err.Error(), `job "nosuch" has no skylines in `+ds.Dir) {
		t.Errorf("unknown job: %v", err)
	}
	// A period that does not divide max-periodicity: inferred, the error
	// says how to set one; given, it does not.
	o.Skyline.Job, o.Spec.MaxPeriodicityMs = "tpch_q12", 7*60_000
	if _, err := Reservation(ctx, ds, o); err == nil || !strings.HasSuffix(err.Error(), "(the period is inferred from the runs; set one with --period)") {
		t.Errorf("inferred period: %v", err)
	}
	o.Window.Period = time.Hour
	if _, err := Reservation(ctx, ds, o); err == nil || strings.Contains(err.Error(), "--period") {
		t.Errorf("given period: %v", err)
	}
}
