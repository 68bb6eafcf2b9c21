package harvest

import (
	"math"
	"sort"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/profile"
)

// Typing is every recurring job's type now: the thresholds and each job's
// last run (seconds).
type Typing struct {
	Thresholds Thresholds
	LastRunS   map[string]float64
}

// TypeJobs types the runs table's jobs now, without a replay: the
// thresholds are o's flags, else DeriveThresholds over every finished run
// (o.Containers each) with the capacity of tenants' classes (a
// classification, as tenants.json holds it; nil: none, the paper's
// thresholds).
func TypeJobs(runs []dataset.Run, tenants *profile.Tenants, o Options) Typing {
	spans := MergeRuns(runs)
	t := Typing{LastRunS: LastRuns(runs)}
	var d, c []float64
	for _, s := range spans {
		x := float64(s.EndMs-s.StartMs) / 1000
		d = append(d, x)
		c = append(c, float64(o.Containers))
	}
	if o.ShortBelow > 0 {
		t.Thresholds = Thresholds{ShortBelowS: o.ShortBelow.Seconds(), LongAboveS: o.LongAbove.Seconds(), From: "flags"}
		return t
	}
	var capa Capacity
	if tenants != nil {
		rc := float64(o.ReserveCores())
		for _, cl := range tenants.Classes {
			v := float64(cl.Servers) * math.Max(0, float64(o.Cores)*(1-cl.Mean)-rc)
			switch cl.Pattern {
			case "unpredictable":
				capa.Short += v
			case "periodic":
				capa.Medium += v
			case "constant":
				capa.Long += v
			}
		}
	}
	t.Thresholds = DeriveThresholds(d, c, capa)
	return t
}

// Profile sets every typed job's profile.Harvest.
func (t Typing) Profile(jobs profile.Jobs) {
	ids := make([]string, 0, len(t.LastRunS))
	for id := range t.LastRunS {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		d := t.LastRunS[id]
		jobs.Get(id).Harvest = &profile.Harvest{JobType: t.Thresholds.Classify(d).String(), LastRunS: d,
			ShortBelowS: t.Thresholds.ShortBelowS, LongAboveS: t.Thresholds.LongAboveS, ThresholdsFrom: t.Thresholds.From}
	}
}
