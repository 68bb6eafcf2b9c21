package reports

import (
	"strings"
	"testing"
)

// The text names index.html and the stages, computed or not; the CSV
// lists every file written, PNGs only where there are any.
func TestIndexText(t *testing.T) {
	tenants, n := "tenants.json", 12
	idx := &Index{Dir: "out", IndexHTML: "index.html", Tenants: &tenants,
		Profiles: []IndexProfile{{Job: "q", Path: "profiles/q.json"}},
		Plots:    []IndexPlot{{Stage: StageSkyline, Job: "q", SVG: "plots/q.svg", PNG: "plots/q.png"}, {Stage: StageClassify, SVG: "plots/c.svg"}},
		Stages: []IndexStage{{Stage: StageClassify, Computed: true, Tenants: &n}, {Stage: StageSkyline, Computed: true, Jobs: 1},
			{Stage: StageSLO}, {Stage: StageElasticity}}}
	var b strings.Builder
	if err := idx.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := "out/index.html\n  1 profiles, 2 plots, tenants.json\n  classify   computed (12 tenants)\n  skyline    computed (1 jobs)\n  not computed: slo, elasticity\n"
	if b.String() != want {
		t.Errorf("text:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	if err := idx.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	want = "kind,stage,job,path\nhtml,,,index.html\ntenants,classify,,tenants.json\nprofile,,q,profiles/q.json\n" +
		"svg,skyline,q,plots/q.svg\npng,skyline,q,plots/q.png\nsvg,classify,,plots/c.svg\n"
	if b.String() != want {
		t.Errorf("csv:\n%s\nwant:\n%s", b.String(), want)
	}
}
