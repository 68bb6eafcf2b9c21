package skyline

import (
	"math"
	"testing"

	"github.com/lanl/clp"
)

// TestCLPLinked proves the cgo link to COIN-OR CLP works on this machine: a
// two-variable LP whose optimum is known by hand. Maximise a + b subject to
// 0 ≤ 2a + b ≤ 10 and 3 ≤ −a + 2b ≤ 8: the optimum is the vertex where
// both upper bounds bind, a = 2.4, b = 5.2, a + b = 7.6.
func TestCLPLinked(t *testing.T) {
	mat := clp.NewPackedMatrix()
	mat.AppendColumn([]clp.Nonzero{{Index: 0, Value: 2}, {Index: 1, Value: -1}})
	mat.AppendColumn([]clp.Nonzero{{Index: 0, Value: 1}, {Index: 1, Value: 2}})
	rows := []clp.Bounds{{Lower: 0, Upper: 10}, {Lower: 3, Upper: 8}}
	s := clp.NewSimplex()
	s.LoadProblem(mat, nil, []float64{1, 1}, rows, nil)
	s.SetOptimizationDirection(clp.Maximize)
	if st := s.Primal(clp.NoValuesPass, clp.NoStartFinishOptions); st != clp.Optimal {
		t.Fatalf("status %v, want Optimal", st)
	}
	x := s.PrimalColumnSolution()
	if math.Abs(x[0]-2.4) > 1e-9 || math.Abs(x[1]-5.2) > 1e-9 || math.Abs(s.ObjectiveValue()-7.6) > 1e-9 {
		t.Fatalf("solution a=%g b=%g obj=%g, want 2.4, 5.2, 7.6", x[0], x[1], s.ObjectiveValue())
	}
}

// TestCLPModelPointer checks that the shim reaches the ClpSimplex inside a
// lanl/clp Simplex (clpModel relies on its field layout) and that rows added
// through it are seen by CLP and change the optimum as they must: minimise
// a subject to a ≥ 1, then add a ≥ 3.
func TestCLPModelPointer(t *testing.T) {
	mat := clp.NewPackedMatrix()
	mat.AppendColumn([]clp.Nonzero{{Index: 0, Value: 1}})
	s := clp.NewSimplex()
	s.LoadProblem(mat, nil, []float64{1}, []clp.Bounds{{Lower: 1, Upper: math.Inf(1)}}, nil)
	if got := clpRows(s); got != 1 {
		t.Fatalf("shim sees %d rows, want 1: lanl/clp's Simplex layout changed", got)
	}
	if st := s.Dual(clp.NoValuesPass, clp.NoStartFinishOptions); st != clp.Optimal || s.ObjectiveValue() != 1 {
		t.Fatalf("first solve: status %v objective %g, want optimal 1", st, s.ObjectiveValue())
	}
	addRows(s, [][]clp.Nonzero{{{Index: 0, Value: 1}}}, []clp.Bounds{{Lower: 3, Upper: math.Inf(1)}})
	if got := clpRows(s); got != 2 {
		t.Fatalf("after addRows the model has %d rows, want 2", got)
	}
	if st := s.Dual(clp.NoValuesPass, clp.NoStartFinishOptions); st != clp.Optimal || math.Abs(s.ObjectiveValue()-3) > 1e-12 {
		t.Fatalf("warm solve: status %v objective %g, want optimal 3", st, s.ObjectiveValue())
	}
}

// TestCLPStatusRoundTrip checks the basis shim: a solved model's basis has
// one basic variable per row, and a basis given to a fresh copy of the
// model is the one CLP reads back (minimise a + b subject to a + b ≥ 2,
// a ≤ 1: a row and two columns, one of them basic).
func TestCLPStatusRoundTrip(t *testing.T) {
	build := func() *clp.Simplex {
		mat := clp.NewPackedMatrix()
		mat.AppendColumn([]clp.Nonzero{{Index: 0, Value: 1}})
		mat.AppendColumn([]clp.Nonzero{{Index: 0, Value: 1}})
		s := clp.NewSimplex()
		s.LoadProblem(mat, []clp.Bounds{{Lower: 0, Upper: 1}, {Lower: 0, Upper: math.Inf(1)}},
			[]float64{1, 1}, []clp.Bounds{{Lower: 2, Upper: math.Inf(1)}}, nil)
		return s
	}
	s := build()
	if st := s.Dual(clp.NoValuesPass, clp.NoStartFinishOptions); st != clp.Optimal || math.Abs(s.ObjectiveValue()-2) > 1e-12 {
		t.Fatalf("status %v objective %g, want optimal 2", st, s.ObjectiveValue())
	}
	st := getStatus(s)
	basic := 0
	for _, v := range st {
		if v == clpBasic {
			basic++
		}
	}
	if len(st) != 3 || basic != 1 {
		t.Fatalf("basis %v: want 3 statuses, 1 basic", st)
	}
	c := build()
	setStatus(c, st)
	if got := getStatus(c); string(got) != string(st) {
		t.Fatalf("basis read back %v, set %v", got, st)
	}
	if st := c.Primal(clp.NoValuesPass, clp.NoStartFinishOptions); st != clp.Optimal || math.Abs(c.ObjectiveValue()-2) > 1e-12 {
		t.Fatalf("warm solve: status %v objective %g, want optimal 2", st, c.ObjectiveValue())
	}
}
