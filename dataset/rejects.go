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
	var c rejectCounter
	for i := range rows {
		c.add(rejectKey{file: rows[i].File, reason: rows[i].Reason})
	}
	groups := []RejectGroup{}
	for _, i := range c.order() {
		k := c.keys[i]
		groups = append(groups, RejectGroup{File: k.file, Reason: k.reason, Count: c.counts[i]})
	}
	return groups
}

// rejectKey is what rejects are grouped by: GroupRejects leaves ingest 0,
// RejectsBySource sets it, so that a file ingested twice is two inputs.
type rejectKey struct {
	ingest       int32
	file, reason string
}

// rejectCounter counts rejects per key as they stream by; the one
// grouping rule of GroupRejects and RejectsBySource.
type rejectCounter struct {
	index  map[rejectKey]int
	keys   []rejectKey
	counts []int
}

func (c *rejectCounter) add(k rejectKey) {
	if i, ok := c.index[k]; ok {
		c.counts[i]++
		return
	}
	if c.index == nil {
		c.index = map[rejectKey]int{}
	}
	c.index[k] = len(c.keys)
	c.keys = append(c.keys, k)
	c.counts = append(c.counts, 1)
}

// order is the keys' indices, most frequent first; equal counts keep the
// order their first reject was added in.
func (c *rejectCounter) order() []int {
	idx := make([]int, len(c.keys))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return c.counts[idx[a]] > c.counts[idx[b]] })
	return idx
}
