package constraints_test

import (
	"fmt"

	"github.com/wlprof/wlprof/constraints"
)

// The trace's relations: strings for EQUAL, numbers for the ordered ones,
// presence only for PRESENT.
func ExampleMatch() {
	for _, c := range []struct {
		rel, want, have string
		present         bool
	}{
		{"EQUAL", "2", "2.0", true},
		{"GREATER_THAN_EQUAL", "2", "2.0", true},
		{"LESS_THAN", "10", "9", true},
		{"NOT_EQUAL", "x", "", false},
		{"PRESENT", "", "", false},
		{"LESS_THAN", "fast", "9", true},
	} {
		ok, err := constraints.Match(c.rel, c.want, c.have, c.present)
		fmt.Println(c.rel, c.want, "on", c.have, c.present, "→", ok, err)
	}
	// Output:
	// EQUAL 2 on 2.0 true → false <nil>
	// GREATER_THAN_EQUAL 2 on 2.0 true → true <nil>
	// LESS_THAN 10 on 9 true → true <nil>
	// NOT_EQUAL x on  false → true <nil>
	// PRESENT  on  false → false <nil>
	// LESS_THAN fast on 9 true → false constraints: undecidable constraint: LESS_THAN "fast" is not a number
}

// M/M/1 at ρ = 0.5 with mean service 1 s waits 1 s; at ρ ≥ 1 there is no
// steady state.
func ExamplePollaczekKhinchine() {
	w, rho, ok := constraints.PollaczekKhinchine(0.5, 1, 2)
	fmt.Println(w, rho, ok)
	_, rho, ok = constraints.PollaczekKhinchine(1.2, 1, 2)
	fmt.Println(rho, ok)
	// Output:
	// 1 0.5 true
	// 1.2 false
}
