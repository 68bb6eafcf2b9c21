package simulate

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/wlprof/wlprof/elasticity"
	"github.com/wlprof/wlprof/internal/bytesize"
)

// Model is a task's memory elasticity as the simulator uses it: at a
// memory below the task's ideal, how much slower the task runs and how
// much disk bandwidth its spills take. It is the seam between the
// simulator and the families of models: the elasticity stage's fitted
// models (FromElasticity) and the simple ones a trace or --default-model
// names (ParseModel).
type Model interface {
	// At returns the slowdown (runtime / runtime at ideal memory, at
	// least 1; +Inf when the task cannot run with that memory) and the
	// disk bandwidth in bytes/s the task needs, at memBytes, for a task
	// whose ideal memory is idealBytes. The simulator asks only below
	// ideal, at whole memory units from 10% of ideal.
	At(memBytes, idealBytes int64) (slowdown float64, diskBytesPerS int64)
}

// StepModel is Iorgulescu et al., ATC'17's mapper model (§2.3) and DSS's step penalty: one
// slowdown for every memory below ideal.
type StepModel struct {
	Slowdown      float64
	DiskBytesPerS int64
}

// At implements Model.
func (m StepModel) At(_, _ int64) (float64, int64) { return m.Slowdown, m.DiskBytesPerS }

// CurvePoint is a slowdown from a fraction of ideal memory on.
type CurvePoint struct {
	Fraction float64
	Slowdown float64
}

// CurveModel is a piecewise-constant slowdown over the fraction of ideal
// memory: at memory m, the slowdown of the point with the largest
// fraction at most m/ideal; below the smallest fraction the task cannot
// run (+Inf). Points are kept sorted by fraction.
type CurveModel struct {
	Points        []CurvePoint
	DiskBytesPerS int64
}

// At implements Model.
func (m CurveModel) At(mem, ideal int64) (float64, int64) {
	f := float64(mem) / float64(ideal)
	s := math.Inf(1)
	for _, p := range m.Points {
		if p.Fraction <= f {
			s = p.Slowdown
		}
	}
	return s, m.DiskBytesPerS
}

// ParseModel reads a model spec, as the trace's model column and
// --default-model take them:
//
//	none                         never elastic (nil)
//	step:SLOWDOWN[@DISK]         SLOWDOWN below ideal memory (1.5, or inf)
//	curve:F=S;F=S...[@DISK]      slowdown S from F × ideal memory on
//
// DISK is the disk bandwidth an elastic task takes, bytes per second with
// an optional K, M, G suffix (binary). Slowdowns are at least 1.
func ParseModel(spec string) (Model, error) {
	s := strings.TrimSpace(spec)
	bad := func(why string) error {
		return fmt.Errorf("model %q: %s (want none, step:SLOWDOWN or curve:FRACTION=SLOWDOWN;..., each with an optional @DISK_BYTES_PER_S)", spec, why)
	}
	if s == "none" {
		return nil, nil
	}
	kind, rest, ok := strings.Cut(s, ":")
	if !ok {
		return nil, bad("unknown model")
	}
	var disk int64
	if body, d, ok := strings.Cut(rest, "@"); ok {
		v, err := bytesize.Parse(d)
		if err != nil {
			return nil, bad("disk bandwidth " + strconv.Quote(d) + " is no size")
		}
		rest, disk = body, v
	}
	slowdown := func(x string) (float64, error) {
		v, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil || math.IsNaN(v) || v < 1 {
			return 0, bad("slowdown " + strconv.Quote(x) + " is not a number of at least 1")
		}
		return v, nil
	}
	switch kind {
	case "step":
		v, err := slowdown(rest)
		if err != nil {
			return nil, err
		}
		return StepModel{Slowdown: v, DiskBytesPerS: disk}, nil
	case "curve":
		var m CurveModel
		for _, part := range strings.Split(rest, ";") {
			f, sl, ok := strings.Cut(part, "=")
			if !ok {
				return nil, bad("curve point " + strconv.Quote(part) + " is not FRACTION=SLOWDOWN")
			}
			fv, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil || !(fv > 0 && fv < 1) {
				return nil, bad("fraction " + strconv.Quote(f) + " is not in (0, 1)")
			}
			sv, err := slowdown(sl)
			if err != nil {
				return nil, err
			}
			for _, p := range m.Points {
				if p.Fraction == fv {
					return nil, bad("fraction " + strconv.Quote(f) + " given twice")
				}
			}
			m.Points = append(m.Points, CurvePoint{fv, sv})
		}
		sort.Slice(m.Points, func(a, b int) bool { return m.Points[a].Fraction < m.Points[b].Fraction })
		m.DiskBytesPerS = disk
		return m, nil
	}
	return nil, bad("unknown model " + strconv.Quote(kind))
}

