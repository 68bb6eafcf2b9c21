package classify

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

// Ranking is the class preference per job type of Zhang et al., OSDI'16 §4.1, most
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
	g := newGrid(res.StepS, o)
	for _, s := range series {
		g.span(s.StartMs, len(o.upTo(s)))
	}
	warnings := g.place()
	accs := newClassAccs(res, g, o)
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
				for i := range res.Tenants {
					if accs.class[i] == ci {
						accs.add(ci, &res.Tenants[i], series[i])
					}
				}
				classWarnings[ci] = accs.finish(ci)
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
	return g.at * g.stepMs, warnings
}

// grid is the slots every series lies on: lo and hi the first and last
// (in steps since the epoch) and at the "current" one.
type grid struct {
	stepMs, lo, hi, at, atMs int64
}

func newGrid(stepS float64, o *Options) *grid {
	return &grid{stepMs: int64(math.Round(stepS * 1000)), lo: math.MaxInt64, hi: math.MinInt64, atMs: o.AtMs}
}

// span widens the grid to a series of n values from startMs (none: a
// series that starts after --at).
func (g *grid) span(startMs int64, n int) {
	if n <= 0 {
		return
	}
	a := floorDiv(startMs, g.stepMs)
	g.lo = min(g.lo, a)
	g.hi = max(g.hi, a+int64(n)-1)
}

// place sets the current slot: the last one, or --at's, moved into the
// data with a warning.
func (g *grid) place() []string {
	warnings := []string{}
	if g.lo > g.hi { // no series has a slot at or before --at
		g.at = floorDiv(g.atMs, g.stepMs)
		return append(warnings, fmt.Sprintf("--at %s is before all the data", fmtTime(g.atMs)))
	}
	g.at = g.hi
	if g.atMs != dataset.NoTime {
		g.at = floorDiv(g.atMs, g.stepMs)
		if g.at < g.lo || g.at > g.hi {
			warnings = append(warnings, fmt.Sprintf("--at %s is outside the data (%s to %s); using the nearest slot",
				fmtTime(g.atMs), fmtTime(g.lo*g.stepMs), fmtTime(g.hi*g.stepMs)))
			g.at = min(max(g.at, g.lo), g.hi)
		}
	}
	return warnings
}

// classAccs holds each class's server-weighted sums slot by slot while its
// tenants' series are added (in tenant order: the sums are then the same
// whoever adds them), and turns them into the class's figures.
type classAccs struct {
	res     *Result
	g       *grid
	o       *Options
	class   []int // tenant (index in res.Tenants) → class index, −1 for none
	sum, wt [][]float64
	wtRun   [][]float64  // weights added to whole spans: +w at the start, −w past the end
	peaks   [][]weighted // each member's own peak and its servers
	cur     []classCurrent
}

// classCurrent gathers a class's current utilisation from its tenants'
// own latest values at or before the current slot.
type classCurrent struct {
	sum, w  float64
	last    int64    // the latest slot a tenant's current was taken at
	thin    int      // tenants whose current skipped a thin tail
	stale   []string // tenants whose latest value is too old to be current
	staleAt int64    // the latest slot among the stale tenants'
}

// staleAfter is how much older than the current instant a tenant's latest
// value may be and still stand for its current use (or twice the tenant's
// own step, when coarser): inputs of different eras (a 2014 series beside
// 2024 ones) are not current at the later one's end.
const staleAfter = time.Hour

// staleText says staleAfter in the warnings.
const staleText = "an hour"

// weighted is a value and its weight.
type weighted struct{ v, w float64 }

// weightedP99 is the nearest-rank 99th percentile of xs, each counted with
// its weight: the least value at which the weight at or below it reaches
// 99% of the total.
func weightedP99(xs []weighted) float64 {
	sort.SliceStable(xs, func(i, j int) bool { return xs[i].v < xs[j].v })
	total := 0.0
	for _, x := range xs {
		total += x.w
	}
	acc := 0.0
	for _, x := range xs {
		if acc += x.w; acc >= 0.99*total {
			return x.v
		}
	}
	return xs[len(xs)-1].v
}

func newClassAccs(res *Result, g *grid, o *Options) *classAccs {
	idx := map[string]int{}
	for i, c := range res.Classes {
		idx[c.Class] = i
	}
	a := &classAccs{res: res, g: g, o: o, class: make([]int, len(res.Tenants)),
		sum: make([][]float64, len(res.Classes)), wt: make([][]float64, len(res.Classes)), wtRun: make([][]float64, len(res.Classes)),
		peaks: make([][]weighted, len(res.Classes)), cur: make([]classCurrent, len(res.Classes))}
	for i := range a.cur {
		a.cur[i].last, a.cur[i].staleAt = math.MinInt64, math.MinInt64
	}
	for i, t := range res.Tenants {
		a.class[i] = -1
		if ci, ok := idx[t.Class]; ok && t.Class != "" {
			a.class[i] = ci
		}
	}
	return a
}

