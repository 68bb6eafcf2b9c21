package classify

import (
	"fmt"
	"math"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
)

// The independent worlds are sized by seeds × worldPerGen tenants per
// generator. The rule of issue 16 (support.go) was tuned looking at
// worldSeeds (and at seeds 101–110, which no test runs); heldOutSeeds
// were only measured, as were seeds 1001–1030 (3597 of 3600 right; 3599
// with the between-samples period rule, fractionalDivisor).
var (
	worldSeeds   = []uint64{1, 2, 3}
	heldOutSeeds = []uint64{4, 5, 6}
)

const worldPerGen = 12

// Bars: share of tenants right, overall and in every generator.
const (
	worldsBar       = 0.98
	worldsBarPerGen = 0.90
)

// TestWorldsAccuracy is the pattern rule on worlds written apart from it
// (worlds_test.go, frozen in commit 9a40573 before the rule changed):
// per generator and overall, the share of tenants whose pattern is the
// generator's label and, when periodic, whose period is within one grid
// step of the truth. Before issue 16's rule: 260/360 (0.722) on the tuned
// seeds, 249/360 (0.692) held out.
func TestWorldsAccuracy(t *testing.T) {
	for _, c := range []struct {
		name  string
		seeds []uint64
	}{{"tuned", worldSeeds}, {"held-out", heldOutSeeds}} {
		t.Run(c.name, func(t *testing.T) { worldsAccuracy(t, c.seeds) })
	}
}

func worldsAccuracy(t *testing.T, seeds []uint64) {
	var all []worldTenant
	for _, seed := range seeds {
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
		acc := float64(tl.right) / float64(tl.total)
		fmt.Fprintf(&rep, "%-10s %3d/%3d  %.3f\n", n, tl.right, tl.total, acc)
		if acc < worldsBarPerGen {
			t.Errorf("%s: %d/%d right (%.3f), below %.2f", n, tl.right, tl.total, acc, worldsBarPerGen)
		}
	}
	acc := float64(right) / float64(len(all))
	fmt.Fprintf(&rep, "%-10s %3d/%3d  %.3f", "overall", right, len(all), acc)
	t.Logf("seeds %v, accuracy per generator:\n%s", seeds, rep.String())
	if acc < worldsBar {
		t.Errorf("overall %d/%d right (%.3f), below %.2f", right, len(all), acc, worldsBar)
	}
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
