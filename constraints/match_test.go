package constraints

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// numText writes x in one of several spellings a trace may use.
func numText(rng *rand.Rand, x float64) string {
	switch rng.IntN(4) {
	case 0:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case 1:
		return strconv.FormatFloat(x, 'f', 3, 64)
	case 2:
		return strconv.FormatFloat(x, 'e', 6, 64)
	}
	return fmt.Sprintf(" %v", x) // leading space: trimmed
}

// Every relation, on random values: the ordered relations compare
// numbers (so "9" < "10" whatever their spelling), EQUAL/NOT_EQUAL compare
// strings (so "2" != "2.0"), PRESENT/NOT_PRESENT only presence.
func TestMatchProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 20))
	for i := 0; i < 20000; i++ {
		a := float64(rng.IntN(40)-20) / float64(1+rng.IntN(4))
		b := float64(rng.IntN(40)-20) / float64(1+rng.IntN(4))
		as, bs := numText(rng, a), numText(rng, b)
		// A rounding spelling is another number: compare what is written.
		a, _ = strconv.ParseFloat(strings.TrimSpace(as), 64)
		b, _ = strconv.ParseFloat(strings.TrimSpace(bs), 64)
		present := rng.IntN(5) > 0
		want := map[string]bool{
			"LESS_THAN": present && a < b, "GREATER_THAN": present && a > b,
			"LESS_THAN_EQUAL": present && a <= b, "GREATER_THAN_EQUAL": present && a >= b,
			"EQUAL": present && as == bs, "NOT_EQUAL": !present || as != bs,
			"PRESENT": present, "NOT_PRESENT": !present,
		}
		for rel, w := range want {
			got, err := Match(rel, bs, as, present)
			if err != nil {
				t.Fatalf("%s %q vs %q: %v", rel, bs, as, err)
			}
			if got != w {
				t.Fatalf("machine %q (present %v) %s %q: got %v, want %v", as, present, rel, bs, got, w)
			}
		}
	}
}

// String and numeric relations disagree where they must.
func TestMatchStringVersusNumeric(t *testing.T) {
	cases := []struct {
		rel, want, have string
		ok              bool
	}{
		{"EQUAL", "2", "2.0", false},
		{"GREATER_THAN_EQUAL", "2", "2.0", true},
		{"LESS_THAN_EQUAL", "2", "2.0", true},
		{"LESS_THAN", "10", "9", true}, // as strings "9" > "10"
		{"EQUAL", "abc", "abc", true},
		{"NOT_EQUAL", "abc", "abd", true},
		{"GREATER_THAN", "1", "abc", false}, // a machine value that is no number satisfies no ordered relation
		{"PRESENT", "ignored", "", true},
		{"NOT_PRESENT", "", "x", false},
	}
	for _, c := range cases {
		got, err := Match(c.rel, c.want, c.have, true)
		if err != nil || got != c.ok {
			t.Errorf("%q %s %q: got %v, %v; want %v", c.have, c.rel, c.want, got, err, c.ok)
		}
	}
}

func TestMatchRefusesUndecidable(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, rel := range []string{"LESS_THAN", "GREATER_THAN", "LESS_THAN_EQUAL", "GREATER_THAN_EQUAL"} {
		for i := 0; i < 100; i++ {
			b := make([]byte, 1+rng.IntN(8))
			for k := range b {
				b[k] = byte('a' + rng.IntN(26))
			}
			if _, err := Match(rel, string(b), "1", true); !errors.Is(err, ErrRelation) {
				t.Fatalf("%s %q: err %v, want ErrRelation", rel, b, err)
			}
		}
	}
	for _, rel := range []string{"", "LIKE", "equal", "8"} {
		if _, err := Match(rel, "1", "1", true); !errors.Is(err, ErrRelation) {
			t.Errorf("relation %q: err %v, want ErrRelation", rel, err)
		}
	}
}
