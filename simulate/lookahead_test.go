package simulate

import "testing"

// The look-ahead (notLater's copy) shares nothing the engine changes: a
// job whose reservations have ended keeps an empty list with room, and
// the copy's list of it must not be that array, or the engine's next
// reservation for the job overwrites the look-ahead's, and the other way
// round (each then makes the wrong node due).
func TestLookAheadOwnsReservations(t *testing.T) {
	jobs := []Job{{ID: "a", Phases: []Phase{{Task: "m", Tasks: 2, RuntimeS: 10, MemoryBytes: 8 << 30, Cores: 1}}}}
	e := &engine{w: prepare(jobs, 100<<20), free: -1, jobs: []ejob{{next: -1, left: 1}}, phases: make([]ephase, 1),
		nodes: []enode{{resJob: -1, resPhase: -1}, {resJob: -1, resPhase: -1}}, q: newJobQueue(1, false),
		out: &Outcome{FinishS: make([]float64, 1)}}
	e.isStale = make([]bool, 1)
	e.dirty, e.dlo = make([]uint64, 1), 1
	e.jobs[0].reserved = make([]int32, 0, 4) // its reservations have ended
	f := e.clone(nil)
	f.jobs[0].reserved = append(f.jobs[0].reserved, 1) // the look-ahead reserves node 1 for it
	e.jobs[0].reserved = append(e.jobs[0].reserved, 0) // the engine, node 0
	if f.jobs[0].reserved[0] != 1 || e.jobs[0].reserved[0] != 0 {
		t.Errorf("look-ahead's reservations %v, engine's %v; want [1] and [0]", f.jobs[0].reserved, e.jobs[0].reserved)
	}
}
