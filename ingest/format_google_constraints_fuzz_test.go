package ingest

import (
	"bytes"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/dataset"
)

// checkConstraints holds what the constraints stage relies on: a list
// that decodes, known relations, numbers under ordered relations, no
// value under presence relations.
func checkConstraints(t *testing.T, canon string) {
	t.Helper()
	cs, ok := dataset.DecodeConstraints(canon)
	if !ok {
		t.Fatalf("constraint list %q does not decode", canon)
	}
	for _, c := range cs {
		known := false
		for _, r := range dataset.Relations {
			known = known || r == c.Relation
		}
		if !known || c.Attribute == "" {
			t.Fatalf("accepted constraint %+v", c)
		}
		if dataset.NumericRelation(c.Relation) {
			if v, err := strconv.ParseFloat(strings.TrimSpace(c.Value), 64); err != nil || math.IsNaN(v) {
				t.Fatalf("accepted %s with value %q", c.Relation, c.Value)
			}
		}
		if dataset.PresenceRelation(c.Relation) && c.Value != "" {
			t.Fatalf("presence relation kept value %q", c.Value)
		}
	}
}

// An instance_events line is an event or an error, never a panic; an
// accepted event's constraints are ones the stage can judge.
func FuzzInstanceEvent(f *testing.F) {
	b, err := os.ReadFile(constraintFile("google2019", "instance_events_constraints.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, l := range bytes.Split(b, []byte("\n")) {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var e dataset.TaskEvent
		if err := scanInstanceEvent(line, 0, &e); err != nil {
			return
		}
		checkConstraints(t, e.Constraints)
		if e.Type == "" || e.Task < 0 {
			t.Fatalf("accepted %+v", e)
		}
	})
}

// A task_constraints line is a constraint or a reject, never a panic.
func FuzzTaskConstraints2011(f *testing.F) {
	b, err := os.ReadFile(constraintFile("google2011", "task_constraints.csv"))
	if err != nil {
		f.Fatal(err)
	}
	for _, l := range bytes.Split(b, []byte("\n")) {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		p := &g2011{csvRow: csvRow{file: "f"}}
		var rec dataset.TaskConstraint
		if perr := p.taskConstraint(line, 1, &rec); perr != nil {
			return
		}
		checkConstraints(t, dataset.EncodeConstraints([]dataset.Constraint{{Attribute: rec.Attribute, Relation: rec.Relation, Value: rec.Value}}))
	})
}
