package placement

import "testing"

// TestReplayRepairsShortBlocks: Zhang et al., OSDI'16 §6: "The simulator
// also reproduces key behaviors from the real systems, e.g. it
// reconstructs lost replicas at the same rate as our real HDFS systems";
// HDFS's NameNode re-replicates any under-replicated block once a datanode
// can take it. A block written while only servers 0 and 1 are in the
// cluster gets 2 of its 3 replicas; server 2 joins at minute 60 and takes
// the third (a 2-minute copy); servers 0 and 1 then leave together at
// minute 120, before any detection: the block lives on server 2. Left
// short for ever, it was lost.
func TestReplayRepairsShortBlocks(t *testing.T) {
	for _, pol := range []string{PolicyStock, PolicyAlg2} {
		w := toyWorld(3, map[int][]int64{0: {120 * minute}, 1: {120 * minute}})
		w.servers[2].ups = []int64{60 * minute}
		p := &replayParams{replicas: 3, busy: 0.66, copyMs: 2 * minute, detectMs: 10 * minute, blocks: 1, initialPlan: [][]int{{0, 1}}}
		if got := replay(w, p, pol, 1); got.lost != 0 || got.underReplicated != 1 {
			t.Errorf("%s: %d lost, %d under-replicated at the end; want 0 lost and 1 (one server left for 3 replicas)", pol, got.lost, got.underReplicated)
		}
	}
	// Written through the policies: servers 1–5 join at hour 2 of a day;
	// 300 blocks written uniformly over it, nothing ever leaves: every
	// block ends with 3 replicas (those of the first two hours had 1).
	for _, pol := range []string{PolicyStock, PolicyAlg2} {
		w := toyWorld(6, nil)
		for i := 1; i < 6; i++ {
			w.servers[i].ups = []int64{120 * minute}
		}
		p := &replayParams{replicas: 3, busy: 0.66, copyMs: 2 * minute, detectMs: 10 * minute, blocks: 300}
		if got := replay(w, p, pol, 3); got.lost != 0 || got.underReplicated != 0 || got.unwritten != 0 {
			t.Errorf("%s: %+v; want every block at 3 replicas", pol, got)
		}
	}
}
