package reports

import (
	"testing"

	"github.com/wlprof/wlprof/internal/table/tabletest"
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
	text := "out/index.html\n  1 profiles, 2 plots, tenants.json\n  classify   computed (12 tenants)\n  skyline    computed (1 job)\n  not computed: slo, elasticity\n"
	csv := "kind,stage,job,path\nhtml,,,index.html\ntenants,classify,,tenants.json\nprofile,,q,profiles/q.json\n" +
		"svg,skyline,q,plots/q.svg\npng,skyline,q,plots/q.png\nsvg,classify,,plots/c.svg\n"
	tabletest.Equal(t, idx.WriteText, idx.WriteCSV, text, csv)
}
