package skyline

import (
	"context"
	"math"
	"sort"
	"time"

	"github.com/lanl/clp"
)

// The reduced model: the same optimum as the textbook LP with about K rows
// instead of 3·N·K. Two exact rewrites (DESIGN.md, skyline):
//
//  1. With β > 0, ε equals the regularisation sum at the optimum, so the
//     over-allocation and the instantaneous under-allocation of step k are
//     one convex piecewise-linear cost f_k(x_k) with breakpoints at the runs'
//     values c_ik: x_k = m_k + Σ_s y_ks with bounded segment variables y_ks
//     whose cost is the slope of f_k on the segment. m_k is the minimiser of
//     f_k; nothing is lost by starting there, since raising x_k up to m_k
//     lowers f_k and never raises a debt.
//  2. The final debt of run i is its largest suffix shortfall:
//     D_i = max(0, max_j Σ_{t≥j} (c_it − x_t)). With suffix sums
//     Z_j = Σ_{t≥j} Σ_s y_ts (one link row per step), each candidate is a
//     two-element row D_i + Z_j ≥ S_ij − M_j.
//
// Most suffix rows are slack at the optimum, so they are added lazily: solve
// with the rows that bind so far, find for each run the suffix its debt
// really comes from, add the rows that the solution violates, solve again.
// The loop ends when no row is violated, which is the optimum of the full
// model (every omitted row is satisfied, and the relaxation is no worse).
type reduced struct {
	p     *problem
	m     []float64   // m_k, the minimiser of f_k
	f0    float64     // Σ_k f_k(m_k)
	segs  [][]segment // per step, the segments above m_k
	suf   [][]float64 // S_ij = Σ_{t≥j} c_it, with S_iK = 0
	msuf  []float64   // M_j = Σ_{t≥j} m_t
	cuts  map[cut]bool
	order []cut // cuts in the order they were added (deterministic models)
}

type segment struct {
	width float64 // +Inf for the last one
	slope float64
}

type cut struct{ run, step int }

// cutWindows is how many suffix rows per run a round may add at most, one
// per window of steps.
const cutWindows = 16

func newReduced(p *problem) *reduced {
	n, k := p.runs(), p.steps()
	r := &reduced{p: p, m: make([]float64, k), segs: make([][]segment, k),
		suf: make([][]float64, n), msuf: make([]float64, k+1), cuts: map[cut]bool{}}
	a := p.alpha / float64(n)
	b := make([]float64, n)
	for i := range b {
		b[i] = p.beta / float64(n) / p.total[i]
	}
	type point struct {
		v float64
		b float64 // weight of the run whose value this is
	}
	pts := make([]point, n)
	for t := 0; t < k; t++ {
		under := 0.0 // Σ b_i over runs with c_it above the current point
		for i := range pts {
			pts[i] = point{p.c[i][t], b[i]}
			under += b[i]
		}
		sort.Slice(pts, func(x, y int) bool { return pts[x].v < pts[y].v })
		// Walk the breakpoints 0 = B_0 < B_1 < ... upwards; on the segment
		// (B_j, B_j+1) the slope is a·#{c ≤ B_j} − Σ_{c ≥ B_j+1} b.
		at, le, q := 0.0, 0, 0 // current breakpoint; runs with c ≤ at; next run
		var segs []segment
		started := false
		for {
			for q < n && pts[q].v <= at {
				under -= pts[q].b
				le++
				q++
			}
			next := math.Inf(1)
			if q < n {
				next = pts[q].v
			} else {
				under = 0 // no run above: exact, whatever the rounding so far
			}
			slope := a*float64(le) - under
			if !started && slope >= 0 {
				started = true
				r.m[t] = at
			}
			if started {
				segs = append(segs, segment{width: next - at, slope: slope})
			}
			if q == n {
				break
			}
			at = next
		}
		r.segs[t] = segs
		r.f0 += fAt(p, t, r.m[t])
	}
	for i, ci := range p.c {
		s := make([]float64, k+1)
		for t := k - 1; t >= 0; t-- {
			s[t] = s[t+1] + ci[t]
		}
		r.suf[i] = s
	}
	for t := k - 1; t >= 0; t-- {
		r.msuf[t] = r.msuf[t+1] + r.m[t]
	}
	return r
}

// fAt is f_t(x): the over- and instantaneous under-allocation cost of step t.
func fAt(p *problem, t int, x float64) float64 {
	n := float64(p.runs())
	f := 0.0
	for i, ci := range p.c {
		if x > ci[t] {
			f += p.alpha / n * (x - ci[t])
		} else {
			f += p.beta / n / p.total[i] * (ci[t] - x)
		}
	}
	return f
}

// debt returns, for run i and skyline x given by its suffix sums X, the
// final debt and the suffix it comes from (-1 when there is no debt).
func (r *reduced) debt(i int, X []float64) (float64, int) {
	best, arg := 0.0, -1
	s := r.suf[i]
	for j := range X[:len(X)-1] {
		if d := s[j] - X[j]; d > best {
			best, arg = d, j
		}
	}
	return best, arg
}

func (r *reduced) addCut(c cut) bool {
	if r.cuts[c] {
		return false
	}
	r.cuts[c] = true
	r.order = append(r.order, c)
	return true
}

