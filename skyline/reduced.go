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
//
// At real sizes the segments are generated lazily too (solveCtx): a step's
// optimum uses few of its up to N segments, and the dual simplex's work
// grows with the columns it prices.
type reduced struct {
	p     *problem
	m     []float64   // m_k, the minimiser of f_k
	f0    float64     // Σ_k f_k(m_k)
	segs  [][]segment // per step, the segments above m_k
	suf   [][]float64 // S_ij = Σ_{t≥j} c_it, with S_iK = 0
	msuf  []float64   // M_j = Σ_{t≥j} m_t
	cuts  map[cut]bool
	order []cut // cuts in the order they were added (deterministic models)

	// Column generation over the segments: step t's columns are its
	// segments lo[t]..hi[t]-1; those below are at their width, so x_t
	// starts at base_t; bsuf holds the suffix sums of the bases and fb the
	// cost there. window > 0 starts each window that many segments either
	// side of guess (guessFlat unless set), seeds the cuts from the guess
	// and starts CLP from a crash basis; 0 keeps every segment, as small
	// models are solved.
	window int
	guess  []float64
	block  int // steps per link row (1: one per step, as small models)
	lo, hi []int
	bsuf   []float64
	fb     float64
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
	nseg := 0
	for _, segs := range r.segs {
		nseg += len(segs)
	}
	if nseg > windowMinSegments {
		r.window, r.block = 1, linkBlock
	}
	return r
}

// growStep is the most segments a window grows by a side per rebuild.
const growStep = 2

// linkBlock is how many steps share a link row when the segments are
// generated: a cut then holds the segments of its first block's remaining
// steps, and CLP factors a basis of ~K/32 link rows instead of K (at
// K = 10,080, 30 runs: 2.5 s of CPU with a row per step, 1.0 s with 32;
// 8 to 64 are all within noise of it).
const linkBlock = 32

// windowMinSegments is the size from which a model is solved by column
// generation over its segments: below it the whole model is solved in
// milliseconds, and small fits keep the rows and columns they always had.
const windowMinSegments = 4000

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
// the skyline whose suffix sums are X (with extras, the most violated suffix
// of each window of steps too).
func (r *reduced) seedCuts(X []float64, extras bool) {
	for i := range r.p.c {
		if extras {
			r.violated(i, X, 0, func(c cut) {})
		} else if _, j := r.debt(i, X); j >= 0 {
			r.addCut(cut{i, j})
		}
	}
}

