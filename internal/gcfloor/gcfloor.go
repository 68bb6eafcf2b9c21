// Package gcfloor runs the Go collector at a given GOGC percentage with a
// floor under its headroom: after every collection the percentage is
// raised, when needed, so that the next one starts no sooner than floor
// bytes of new allocation. A stage whose live heap ends up as large as its
// data (classify's series) wants a low percentage there, to keep peak
// memory near the data's size; while its heap is still small, the same
// percentage made the collector run every few megabytes (18 collections
// in a 1,000-tenant classify, 70 ms of CPU in the first 150 ms).
package gcfloor

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Percent is the GOGC percentage that gives the next collection at least
// floor bytes of headroom over a live heap of live bytes, and never less
// than percent.
func Percent(percent int, floor, live uint64) int {
	live = max(live, 1<<20) // nothing live yet: as for 1 MB
	need := math.Ceil(float64(floor) * 100 / float64(live))
	return max(percent, int(min(need, 1<<20)))
}

// Set runs the collector at percent with a headroom of at least floor
// bytes until the returned function is called, which puts back the
// percentage there was before.
func Set(percent int, floor uint64) (restore func()) {
	t := &tuner{percent: percent, floor: floor, sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	t.before = debug.SetGCPercent(t.next())
	t.arm()
	return func() {
		t.mu.Lock()
		t.stopped = true
		t.mu.Unlock()
		debug.SetGCPercent(t.before)
	}
}

type tuner struct {
	percent, before int
	floor           uint64
	sample          []metrics.Sample
	mu              sync.Mutex
	stopped         bool
}

// next is the percentage for the live heap of the last collection.
func (t *tuner) next() int {
	metrics.Read(t.sample)
	var live uint64
	if t.sample[0].Value.Kind() == metrics.KindUint64 {
		live = t.sample[0].Value.Uint64()
	}
	return Percent(t.percent, t.floor, live)
}

// sentinel is collected by every cycle it is unreachable in; its
// finalizer then runs after that cycle, retunes and arms a new one.
type sentinel struct{ _ [16]byte }

func (t *tuner) arm() {
	s := &sentinel{}
	runtime.SetFinalizer(s, func(*sentinel) {
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.stopped {
			return
		}
		debug.SetGCPercent(t.next())
		t.arm()
	})
}
