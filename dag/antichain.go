package dag

import "sort"

// MaxAntichainStages bounds the jobs whose largest antichain is computed
// (a transitive closure and a max-flow over n² edges); larger DAGs get
// none and say so.
const MaxAntichainStages = 2000

// MaxAntichain is the largest sum of tasks over stages no two of which
// depend on each other (directly or through others), and those stages in
// input order: what the job could run at once when its stages' durations
// line them up, where the breadth-first levels assume a level's stages
// run together and others never do. Parents that are no stage of the job
// are ignored (taken as done). ok is false when the DAG has a cycle or
// more than MaxAntichainStages stages.
//
// By Dilworth's theorem with weights (Ford and Fulkerson), the largest
// antichain's weight is Σ tasks − the maximum flow of the network source
// → out(v) (capacity tasks(v)), out(u) → in(v) (unbounded) for every u
// that v depends on, in(v) → sink (tasks(v)); its stages are those whose
// out(v) the minimum cut leaves with the source and in(v) with the sink.
func MaxAntichain(stages []Stage) (tasks int64, ids []string, ok bool) {
	n := len(stages)
	if n == 0 {
		return 0, nil, true
	}
	if n > MaxAntichainStages {
		return 0, nil, false
	}
	idx := make(map[string]int, n)
	for i, s := range stages {
		idx[s.ID] = i
	}
	children := make([][]int, n)
	indeg := make([]int, n)
	for i, s := range stages {
		seen := map[int]bool{}
		for _, p := range s.Parents {
			if j, ok := idx[p]; ok && !seen[j] {
				seen[j] = true
				children[j] = append(children[j], i)
				indeg[i]++
			}
		}
	}
	// A topological order (Kahn), then each stage's descendants as a bit set.
	var order []int
	for i := range stages {
		if indeg[i] == 0 {
			order = append(order, i)
		}
	}
	for k := 0; k < len(order); k++ {
		for _, c := range children[order[k]] {
			if indeg[c]--; indeg[c] == 0 {
				order = append(order, c)
			}
		}
	}
	if len(order) < n {
		return 0, nil, false
	}
	words := (n + 63) / 64
	desc := make([][]uint64, n)
	for k := n - 1; k >= 0; k-- {
		u := order[k]
		d := make([]uint64, words)
		for _, c := range children[u] {
			d[c/64] |= 1 << (c % 64)
			for w, x := range desc[c] {
				d[w] |= x
			}
		}
		desc[u] = d
	}
	// The network: source 0, out(v) 1+v, in(v) 1+n+v, sink 1+2n.
	var total int64
	for _, s := range stages {
		total += max(s.Tasks, 0)
	}
	inf := total + 1
	g := newFlow(2*n + 2)
	src, snk := 0, 2*n+1
	for v, s := range stages {
		w := max(s.Tasks, 0)
		g.add(src, 1+v, w)
		g.add(1+n+v, snk, w)
		for c := 0; c < n; c++ {
			if desc[v][c/64]&(1<<(c%64)) != 0 {
				g.add(1+v, 1+n+c, inf)
			}
		}
	}
	flow := g.maxflow(src, snk)
	side := g.sourceSide(src)
	for v, s := range stages {
		if side[1+v] && !side[1+n+v] && s.Tasks > 0 {
			ids = append(ids, s.ID)
		}
	}
	return total - flow, ids, true
}

// flow is Dinic's maximum flow on an adjacency list.
type flow struct {
	head  [][]int // node → its edges
	to    []int
	cap   []int64
	level []int
	it    []int
}

func newFlow(n int) *flow {
	return &flow{head: make([][]int, n), level: make([]int, n), it: make([]int, n)}
}

func (f *flow) add(u, v int, c int64) {
	f.head[u] = append(f.head[u], len(f.to))
	f.to, f.cap = append(f.to, v), append(f.cap, c)
	f.head[v] = append(f.head[v], len(f.to))
	f.to, f.cap = append(f.to, u), append(f.cap, 0)
}

func (f *flow) bfs(s, t int) bool {
	for i := range f.level {
		f.level[i] = -1
	}
	f.level[s] = 0
	q := []int{s}
	for k := 0; k < len(q); k++ {
		u := q[k]
		for _, e := range f.head[u] {
			if v := f.to[e]; f.cap[e] > 0 && f.level[v] < 0 {
				f.level[v] = f.level[u] + 1
				q = append(q, v)
			}
		}
	}
	return f.level[t] >= 0
}

func (f *flow) dfs(u, t int, push int64) int64 {
	if u == t {
		return push
	}
	for ; f.it[u] < len(f.head[u]); f.it[u]++ {
		e := f.head[u][f.it[u]]
		v := f.to[e]
		if f.cap[e] <= 0 || f.level[v] != f.level[u]+1 {
			continue
		}
		if d := f.dfs(v, t, min(push, f.cap[e])); d > 0 {
			f.cap[e] -= d
			f.cap[e^1] += d
			return d
		}
	}
	return 0
}

func (f *flow) maxflow(s, t int) int64 {
	var total int64
	for f.bfs(s, t) {
		clear(f.it)
		for {
			d := f.dfs(s, t, 1<<62)
			if d == 0 {
				break
			}
			total += d
		}
	}
	return total
}

// sourceSide marks the nodes the residual network reaches from s.
func (f *flow) sourceSide(s int) []bool {
	seen := make([]bool, len(f.head))
	seen[s] = true
	q := []int{s}
	for k := 0; k < len(q); k++ {
		for _, e := range f.head[q[k]] {
			if v := f.to[e]; f.cap[e] > 0 && !seen[v] {
				seen[v] = true
				q = append(q, v)
			}
		}
	}
	return seen
}

// sortedIDs is ids in stage order (numbers numerically).
func sortedIDs(ids []string) []string {
	out := append([]string(nil), ids...)
	sort.Slice(out, func(a, b int) bool { return stageLess(out[a], out[b]) })
	return out
}