// violated adds the suffix rows of run i that the skyline with suffix sums
// X violates when the model's debt is have: the largest shortfall and the
// largest of each window of steps. It calls added for each new row.
func (r *reduced) violated(i int, X []float64, have float64, added func(cut)) {
	k := r.p.steps()
	want, j := r.debt(i, X)
	if j < 0 || want-have <= 1e-9*(1+want) {
		return
	}
	add := func(c cut) {
		if r.addCut(c) {
			added(c)
		}
	}
	add(cut{i, j})
	// The next round would otherwise find the runner-up suffixes one at a
	// time: add the most violated suffix of each window.
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

// solveCtx runs the cutting-plane loop with CLP's dual simplex inside a
// column-generation loop over the segments. The first model holds the link
// rows and the seeded cuts; later rounds add the violated suffix rows to the
// solved model, so each dual solve restarts from the previous basis (a few
// pivots) instead of from scratch. With windows, only the segments near a
// guess of x_k are columns (those below fixed at their width, those above
// at zero); the step's price μ_k (a segment's cost less its reduced cost:
// what the rows pay for one more container at step k) says
// whether an omitted segment would enter (slope < μ_k above the window, or
// slope > μ_k below it): if one would, the window grows and the model is
// rebuilt with the rows found so far.
func (r *reduced) solveCtx(ctx context.Context, deadline time.Time) (*lpResult, error) {
	p := r.p
	k := p.steps()
	if r.window <= 0 {
		r.seedCuts(r.msuf, false)
	} else {
		if r.guess == nil {
			r.guess = r.guessFlat()
		}
		G := make([]float64, k+1)
		for t := k - 1; t >= 0; t-- {
			G[t] = G[t+1] + r.guess[t]
		}
		r.seedCuts(G, true)
	}
	r.initWindows()
	res := &lpResult{}
	var warm *basis
	for {
		x, mu, b, err := r.solveWindows(ctx, deadline, res, warm)
		if err != nil {
			return nil, err
		}
		b.lo, b.hi = append([]int(nil), r.lo...), append([]int(nil), r.hi...)
		if mu == nil || !r.growWindows(mu) {
			res.x = x
			return res, nil
		}
		warm = b
	}
}

// basis is a solved model's basis with the windows it had.
type basis struct {
	status []byte // CLP's, one per column then one per row
	lo, hi []int
}

// initWindows sets every step's window: all its segments, or with
// r.window > 0 the r.window segments either side of the guess r.guess.
func (r *reduced) initWindows() {
	k := r.p.steps()
	r.lo, r.hi = make([]int, k), make([]int, k)
	for t := 0; t < k; t++ {
		segs := r.segs[t]
		r.hi[t] = len(segs)
		if r.window <= 0 || r.guess == nil {
			continue
		}
		at, s := r.m[t], 0
		for s < len(segs)-1 && at+segs[s].width <= r.guess[t] {
			at += segs[s].width
			s++
		}
		r.lo[t] = max(0, s-r.window)
		r.hi[t] = min(len(segs), s+r.window+1)
	}
}

// growWindows widens the windows whose omitted segments price out wrongly
// at the step prices μ; it reports whether any window grew.
//
// A window grows by growStep segments a side at most, not to where μ
// says: a step held at its window's edge is priced by the rows it must
// meet there, which overshoots (at K = 10,080 with 100 runs, growing to μ
// took 126,000 columns and 8.6 s of CPU; by two, 66,000 and 4.7 s).
func (r *reduced) growWindows(prices []float64) bool {
	grew := false
	for t, segs := range r.segs {
		mu := prices[t]
		tol := 1e-9 * (1 + math.Abs(mu))
		if h := r.hi[t]; h < len(segs) && segs[h].slope < mu-tol {
			for h < len(segs) && segs[h].slope < mu+tol {
				h++
			}
			r.hi[t] = min(len(segs), h+1, r.hi[t]+growStep)
			grew = true
		}
		if l := r.lo[t]; l > 0 && segs[l-1].slope > mu+tol {
			for l > 0 && segs[l-1].slope > mu-tol {
				l--
			}
			r.lo[t] = max(0, l-1, r.lo[t]-growStep)
			grew = true
		}
	}
	return grew
}

// solveWindows builds the model of the current windows and cuts and runs
// the cutting-plane loop on it, from warm (the previous model's basis) when
// given. It returns the skyline and, when some window leaves segments out,
// the step prices μ and the basis.
func (r *reduced) solveWindows(ctx context.Context, deadline time.Time, res *lpResult, warm *basis) ([]float64, []float64, *basis, error) {
	p := r.p
	n, k := p.runs(), p.steps()
	d := (1 - p.alpha) / float64(n)
	// base_t = m_t + the widths of the segments below the window, B_j its
	// suffix sums, and the cost at the bases.
	base := make([]float64, k)
	r.bsuf = make([]float64, k+1)
	r.fb = 0
	partial := false
	for t, segs := range r.segs {
		base[t] = r.m[t]
		cost := 0.0
		for _, sg := range segs[:r.lo[t]] {
			base[t] += sg.width
			cost += sg.width * sg.slope
		}
		r.fb += cost
		partial = partial || r.lo[t] > 0 || r.hi[t] < len(segs)
	}
	r.fb += r.f0
	for t := k - 1; t >= 0; t-- {
		r.bsuf[t] = r.bsuf[t+1] + base[t]
	}
	// Columns: segments (by step), Z_0..Z_{nb-1} (Z_a the suffix sum from
	// block a's first step), D_0..D_{N-1}. Rows: nb link rows
	// Z_a − Z_a+1 − Σ_{t in block a} Σ_s y_ts = 0, then the cuts: a cut at
	// step j of block a is D_i + Z_a+1 + Σ_{t=j}^{end of a} Σ_s y_ts ≥ rhs,
	// or D_i + Z_a ≥ rhs when j starts the block.
	bs := max(r.block, 1)
	nb := (k + bs - 1) / bs
	var cols [][]clp.Nonzero
	var cb []clp.Bounds
	var obj []float64
	segCol := make([]int, k+1)
	for t := 0; t < k; t++ {
		segCol[t] = len(cols)
		for _, sg := range r.segs[t][r.lo[t]:r.hi[t]] {
			cols = append(cols, []clp.Nonzero{{Index: t / bs, Value: -1}})
			cb = append(cb, clp.Bounds{Lower: 0, Upper: sg.width})
			obj = append(obj, sg.slope)
		}
	}
	segCol[k] = len(cols)
	z0 := len(cols)
	for a := 0; a < nb; a++ {
		col := []clp.Nonzero{{Index: a, Value: 1}}
		if a > 0 {
			col = append([]clp.Nonzero{{Index: a - 1, Value: -1}}, col...)
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
	// cutRow is the cut's row: {column, 1} in increasing column order.
	cutRow := func(c cut) []clp.Nonzero {
		var row []clp.Nonzero
		a := c.step / bs
		if c.step%bs == 0 {
			row = append(row, clp.Nonzero{Index: z0 + a, Value: 1})
		} else {
			for col := segCol[c.step]; col < segCol[min(k, (a+1)*bs)]; col++ {
				row = append(row, clp.Nonzero{Index: col, Value: 1})
			}
			if a+1 < nb {
				row = append(row, clp.Nonzero{Index: z0 + a + 1, Value: 1})
			}
		}
		return append(row, clp.Nonzero{Index: d0 + c.run, Value: 1})
	}
	rb := make([]clp.Bounds, nb, nb+len(r.order))
	for q, c := range r.order {
		row := nb + q
		for _, nz := range cutRow(c) {
			cols[nz.Index] = append(cols[nz.Index], clp.Nonzero{Index: row, Value: 1})
		}
		rb = append(rb, r.cutBounds(c))
	}
	s, err := load(cols, len(rb), cb, obj, rb)
	if err != nil {
		return nil, nil, nil, err
	}
	primal := false
	switch {
	case warm != nil:
		// The previous basis, the new segments at the bound they were
		// fixed at (below the old window at their width, above it at
		// zero): the previous optimum is still feasible, so the primal
		// simplex goes on from it, the new segments entering.
		old := warm.status
		st := make([]byte, len(cols)+len(rb))
		oc := 0 // the old model's segment column of (t, warm.lo[t])
		for t := 0; t < k; t++ {
			for q := r.lo[t]; q < r.hi[t]; q++ {
				c := segCol[t] + q - r.lo[t]
				switch {
				case q < warm.lo[t]:
					st[c] = clpAtUpperBound
				case q >= warm.hi[t]:
					st[c] = clpAtLowerBound
				default:
					st[c] = old[oc+q-warm.lo[t]]
				}
			}
			oc += warm.hi[t] - warm.lo[t]
		}
		copy(st[z0:], old[oc:]) // Z, D, then the rows, as before
		setStatus(s, st)
		primal = true
	case r.window > 0:
		// Z_j basic in its link row, every other column at its lower
		// bound, cut slacks basic: dual feasible (all costs ≥ 0, π = 0),
		// and it spares the dual simplex a pivot per link row.
		st := make([]byte, len(cols)+len(rb))
		for c := range cols {
			st[c] = clpAtLowerBound
		}
		for a := 0; a < nb; a++ {
			st[z0+a] = clpBasic
			st[len(cols)+a] = clpAtLowerBound
		}
		for q := nb; q < len(rb); q++ {
			st[len(cols)+q] = clpBasic
		}
		setStatus(s, st)
	}
	nrows := len(rb)
	res.cols = len(cols)
	x := make([]float64, k)
	X := make([]float64, k+1)
	for {
		if err := ctx.Err(); err != nil {
			return nil, nil, nil, err
		}
		res.rounds++
		lim, err := remaining(deadline)
		if err != nil {
			return nil, nil, nil, err
		}
		s.SetMaxSeconds(lim)
		var st clp.SimplexStatus
		if primal {
			st = s.Primal(clp.NoValuesPass, clp.NoStartFinishOptions)
			primal = false
		} else {
			st = s.Dual(clp.NoValuesPass, clp.NoStartFinishOptions)
		}
		if err := clpStatus(s, st); err != nil {
			return nil, nil, nil, err
		}
		sol := s.PrimalColumnSolution()
		res.objective = s.ObjectiveValue() + r.fb
		res.rows = nrows
		for t := 0; t < k; t++ {
			v := base[t]
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
		for i := 0; i < n; i++ {
			r.violated(i, X, sol[d0+i], func(c cut) {
				newRows = append(newRows, cutRow(c))
				newBounds = append(newBounds, r.cutBounds(c))
			})
		}
		if len(newRows) == 0 {
			var mu []float64
			b := &basis{}
			if partial {
				// μ_t = slope − reduced cost of any segment of step t in
				// the model (they all have the same column).
				dj := s.DualColumnSolution()
				mu = make([]float64, k)
				for t := 0; t < k; t++ {
					mu[t] = r.segs[t][r.lo[t]].slope - dj[segCol[t]]
				}
				b.status = getStatus(s)
			}
			return append([]float64(nil), x...), mu, b, nil
		}
		addRows(s, newRows, newBounds)
		nrows += len(newRows)
	}
}

// cutBounds is the right-hand side of D_i + Z_j ≥ S_ij − B_j, B_j the
// suffix sum of the windows' bases.
func (r *reduced) cutBounds(c cut) clp.Bounds {
	return clp.Bounds{Lower: r.suf[c.run][c.step] - r.bsuf[c.step], Upper: math.Inf(1)}
}

// xAt is the skyline whose every step sits where f_k's slope reaches mu.
func (r *reduced) xAt(mu float64, x []float64) {
	for t, segs := range r.segs {
		at := r.m[t]
		for _, sg := range segs {
			if sg.slope >= mu || math.IsInf(sg.width, 1) {
				break
			}
			at += sg.width
		}
		x[t] = at
	}
}

// guessFlat is the best skyline with one price on every step: each x_k
// where f_k's slope reaches μ, μ tried at each level α·q/N the slopes take
// (q runs below x_k), the cheapest by the objective itself.
func (r *reduced) guessFlat() []float64 {
	p := r.p
	n := p.runs()
	x := make([]float64, p.steps())
	best, bestObj := make([]float64, p.steps()), math.Inf(1)
	for q := 0; q <= n; q++ {
		r.xAt(p.alpha*float64(q)/float64(n), x)
		if obj, _, _, _ := p.cost(x); obj < bestObj {
			bestObj = obj
			copy(best, x)
		}
	}
	return best
}
