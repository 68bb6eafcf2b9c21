package dag

import (
	"context"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestAntichainBesideChain: Zhang et al., OSDI'16 §4.1: "We estimate the
// maximum amount of concurrent resources that the job will need (line 4)
// using a breadth-first traversal of the job's directed acyclic graph".
// A chain A (10 tasks) → B (10) → C (30) beside a short stage D (20):
// levels {A, D} 30, {B} 10, {C} 30, so breadth-first says 30; but D does
// not wait for anything C does, and when D runs long, C and D run at once:
// 50. The job says so, with both numbers.
func TestAntichainBesideChain(t *testing.T) {
	stages := []Stage{{"A", 10, nil}, {"B", 10, []string{"A"}}, {"C", 30, []string{"B"}}, {"D", 20, nil}}
	res, err := Run(context.Background(), Input{DAGs: []RunDAG{{Job: "j", Source: "test", Stages: stages}}}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	j := res.Jobs[0]
	if j.MaxContainers != 30 || j.MaxAntichainContainers == nil || *j.MaxAntichainContainers != 50 ||
		!reflect.DeepEqual(j.AntichainStages, []string{"C", "D"}) {
		t.Fatalf("max %d, antichain %v %v; want 30 by levels, 50 at once (C, D)", j.MaxContainers, j.MaxAntichainContainers, j.AntichainStages)
	}
	if !strings.Contains(j.Reason, "50") || !strings.Contains(j.Reason, "30") {
		t.Fatalf("reason %q: want both numbers", j.Reason)
	}
	// Where the levels find the most (Fig. 7's shape), nothing is said.
	diamond := []Stage{{"A", 5, nil}, {"B", 3, []string{"A"}}, {"C", 4, []string{"A"}}, {"D", 6, []string{"B", "C"}}}
	res, _ = Run(context.Background(), Input{DAGs: []RunDAG{{Job: "d", Source: "test", Stages: diamond}}}, DefaultOptions())
	if j := res.Jobs[0]; j.MaxContainers != 7 || *j.MaxAntichainContainers != 7 || j.Reason != "" {
		t.Fatalf("diamond: %+v", j)
	}
}

// TestMaxAntichainBruteForce: on seeded random DAGs of up to 12 stages the
// flow's answer is the best of every subset of mutually independent
// stages, its stages are one of them, and it is at least the level
// maximum.
func TestMaxAntichainBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 3))
	for trial := 0; trial < 300; trial++ {
		n := 1 + rng.IntN(12)
		stages := make([]Stage, n)
		for i := range stages {
			stages[i] = Stage{ID: strconv.Itoa(i), Tasks: int64(rng.IntN(20))}
			for p := 0; p < i; p++ {
				if rng.Float64() < 0.25 {
					stages[i].Parents = append(stages[i].Parents, strconv.Itoa(p))
				}
			}
		}
		// reach[i][j]: j depends on i.
		reach := make([][]bool, n)
		for i := range reach {
			reach[i] = make([]bool, n)
		}
		for i := n - 1; i >= 0; i-- {
			for j := i + 1; j < n; j++ {
				for _, p := range stages[j].Parents {
					if p == strconv.Itoa(i) {
						reach[i][j] = true
						for k := range reach[j] {
							reach[i][k] = reach[i][k] || reach[j][k]
						}
					}
				}
			}
		}
		var best int64
		for mask := 1; mask < 1<<n; mask++ {
			var w int64
			ok := true
			for i := 0; i < n && ok; i++ {
				if mask&(1<<i) == 0 {
					continue
				}
				w += stages[i].Tasks
				for j := 0; j < n; j++ {
					if mask&(1<<j) != 0 && reach[i][j] {
						ok = false
						break
					}
				}
			}
			if ok && w > best {
				best = w
			}
		}
		got, ids, ok := MaxAntichain(stages)
		if !ok || got != best {
			t.Fatalf("trial %d: %d stages, flow %d (ok %v), brute force %d: %+v", trial, n, got, ok, best, stages)
		}
		var w int64
		for _, id := range ids {
			i, _ := strconv.Atoi(id)
			w += stages[i].Tasks
			for _, id2 := range ids {
				if k, _ := strconv.Atoi(id2); reach[i][k] {
					t.Fatalf("trial %d: %s and %s depend on each other", trial, id, id2)
				}
			}
		}
		levels, _, _ := Levels(stages)
		if _, lm := MaxLevel(levels); w != best || lm > best {
			t.Fatalf("trial %d: stages %v hold %d of %d; level maximum %d", trial, ids, w, best, lm)
		}
	}
}
