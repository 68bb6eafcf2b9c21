// Package strtab interns strings and numbers them densely. Trace columns
// such as tenant, server or job repeat a few thousand values millions of
// times, usually in a fixed rotation (time-major traces) or in runs
// (entity-major traces), so a lookup first tries the entry after the last
// hit and the last hit itself before it falls back to the map: in both
// orders that is one string comparison instead of a hash per value.
package strtab

import "unicode/utf8"

// Table maps strings to dense ids 0, 1, 2, ... in order of first appearance.
type Table struct {
	ids  map[string]int32
	strs []string
	last int32
}

// New returns an empty table.
func New() *Table { return &Table{ids: map[string]int32{}, last: -1} }

// Bytes returns the id and the interned copy of b, adding it when new. It
// does not allocate for a string already in the table.
func (t *Table) Bytes(b []byte) (int32, string) {
	id, s, _ := t.lookup(b, false)
	return id, s
}

// ValidBytes is Bytes for text that must be UTF-8: b is checked only when
// it would be added, so a table of valid strings costs nothing more per
// lookup. ok is false, and nothing is added, when b is new and not UTF-8.
func (t *Table) ValidBytes(b []byte) (id int32, s string, ok bool) { return t.lookup(b, true) }

func (t *Table) lookup(b []byte, utf bool) (int32, string, bool) {
	if n := t.last + 1; int(n) < len(t.strs) && t.strs[n] == string(b) {
		t.last = n
		return n, t.strs[n], true
	}
	if t.last >= 0 && t.strs[t.last] == string(b) {
		return t.last, t.strs[t.last], true
	}
	id, ok := t.ids[string(b)]
	if !ok {
		if utf && !utf8.Valid(b) {
			return -1, "", false
		}
		return t.add(string(b)), t.strs[len(t.strs)-1], true
	}
	t.last = id
	return id, t.strs[id], true
}

// String returns the id of s, adding it when new.
func (t *Table) String(s string) int32 {
	if n := t.last + 1; int(n) < len(t.strs) && t.strs[n] == s {
		t.last = n
		return n
	}
	if t.last >= 0 && t.strs[t.last] == s {
		return t.last
	}
	id, ok := t.ids[s]
	if !ok {
		return t.add(s)
	}
	t.last = id
	return id
}

func (t *Table) add(s string) int32 {
	id := int32(len(t.strs))
	t.ids[s] = id
	t.strs = append(t.strs, s)
	t.last = id
	return id
}

// Strings returns the interned strings indexed by id. The slice is shared;
// later additions may append to it but never change existing entries.
func (t *Table) Strings() []string { return t.strs }

// Len is the number of distinct strings.
func (t *Table) Len() int { return len(t.strs) }
