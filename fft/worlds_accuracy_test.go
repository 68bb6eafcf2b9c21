package fft

import (
	"fmt"
	"math"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
)

// worldSeeds and worldPerGen size the independent worlds: 3 seeds × 12
// tenants per generator (360 tenants).
var worldSeeds = []uint64{1, 2, 3}

const worldPerGen = 12

// TestWorldsAccuracy is the pattern rule on worlds it was not tuned on
// (worlds_test.go): per generator and overall, the share of tenants whose
// pattern is the generator's label and, when periodic, whose period is
// within one grid step of the truth.
func TestWorldsAccuracy(t *testing.T) {
	var all []worldTenant
	for _, seed := range worldSeeds {
		all = append(all, makeWorld(seed, worldPerGen)...)
	}
	got := make([]Tenant, len(all))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := Options{}.withDefaults()
			ws := newWorkspace()
			for i := range next {
				got[i] = analyse(&all[i].series, &o, ws)
			}
		}()
	}
	for i := range all {
		next <- i
	}
	close(next)
	wg.Wait()

	type tally struct{ right, total int }
	per := map[string]*tally{}
	var right int
	for i, wt := range all {
		g := got[i]
		tl := per[wt.gen]
		if tl == nil {
			tl = &tally{}
			per[wt.gen] = tl
		}
		tl.total++
		ok, why := worldRight(&wt, &g)
		if ok {
			tl.right++
			right++
			continue
		}
		t.Logf("wrong: %s (%s; %.1f days at %gs): %s; strength %.2f spread %.4f mean %.3f",
			wt.series.Tenant, wt.note, float64(len(wt.series.Values))*wt.series.StepS/86400, wt.series.StepS,
			why, g.Strength, g.Spread, g.Mean)
	}
	var names []string
	for n := range per {
		names = append(names, n)
	}
	sort.Strings(names)
	var rep strings.Builder
	for _, n := range names {
		tl := per[n]
		fmt.Fprintf(&rep, "%-10s %3d/%3d  %.3f\n", n, tl.right, tl.total, float64(tl.right)/float64(tl.total))
	}
	acc := float64(right) / float64(len(all))
	fmt.Fprintf(&rep, "%-10s %3d/%3d  %.3f", "overall", right, len(all), acc)
	t.Logf("accuracy per generator:\n%s", rep.String())
}

// worldRight says whether g is the label of wt, and if not what differs.
func worldRight(wt *worldTenant, g *Tenant) (bool, string) {
	if g.Pattern != wt.pattern {
		s := fmt.Sprintf("got %s, want %s", g.Pattern, wt.pattern)
		if g.PeriodS != nil {
			s += fmt.Sprintf(" (period %gs)", *g.PeriodS)
		}
		if g.Reason != "" {
			s += " (" + g.Reason + ")"
		}
		return false, s
	}
	if wt.pattern == Periodic && math.Abs(*g.PeriodS-wt.periodS) > wt.series.StepS {
		return false, fmt.Sprintf("period %gs, want %gs", *g.PeriodS, wt.periodS)
	}
	return true, ""
}
