package reports

import (
	"html/template"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// StageHarvest is the harvesting what-if's section (Zhang et al., OSDI'16 §4–§6).
const StageHarvest = "harvest"

// Harvest is the harvest stage's replay as the report shows it: the
// world and workload in words, a row per policy, the breakdowns by
// pattern and job type, and the assumptions the numbers rest on.
type Harvest struct {
	World, Workload, Thresholds string
	Policies                    []HarvestRow
	// Groups are the breakdowns: By is "pattern" or "job type".
	Groups      []HarvestRow
	Assumptions []string
	Warnings    []string
}

// HarvestRow is one policy's figures, overall or in one group (By, Key).
type HarvestRow struct {
	By, Key, Policy              string
	Containers, Killed, Unplaced int64
	MultiClassJobs, FallbackJobs int64
	HarvestedCoreH, LostCoreH    float64
}

// KilledShare is the share of containers killed.
func (r HarvestRow) KilledShare() float64 {
	if r.Containers == 0 {
		return 0
	}
	return float64(r.Killed) / float64(r.Containers)
}

// harvestStage fills the section's entry of index.json.
func harvestStage(in *Input, s *IndexStage) {
	s.Computed = in.Harvest != nil && len(in.Harvest.Policies) > 0
}

// harvestHTML is the section (the page's template "harvest").
const harvestHTML = `{{define "harvest"}}{{with stage .Stages "harvest"}}<section id="harvest">
<h2>{{.Title}}</h2>
{{range .Notes}}<p class="nc">{{.}}</p>{{end}}
{{if not .Computed}}<p class="nc">Not computed.</p>{{end}}{{end}}
{{with .Harv}}{{if .Policies}}{{with $.S.Decisions.Harvest.Window}}<p><b>Replayed: {{.}}.</b></p>{{end}}
<p>{{.World}} Batch containers harvest the cores the primary tenants leave, placed by Algorithm 1 with the classes' history (history) and without it (blind); a container is killed, youngest first, when its primary tenant needs its reserve back (Zhang et al., OSDI'16 §4–§6; the rules are in harvest/doc.go).</p>
<p>{{.Workload}} {{.Thresholds}}</p>
{{with stage $.Stages "harvest"}}{{if .Figures}}<div class="figs">{{range .Figures}}<figure>{{.SVG}}<figcaption>{{.Title}} · <a href="{{.SVGHref}}">SVG</a>{{if .PNGHref}} · <a href="{{.PNGHref}}">PNG</a>{{end}}</figcaption></figure>{{end}}</div>{{end}}{{end}}
<table><tr><th>policy</th><th>containers</th><th>killed</th><th>killed share</th><th>harvested core·h</th><th>lost core·h</th><th>unplaced</th><th>multi-class jobs</th><th>fallback jobs</th></tr>
{{range .Policies}}<tr><td>{{.Policy}}</td><td>{{.Containers}}</td><td>{{.Killed}}</td><td>{{pct .KilledShare}}</td><td>{{num .HarvestedCoreH}}</td><td>{{num .LostCoreH}}</td><td>{{.Unplaced}}</td><td>{{.MultiClassJobs}}</td><td>{{.FallbackJobs}}</td></tr>
{{end}}</table>
{{template "harvest-times" $}}
{{if .Groups}}<table><tr><th>by</th><th class="l"></th><th class="l">policy</th><th>containers</th><th>killed</th><th>killed share</th><th>harvested core·h</th><th>lost core·h</th></tr>
{{range .Groups}}<tr><td>{{.By}}</td><td class="l">{{.Key}}</td><td class="l">{{.Policy}}</td><td>{{.Containers}}</td><td>{{.Killed}}</td><td>{{pct .KilledShare}}</td><td>{{num .HarvestedCoreH}}</td><td>{{num .LostCoreH}}</td></tr>
{{end}}</table>{{end}}
<p class="muted">Assumptions:</p><ul class="why">{{range .Assumptions}}<li>{{.}}</li>{{end}}</ul>
{{range .Warnings}}<p class="muted">{{.}}</p>{{end}}{{end}}{{end}}
</section>{{end}}`

func init() {
	sections = append(sections, func(page *template.Template) { template.Must(page.New("harvest-section").Parse(harvestHTML)) })
}

// HarvestKills draws, per pattern of the classes containers went to,
// the containers killed under each policy (Zhang et al., OSDI'16 Fig. 13's measure):
// history's bars beside blind's. Nil without a breakdown by pattern.
func HarvestKills(h *Harvest) *plot.Plot {
	if h == nil {
		return nil
	}
	keys := []string{}
	killed := map[[2]string]float64{}
	for _, g := range h.Groups {
		if g.By != "pattern" {
			continue
		}
		if !slices.Contains(keys, g.Key) {
			keys = append(keys, g.Key)
		}
		killed[[2]string{g.Key, g.Policy}] = float64(g.Killed)
	}
	if len(keys) == 0 {
		return nil
	}
	p := newPlot("Containers killed, by the pattern of their class", "", "containers killed")
	top := 0.0
	const w = 18
	for k, pol := range []string{"history", "blind"} {
		c := blue // the policy that uses history, as yarn-me in the simulate section
		if pol == "blind" {
			c = grey
		}
		vals := make(plotter.Values, len(keys))
		for i, key := range keys {
			vals[i] = killed[[2]string{key, pol}]
			top = max(top, vals[i])
		}
		bar, err := plotter.NewBarChart(vals, vg.Points(w))
		if err != nil {
			return nil
		}
		bar.Color = c
		bar.LineStyle.Width = 0
		bar.Offset = vg.Points(float64(2*k-1) * w / 2)
		p.Add(bar)
		p.Legend.Add(pol, bar)
	}
	p.NominalX(keys...)
	p.X.Min, p.X.Max = -0.6, float64(len(keys))-0.4
	p.Y.Tick.Marker = intTicks{}
	p.Y.Min = 0
	legendRoom(p, math.Max(1, top))
	return p
}

// harvestFigures are the section's plots: the kills by pattern where the
// replay has a class of some pattern (a replay in which no container ran
// on a classified tenant's servers has none to draw).
func harvestFigures(h *Harvest) []*figure {
	if h == nil || len(h.Policies) == 0 || !slices.ContainsFunc(h.Groups, func(g HarvestRow) bool { return g.By == "pattern" }) {
		return nil
	}
	return []*figure{{IndexPlot: IndexPlot{Name: "harvest-kills", Stage: StageHarvest, Title: "Containers killed by pattern",
		SVG: "plots/harvest-kills.svg", PNG: "plots/harvest-kills.png"}, build: func() *plot.Plot { return HarvestKills(h) }, inline: true}}
}
