package dataset

import (
	"context"
	"sort"
)

// RejectGroup counts the rejects of one file with one reason.
type RejectGroup struct {
	File   string `json:"file"`
	Reason string `json:"reason"`
	Count  int    `json:"count"`
}

// ReadRejects returns the rejected records of file ("": of every file) in
// file and line order; records of one line keep the order they were
// rejected in.
func ReadRejects(ctx context.Context, d *Dataset, file string) ([]Reject, error) {
	var rows []Reject
	err := Scan(ctx, d, RejectsTable, func(r *Reject) error {
		if file == "" || r.File == file {
			rows = append(rows, *r)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.SliceStable(rows, func(a, b int) bool {
		if rows[a].File != rows[b].File {
			return rows[a].File < rows[b].File
		}
		return rows[a].Line < rows[b].Line
	})
	return rows, nil
}

// GroupRejects counts rows per file and reason, most frequent first;
// groups of one count keep the order of their first record. It returns an
// empty, not nil, slice when there are no rows.
func GroupRejects(rows []Reject) []RejectGroup {
	groups := []RejectGroup{}
	byKey := map[[2]string]int{}
	for _, r := range rows {
		k := [2]string{r.File, r.Reason}
		if i, ok := byKey[k]; ok {
			groups[i].Count++
			continue
		}
		byKey[k] = len(groups)
		groups = append(groups, RejectGroup{File: r.File, Reason: r.Reason, Count: 1})
	}
	sort.SliceStable(groups, func(a, b int) bool { return groups[a].Count > groups[b].Count })
	return groups
}
