package simulate

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The queue under random inserts, removals and changes of memory held:
// the head is the least (cons, rank); every position's minimum is that
// of its subtree; the gap walk meets exactly the jobs whose needs pass,
// in queue order (checked against sorting them all).
func TestJobQueue(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 6))
	const n = 300
	q := newJobQueue(n, true)
	in := map[int32]bool{}
	needs := map[int32]need{}
	randNeed := func() need {
		nd := need{ideal: int32(1 + rng.IntN(50)), cores: int32(1 + rng.IntN(3)), dur: float64(1 + rng.IntN(30)), kmin: math.MaxInt32, minRT: math.Inf(1), latest: math.Inf(-1)}
		if rng.IntN(2) == 0 {
			nd.kmin = (nd.ideal*10 + 99) / 100
			nd.minRT = nd.dur * (1 + float64(rng.IntN(4))/2)
			nd.latest = float64(rng.IntN(40))
		}
		return nd
	}
	for step := 0; step < 20000; step++ {
		j := int32(rng.IntN(n))
		switch {
		case !in[j]:
			needs[j] = randNeed()
			q.insert(j, int64(rng.IntN(20)), needs[j])
			in[j] = true
		case rng.IntN(3) == 0:
			q.remove(j)
			in[j] = false
		case rng.IntN(3) == 0:
			needs[j] = randNeed()
			q.update(j, int64(rng.IntN(20)), needs[j])
		default:
			q.setCons(j, int64(rng.IntN(20)))
		}
		var all []int32
		for k := range in {
			if in[k] {
				all = append(all, k)
			}
		}
		slices.SortFunc(all, func(a, b int32) int {
			if q.less(a, b) {
				return -1
			}
			return 1
		})
		if q.len() != len(all) || (len(all) > 0 && q.head() != all[0]) {
			t.Fatalf("step %d: head %d of %d, want %v", step, q.head(), q.len(), all)
		}
		var order []int32
		for bi, b := range q.blocks {
			if len(b.jobs) == 0 || len(b.jobs) > maxBlock {
				t.Fatalf("step %d: block %d holds %d jobs", step, bi, len(b.jobs))
			}
			if len(b.needs) != len(b.jobs) {
				t.Fatalf("step %d: block %d: %d needs for %d jobs", step, bi, len(b.needs), len(b.jobs))
			}
			want := b.needs[0]
			for k, j := range b.jobs {
				if q.where[j] != b {
					t.Fatalf("step %d: job %d not where it is", step, j)
				}
				nd := b.needs[k]
				if nd != needs[j] {
					t.Fatalf("step %d: job %d needs %+v, want %+v", step, j, nd, needs[j])
				}
				want = need{min(want.ideal, nd.ideal), min(want.kmin, nd.kmin), 0, math.Min(want.dur, nd.dur), math.Min(want.minRT, nd.minRT),
					math.Max(want.latest, nd.latest)}
			}
			got := b.agg
			got.cores = 0
			if got != want {
				t.Fatalf("step %d: block %d minimum %+v, want %+v", step, bi, got, want)
			}
			order = append(order, b.jobs...)
		}
		if !slices.Equal(order, all) {
			t.Fatalf("step %d: queue order %v, want %v", step, order, all)
		}
		if step%7 != 0 {
			continue
		}
		free, cores, slack, since := int32(rng.IntN(50)), int32(rng.IntN(4)), float64(rng.IntN(40)), float64(rng.IntN(40))
		var want, got []int32
		for _, k := range all {
			nd := needs[k]
			if nd.cores <= cores && (nd.ideal <= free && nd.dur <= slack || nd.ideal > free && nd.kmin <= free && nd.minRT <= slack && nd.latest >= since) {
				want = append(want, k)
			}
		}
		stop := -1
		if len(want) > 0 && rng.IntN(2) == 0 {
			stop = rng.IntN(len(want))
		}
		q.gapWalk(free, cores, slack, since, func(j int32) bool {
			got = append(got, j)
			return len(got)-1 != stop
		})
		if stop >= 0 {
			want = want[:stop+1]
		}
		if !slices.Equal(got, want) {
			t.Fatalf("step %d: gap walk (free %d, cores %d, slack %g, since %g) met %v, want %v", step, free, cores, slack, since, got, want)
		}
	}
}
