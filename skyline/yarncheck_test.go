package skyline

import (
	"strings"
	"testing"
)

// TestCheckSubmission: each rule of the ResourceManager's
// ReservationInputValidator (and its recurrence checks) refuses the
// request that breaks it, and only that one.
func TestCheckSubmission(t *testing.T) {
	good := func() *YARNReservation {
		return &YARNReservation{Queue: "dedicated", ReservationID: "reservation_1462166141572_0001",
			Definition: YARNReservationDefine{ArrivalMs: 1000, DeadlineMs: 61000, Name: "j", Recurrence: "3600000",
				Requests: YARNReservationStage{Interpreter: 3, Requests: []YARNReservationReq{
					{Capability: YARNCapability{MemoryMB: 1024, VCores: 1}, MinConcurrency: 1, NumContainers: 4, DurationMs: 30000},
					{Capability: YARNCapability{MemoryMB: 1024, VCores: 1}, MinConcurrency: 2, NumContainers: 2, DurationMs: 30000}}}}}
	}
	if err := CheckSubmission(good(), 86400000); err != nil {
		t.Fatalf("a valid request refused: %v", err)
	}
	for _, c := range []struct {
		name   string
		break_ func(r *YARNReservation)
		want   string
	}{
		{"no id", func(r *YARNReservation) { r.ReservationID = "" }, "no reservation-id"},
		{"bad id", func(r *YARNReservation) { r.ReservationID = "res_1" }, "not of the form"},
		{"no queue", func(r *YARNReservation) { r.Queue = "" }, "no queue"},
		{"deadline before arrival", func(r *YARNReservation) { r.Definition.DeadlineMs = 500 }, "not after arrival"},
		{"window too short", func(r *YARNReservation) { r.Definition.DeadlineMs = 50000 }, "shorter than the requests' minimum duration"},
		{"no capability", func(r *YARNReservation) { r.Definition.Requests.Requests[0].Capability.MemoryMB = 0 }, "capability"},
		{"gang too large", func(r *YARNReservation) { r.Definition.Requests.Requests[1].MinConcurrency = 3 }, "min-concurrency"},
		{"period does not divide", func(r *YARNReservation) { r.Definition.Recurrence = "7000000" }, "does not divide"},
		{"period within window", func(r *YARNReservation) { r.Definition.Recurrence = "60000" }, "does not exceed"},
		{"no requests", func(r *YARNReservation) { r.Definition.Requests.Requests = nil }, "no reservation-request"},
	} {
		r := good()
		c.break_(r)
		err := CheckSubmission(r, 86400000)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want an error saying %q", c.name, err, c.want)
		}
	}
}
