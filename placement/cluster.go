package placement

import (
	"math"
	"sort"
)

// Group names of the two dimensions (Zhang et al., OSDI'16 §4.2): rows by reimage rate,
// columns by peak CPU utilisation.
var (
	ReimageGroups = [3]string{"infrequent", "intermediate", "frequent"}
	PeakGroups    = [3]string{"low", "medium", "high"}
)

// ClassName is "<reimage group>/<peak group>", e.g. "infrequent/low".
func ClassName(row, col int) string { return ReimageGroups[row] + "/" + PeakGroups[col] }

// Member is what the clustering reads of a tenant: its reimage rate, its
// peak and its available storage. Row and Col are what it writes.
type Member struct {
	Name         string
	Rate         float64 // disruptions per server per month
	Peak         float64 // peak CPU utilisation, fraction of a server
	StorageBytes float64
	Row, Col     int // reimage group, peak group: 0, 1, 2
}

// Cluster puts every member in one of the 3 × 3 classes (Algorithm 2
// lines 4–5) so that each class holds as close to S/9 of the storage as
// whole members allow (doc.go: the rule and its bound). It sorts by rate
// (then peak, then name) and cuts three rows at S/3 by each member's
// storage midpoint; then, in each row, sorts by peak (then rate, then
// name) and cuts it in three at a third of the row's storage the same way.
// Deterministic: the result depends on the members' values only, not on
// their order.
func Cluster(ms []Member) {
	if len(ms) == 0 {
		return
	}
	idx := make([]int, len(ms))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return byRate(&ms[idx[a]], &ms[idx[b]]) })
	cut(ms, idx, func(m *Member, g int) { m.Row = g })
	for row := 0; row < 3; row++ {
		var in []int
		for _, i := range idx {
			if ms[i].Row == row {
				in = append(in, i)
			}
		}
		sort.Slice(in, func(a, b int) bool { return byPeak(&ms[in[a]], &ms[in[b]]) })
		cut(ms, in, func(m *Member, g int) { m.Col = g })
	}
}

func byRate(a, b *Member) bool {
	if a.Rate != b.Rate {
		return a.Rate < b.Rate
	}
	if a.Peak != b.Peak {
		return a.Peak < b.Peak
	}
	return a.Name < b.Name
}

func byPeak(a, b *Member) bool {
	if a.Peak != b.Peak {
		return a.Peak < b.Peak
	}
	if a.Rate != b.Rate {
		return a.Rate < b.Rate
	}
	return a.Name < b.Name
}

// cut splits the members idx (in order) into three parts of a third of
// their storage each: a member goes to the part that holds the midpoint of
// its storage on the cumulative axis, so each cut falls inside at most one
// member, which goes to the side that holds more of it.
func cut(ms []Member, idx []int, set func(*Member, int)) {
	total := 0.0
	for _, i := range idx {
		total += ms[i].StorageBytes
	}
	cum := 0.0
	for _, i := range idx {
		g := 0
		if total > 0 {
			mid := cum + ms[i].StorageBytes/2
			g = int(math.Floor(3 * mid / total))
		}
		set(&ms[i], min(max(g, 0), 2))
		cum += ms[i].StorageBytes
	}
}

// groupsByCount splits values into three groups of (about) equal counts
// by rank (§3, Fig. 6: "each with the same number of tenants"); tied
// values share the group of their tie's middle rank, so that a tie (often
// many tenants with no disruption in a month) is not split by name.
func groupsByCount(vals []float64) []int {
	n := len(vals)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return vals[idx[a]] < vals[idx[b]] })
	out := make([]int, n)
	for lo := 0; lo < n; {
		hi := lo
		for hi+1 < n && vals[idx[hi+1]] == vals[idx[lo]] {
			hi++
		}
		g := int(math.Floor(3 * (float64(lo+hi)/2 + 0.5) / float64(n)))
		for k := lo; k <= hi; k++ {
			out[idx[k]] = min(g, 2)
		}
		lo = hi + 1
	}
	return out
}
