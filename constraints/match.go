package constraints

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/wlprof/wlprof/dataset"
)

// ErrRelation is a constraint Match cannot decide: an unknown relation,
// or a value that is not a number under an ordered relation.
var ErrRelation = errors.New("constraints: undecidable constraint")

// rel numbers follow dataset.Relations.
const (
	relEQ = iota
	relNE
	relLT
	relGT
	relLE
	relGE
	relPresent
	relAbsent
)

// A compiled constraint: its relation as a number and its value parsed
// once.
type compiled struct {
	rel uint8
	val string
	num float64
}

func compile(c dataset.Constraint) (compiled, error) {
	r := -1
	for i, name := range dataset.Relations {
		if c.Relation == name {
			r = i
		}
	}
	if r < 0 {
		return compiled{}, fmt.Errorf("%w: unknown relation %q", ErrRelation, c.Relation)
	}
	k := compiled{rel: uint8(r), val: c.Value, num: math.NaN()}
	if dataset.NumericRelation(c.Relation) {
		v, err := strconv.ParseFloat(strings.TrimSpace(c.Value), 64)
		if err != nil || math.IsNaN(v) {
			return compiled{}, fmt.Errorf("%w: %s %q is not a number", ErrRelation, c.Relation, c.Value)
		}
		k.num = v
	}
	return k, nil
}

// mval is a machine's value of one attribute, with its number (NaN when
// it is not one).
type mval struct {
	s  string
	f  float64
	ok bool // the machine has the attribute
}

func newMval(s string) mval {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		f = math.NaN()
	}
	return mval{s: s, f: f, ok: true}
}

// match is the trace's semantics (clusterdata_trace_format_v3.proto,
// MachineConstraint): EQUAL and NOT_EQUAL compare strings, the ordered
// relations compare numbers, PRESENT and NOT_PRESENT only ask whether the
// machine has the attribute. A machine without the attribute satisfies
// only NOT_EQUAL and NOT_PRESENT (it is not equal to anything); one whose
// value is not a number satisfies no ordered relation.
func (k *compiled) match(v mval) bool {
	switch k.rel {
	case relPresent:
		return v.ok
	case relAbsent:
		return !v.ok
	case relEQ:
		return v.ok && v.s == k.val
	case relNE:
		return !v.ok || v.s != k.val
	}
	if !v.ok || math.IsNaN(v.f) {
		return false
	}
	switch k.rel {
	case relLT:
		return v.f < k.num
	case relGT:
		return v.f > k.num
	case relLE:
		return v.f <= k.num
	default:
		return v.f >= k.num
	}
}

// Match reports whether a machine whose attribute has value have (present
// says whether it has the attribute at all) satisfies the constraint
// "attribute relation want". The error wraps ErrRelation.
func Match(relation, want, have string, present bool) (bool, error) {
	k, err := compile(dataset.Constraint{Relation: relation, Value: want})
	if err != nil {
		return false, err
	}
	v := mval{s: have, f: math.NaN(), ok: present}
	if present && dataset.NumericRelation(relation) {
		// Only the ordered relations read the machine's value as a number:
		// ParseFloat allocates an error for every value that is not one.
		v = newMval(have)
	}
	return k.match(v), nil
}
