// Package suggest finds the known names closest to one that was not
// found, for "no such job" messages: the names that contain it or that it
// a few edits away (case aside), nearest first, then those that contain it
// or that it contains, shortest first.
package suggest

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// Closest returns up to n of known closest to name, nearest first; none
// when nothing is near. Ties keep known's order.
func Closest(name string, known []string, n int) []string {
	type cand struct {
		s    string
		rank int // edit distance (case aside) up to limit; limit+1: contains or contained
		i    int
	}
	lname := strings.ToLower(name)
	limit := max(2, utf8.RuneCountInString(name)/3)
	var cs []cand
	seen := map[string]bool{}
	for i, k := range known {
		if seen[k] || k == name {
			continue
		}
		seen[k] = true
		lk := strings.ToLower(k)
		if d := distance(lname, lk, limit); d <= limit {
			cs = append(cs, cand{k, d, i})
		} else if lname != "" && (strings.Contains(lk, lname) || strings.Contains(lname, lk)) {
			cs = append(cs, cand{k, limit + 1, i})
		}
	}
	sort.SliceStable(cs, func(a, b int) bool {
		if cs[a].rank != cs[b].rank {
			return cs[a].rank < cs[b].rank
		}
		if cs[a].rank == limit+1 && len(cs[a].s) != len(cs[b].s) {
			return len(cs[a].s) < len(cs[b].s) // the shortest container is the likeliest
		}
		return cs[a].i < cs[b].i
	})
	out := make([]string, 0, min(n, len(cs)))
	for _, c := range cs[:min(n, len(cs))] {
		out = append(out, c.s)
	}
	return out
}

// distance is the Levenshtein distance of a and b in runes, or limit+1
// when it is larger than limit.
func distance(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d > limit || -d > limit {
		return limit + 1
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			best = min(best, cur[j])
		}
		if best > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return min(prev[len(rb)], limit+1)
}
