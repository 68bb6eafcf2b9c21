package dataset

import (
	"math"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// The values under a float column's nulls are zeros in every batch, as
// the column's getter stores them, also when appendNulls skips clearing
// (the column has only ever had nulls) and after values were written to
// slices that come back as spares.
func TestAppendNullsLeavesZeros(t *testing.T) {
	c := newSliceCol(arrow.PrimitiveTypes.Float64, func(u *Usage) (float64, bool) { return u.Memory, u.Memory == u.Memory }).(*sliceCol[Usage, float64])
	c.initSpare()
	batch := func(fill func()) []float64 {
		fill()
		a := c.array()
		vals := slices.Clone(a.(*array.Float64).Float64Values())
		c.recycle(a) // its buffer comes back as a spare
		a.Release()
		c.refill(len(vals)) // and is the next batch's, as Writer.flush does
		return vals
	}
	nulls := func() { c.appendNulls(6) }
	for round, fill := range []func(){
		nulls, nulls, // never a value: nothing cleared
		func() { appendFractions(c, []float64{0.5, 0.25, 1, 0.75, 0.125, 0.375}) },
		func() {
			c.appendValues([]float64{0.9, math.NaN(), 0.8, 0.7, 0.6, 0.1}, func(v float64) bool { return v != v })
		},
		nulls, nulls, nulls, // spares that held values
	} {
		vals := batch(fill)
		if round == 2 || round == 3 {
			continue
		}
		for i, v := range vals {
			if v != 0 || math.Signbit(v) {
				t.Fatalf("round %d: null %d holds %v, want 0", round, i, v)
			}
		}
	}
}