// add adds tenant t's series s to class ci. The weights are whole server
// counts, whose float sums are exact in any order, so a series without a
// missing slot adds its weight to its whole span at once (wtRun, summed
// into wt by finish); the values are added slot by slot in tenant order.
func (a *classAccs) add(ci int, t *Tenant, s *dataset.Series) {
	span := int(a.g.hi - a.g.lo + 1)
	if a.sum[ci] == nil {
		a.sum[ci], a.wt[ci], a.wtRun[ci] = make([]float64, span), make([]float64, span), make([]float64, span+1)
	}
	sum, wt := a.sum[ci], a.wt[ci]
	c := &a.res.Classes[ci]
	w := float64(max(s.Servers, 1))
	c.Servers += int(max(s.Servers, 1))
	a.peaks[ci] = append(a.peaks[ci], weighted{t.Peak, w})
	base := int(floorDiv(s.StartMs, a.g.stepMs) - a.g.lo)
	values := a.o.upTo(s)
	a.current(ci, t, s, values, base, w)
	if t.Slots == len(values) && t.Coverage == 1 { // no NaN
		vs := sum[base : base+len(values)]
		for j, v := range values {
			vs[j] += w * v
		}
		a.wtRun[ci][base] += w
		a.wtRun[ci][base+len(values)] -= w
		return
	}
	for j, v := range values {
		if !math.IsNaN(v) {
			sum[base+j] += w * v
			wt[base+j] += w
		}
	}
}

// current adds tenant t's current value to class ci: its latest value at
// or before the current slot, leaving out its thin tail (the last slots,
// where fewer than half its servers still reported: Harvest's current
// utilisation is the average server's, not the late servers'), unless the
// value is older than staleAfter.
func (a *classAccs) current(ci int, t *Tenant, s *dataset.Series, values []float64, base int, w float64) {
	cc := &a.cur[ci]
	lim := len(values) - 1
	thin := false
	if full := len(s.Values) - 1 - int(s.ThinTail); lim > full {
		lim, thin = full, true
	}
	j := lim
	for j >= 0 && math.IsNaN(values[j]) {
		j--
	}
	if j < 0 {
		return
	}
	slot := a.g.lo + int64(base+j)
	limitMs := max(staleAfter.Milliseconds(), int64(2*t.StepS*1000))
	if (a.g.at-slot)*a.g.stepMs > limitMs {
		cc.stale = append(cc.stale, t.Tenant)
		cc.staleAt = max(cc.staleAt, slot)
		return
	}
	if thin {
		cc.thin++
	}
	cc.sum += w * values[j]
	cc.w += w
	cc.last = max(cc.last, slot)
}

// finish fills class ci's mean, peak, current, headroom and weights from
// its sums and returns its warnings.
func (a *classAccs) finish(ci int) (warnings []string) {
	c := &a.res.Classes[ci]
	sum, wt := a.sum[ci], a.wt[ci]
	at, stepMs := a.g.at, a.g.stepMs
	defer func() { a.sum[ci], a.wt[ci], a.wtRun[ci], a.peaks[ci], a.cur[ci] = nil, nil, nil, nil, classCurrent{} }()
	var run float64
	for j := range wt {
		run += a.wtRun[ci][j]
		wt[j] += run
	}
	var tot, totW float64
	for j := range sum {
		if wt[j] > 0 {
			tot += sum[j]
			totW += wt[j]
		}
	}
	if totW == 0 {
		return warnings
	}
	c.Mean = tot / totW
	// The peak a server of the class reaches: its members' own peaks (each
	// its P99), server-weighted P99 over them. The P99 of the class's
	// average series would let members that peak at different times
	// cancel out.
	c.Peak = max(weightedP99(a.peaks[ci]), c.Mean) // a peak below the mean would be a heavy-tailed member's P99
	cc := &a.cur[ci]
	switch {
	case cc.w > 0:
		c.Current = cc.sum / cc.w
		if cc.last != at {
			warnings = append(warnings, fmt.Sprintf("class %s has no sample at %s; current is each tenant's last sample before, the latest at %s",
				c.Class, fmtTime(at*stepMs), fmtTime(cc.last*stepMs)))
		}
	case len(cc.stale) > 0:
		c.Current = c.Mean
		warnings = append(warnings, fmt.Sprintf("class %s has no sample within %s of %s (its latest is at %s: inputs of different eras?); its mean stands for the current utilisation",
			c.Class, staleText, fmtTime(at*stepMs), fmtTime(cc.staleAt*stepMs)))
	default:
		c.Current = c.Mean
		warnings = append(warnings, fmt.Sprintf("class %s has no sample at or before %s; its mean stands for the current utilisation",
			c.Class, fmtTime((at)*stepMs)))
	}
	if cc.w > 0 && len(cc.stale) > 0 {
		names := cc.stale
		more := ""
		if len(names) > 3 {
			names, more = names[:3], fmt.Sprintf(" and %d more", len(cc.stale)-3)
		}
		warnings = append(warnings, fmt.Sprintf("class %s: %d tenants (%s%s) have no sample within %s of %s (the latest at %s: inputs of different eras?); left out of its current utilisation",
			c.Class, len(cc.stale), strings.Join(names, ", "), more, staleText, fmtTime(at*stepMs), fmtTime(cc.staleAt*stepMs)))
	}
	if cc.thin > 0 {
		warnings = append(warnings, fmt.Sprintf("class %s: the current of %d tenants is taken before their last slots, where fewer than half their servers still reported",
			c.Class, cc.thin))
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
