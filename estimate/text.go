package estimate

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/wlprof/wlprof/internal/table"
	"github.com/wlprof/wlprof/internal/timeflag"
)

func (u Util) String() string {
	if math.IsInf(float64(u), -1) {
		return "-inf"
	}
	return strconv.FormatFloat(float64(u), 'f', 2, 64)
}

// clock writes seconds after midnight as hh:mm.
func clock(s float64) string {
	m := int(s / 60)
	return fmt.Sprintf("%02d:%02d", m/60, m%60)
}

// At is the job's utility (eq. 14, or eq. 6 without s_fit) at allocation
// a, from the curve.
func (j *JobResult) At(a int) (Util, bool) {
	if j.UtilityAlloc == nil {
		if a >= 0 && a < len(j.Utility) {
			return j.Utility[a], true
		}
		return 0, false
	}
	for k, x := range j.UtilityAlloc {
		if x == a {
			return j.Utility[k], true
		}
	}
	return 0, false
}

// WriteText writes the estimate as wlprof estimate prints it: the
// instant and Ω, a row per job by deadline, then the jobs not estimated
// and the warnings.
func (r *Result) WriteText(out io.Writer) error {
	noun := "jobs"
	if len(r.Jobs) == 1 {
		noun = "job"
	}
	fmt.Fprintf(out, "estimate at %s: %d %s", r.At, len(r.Jobs), noun)
	if len(r.NotEstimated) > 0 {
		fmt.Fprintf(out, ", %d not estimated", len(r.NotEstimated))
	}
	fmt.Fprintln(out)
	if len(r.Availability) == 0 {
		fmt.Fprintln(out, "availability: none (s_fit not computed)")
	} else {
		if len(r.Tenants) > 0 {
			fmt.Fprintf(out, "availability Ω(t), slots of %g server CPU, daily from the %s (%d: %s):\n ", r.SlotCPU, r.AvailabilityFrom, len(r.Tenants), strings.Join(r.Tenants, ", "))
		} else {
			fmt.Fprintf(out, "availability Ω(t), slots, daily from %s:\n ", r.AvailabilityFrom)
		}
		for i, s := range r.Availability {
			if i > 0 && i%8 == 0 {
				fmt.Fprint(out, "\n ")
			}
			fmt.Fprintf(out, " %s %g", clock(s.StartS), s.Slots)
		}
		fmt.Fprintln(out)
		fmt.Fprintf(out, "s_fit: tasks that must start in the current placement cycle of %s (Alg. 2 fits every window from the next one)\n", timeflag.FormatSeconds(r.PlacementCycleS))
	}
	if len(r.Jobs) > 0 {
		fmt.Fprintln(out)
		w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
		fmt.Fprintln(w, "RANK\tJOB\tDEADLINE\tPHASE\tPENDING\tRUNNING\tMU\tS_REQ\tS_REQ_WAVES\tAVAIL_MEAN\tS_FIT\tSHORT\tLATE\tMEETS_GOAL\tU(S_REQ)\tU(PENDING)\tU_R\tU_SUM(S_REQ)")
		for i := range r.Jobs {
			j := &r.Jobs[i]
			mean, fit, short, late := "-", "-", "-", "-"
			if j.SFit != nil {
				mean, fit, short = strconv.FormatFloat(*j.AvailMeanSlots, 'f', 1, 64), strconv.Itoa(*j.SFit), strconv.FormatFloat(*j.ShortTasks, 'f', 1, 64)
			}
			if j.LateTasks != nil {
				late = strconv.Itoa(*j.LateTasks)
			}
			ureq, upend := "-", "-"
			if u, ok := j.At(j.SReq); ok {
				ureq = u.String()
			}
			if u, ok := j.At(j.PendingTasks); ok {
				upend = u.String()
			}
			usum := "-"
			if u, ok := j.At(j.SReq); ok {
				usum = (u + j.UtilityReduce).String()
			}
			fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%d\t%d\t%s\t%d\t%d\t%s\t%s\t%s\t%s\t%v\t%s\t%s\t%s\t%s\n", j.Rank, j.Job, timeflag.FormatSeconds(j.DeadlineS), j.Phase,
				j.PendingTasks, j.RunningTasks, timeflag.FormatSeconds(j.MuS), j.SReq, j.SReqWaves, mean, fit, short, late, j.MeetsGoal, ureq, upend, j.UtilityReduce, usum)
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	notes := false
	for i := range r.Jobs {
		for _, w := range r.Jobs[i].Warnings {
			if !notes {
				fmt.Fprintln(out, "\nnotes:")
				notes = true
			}
			fmt.Fprintf(out, "  %s: %s\n", r.Jobs[i].Job, w)
		}
	}
	if len(r.NotEstimated) > 0 {
		fmt.Fprintln(out, "\nnot estimated:")
		for _, n := range r.NotEstimated {
			if n.Rank != nil {
				fmt.Fprintf(out, "  %s (rank %d, no data: placed before the jobs ranked by s_req): %s\n", n.Job, *n.Rank, n.Reason)
				continue
			}
			fmt.Fprintf(out, "  %s: %s\n", n.Job, n.Reason)
		}
	}
	if len(r.Warnings) > 0 {
		fmt.Fprintln(out, "\nwarnings:")
		for _, w := range r.Warnings {
			fmt.Fprintf(out, "  %s\n", w)
		}
	}
	return nil
}

// WriteCSV writes one row per job; utility is the curve, values joined
// by ";" (-inf where JSON has null), at the allocations of
// utility_alloc when sampled.
func (r *Result) WriteCSV(w io.Writer) error {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	return table.CSV(w, []string{"job", "deadline_s", "deadline", "phase", "pending_tasks", "running_tasks", "mu_s", "s_req",
		"avail_mean_slots", "s_fit", "short_tasks", "meets_goal", "utility", "utility_alloc", "s_req_waves", "late_tasks", "r_pend", "r_alloc", "utility_reduce", "utility_sum", "rank"}, func(row func(...string)) {
		for i := range r.Jobs {
			j := &r.Jobs[i]
			mean, fit, short := "", "", ""
			if j.SFit != nil {
				mean, fit, short = f(*j.AvailMeanSlots), strconv.Itoa(*j.SFit), f(*j.ShortTasks)
			}
			us, sums := make([]string, len(j.Utility)), make([]string, len(j.UtilitySum))
			for k, u := range j.Utility {
				us[k] = csvUtil(u)
			}
			for k, u := range j.UtilitySum {
				sums[k] = csvUtil(u)
			}
			as := make([]string, len(j.UtilityAlloc))
			for k, a := range j.UtilityAlloc {
				as[k] = strconv.Itoa(a)
			}
			late := ""
			if j.LateTasks != nil {
				late = strconv.Itoa(*j.LateTasks)
			}
			row(j.Job, f(j.DeadlineS), j.Deadline, j.Phase, strconv.Itoa(j.PendingTasks), strconv.Itoa(j.RunningTasks), f(j.MuS),
				strconv.Itoa(j.SReq), mean, fit, short, strconv.FormatBool(j.MeetsGoal), strings.Join(us, ";"), strings.Join(as, ";"),
				strconv.Itoa(j.SReqWaves), late, strconv.Itoa(j.RPend), strconv.Itoa(j.RAlloc), csvUtil(j.UtilityReduce), strings.Join(sums, ";"), strconv.Itoa(j.Rank))
		}
	})
}

// csvUtil is a utility in CSV: -inf where JSON has null.
func csvUtil(u Util) string {
	if math.IsInf(float64(u), -1) {
		return "-inf"
	}
	return strconv.FormatFloat(float64(u), 'g', 6, 64)
}
