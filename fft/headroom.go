package fft

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

// Ranking is the class preference per job type of seed 000 §4.1, most
// preferred first: long jobs want constant classes (their tenants will not
// take resources back during the run), short jobs need only the current
// utilisation and prefer unpredictable classes, medium jobs periodic ones.
var Ranking = map[string][]Pattern{
	"short":  {Unpredictable, Periodic, Constant},
	"medium": {Periodic, Constant, Unpredictable},
	"long":   {Constant, Periodic, Unpredictable},
}

// weight is W[type, pattern] of Algorithm 1. The paper gives only the
// order ("higher weight means higher ranking"); the weights are the ranks
// reversed, 3 for the first choice down to 1, so a preferred class is drawn
// at most three times as often for the same headroom.
func weight(jobType string, p Pattern) float64 {
	for i, q := range Ranking[jobType] {
		if q == p {
			return float64(len(Ranking[jobType]) - i)
		}
	}
	return 0
}

// headroom fills each class's mean, peak, current utilisation and headroom
// from its tenants' series (server-weighted slot by slot, on the grid all
// series share) and returns the "current" instant and any warnings.
func headroom(res *Result, series []*dataset.Series, o *Options) (int64, []string) {
	warnings := []string{}
	stepMs := int64(math.Round(res.StepS * 1000))
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, s := range series {
		a := floorDiv(s.StartMs, stepMs)
		lo = min(lo, a)
		hi = max(hi, a+int64(len(s.Values))-1)
	}
	at := hi
	if o.AtMs != dataset.NoTime {
		at = floorDiv(o.AtMs, stepMs)
		if at < lo || at > hi {
			warnings = append(warnings, fmt.Sprintf("--at %s is outside the data (%s to %s); using the nearest slot",
				fmtTime(o.AtMs), fmtTime(lo*stepMs), fmtTime(hi*stepMs)))
			at = min(max(at, lo), hi)
		}
	}
	idx := map[string]int{}
	for i, c := range res.Classes {
		idx[c.Class] = i
	}
	span := int(hi - lo + 1)
	// Classes are independent (each sums its own tenants, in tenant order,
	// so the result does not depend on the schedule): one pass over every
	// series, split over the workers class by class.
	classWarnings := make([][]string, len(res.Classes))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < min(o.Workers, len(res.Classes)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ci := range next {
				classWarnings[ci] = classHeadroom(res, ci, idx, series, span, lo, at, stepMs)
			}
		}()
	}
	for ci := range res.Classes {
		next <- ci
	}
	close(next)
	wg.Wait()
	for _, ws := range classWarnings {
		warnings = append(warnings, ws...)
	}
	return at * stepMs, warnings
}

// classHeadroom fills class ci of res and returns its warnings.
func classHeadroom(res *Result, ci int, idx map[string]int, series []*dataset.Series, span int, lo, at, stepMs int64) (warnings []string) {
	c := &res.Classes[ci]
	sum := make([]float64, span)
	wt := make([]float64, span)
	for i, t := range res.Tenants {
		if idx[t.Class] != ci || t.Class == "" {
			continue
		}
		s := series[i]
		w := float64(max(s.Servers, 1))
		c.Servers += int(max(s.Servers, 1))
		base := int(floorDiv(s.StartMs, stepMs) - lo)
		for j, v := range s.Values {
			if !math.IsNaN(v) {
				sum[base+j] += w * v
				wt[base+j] += w
			}
		}
	}
	var obs []float64
	var tot, totW float64
	for j := range sum {
		if wt[j] > 0 {
			obs = append(obs, sum[j]/wt[j])
			tot += sum[j]
			totW += wt[j]
		}
	}
	if len(obs) == 0 {
		return warnings
	}
	c.Mean = tot / totW
	c.Peak = quantile(obs, 0.99)
	cur := -1
	for j := int(at - lo); j >= 0; j-- {
		if wt[j] > 0 {
			cur = j
			break
		}
	}
	if cur < 0 {
		c.Current = c.Mean
		warnings = append(warnings, fmt.Sprintf("class %s has no sample at or before %s; its mean stands for the current utilisation",
			c.Class, fmtTime((at)*stepMs)))
	} else {
		c.Current = sum[cur] / wt[cur]
		if int64(cur)+lo != at {
			warnings = append(warnings, fmt.Sprintf("class %s has no sample at %s; current is its last sample before, at %s",
				c.Class, fmtTime(at*stepMs), fmtTime((int64(cur)+lo)*stepMs)))
		}
	}
	c.Headroom = Headroom{
		Short:  clamp01(1 - c.Current),
		Medium: clamp01(1 - math.Max(c.Mean, c.Current)),
		Long:   clamp01(1 - math.Max(c.Peak, c.Current)),
	}
	c.Weights = Headroom{Short: weight("short", c.Pattern), Medium: weight("medium", c.Pattern), Long: weight("long", c.Pattern)}
	c.Weighted = Headroom{Short: c.Headroom.Short * c.Weights.Short, Medium: c.Headroom.Medium * c.Weights.Medium,
		Long: c.Headroom.Long * c.Weights.Long}
	return warnings
}

func fmtTime(ms int64) string { return time.UnixMilli(ms).UTC().Format(time.RFC3339) }