// seedCuts adds, for every run, the suffix of its largest shortfall under
// the skyline x = m.
func (r *reduced) seedCuts() {
	for i := range r.p.c {
		if _, j := r.debt(i, r.msuf); j >= 0 {
			r.addCut(cut{i, j})
		}
	}
}

// solveCtx runs the cutting-plane loop with CLP's dual simplex. The first
// model holds the link rows and the seeded cuts; later rounds add the
// violated suffix rows to the solved model, so each dual solve restarts
// from the previous basis (a few pivots) instead of from scratch.
func (r *reduced) solveCtx(ctx context.Context, deadline time.Time) (*lpResult, error) {
	p := r.p
	n, k := p.runs(), p.steps()
	d := (1 - p.alpha) / float64(n)
	r.seedCuts()
	// Columns: segments (by step), Z_0..Z_{K-1}, D_0..D_{N-1}.
	// Rows: K link rows Z_j − Z_{j+1} − Σ_s y_js = 0, then the cuts.
	var cols [][]clp.Nonzero
	var cb []clp.Bounds
	var obj []float64
	segCol := make([]int, k+1)
	for t := 0; t < k; t++ {
		segCol[t] = len(cols)
		for _, s := range r.segs[t] {
			cols = append(cols, []clp.Nonzero{{Index: t, Value: -1}})
			cb = append(cb, clp.Bounds{Lower: 0, Upper: s.width})
			obj = append(obj, s.slope)
		}
	}
	segCol[k] = len(cols)
	z0 := len(cols)
	for j := 0; j < k; j++ {
		col := []clp.Nonzero{{Index: j, Value: 1}}
		if j > 0 {
			col = append([]clp.Nonzero{{Index: j - 1, Value: -1}}, col...)
		}
		cols = append(cols, col)
		cb = append(cb, clp.Bounds{Lower: 0, Upper: math.Inf(1)})
		obj = append(obj, 0)
	}
	d0 := len(cols)
	for i := 0; i < n; i++ {
		cols = append(cols, nil)
		cb = append(cb, clp.Bounds{Lower: 0, Upper: math.Inf(1)})
		obj = append(obj, d)
	}
	rb := make([]clp.Bounds, k, k+len(r.order))
	for q, c := range r.order {
		row := k + q
		cols[z0+c.step] = append(cols[z0+c.step], clp.Nonzero{Index: row, Value: 1})
		cols[d0+c.run] = append(cols[d0+c.run], clp.Nonzero{Index: row, Value: 1})
		rb = append(rb, r.cutBounds(c))
	}
	s, err := load(cols, len(rb), cb, obj, rb)
	if err != nil {
		return nil, err
	}
	nrows := len(rb)
	res := &lpResult{cols: len(cols)}
	x := make([]float64, k)
	X := make([]float64, k+1)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		res.rounds++
		lim, err := remaining(deadline)
		if err != nil {
			return nil, err
		}
		s.SetMaxSeconds(lim)
		if err := clpStatus(s, s.Dual(clp.NoValuesPass, clp.NoStartFinishOptions)); err != nil {
			return nil, err
		}
		sol := s.PrimalColumnSolution()
		res.objective = s.ObjectiveValue() + r.f0
		res.rows = nrows
		for t := 0; t < k; t++ {
			v := r.m[t]
			for c := segCol[t]; c < segCol[t+1]; c++ {
				v += sol[c]
			}
			x[t] = v
		}
		for t := k - 1; t >= 0; t-- {
			X[t] = X[t+1] + x[t]
		}
		var newRows [][]clp.Nonzero
		var newBounds []clp.Bounds
		add := func(c cut) {
			if r.addCut(c) {
				newRows = append(newRows, []clp.Nonzero{{Index: z0 + c.step, Value: 1}, {Index: d0 + c.run, Value: 1}})
				newBounds = append(newBounds, r.cutBounds(c))
			}
		}
		for i := 0; i < n; i++ {
			want, j := r.debt(i, X)
			have := sol[d0+i]
			if j < 0 || want-have <= 1e-9*(1+want) {
				continue
			}
			add(cut{i, j})
			// The next round would otherwise find the runner-up suffixes
			// one at a time: add the most violated suffix of each window.
			for w := 0; w < cutWindows; w++ {
				lo, hi := w*k/cutWindows, (w+1)*k/cutWindows
				best, arg := have+1e-9*(1+want), -1
				for q := lo; q < hi; q++ {
					if g := r.suf[i][q] - X[q]; g > best {
						best, arg = g, q
					}
				}
				if arg >= 0 {
					add(cut{i, arg})
				}
			}
		}
		if len(newRows) == 0 {
			res.x = append([]float64(nil), x...)
			return res, nil
		}
		addRows(s, newRows, newBounds)
		nrows += len(newRows)
	}
}

// cutBounds is the right-hand side of D_i + Z_j ≥ S_ij − M_j.
func (r *reduced) cutBounds(c cut) clp.Bounds {
	return clp.Bounds{Lower: r.suf[c.run][c.step] - r.msuf[c.step], Upper: math.Inf(1)}
}
