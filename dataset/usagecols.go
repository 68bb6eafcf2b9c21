package dataset

import (
	"math"
	"slices"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// UsageColumns is a run of usage rows held column by column, for producers
// that parse in parallel (the generic CSV reader): AppendUsageColumns adds
// them without a record per row. Tenant and Server are ids into the
// producer's own string tables (Tenants, Servers: first-appearance order,
// only ever appended to); TenantMap and ServerMap cache the writer's id of
// each of those strings, so a string is looked up once per producer table
// rather than once per row.
type UsageColumns struct {
	Tenant    []int32
	Tenants   []string
	TenantMap *IDMap
	Server    []int32
	Servers   []string
	ServerMap *IDMap
	TimeMs    []int64   // NoTime: null
	CPU       []float64 // fraction
	Memory    []float64 // fraction; NaN: null; empty when no row has one (an input without the column)
}

// Len is the number of rows.
func (c *UsageColumns) Len() int { return len(c.TimeMs) }

// IDMap maps the ids of one producer string table to one writer's
// dictionary ids. Keep one per (writer column, producer table).
type IDMap struct{ ids []int32 }

// AppendUsageColumns adds the rows of c to w in order, as AppendBatch would
// with the same records.
func AppendUsageColumns(w *Writer[Usage], c *UsageColumns) error {
	if w.err != nil {
		return w.err
	}
	if !w.started {
		if w.err = w.start(); w.err != nil {
			return w.err
		}
	}
	for _, d := range []struct {
		col  string
		strs []string
		m    *IDMap
	}{{"tenant", c.Tenants, c.TenantMap}, {"server", c.Servers, c.ServerMap}} {
		// The strings an IDMap has entries for were checked by an earlier
		// call (the map grows only once they pass): a producer's table is
		// checked once, not once per chunk.
		checked := 0
		if d.m != nil {
			checked = min(len(d.m.ids), len(d.strs))
		}
		for _, v := range d.strs[checked:] {
			if !utf8.ValidString(v) {
				return &InvalidUTF8Error{Table: w.tbl.Name, Column: d.col, Value: v}
			}
		}
	}
	cols, ok := usageColWriters(w)
	if !ok { // the table's layout is not the one below: go row by row
		return w.AppendBatch(c.rows())
	}
	// The batch is filled by whole chunks of a large input: its columns
	// get a whole batch's capacity at once, instead of growing by
	// doubling (a copy of everything appended so far at each step, a
	// tenth of ingest's CPU on the first batch of every file).
	cols.reserve(w.groupHint())
	for lo := 0; lo < c.Len(); {
		k := min(c.Len()-lo, w.room())
		hi := lo + k
		cols.tenant.appendMapped(c.Tenant[lo:hi], c.Tenants, c.TenantMap)
		cols.server.appendMapped(c.Server[lo:hi], c.Servers, c.ServerMap)
		appendTimes(cols.time, c.TimeMs[lo:hi])
		cols.cpu.appendValues(c.CPU[lo:hi], nil)
		if len(c.Memory) == 0 {
			cols.memory.appendNulls(k)
		} else {
			appendFractions(cols.memory, c.Memory[lo:hi])
		}
		w.n += k
		lo = hi
		if w.full() {
			w.flush()
			if w.err != nil {
				return w.err
			}
		}
	}
	return w.err
}

type usageCols struct {
	tenant, server *dictCol[Usage]
	time           *sliceCol[Usage, int64]
	cpu, memory    *sliceCol[Usage, float64]
}

func (c usageCols) reserve(n int) {
	c.tenant.ids = growTo(c.tenant.ids, n)
	c.server.ids = growTo(c.server.ids, n)
	c.time.vals = growTo(c.time.vals, n)
	c.cpu.vals = growTo(c.cpu.vals, n)
	c.memory.vals = growTo(c.memory.vals, n)
}

// growTo returns s with room for n elements. slices.Grow would clear the
// new room, touching all its pages at once; memory that make takes fresh
// from the kernel is left untouched until a row is written there, which in
// the memory column of an input without one never happens.
func growTo[V any](s []V, n int) []V {
	if cap(s) >= n {
		return s
	}
	return append(make([]V, 0, n), s...)
}

// usageColWriters returns w's column writers when they are the usage
// table's tenant, server, time, cpu, memory in that order.
func usageColWriters(w *Writer[Usage]) (c usageCols, ok bool) {
	if len(w.cols) != 5 {
		return c, false
	}
	var ok1, ok2, ok3, ok4, ok5 bool
	c.tenant, ok1 = w.cols[0].(*dictCol[Usage])
	c.server, ok2 = w.cols[1].(*dictCol[Usage])
	c.time, ok3 = w.cols[2].(*sliceCol[Usage, int64])
	c.cpu, ok4 = w.cols[3].(*sliceCol[Usage, float64])
	c.memory, ok5 = w.cols[4].(*sliceCol[Usage, float64])
	return c, ok1 && ok2 && ok3 && ok4 && ok5
}

// rows turns c back into records.
func (c *UsageColumns) rows() []Usage {
	rs := make([]Usage, c.Len())
	for i := range rs {
		rs[i] = Usage{Tenant: c.Tenants[c.Tenant[i]], Server: c.Servers[c.Server[i]],
			TimeMs: c.TimeMs[i], CPU: c.CPU[i], Memory: math.NaN()}
		if len(c.Memory) > 0 {
			rs[i].Memory = c.Memory[i]
		}
	}
	return rs
}

// appendMapped appends the writer ids of local (ids into strs, mapped
// through m). A string is interned when its first row is appended, so the
// writer's dictionary keeps the order of first appearance in the rows, as
// with Append, whichever producer table it came from.
func (c *dictCol[T]) appendMapped(local []int32, strs []string, m *IDMap) {
	for len(m.ids) < len(strs) {
		m.ids = append(m.ids, -1)
	}
	ids := m.ids
	c.ids = slices.Grow(c.ids, len(local))
	n := len(c.ids)
	out := c.ids[n : n+len(local)]
	for i, id := range local {
		x := ids[id]
		if x < 0 {
			x = c.tab.String(strs[id])
			ids[id] = x
		}
		out[i] = x
	}
	c.ids = c.ids[:n+len(local)]
}

// appendNulls appends k nulls: what appendValues does with k values that
// are all null, a few bytes at a time instead of a bit at a time.
func (c *sliceCol[T, V]) appendNulls(k int) {
	if k <= 0 {
		return
	}
	n := len(c.vals)
	c.vals = slices.Grow(c.vals, k)[:n+k]
	if c.dirty {
		// Else the slice is zeros already: nothing but nulls was ever
		// written to this column (an input without a memory column),
		// and its pages need not even be touched.
		clear(c.vals[n:])
	}
	for len(c.valid) < (n+k+7)>>3 {
		c.valid = append(c.valid, 0xff)
	}
	i := n
	for ; i < n+k && i&7 != 0; i++ {
		bitutil.ClearBit(c.valid, i)
	}
	for ; i+8 <= n+k; i += 8 {
		c.valid[i>>3] = 0
	}
	for ; i < n+k; i++ {
		bitutil.ClearBit(c.valid, i)
	}
	c.nullN += k
}

// appendTimes appends times to c, NoTime as null: a copy and a scan of
// it, and the rows one by one only when one of them is NoTime, instead of
// a function call per value to ask.
func appendTimes[T any](c *sliceCol[T, int64], times []int64) {
	c.dirty = true
	n := len(c.vals)
	c.vals = append(c.vals, times...)
	// Looked for in the copy, which is in the cache now.
	if slices.Contains(c.vals[n:], NoTime) {
		c.vals = c.vals[:n]
		c.appendValues(times, func(v int64) bool { return v == NoTime })
	}
}

// appendFractions appends fractions to c, NaN as null, as appendTimes
// does.
func appendFractions[T any](c *sliceCol[T, float64], fracs []float64) {
	c.dirty = true
	n := len(c.vals)
	c.vals = append(c.vals, fracs...)
	for _, v := range c.vals[n:] {
		if v != v {
			c.vals = c.vals[:n]
			c.appendValues(fracs, func(v float64) bool { return v != v })
			return
		}
	}
}

// appendValues appends vals; isNull (nil: never) marks the nulls, which
// are stored as zero as the column's own getter does.
func (c *sliceCol[T, V]) appendValues(vals []V, isNull func(V) bool) {
	c.dirty = true
	n := len(c.vals)
	c.vals = append(c.vals, vals...)
	if isNull == nil {
		return
	}
	var zero V
	for i, v := range vals {
		if isNull(v) {
			c.setNull(n + i)
			c.vals[n+i] = zero
		}
	}
}
