package classify

import (
	"math"
	"testing"

	"github.com/wlprof/wlprof/dataset"
)

// A tenant sampled every 30 minutes on a 2-minute grid is drawn and its
// spectrum computed on the step it was analysed on: blocks of 15 slots,
// from its first sample to its last, with no NaN between (the report's
// class figure drew a sliver of it, from a series NaN in 14 slots of 15).
func TestOnStep(t *testing.T) {
	const grid = 120
	start := int64(1704067200000) // a multiple of 30 minutes
	v := make([]float64, 3*720)
	for i := range v {
		v[i] = math.NaN()
	}
	for i := 7; i < len(v)-20; i += 15 {
		v[i] = float64(i)
	}
	s := dataset.Series{Tenant: "taxi", StartMs: start, StepS: grid, Values: v}
	got := onStep(&s, 1800)
	if got.StepS != 1800 || got.StartMs != start {
		t.Fatalf("step %g start %d; want 1800 and %d", got.StepS, got.StartMs, start)
	}
	for i, x := range got.Values {
		if math.IsNaN(x) || x != float64(7+15*i) {
			t.Fatalf("block %d = %v, want %d", i, x, 7+15*i)
		}
	}
	if n := len(got.Values); n != (len(v)-20-7+14)/15 {
		t.Errorf("%d blocks", n)
	}
	// On the grid's own step it only trims the NaN at both ends.
	got = onStep(&s, grid)
	if got.StepS != grid || got.StartMs != start+7*grid*1000 || len(got.Values) != 2137-7+1 { // samples at 7 … 2137
		t.Errorf("grid step: step %g start %d len %d", got.StepS, got.StartMs, len(got.Values))
	}
}
