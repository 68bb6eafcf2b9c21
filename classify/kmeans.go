package classify

import (
	"fmt"
	"math"
	"sort"
)

// point is a tenant in the clustering space: mean and peak utilisation,
// the two tags Zhang et al., OSDI'16 gives a class.
type point struct {
	x, y float64
	t    int // index into the tenants
}

// cluster runs K-Means inside each pattern and returns the classes, sorted
// by pattern then mean; it sets every classified tenant's Class.
//
// Seeding is deterministic (farthest-first from the tenant with the lowest
// mean, ties by tenant name), so the same tenants give the same classes.
// k is opts.K when set (at most the pattern's tenant count); otherwise the
// smallest k ≤ MaxK whose tenants lie within ClassSpread (root mean square
// distance) of their class centre: classes are as few as possible while
// every class stays tight enough that its mean and peak describe each of
// its tenants to a few per cent of a server.
func cluster(ts []Tenant, o *Options) []Class {
	var classes []Class
	for _, pat := range []Pattern{Constant, Periodic, Unpredictable} {
		var pts []point
		for i := range ts {
			if ts[i].Pattern == pat {
				pts = append(pts, point{ts[i].Mean, ts[i].Peak, i})
			}
		}
		if len(pts) == 0 {
			continue
		}
		sort.SliceStable(pts, func(i, j int) bool {
			if pts[i].x != pts[j].x {
				return pts[i].x < pts[j].x
			}
			return pts[i].y < pts[j].y
		})
		var assign []int
		var cents []point
		if o.K > 0 {
			cents, assign, _ = kmeans(pts, min(o.K, len(pts)))
		} else {
			for k := 1; k <= min(o.MaxK, len(pts)); k++ {
				var rms float64
				cents, assign, rms = kmeans(pts, k)
				if rms <= o.ClassSpread {
					break
				}
			}
		}
		// Name classes by increasing centre mean.
		order := make([]int, len(cents))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool {
			ca, cb := cents[order[a]], cents[order[b]]
			return ca.x < cb.x || ca.x == cb.x && ca.y < cb.y
		})
		name := make([]string, len(cents))
		for rank, c := range order {
			name[c] = fmt.Sprintf("%s-%d", pat, rank+1)
		}
		members := make([]int, len(cents))
		for i, p := range pts {
			ts[p.t].Class = name[assign[i]]
			members[assign[i]]++
		}
		for _, c := range order {
			if members[c] > 0 {
				classes = append(classes, Class{Class: name[c], Pattern: pat, Tenants: members[c]})
			}
		}
	}
	return classes
}

// kmeans clusters pts (sorted) into k groups with Lloyd's algorithm from a
// farthest-first seeding; it returns the centres, each point's group, and
// the root mean square distance of points to their centre.
func kmeans(pts []point, k int) ([]point, []int, float64) {
	cents := []point{pts[0]}
	dist := make([]float64, len(pts))
	for i, p := range pts {
		dist[i] = d2(p, cents[0])
	}
	for len(cents) < k {
		far := 0
		for i := range pts {
			if dist[i] > dist[far] {
				far = i
			}
		}
		if dist[far] == 0 {
			break // fewer distinct points than k
		}
		c := pts[far]
		cents = append(cents, c)
		for i, p := range pts {
			dist[i] = math.Min(dist[i], d2(p, c))
		}
	}
	assign := make([]int, len(pts))
	for iter := 0; iter < 100; iter++ {
		changed := false
		for i, p := range pts {
			best := 0
			for c := 1; c < len(cents); c++ {
				if d2(p, cents[c]) < d2(p, cents[best]) {
					best = c
				}
			}
			if best != assign[i] || iter == 0 {
				changed = changed || best != assign[i]
				assign[i] = best
			}
		}
		sum := make([]point, len(cents))
		n := make([]int, len(cents))
		for i, p := range pts {
			sum[assign[i]].x += p.x
			sum[assign[i]].y += p.y
			n[assign[i]]++
		}
		for c := range cents {
			if n[c] > 0 {
				cents[c] = point{x: sum[c].x / float64(n[c]), y: sum[c].y / float64(n[c])}
			}
		}
		if !changed && iter > 0 {
			break
		}
	}
	var ss float64
	for i, p := range pts {
		ss += d2(p, cents[assign[i]])
	}
	return cents, assign, math.Sqrt(ss / float64(len(pts)))
}

func d2(a, b point) float64 { return (a.x-b.x)*(a.x-b.x) + (a.y-b.y)*(a.y-b.y) }
