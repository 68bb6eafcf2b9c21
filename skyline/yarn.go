package skyline

import (
	"errors"
	"fmt"
	"strconv"
)

// YARN's ReservationSubmissionRequest, as the ResourceManager REST API
// takes it (POST /ws/v1/cluster/reservation/submit). Times in epoch
// milliseconds, durations in milliseconds.
type YARNReservation struct {
	Queue         string                `json:"queue"`
	ReservationID string                `json:"reservation-id,omitempty"`
	Definition    YARNReservationDefine `json:"reservation-definition"`
}

// YARNReservationDefine is the reservation-definition object.
type YARNReservationDefine struct {
	ArrivalMs  int64  `json:"arrival"`
	DeadlineMs int64  `json:"deadline"`
	Name       string `json:"reservation-name"`
	// Recurrence is the period in milliseconds, as a string; "0" (or
	// absent) for a one-off reservation.
	Recurrence string               `json:"recurrence-expression,omitempty"`
	Priority   int                  `json:"priority"`
	Requests   YARNReservationStage `json:"reservation-requests"`
}

// YARNReservationStage is the reservation-requests object.
type YARNReservationStage struct {
	// Interpreter: 0 R_ANY, 1 R_ALL, 2 R_ORDER, 3 R_ORDER_NO_GAP.
	Interpreter int                  `json:"reservation-request-interpreter"`
	Requests    []YARNReservationReq `json:"reservation-request"`
}

// YARNReservationReq is one stage: NumContainers containers of Capability
// for DurationMs, at least MinConcurrency of them at once.
type YARNReservationReq struct {
	Capability     YARNCapability `json:"capability"`
	MinConcurrency int64          `json:"min-concurrency"`
	NumContainers  int64          `json:"num-containers"`
	DurationMs     int64          `json:"duration"`
}

// YARNCapability is one container's size.
type YARNCapability struct {
	MemoryMB int64 `json:"memory"`
	VCores   int64 `json:"vCores"`
}

// ReservationSpec is what a reservation needs beyond the skyline.
type ReservationSpec struct {
	Queue         string
	Name          string
	ReservationID string // from the RM's new-reservation call; may be ""
	ArrivalMs     int64
	DeadlineMs    int64 // 0: arrival + the skyline's duration
	// PeriodMs makes the reservation recurring (0: one-off). It must divide
	// MaxPeriodicityMs and exceed deadline − arrival, as the RM checks.
	PeriodMs int64
	// MaxPeriodicityMs is yarn.resourcemanager.reservation-system.max-periodicity
	// (default 86400000, a day).
	MaxPeriodicityMs int64
	Capability       YARNCapability
	// MinConcurrency is each stage's min-concurrency, the gang size: 0
	// means 1, Morpheus' (Jyothi et al., OSDI'16) minimum parallelism (a stage may run its
	// containers one at a time); FullGang, or any value above a stage's
	// containers, asks for all of the stage's containers at once.
	MinConcurrency int64
}

// FullGang as ReservationSpec.MinConcurrency reserves every stage as one
// gang (min-concurrency = num-containers).
const FullGang int64 = -1

// Reservation errors.
var ErrReservation = errors.New("cannot build the reservation")

// Reservation turns a fitted skyline into a YARN reservation request: runs
// of steps with the same integer reservation become one stage each, in
// order, with spec's min-concurrency; steps reserving nothing are left out (then the stages are R_ORDER,
// which allows gaps, instead of R_ORDER_NO_GAP).
func Reservation(f *Fit, spec ReservationSpec) (*YARNReservation, error) {
	if spec.Queue == "" {
		return nil, fmt.Errorf("%w: no queue", ErrReservation)
	}
	if spec.MinConcurrency < FullGang {
		return nil, fmt.Errorf("%w: min-concurrency %d: want a gang size ≥ 1, 0 (one container) or FullGang", ErrReservation, spec.MinConcurrency)
	}
	if spec.Capability.MemoryMB <= 0 || spec.Capability.VCores <= 0 {
		return nil, fmt.Errorf("%w: container capability %d MB, %d vcores must be positive", ErrReservation, spec.Capability.MemoryMB, spec.Capability.VCores)
	}
	stepMs := int64(f.StepS * 1000)
	if stepMs <= 0 {
		return nil, fmt.Errorf("%w: step %g s is under a millisecond", ErrReservation, f.StepS)
	}
	// Trim steps that reserve nothing at either end.
	lo, hi := 0, len(f.Reservation)
	for lo < hi && f.Reservation[lo] == 0 {
		lo++
	}
	for hi > lo && f.Reservation[hi-1] == 0 {
		hi--
	}
	if lo == hi {
		return nil, fmt.Errorf("%w: the skyline of %s reserves nothing", ErrReservation, f.Job)
	}
	stages := YARNReservationStage{Interpreter: 3}
	for k := lo; k < hi; {
		h := f.Reservation[k]
		q := k
		for q < hi && f.Reservation[q] == h {
			q++
		}
		if h == 0 {
			stages.Interpreter = 2
		} else {
			gang := spec.MinConcurrency
			switch {
			case gang == 0:
				gang = 1
			case gang < 0 || gang > h:
				gang = h
			}
			stages.Requests = append(stages.Requests, YARNReservationReq{Capability: spec.Capability,
				MinConcurrency: gang, NumContainers: h, DurationMs: int64(q-k) * stepMs})
		}
		k = q
	}
	durMs := int64(hi-lo) * stepMs
	arrival := spec.ArrivalMs
	deadline := spec.DeadlineMs
	if deadline == 0 {
		deadline = arrival + int64(hi)*stepMs
	}
	if deadline-arrival < durMs {
		return nil, fmt.Errorf("%w: the window from arrival to deadline (%d ms) is shorter than the skyline (%d ms)", ErrReservation, deadline-arrival, durMs)
	}
	def := YARNReservationDefine{ArrivalMs: arrival, DeadlineMs: deadline, Name: spec.Name, Requests: stages}
	if spec.PeriodMs != 0 {
		maxP := spec.MaxPeriodicityMs
		if maxP == 0 {
			maxP = 86400000
		}
		switch {
		case spec.PeriodMs < 0:
			return nil, fmt.Errorf("%w: period %d ms is negative", ErrReservation, spec.PeriodMs)
		case maxP%spec.PeriodMs != 0:
			return nil, fmt.Errorf("%w: period %d ms does not divide the RM's max periodicity %d ms", ErrReservation, spec.PeriodMs, maxP)
		case spec.PeriodMs <= deadline-arrival:
			return nil, fmt.Errorf("%w: period %d ms does not exceed the reservation window %d ms", ErrReservation, spec.PeriodMs, deadline-arrival)
		}
		def.Recurrence = strconv.FormatInt(spec.PeriodMs, 10)
	}
	return &YARNReservation{Queue: spec.Queue, ReservationID: spec.ReservationID, Definition: def}, nil
}
