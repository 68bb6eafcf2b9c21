package strtab

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// Property: whatever the access order, ids are dense in order of first
// appearance and always map back to the same string.
func TestTableProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 50; trial++ {
		tab := New()
		seen := map[string]int32{}
		n := 1 + rng.IntN(40)
		for i := 0; i < 2000; i++ {
			var s string
			switch rng.IntN(3) {
			case 0: // rotation, as in time-major traces
				s = fmt.Sprint("k", i%n)
			case 1: // repeat
				s = fmt.Sprint("k", (i/7)%n)
			default:
				s = fmt.Sprint("k", rng.IntN(n))
			}
			var id int32
			var got string
			if rng.IntN(2) == 0 {
				id, got = tab.Bytes([]byte(s))
			} else {
				id = tab.String(s)
				got = tab.Strings()[id]
			}
			if got != s {
				t.Fatalf("id %d maps to %q, want %q", id, got, s)
			}
			if want, ok := seen[s]; ok && want != id {
				t.Fatalf("%q got id %d, earlier %d", s, id, want)
			} else if !ok {
				if int(id) != len(seen) {
					t.Fatalf("new string %q got id %d, want %d", s, id, len(seen))
				}
				seen[s] = id
			}
		}
		if tab.Len() != len(seen) {
			t.Fatalf("Len %d, want %d", tab.Len(), len(seen))
		}
	}
}

func TestBytesDoesNotAllocate(t *testing.T) {
	tab := New()
	keys := [][]byte{[]byte("tenant-a"), []byte("tenant-b"), []byte("tenant-c")}
	for _, k := range keys {
		tab.Bytes(k)
	}
	i := 0
	allocs := testing.AllocsPerRun(1000, func() {
		tab.Bytes(keys[i%3])
		tab.Bytes(keys[(i*7)%3])
		i++
	})
	if allocs != 0 {
		t.Fatalf("Bytes allocates %v times per lookup of known keys", allocs)
	}
}
