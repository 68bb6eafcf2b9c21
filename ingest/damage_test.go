package ingest

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
)

// chunky reads data in random pieces and fails with err at its end (nil:
// io.EOF).
type chunky struct {
	data []byte
	err  error
	r    *rand.Rand
}

func (c *chunky) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		if c.err != nil {
			return 0, c.err
		}
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 1+c.r.IntN(3*damageHold/2))], c.data)
	c.data = c.data[n:]
	return n, nil
}

// TestDamageReader: a clean stream passes through byte for byte (long
// stretches without a newline included); a damaged one ends at its last
// newline before the damage, and says how much it gave and dropped.
func TestDamageReader(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	broken := errors.New("unexpected EOF")
	for k := 0; k < 60; k++ {
		data := make([]byte, r.IntN(4*damageHold))
		for i := range data {
			data[i] = 'a' + byte(r.IntN(26))
			if k%3 != 0 && r.IntN(40) == 0 { // every third stream has no newline
				data[i] = '\n'
			}
		}
		var fail error
		if k%2 == 1 {
			fail = broken
		}
		d := newDamageReader(&chunky{data: data, err: fail, r: r}, "gzip")
		got, err := io.ReadAll(d)
		if err != nil {
			t.Fatal(err)
		}
		want := data
		if fail != nil && k%3 != 0 {
			want = data[:bytes.LastIndexByte(data, '\n')+1]
		}
		switch {
		case fail == nil && (!bytes.Equal(got, data) || d.err() != nil):
			t.Fatalf("stream %d: clean stream: %d bytes of %d, err %v", k, len(got), len(data), d.err())
		case fail != nil && k%3 != 0 && !bytes.Equal(got, want):
			t.Fatalf("stream %d: %d bytes, want %d (up to the last newline of %d)", k, len(got), len(want), len(data))
		case fail != nil && k%3 == 0 && (!bytes.HasPrefix(data, got) || len(data)-len(got) > damageHold):
			t.Fatalf("stream %d: no newlines: %d bytes of %d", k, len(got), len(data))
		case fail != nil && (d.err() == nil || d.given != int64(len(got)) || d.dropped != len(data)-len(got) || d.lines != int64(bytes.Count(got, []byte("\n")))):
			t.Fatalf("stream %d: err %v given %d dropped %d lines %d", k, d.err(), d.given, d.dropped, d.lines)
		}
	}
}
