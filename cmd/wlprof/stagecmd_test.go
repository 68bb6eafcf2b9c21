package main

import (
	"slices"
	"testing"
)

// Every stage command is run by runStage (one path: validate, open, load,
// run, print), under its stage's name; no stage has a run function of its
// own.
func TestEveryStageCommandRunsThroughRunStage(t *testing.T) {
	var got []string
	for _, c := range newRootCmd(&streams{}).Commands() {
		if st, ok := c.Annotations[annotationStage]; ok {
			if st != c.Name() {
				t.Errorf("wlprof %s runs stage %s", c.Name(), st)
			}
			got = append(got, st)
		}
	}
	want := []string{"classify", "constraints", "dag", "elasticity", "estimate", "harvest", "placement", "plan", "simulate", "skyline", "slo"}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("stage commands %v, want %v", got, want)
	}
}
