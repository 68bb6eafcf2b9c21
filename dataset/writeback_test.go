package dataset

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// writeback passes every byte to the file unchanged, in writes of any
// size, and hands each range to the kernel's writeback once, from where
// the last one ended, whenever 8 MB more have been written.
func TestWritebackWritesThrough(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := &writeback{f: f}
	r := rand.New(rand.NewPCG(38, 4))
	var want []byte
	var handed int64 // where the ranges handed so far end
	for len(want) < 3*writebackEvery+12345 {
		p := make([]byte, 1+r.IntN(3<<20))
		for i := range p {
			p[i] = byte(r.Uint32())
		}
		if n, err := w.Write(p); n != len(p) || err != nil {
			t.Fatalf("Write: %d of %d, %v", n, len(p), err)
		}
		want = append(want, p...)
		switch written := int64(len(want)); {
		case written-handed >= writebackEvery && w.off != written:
			t.Fatalf("%d bytes written, %d handed to writeback: want all handed", written, w.off)
		case written-handed < writebackEvery && w.off != handed:
			t.Fatalf("%d bytes written, writeback moved from %d to %d before 8 MB more", written, handed, w.off)
		}
		handed = w.off
	}
	if w.written != int64(len(want)) || handed < 2*writebackEvery {
		t.Fatalf("%d bytes counted of %d, %d handed to writeback", w.written, len(want), handed)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("file differs from what was written (%d bytes, want %d)", len(got), len(want))
	}
}
