package gcfloor

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// The percentage gives the floor's headroom over a small heap and the
// given percentage over a large one, rounding up so the floor is met.
func TestPercent(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		percent     int
		floor, live uint64
		want        int
	}{
		{25, 128 * mb, 32 * mb, 400},  // 128 MB over 32 live
		{25, 128 * mb, 512 * mb, 25},  // 25% of 512 MB is 128 MB
		{25, 128 * mb, 2048 * mb, 25}, // large heap: the percentage
		{25, 10 * mb, 3 * mb, 334},    // 333.3% rounds up to keep the floor
		{25, 128 * mb, 0, 12800},      // nothing live yet: as for 1 MB
		{100, 10 * mb, 1 * mb, 1000},  // floor above the percentage
		{100, 10 * mb, 100 * mb, 100}, // percentage above the floor
		{25, 1 << 62, 1, 1 << 20},     // capped
	} {
		if got := Percent(c.percent, c.floor, c.live); got != c.want {
			t.Errorf("Percent(%d, %d MB, %d B) = %d, want %d", c.percent, c.floor/mb, c.live, got, c.want)
		}
	}
}

// After a collection the tuner has set the percentage for the heap it
// left, and restore puts the old one back.
func TestSetRetunesAfterCollections(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	keep := make([]byte, 64<<20) // 64 MB live
	restore := Set(25, 256<<20)
	for i := 0; i < 3; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // the finalizer runs on its own goroutine
	}
	got := debug.SetGCPercent(-1)
	debug.SetGCPercent(got)
	if got < 300 || got > 500 { // 256 MB over about 64 MB live
		t.Fatalf("percentage %d after collections with 64 MB live, want about 400", got)
	}
	restore()
	if now := debug.SetGCPercent(100); now != 100 {
		t.Fatalf("percentage %d after restore, want the 100 set before", now)
	}
	runtime.KeepAlive(keep)
}
