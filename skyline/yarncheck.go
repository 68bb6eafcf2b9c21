package skyline

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
)

// reservationIDPattern is a ReservationId as the ResourceManager prints and
// parses it: "reservation_" + the cluster timestamp + "_" + a sequence
// number (ReservationId.parseReservationId).
var reservationIDPattern = regexp.MustCompile(`^reservation_[0-9]+_[0-9]+$`)

// ValidReservationID reports whether id is a ReservationId the
// ResourceManager accepts.
func ValidReservationID(id string) bool { return reservationIDPattern.MatchString(id) }

// CheckSubmission checks a ReservationSubmissionRequest against the rules
// the ResourceManager's ReservationInputValidator applies before a plan
// sees it, with maxPeriodicityMs its
// yarn.resourcemanager.reservation-system.max-periodicity (0: a day): a
// well-formed reservation id, a queue, at least one request, a positive
// capability and count for each, a deadline after the arrival that leaves
// room for the requests' minimum duration (their sum under R_ORDER and
// R_ORDER_NO_GAP, the longest under R_ALL), and a recurrence that is a
// whole number of milliseconds dividing the max periodicity and longer
// than the window. Every problem is reported (errors.Join).
func CheckSubmission(r *YARNReservation, maxPeriodicityMs int64) error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if r.ReservationID == "" {
		bad("no reservation-id: get one from POST /ws/v1/cluster/reservation/new-reservation")
	} else if !ValidReservationID(r.ReservationID) {
		bad("reservation-id %q is not of the form reservation_<cluster timestamp>_<number>", r.ReservationID)
	}
	if r.Queue == "" {
		bad("no queue")
	}
	d := r.Definition
	reqs := d.Requests.Requests
	if len(reqs) == 0 {
		bad("no reservation-request")
	}
	var minDur int64
	for i, q := range reqs {
		if q.Capability.MemoryMB <= 0 || q.Capability.VCores <= 0 {
			bad("request %d: capability %d MB, %d vcores: both must be positive", i+1, q.Capability.MemoryMB, q.Capability.VCores)
		}
		if q.NumContainers <= 0 || q.MinConcurrency <= 0 || q.MinConcurrency > q.NumContainers {
			bad("request %d: %d containers, min-concurrency %d: want 1 ≤ min-concurrency ≤ num-containers", i+1, q.NumContainers, q.MinConcurrency)
		}
		if q.DurationMs <= 0 {
			bad("request %d: duration %d ms is not positive", i+1, q.DurationMs)
		}
		switch d.Requests.Interpreter {
		case 0, 1: // R_ANY, R_ALL: the longest request
			minDur = max(minDur, q.DurationMs)
		default: // R_ORDER, R_ORDER_NO_GAP: one after another
			minDur += q.DurationMs
		}
	}
	window := d.DeadlineMs - d.ArrivalMs
	if window <= 0 {
		bad("deadline %d is not after arrival %d", d.DeadlineMs, d.ArrivalMs)
	} else if d.Requests.Interpreter != 0 && window < minDur {
		bad("the window from arrival to deadline (%d ms) is shorter than the requests' minimum duration (%d ms)", window, minDur)
	}
	if d.Recurrence != "" && d.Recurrence != "0" {
		if maxPeriodicityMs == 0 {
			maxPeriodicityMs = 86400000
		}
		p, err := strconv.ParseInt(d.Recurrence, 10, 64)
		switch {
		case err != nil || p < 0:
			bad("recurrence-expression %q is not a number of milliseconds", d.Recurrence)
		case maxPeriodicityMs%p != 0:
			bad("recurrence %d ms does not divide the max periodicity %d ms", p, maxPeriodicityMs)
		case p <= window:
			bad("recurrence %d ms does not exceed the window %d ms", p, window)
		}
	}
	return errors.Join(errs...)
}
