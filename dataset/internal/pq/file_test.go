package pq

import (
	"bytes"
	"testing"
)

// joined, which hands the codec a page's one non-empty part as it is, gives
// the bytes of all the parts one after the other, whatever their number
// and which of them are empty.
func TestJoined(t *testing.T) {
	a, b, e := []byte("levels"), []byte("ids of a page"), []byte{}
	var p File
	for _, parts := range [][][]byte{nil, {e}, {a}, {e, b}, {a, e}, {a, b}, {a, e, b}, {e, e}, {b, a, b}} {
		got, want := p.joined(parts), bytes.Join(parts, nil)
		if !bytes.Equal(got, want) {
			t.Errorf("joined(%q) = %q, want %q", parts, got, want)
		}
	}
}
