package skyline

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/lanl/clp"
)

// problem is one fit: the quantised runs and the weights of the objective
// α·A_o + (1−α)·A_u + β·ε.
type problem struct {
	c     [][]float64 // c[i][k]: containers of run i in step k
	ids   []string    // run IDs, as c
	total []float64   // C_i = Σ_k c[i][k] > 0
	alpha float64
	beta  float64
}

func (p *problem) runs() int  { return len(p.c) }
func (p *problem) steps() int { return len(p.c[0]) }

// lpResult is a solved LP: the skyline and what it cost.
type lpResult struct {
	x         []float64 // containers reserved per step
	objective float64   // as reported by the model (constant included)
	rounds    int       // solves (cutting-plane rounds) it took
	rows      int       // rows of the last model solved
	cols      int       // columns of the last model solved
	cuts      []runCut  // suffix rows of the reduced model
}

// cost evaluates the objective of the seed's LP at x directly, from its
// definition: the oracle every model is checked against.
func (p *problem) cost(x []float64) (obj, over, under, eps float64) {
	n := float64(p.runs())
	for i, ci := range p.c {
		o, d, u := 0.0, 0.0, 0.0
		for k, v := range ci {
			if x[k] > v {
				o += x[k] - v
			} else {
				u += v - x[k]
			}
			d = math.Max(d+v-x[k], 0)
		}
		over += o / n
		under += d / n
		eps += u / p.total[i] / n
	}
	return p.alpha*over + (1-p.alpha)*under + p.beta*eps, over, under, eps
}

// clpStatus turns a CLP status into an error.
func clpStatus(s *clp.Simplex, st clp.SimplexStatus) error {
	switch st {
	case clp.Optimal:
		return nil
	case clp.Infeasible, clp.Unbounded:
		return fmt.Errorf("%w (CLP status %d)", ErrInfeasible, st)
	case 3:
		if s.SecondaryStatus() == clp.SecondaryStoppedOnTime {
			return ErrTimeLimit
		}
		return fmt.Errorf("%w: stopped on the iteration limit", ErrSolverFault)
	default:
		return fmt.Errorf("%w: CLP status %d, secondary %d", ErrSolverFault, st, s.SecondaryStatus())
	}
}

// remaining returns the seconds left before deadline for CLP's time limit
// (CLP takes a non-positive limit as none).
func remaining(deadline time.Time) (float64, error) {
	if deadline.IsZero() {
		return -1, nil
	}
	left := time.Until(deadline).Seconds()
	if left <= 0 {
		return 0, ErrTimeLimit
	}
	return left, nil
}

// solveTextbook builds and solves the LP exactly as Jyothi et al., OSDI'16 §5 and Apache
// Hadoop's LpSolver state it: x_k, and per run and step an over-allocation
// oa, an instantaneous under-allocation uaPredict and a debt ua, plus ε.
// About 3·N·K rows: slow at real sizes, kept as the oracle for the reduced
// model.
func (p *problem) solveTextbook(deadline time.Time, mps string) (*lpResult, error) {
	n, k := p.runs(), p.steps()
	nf := float64(n)
	// Columns: x_0..x_{K-1}, then per (i,k): oa, uap, ua; then ε.
	oa := func(i, t int) int { return k + 3*(i*k+t) }
	uap := func(i, t int) int { return oa(i, t) + 1 }
	ua := func(i, t int) int { return oa(i, t) + 2 }
	eps := k + 3*n*k
	// Rows: per (i,t): over, under-predict, debt; then the regularisation.
	rOver := func(i, t int) int { return 3 * (i*k + t) }
	rUap := func(i, t int) int { return rOver(i, t) + 1 }
	rUa := func(i, t int) int { return rOver(i, t) + 2 }
	rReg := 3 * n * k
	nrows := rReg + 1
	cols := make([][]clp.Nonzero, eps+1)
	obj := make([]float64, eps+1)
	rb := make([]clp.Bounds, nrows)
	inf := math.Inf(1)
	for i, ci := range p.c {
		for t, v := range ci {
			// oa − x ≥ −c
			cols[oa(i, t)] = append(cols[oa(i, t)], clp.Nonzero{Index: rOver(i, t), Value: 1})
			cols[t] = append(cols[t], clp.Nonzero{Index: rOver(i, t), Value: -1})
			rb[rOver(i, t)] = clp.Bounds{Lower: -v, Upper: inf}
			// uap + x ≥ c
			cols[uap(i, t)] = append(cols[uap(i, t)], clp.Nonzero{Index: rUap(i, t), Value: 1})
			cols[t] = append(cols[t], clp.Nonzero{Index: rUap(i, t), Value: 1})
			rb[rUap(i, t)] = clp.Bounds{Lower: v, Upper: inf}
			// ua_t − ua_{t−1} + x ≥ c
			cols[ua(i, t)] = append(cols[ua(i, t)], clp.Nonzero{Index: rUa(i, t), Value: 1})
			if t > 0 {
				cols[ua(i, t-1)] = append(cols[ua(i, t-1)], clp.Nonzero{Index: rUa(i, t), Value: -1})
			}
			cols[t] = append(cols[t], clp.Nonzero{Index: rUa(i, t), Value: 1})
			rb[rUa(i, t)] = clp.Bounds{Lower: v, Upper: inf}
			// Σ uap / C_i − N ε ≤ 0
			cols[uap(i, t)] = append(cols[uap(i, t)], clp.Nonzero{Index: rReg, Value: 1 / p.total[i]})
			obj[oa(i, t)] = p.alpha / nf
		}
		obj[ua(i, k-1)] = (1 - p.alpha) / nf
	}
	cols[eps] = append(cols[eps], clp.Nonzero{Index: rReg, Value: -nf})
	rb[rReg] = clp.Bounds{Lower: -inf, Upper: 0}
	obj[eps] = p.beta
	for j := range cols {
		sort.Slice(cols[j], func(a, b int) bool { return cols[j][a].Index < cols[j][b].Index })
	}
	s, err := load(cols, nrows, nil, obj, rb)
	if err != nil {
		return nil, err
	}
	if mps != "" && !s.WriteMPS(mps) {
		return nil, fmt.Errorf("skyline: cannot write %s", mps)
	}
	lim, err := remaining(deadline)
	if err != nil {
		return nil, err
	}
	s.SetMaxSeconds(lim)
	if err := clpStatus(s, s.Primal(clp.NoValuesPass, clp.NoStartFinishOptions)); err != nil {
		return nil, err
	}
	sol := s.PrimalColumnSolution()
	return &lpResult{x: append([]float64(nil), sol[:k]...), objective: s.ObjectiveValue(),
		rounds: 1, rows: nrows, cols: len(cols)}, nil
}

// load builds a CLP model from sparse columns (never a dense matrix).
func load(cols [][]clp.Nonzero, nrows int, cb []clp.Bounds, obj []float64, rb []clp.Bounds) (*clp.Simplex, error) {
	nnz := 0
	for _, c := range cols {
		nnz += len(c)
	}
	m := clp.NewPackedMatrix()
	m.Reserve(len(cols), nnz, false)
	for _, c := range cols {
		m.AppendColumn(c)
	}
	m.SetDimensions(nrows, len(cols))
	s := clp.NewSimplex()
	s.LoadProblem(m, cb, obj, rb, nil)
	s.SetOptimizationDirection(clp.Minimize)
	return s, nil
}
