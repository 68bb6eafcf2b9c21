package classify

import (
	"reflect"
	"testing"
)

func TestDocument(t *testing.T) {
	res := &Result{StepS: 120, AtMs: 1704067200000, Built: true,
		Tenants:  []Tenant{{Tenant: "a", Pattern: Periodic}, {Tenant: "b", Pattern: Periodic}, {Tenant: "c", Pattern: Insufficient}},
		Classes:  []Class{{Class: "P1", Pattern: Periodic}},
		Warnings: []string{"w"}}
	d := res.Document()
	want := map[Pattern]int{Periodic: 2, Constant: 0, Unpredictable: 0, Insufficient: 1}
	if d.Version != 1 || d.StepS != 120 || d.At != "2024-01-01T00:00:00Z" || d.SeriesSource != "built from usage" || !reflect.DeepEqual(d.Patterns, want) {
		t.Errorf("document %+v; want patterns %v", d, want)
	}
	if len(d.Tenants) != 3 || len(d.Classes) != 1 || !reflect.DeepEqual(d.Warnings, []string{"w"}) || !reflect.DeepEqual(d.Ranking, Ranking) {
		t.Errorf("document %+v", d)
	}
	res.Built = false
	if d := res.Document(); d.SeriesSource != "series table" {
		t.Errorf("series source %q, want the series table", d.SeriesSource)
	}
}
