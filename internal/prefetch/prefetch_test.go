package prefetch

import (
	"testing"
	"unsafe"
)

// Line changes nothing the program can see and faults on nothing: a line
// of live memory keeps its contents, and nil does not crash.
func TestLineChangesNothing(t *testing.T) {
	buf := make([]uint64, 64)
	for i := range buf {
		buf[i] = uint64(i) * 3
	}
	for i := range buf {
		Line(unsafe.Pointer(&buf[i]))
	}
	for i := range buf {
		if buf[i] != uint64(i)*3 {
			t.Fatalf("buf[%d] = %d after Line, want %d", i, buf[i], i*3)
		}
	}
	Line(nil)
}
