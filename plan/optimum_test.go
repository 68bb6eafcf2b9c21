package plan

import (
	"strconv"
	"testing"
)

// shapes are every allocation LowCost may give a skyline of positive
// stages (Jyothi et al., OSDI'16 §6): stage k's s_k containers as gangs of
// one over L_k ≥ 1 consecutive steps with at least one container each,
// the stages in order, each starting right after the previous one ends
// (the allocation contiguous, no holes). The rigid skyline is the shape
// with every L_k = 1.
func shapes(sky []int64) [][]int64 {
	var out [][]int64
	var rec func(k int, cur []int64)
	rec = func(k int, cur []int64) {
		if k == len(sky) {
			out = append(out, append([]int64(nil), cur...))
			return
		}
		// the compositions of sky[k] into positive parts
		var comp func(left int64, cur []int64)
		comp = func(left int64, cur []int64) {
			if left == 0 {
				rec(k+1, cur)
				return
			}
			for v := int64(1); v <= left; v++ {
				comp(left-v, append(cur, v))
			}
		}
		comp(sky[k], cur)
	}
	rec(0, nil)
	return out
}

// offlineOptimum is the least peak load over the LCM of any placement
// LowCost may make of the jobs — every shape of every job at every offset
// of its window, one offset for all its instances (§6) — the offline
// optimum that §6's competitive ratio compares LowCost with. Jobs' skylines
// must be positive; step is the skyline step in seconds. Exhaustive (with
// the peak bound tried from lo upwards and repeated partial loads pruned):
// for small worlds only.
func offlineOptimum(jobs []Job, lcm int, step float64, lo, hi int64) int64 {
	// Per job, the distinct loads over the LCM of its placements.
	opts := make([][][]int64, len(jobs))
	for i, j := range jobs {
		period := int(j.PeriodS / step)
		arr, w := int(j.ArrivalS/step), int((j.DeadlineS-j.ArrivalS)/step)
		seen := map[string]bool{}
		for _, sh := range shapes(j.Skyline) {
			for off := 0; off+len(sh) <= w; off++ {
				load := make([]int64, lcm)
				for s := arr; s < lcm; s += period {
					for q, v := range sh {
						load[(s+off+q)%lcm] += v
					}
				}
				k := key(load)
				if !seen[k] {
					seen[k] = true
					opts[i] = append(opts[i], load)
				}
			}
		}
	}
	for p := lo; p < hi; p++ {
		visited := map[string]bool{}
		var fits func(i int, load []int64) bool
		fits = func(i int, load []int64) bool {
			if i == len(jobs) {
				return true
			}
			k := strconv.Itoa(i) + ":" + key(load)
			if visited[k] {
				return false
			}
			visited[k] = true
		next:
			for _, o := range opts[i] {
				sum := make([]int64, lcm)
				for t := range sum {
					if sum[t] = load[t] + o[t]; sum[t] > p {
						continue next
					}
				}
				if fits(i+1, sum) {
					return true
				}
			}
			return false
		}
		if fits(0, make([]int64, lcm)) {
			return p
		}
	}
	return hi
}

func key(load []int64) string {
	b := make([]byte, 0, 3*len(load))
	for _, v := range load {
		b = strconv.AppendInt(b, v, 10)
		b = append(b, ',')
	}
	return string(b)
}

// offlineOptimum by hand: [4] in a 4-step window spreads to 1 a step; two
// [2 2] in the same 4-step window need 2 a step (area 8); [3 1] in a
// 2-step window cannot stretch (stage 2 needs the second step): 3.
func TestOfflineOptimumByHand(t *testing.T) {
	if n := len(shapes([]int64{3, 2})); n != 4*2 {
		t.Errorf("shapes of [3 2]: %d, want 4 × 2 compositions", n)
	}
	job := func(id string, w int, sky ...int64) Job {
		return Job{ID: id, PeriodS: 12 * 300, ArrivalS: 0, DeadlineS: float64(w) * 300, Skyline: sky}
	}
	for _, c := range []struct {
		jobs []Job
		want int64
	}{
		{[]Job{job("a", 4, 4)}, 1},
		{[]Job{job("a", 4, 2, 2), job("b", 4, 2, 2)}, 2},
		{[]Job{job("a", 2, 3, 1)}, 3},
	} {
		if got := offlineOptimum(c.jobs, 12, 300, 1, 100); got != c.want {
			t.Errorf("%+v: optimum %d, want %d", c.jobs, got, c.want)
		}
	}
}
