package skyline

import (
	"errors"
	"reflect"
	"testing"
)

func TestReservationStages(t *testing.T) {
	f := &Fit{Job: "j", StepS: 60, Reservation: []int64{0, 2, 2, 5, 5, 5, 0, 1, 0}}
	capa := YARNCapability{MemoryMB: 2048, VCores: 2}
	r, err := Reservation(f, ReservationSpec{Queue: "q", Name: "j", ArrivalMs: 1000, PeriodMs: 3600000, Capability: capa})
	if err != nil {
		t.Fatal(err)
	}
	// Min-concurrency 1 by default: Morpheus' (Jyothi et al., OSDI'16) minimum parallelism (a
	// stage's containers need not all run at once).
	want := []YARNReservationReq{
		{capa, 1, 2, 120000},
		{capa, 1, 5, 180000},
		{capa, 1, 1, 60000},
	}
	if !reflect.DeepEqual(r.Definition.Requests.Requests, want) {
		t.Errorf("stages %+v, want %+v", r.Definition.Requests.Requests, want)
	}
	// Asked for: gangs of 3 (capped at a stage's containers), whole stages.
	for _, c := range []struct {
		gang int64
		mins []int64
	}{{3, []int64{2, 3, 1}}, {FullGang, []int64{2, 5, 1}}, {1, []int64{1, 1, 1}}} {
		r, err := Reservation(f, ReservationSpec{Queue: "q", Name: "j", ArrivalMs: 1000, PeriodMs: 3600000, Capability: capa, MinConcurrency: c.gang})
		if err != nil {
			t.Fatal(err)
		}
		for i, st := range r.Definition.Requests.Requests {
			if st.MinConcurrency != c.mins[i] {
				t.Errorf("gang %d: stage %d min-concurrency %d, want %d", c.gang, i, st.MinConcurrency, c.mins[i])
			}
		}
	}
	// A gap inside the skyline: stages in order, gaps allowed (R_ORDER).
	if got := r.Definition.Requests.Interpreter; got != 2 {
		t.Errorf("interpreter %d, want 2 (R_ORDER)", got)
	}
	// Default deadline: arrival + up to the last reserving step (8 steps).
	if r.Definition.DeadlineMs != 1000+8*60000 || r.Definition.Recurrence != "3600000" {
		t.Errorf("deadline %d recurrence %q", r.Definition.DeadlineMs, r.Definition.Recurrence)
	}
	f.Reservation = []int64{3, 3, 4}
	r, err = Reservation(f, ReservationSpec{Queue: "q", Capability: capa})
	if err != nil || r.Definition.Requests.Interpreter != 3 || r.Definition.Recurrence != "" {
		t.Errorf("no gap: %+v, %v; want R_ORDER_NO_GAP (3), one-off", r, err)
	}
}

func TestReservationErrors(t *testing.T) {
	capa := YARNCapability{MemoryMB: 1024, VCores: 1}
	f := &Fit{Job: "j", StepS: 60, Reservation: []int64{1, 1}}
	for name, spec := range map[string]ReservationSpec{
		"no queue":          {Capability: capa},
		"bad capability":    {Queue: "q"},
		"period not divide": {Queue: "q", Capability: capa, PeriodMs: 7 * 60000},
		"period too short":  {Queue: "q", Capability: capa, PeriodMs: 60000},
		"window too short":  {Queue: "q", Capability: capa, ArrivalMs: 0, DeadlineMs: 60000},
	} {
		if _, err := Reservation(f, spec); !errors.Is(err, ErrReservation) {
			t.Errorf("%s: error %v, want ErrReservation", name, err)
		}
	}
	if _, err := Reservation(&Fit{StepS: 60, Reservation: []int64{0, 0}}, ReservationSpec{Queue: "q", Capability: capa}); !errors.Is(err, ErrReservation) {
		t.Errorf("empty skyline: %v", err)
	}
}
