package harvest

import (
	"fmt"
	"math"
	"sort"

	"github.com/wlprof/wlprof/dataset"
)

// JobType is a batch job's length type (Zhang et al., OSDI'16 §4.1, Algorithm 1 line 3).
type JobType int

const (
	Short JobType = iota
	Medium
	Long
)

// JobTypes in order, for tables.
var JobTypes = []JobType{Short, Medium, Long}

func (t JobType) String() string {
	switch t {
	case Short:
		return "short"
	case Long:
		return "long"
	}
	return "medium"
}

// PaperShortBelowS and PaperLongAboveS are §6's thresholds (173 s and
// 433 s), used when there is too little history to derive them.
const (
	PaperShortBelowS = 173.0
	PaperLongAboveS  = 433.0
)

// MinThresholdRuns is the least number of finished runs the threshold
// rule derives thresholds from; with fewer, the paper's are used.
const MinThresholdRuns = 10

// Thresholds split jobs by the duration of their last run: shorter than
// ShortBelowS is short, longer than LongAboveS long, else medium. From
// says where they came from: "flags", "history" (the rule of
// DeriveThresholds) or "paper" (§6's values).
type Thresholds struct {
	ShortBelowS float64 `json:"short_below_s"`
	LongAboveS  float64 `json:"long_above_s"`
	From        string  `json:"from"`
	// Shares are the capacity shares the rule aimed each type's work at
	// (short: unpredictable classes, medium: periodic, long: constant),
	// in that order; zero unless From is "history".
	Shares [3]float64 `json:"capacity_shares"`
}

// Classify is Algorithm 1 line 3: the type of a job whose last run took
// lastS seconds; a job never seen (lastS < 0 or NaN) is medium (§4.1).
func (th Thresholds) Classify(lastS float64) JobType {
	switch {
	case !(lastS >= 0):
		return Medium
	case lastS < th.ShortBelowS:
		return Short
	case lastS > th.LongAboveS:
		return Long
	}
	return Medium
}

// Capacity is the harvestable capacity of the preferred classes of each
// job type (§4.1: short jobs prefer unpredictable classes, medium
// periodic, long constant), in any unit common to the three.
type Capacity struct{ Short, Medium, Long float64 }

// DeriveThresholds is the threshold rule of §4.1, which the paper states
// only in words ("based on the historical distribution of job lengths and
// the current computational capacity of each preferred tenant class, e.g.
// the total computation required by long jobs should be proportional to
// the computational capacity of constant primary tenants"). Here: each
// run's work is its duration × its containers; with W the total work and
// s_short, s_long the capacity shares of the unpredictable and constant
// classes, ShortBelowS is the work-weighted quantile of durations at
// s_short (runs shorter than it carry at most s_short·W) and LongAboveS
// the one at 1 − s_long (runs longer than it carry at most s_long·W), so
// each type's work is as close to its preferred classes' share of the
// capacity as the run durations allow; medium takes the rest. A type
// with no capacity gets no work (its threshold goes past every run).
// durations are seconds, work weights (containers) may be nil (1 each).
// With fewer than MinThresholdRuns runs, or no capacity at all, it
// returns the paper's thresholds (From "paper").
func DeriveThresholds(durationsS, containers []float64, c Capacity) Thresholds {
	paper := Thresholds{ShortBelowS: PaperShortBelowS, LongAboveS: PaperLongAboveS, From: "paper"}
	total := c.Short + c.Medium + c.Long
	if !(total > 0) {
		return paper
	}
	type run struct{ d, w float64 }
	var runs []run
	var W float64
	for i, d := range durationsS {
		if !(d > 0) || math.IsInf(d, 0) {
			continue
		}
		w := 1.0
		if containers != nil {
			w = containers[i]
		}
		if !(w > 0) {
			continue
		}
		runs = append(runs, run{d, d * w})
		W += d * w
	}
	if len(runs) < MinThresholdRuns {
		return paper
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].d < runs[j].d })
	sS, sL := c.Short/total, c.Long/total
	th := Thresholds{From: "history", Shares: [3]float64{sS, c.Medium / total, sL}}
	// ShortBelowS: the least duration d such that runs shorter than d
	// carry at most sS·W, i.e. the first duration at which the
	// cumulative work of the runs before it would pass sS·W.
	acc := 0.0
	th.ShortBelowS = runs[0].d
	for _, r := range runs {
		if acc+r.w > sS*W+1e-9*W {
			th.ShortBelowS = r.d
			break
		}
		acc += r.w
		th.ShortBelowS = math.Nextafter(r.d, math.Inf(1))
	}
	// LongAboveS: from the longest down, runs longer than it carry at
	// most sL·W.
	acc = 0
	th.LongAboveS = runs[len(runs)-1].d
	for i := len(runs) - 1; i >= 0; i-- {
		r := runs[i]
		if acc+r.w > sL*W+1e-9*W {
			th.LongAboveS = r.d
			break
		}
		acc += r.w
		th.LongAboveS = math.Nextafter(r.d, math.Inf(-1))
	}
	if th.LongAboveS < th.ShortBelowS {
		th.LongAboveS = th.ShortBelowS
	}
	return th
}

// LastRuns is every recurring job's last run duration in seconds: the
// run that finished last (of equal ends the later start; MergeRuns'
// spans), what the profiles type it by (§4.1, line 3).
func LastRuns(runs []dataset.Run) map[string]float64 {
	out := map[string]float64{}
	end := map[string][2]int64{}
	for _, s := range MergeRuns(runs) {
		if e, ok := end[s.Job]; ok && (s.EndMs < e[0] || s.EndMs == e[0] && s.StartMs < e[1]) {
			continue
		}
		end[s.Job] = [2]int64{s.EndMs, s.StartMs}
		out[s.Job] = float64(s.EndMs-s.StartMs) / 1000
	}
	return out
}

func (th Thresholds) String() string {
	return fmt.Sprintf("short below %gs, long above %gs (%s)", th.ShortBelowS, th.LongAboveS, th.From)
}
