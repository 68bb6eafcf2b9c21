package dataset

import (
	"fmt"
	"slices"
)

// batchAppender is implemented by column writers with a tight loop over a
// whole slice of rows; the others are fed row by row.
type batchAppender[T any] interface {
	appendBatch(rs []T)
}

// AppendBatch adds rows in order, as Append on each would, but column by
// column: one call per column per batch instead of one per row, and no copy
// of the records. Batch producers (the parallel CSV parser) hand over whole
// parsed chunks this way.
func (w *Writer[T]) AppendBatch(rs []T) error {
	if w.err != nil {
		return w.err
	}
	if !w.started {
		if w.err = w.start(); w.err != nil {
			return w.err
		}
	}
	for i := range rs {
		if err := w.tbl.checkStrings(&rs[i]); err != nil {
			return fmt.Errorf("row %d of the batch: %w", i, err)
		}
	}
	for len(rs) > 0 {
		k := min(len(rs), w.room())
		part := rs[:k]
		for _, c := range w.cols {
			if b, ok := c.(batchAppender[T]); ok {
				b.appendBatch(part)
				continue
			}
			for i := range part {
				c.append(&part[i])
			}
		}
		w.n += k
		rs = rs[k:]
		if w.full() {
			w.flush()
			if w.err != nil {
				return w.err
			}
		}
	}
	return w.err
}

func (c *sliceCol[T, V]) appendBatch(rs []T) {
	c.vals = slices.Grow(c.vals, len(rs))
	n := len(c.vals)
	vals := c.vals[n : n+len(rs)]
	for i := range rs {
		v, ok := c.get(&rs[i])
		if !ok {
			c.setNull(n + i)
		} else {
			c.dirty = true
		}
		vals[i] = v
	}
	c.vals = c.vals[:n+len(rs)]
}

func (c *dictCol[T]) appendBatch(rs []T) {
	c.ids = slices.Grow(c.ids, len(rs))
	n := len(c.ids)
	ids := c.ids[n : n+len(rs)]
	for i := range rs {
		ids[i] = c.tab.String(*c.get(&rs[i]))
	}
	c.ids = c.ids[:n+len(rs)]
}
