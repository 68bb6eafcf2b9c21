package simulate

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The look-ahead's heap queue under random inserts, removals and changes
// of memory held has the block queue's head at every step (both loaded
// from the same queue now and then, as a look-ahead is taken).
func TestHeadQueueHead(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 9))
	const n = 300
	q := newJobQueue(n, true)
	var h headQueue
	nd := need{kmin: math.MaxInt32, minRT: math.Inf(1), latest: math.Inf(-1)}
	in := map[int32]bool{}
	for step := 0; step < 20000; step++ {
		if step%500 == 0 {
			h.load(&q)
		}
		j := int32(rng.IntN(n))
		c := int64(rng.IntN(20))
		switch {
		case !in[j]:
			q.insert(j, c, nd)
			h.insert(j, c)
			in[j] = true
		case rng.IntN(3) == 0:
			q.remove(j)
			h.remove(j)
			in[j] = false
		default:
			q.setCons(j, c)
			h.setCons(j, c)
		}
		if q.head() != h.head() {
			t.Fatalf("step %d: heap head %d, queue head %d", step, h.head(), q.head())
		}
	}
}

// Task ends pop in (time, task id) order, ties included, however they
// were pushed.
func TestEventOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 10))
	for trial := 0; trial < 50; trial++ {
		e := &engine{}
		var want []event
		next := int32(0)
		for step := 0; step < 2000; step++ {
			if len(e.events) == 0 || rng.IntN(3) > 0 {
				ti := next
				next++
				e.tasks = append(e.tasks, etask{finish: float64(rng.IntN(50)) / 2})
				e.pushEvent(ti)
				want = append(want, event{e.tasks[ti].finish, ti})
				continue
			}
			m := slices.MinFunc(want, func(a, b event) int { return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.id, b.id)) })
			if got := e.popEvent(); got != m.id {
				t.Fatalf("trial %d step %d: popped task %d, want %d", trial, step, got, m.id)
			}
			want = slices.DeleteFunc(want, func(x event) bool { return x == m })
		}
	}
}

// Due nodes are visited lowest id first, a node marked again while
// others are visited included.
func TestDirtyOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 11))
	const n = 200
	e := &engine{dirty: make([]uint64, (n+63)/64), dlo: (n + 63) / 64}
	due := map[int32]bool{}
	for step := 0; step < 20000; step++ {
		if rng.IntN(2) == 0 {
			k := int32(rng.IntN(n))
			e.markDirty(k)
			due[k] = true
			continue
		}
		want := int32(-1)
		for k := range due {
			if want < 0 || k < want {
				want = k
			}
		}
		if got := e.popDirty(); got != want {
			t.Fatalf("step %d: popped node %d, want %d", step, got, want)
		}
		delete(due, want)
	}
}
