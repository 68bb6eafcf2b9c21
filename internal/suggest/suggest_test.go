package suggest

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestClosest(t *testing.T) {
	known := []string{"tpch_q12", "tpch_q1", "etl_daily", "daily_sales_01 <date>", "hourly_clicks_08 <date>", "wordcount", "terasort"}
	for _, c := range []struct {
		name string
		want []string
	}{
		{"tpch_q13", []string{"tpch_q12", "tpch_q1"}}, // one edit, then tpch_q1 contained
		{"TPCH", []string{"tpch_q1", "tpch_q12"}},     // contained, case aside; shortest first
		{"daily_sales", []string{"daily_sales_01 <date>"}},
		{"wordcuont", []string{"wordcount"}},
		{"etl_dialy", []string{"etl_daily"}},
		{"zzzzzzzz", nil},
		{"", nil},
	} {
		got := Closest(c.name, known, 3)
		if !slices.Equal(got, c.want) && !(len(got) == 0 && len(c.want) == 0) {
			t.Errorf("%q: %q, want %q", c.name, got, c.want)
		}
	}
}

// distance against the textbook full-matrix Levenshtein on random words.
func TestDistanceMatchesFullMatrix(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	word := func() string {
		b := make([]rune, r.IntN(9))
		for i := range b {
			b[i] = []rune("abcé")[r.IntN(4)]
		}
		return string(b)
	}
	for k := 0; k < 5000; k++ {
		a, b := []rune(word()), []rune(word())
		m := make([][]int, len(a)+1)
		for i := range m {
			m[i] = make([]int, len(b)+1)
			m[i][0] = i
		}
		for j := range m[0] {
			m[0][j] = j
		}
		for i := 1; i <= len(a); i++ {
			for j := 1; j <= len(b); j++ {
				c := 1
				if a[i-1] == b[j-1] {
					c = 0
				}
				m[i][j] = min(m[i-1][j]+1, m[i][j-1]+1, m[i-1][j-1]+c)
			}
		}
		want := m[len(a)][len(b)]
		for _, limit := range []int{1, 2, 3, 10} {
			got := distance(string(a), string(b), limit)
			if want <= limit && got != want || want > limit && got != limit+1 {
				t.Fatalf("%q %q limit %d: %d, want %d", string(a), string(b), limit, got, want)
			}
		}
	}
}