// ModelSpec writes a model as ParseModel reads it: "none" for nil, ""
// for a model no spec describes (a fitted one).
func ModelSpec(m Model) string {
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	disk := func(d int64) string {
		if d == 0 {
			return ""
		}
		return "@" + strconv.FormatInt(d, 10)
	}
	switch m := m.(type) {
	case nil:
		return "none"
	case StepModel:
		return "step:" + g(m.Slowdown) + disk(m.DiskBytesPerS)
	case CurveModel:
		var parts []string
		for _, p := range m.Points {
			parts = append(parts, g(p.Fraction)+"="+g(p.Slowdown))
		}
		return "curve:" + strings.Join(parts, ";") + disk(m.DiskBytesPerS)
	}
	return ""
}

// FittedModel is an elasticity stage model (Iorgulescu et al., ATC'17 §2): its predicted
// runtime over its ideal runtime is the slowdown, and the disk bandwidth
// is that of its curve point at or below the memory (§2.6: the extra
// disk bytes over the runtime).
type FittedModel struct{ M *elasticity.Model }

// At implements Model.
func (m FittedModel) At(mem, _ int64) (float64, int64) {
	T := m.M.IdealRuntimeS
	rt := m.M.Predict(mem)
	s := rt / T
	if math.IsNaN(s) || !(T > 0) || !(rt > 0) {
		return math.Inf(1), 0
	}
	if s < 1 {
		s = 1 // never "less memory is faster", as the curve
	}
	var disk float64
	for i, p := range m.M.Curve {
		if i == 0 || p.MemoryBytes <= mem {
			disk = p.DiskBytesPS
		}
	}
	if !(disk > 0) || math.IsInf(disk, 0) {
		return s, 0
	}
	return s, int64(math.Ceil(disk))
}

// minElasticFraction is the least memory an elastic task gets, as a
// fraction of its ideal memory (DSS §4: 10%).
const minElasticFraction = 10 // percent

// table is one phase's elastic choices at whole memory units: for each
// memory a node may have free, the memory the task would take (the least
// that gives the lowest runtime, Alg. 1 lines 7 and 9), its runtime and
// disk bandwidth.
type table struct {
	kmin int32 // least units an elastic task gets: ⌈10% of ideal⌉
	// For free memory k units (kmin ≤ k < ideal), index k − kmin:
	choice []int32   // units taken
	rt     []float64 // runtime at choice, s (+Inf: cannot run)
	disk   []int64   // disk bytes/s at choice
}

// buildTable tabulates m for a task of ideal units at duration d: the
// runtime at k units is d × slowdown(k·unit); for each free memory the
// choice is the prefix argmin (ties: fewer units). nil when no memory
// below ideal gives a finite runtime.
func buildTable(m Model, ideal int32, unit int64, d float64) *table {
	if m == nil || ideal < 2 {
		return nil
	}
	kmin := (ideal*minElasticFraction + 99) / 100
	if kmin < 1 {
		kmin = 1
	}
	n := int(ideal - kmin)
	if n <= 0 {
		return nil
	}
	t := &table{kmin: kmin, choice: make([]int32, n), rt: make([]float64, n), disk: make([]int64, n)}
	bestK, bestRT, bestDisk := int32(-1), math.Inf(1), int64(0)
	for i := 0; i < n; i++ {
		k := kmin + int32(i)
		s, disk := m.At(int64(k)*unit, int64(ideal)*unit)
		if math.IsNaN(s) || s < 1 {
			s = math.Inf(1)
		}
		rt := d * s
		if rt < bestRT {
			bestK, bestRT, bestDisk = k, rt, disk
		}
		t.choice[i], t.rt[i], t.disk[i] = bestK, bestRT, bestDisk
	}
	if bestK < 0 {
		return nil
	}
	return t
}
