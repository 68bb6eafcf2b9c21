package reports

import (
	"html/template"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// StagePlacement is the replica-placement section (Zhang et al., OSDI'16 §3, §4.2
// Algorithm 2, §6).
const StagePlacement = "placement"

// Placement is the placement stage's result as the report shows it: the
// machine history and storage in words, the nine classes, the reimage
// groups' stability, the durability and availability replay, and the
// assumptions the numbers rest on.
type Placement struct {
	// Summary: machines, disruptions (the REMOVE proxy), window, S and S/9.
	Summary string
	// Tenants is the number of tenants in the classes.
	Tenants int
	// Classes are the nine, in row-major order (reimage group, then peak).
	Classes []PlacementClass
	// Stability is the stability line, or why there is none.
	Stability string
	// Replay says what was replayed; "" when nothing was (Policies empty).
	Replay   string
	Policies []PlacementPolicy
	// Assumptions and Warnings: the stage's, then the replay's.
	Assumptions []string
	Warnings    []string
}

// PlacementClass is one of the nine classes. Storage, Rates and Peaks are
// already written out ("12 TB", "1.893–5.048", "-" for an empty class).
type PlacementClass struct {
	Class, ReimageGroup, PeakGroup string
	Tenants, Servers               int
	Storage                        string
	// Share of S; 1/9 when balanced.
	Share        float64
	Rates, Peaks string
	Members      string
}

// PlacementPolicy is one placement's replay over every seed.
type PlacementPolicy struct {
	Policy      string
	LostBlocks  PlacementSpread
	FailedShare PlacementSpread // of the accesses
}

// PlacementSpread is a mean with the least and largest value over seeds.
type PlacementSpread struct{ Mean, Min, Max float64 }

// Count writes a spread of counts: "0.2 (0–1)", or "3" when every seed
// agrees.
func (s PlacementSpread) Count() string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	if s.Min == s.Max {
		return f(s.Min)
	}
	return strconv.FormatFloat(s.Mean, 'f', 1, 64) + " (" + f(s.Min) + "–" + f(s.Max) + ")"
}

// Pct writes a spread of shares as percentages of three significant
// digits: "0.719% (0.665–0.75%)".
func (s PlacementSpread) Pct() string {
	f := func(v float64) string {
		if v == 0 {
			return "0"
		}
		return strconv.FormatFloat(100*v, 'g', 3, 64)
	}
	if s.Min == s.Max {
		return f(s.Min) + "%"
	}
	return f(s.Mean) + "% (" + f(s.Min) + "–" + f(s.Max) + "%)"
}

// placementStage fills the section's entry of index.json: the tenants in
// the classes, when computed.
func placementStage(in *Input, s *IndexStage) {
	s.Computed = in.Placement != nil && len(in.Placement.Classes) > 0
	if s.Computed {
		n := in.Placement.Tenants
		s.Tenants = &n
	}
}

// placementHTML is the section (the page's template "placement").
const placementHTML = `{{define "placement"}}{{with stage .Stages "placement"}}<section id="placement">
<h2>{{.Title}}</h2>
{{range .Notes}}<p class="nc">{{.}}</p>{{end}}
{{if not .Computed}}<p class="nc">Not computed.</p>{{end}}{{end}}
{{with .Place}}{{if .Classes}}<p>{{.Summary}} Each class should hold S/9 of the storage; Algorithm 2 puts a block's three replicas in classes of distinct rows and columns, so that no two share a reimage group or a peak group (Zhang et al., OSDI'16 §3, §4.2; the cut rule is in placement/doc.go).</p>
{{with stage $.Stages "placement"}}{{if .Figures}}<div class="figs">{{range .Figures}}<figure>{{.SVG}}<figcaption>{{.Title}} · <a href="{{.SVGHref}}">SVG</a>{{if .PNGHref}} · <a href="{{.PNGHref}}">PNG</a>{{end}}</figcaption></figure>{{end}}</div>{{end}}{{end}}
<table><tr><th>class</th><th>tenants</th><th>servers</th><th>storage</th><th>share of S</th><th>reimages / server / month</th><th>peak</th><th class="l">members</th></tr>
{{range .Classes}}<tr><td>{{.Class}}</td><td>{{.Tenants}}</td><td>{{.Servers}}</td><td>{{.Storage}}</td><td>{{pct .Share}}</td><td class="nw">{{.Rates}}</td><td class="nw">{{.Peaks}}</td><td class="l">{{.Members}}</td></tr>
{{end}}</table>
<p>{{.Stability}}</p>
{{if .Policies}}<p>{{.Replay}}</p>
<table><tr><th>policy</th><th>blocks lost</th><th>accesses failed</th></tr>
{{range .Policies}}<tr><td>{{.Policy}}</td><td class="nw">{{.LostBlocks.Count}}</td><td class="nw">{{.FailedShare.Pct}}</td></tr>
{{end}}</table>{{else}}<p class="muted">{{.Replay}}</p>{{end}}
<p class="muted">Assumptions:</p><ul class="why">{{range .Assumptions}}<li>{{.}}</li>{{end}}</ul>
{{if .Warnings}}<p class="muted">Warnings:</p><ul class="why">{{range .Warnings}}<li>{{.}}</li>{{end}}</ul>{{end}}{{end}}{{end}}
</section>{{end}}`

func init() {
	sections = append(sections, func(page *template.Template) { template.Must(page.New("placement-section").Parse(placementHTML)) })
}

// peakShades tell the peak groups apart: light to dark, low to high.
var peakShades = []color.Color{
	color.RGBA{R: 0x9e, G: 0xca, B: 0xe1, A: 0xff},
	color.RGBA{R: 0x42, G: 0x92, B: 0xc6, A: 0xff},
	color.RGBA{R: 0x08, G: 0x45, B: 0x94, A: 0xff},
}

// PlacementShares draws the 3 × 3 classes as a planner reads them: per
// reimage group, the share of the storage S each peak group's class holds,
// against the S/9 every class should hold. Nil without classes.
func PlacementShares(pl *Placement) *plot.Plot {
	if pl == nil || len(pl.Classes) == 0 {
		return nil
	}
	var rows, cols []string
	share := map[[2]string]float64{}
	for _, c := range pl.Classes {
		if len(rows) == 0 || rows[len(rows)-1] != c.ReimageGroup {
			rows = append(rows, c.ReimageGroup)
		}
		if len(rows) == 1 {
			cols = append(cols, c.PeakGroup)
		}
		share[[2]string{c.ReimageGroup, c.PeakGroup}] = 100 * c.Share
	}
	p := newPlot("Storage per class against S/9", "reimage group", "share of S (%)")
	const w = 22
	top := 100.0 / 9
	for k, col := range cols {
		vals := make(plotter.Values, len(rows))
		for i, row := range rows {
			vals[i] = share[[2]string{row, col}]
			top = math.Max(top, vals[i])
		}
		bar, err := plotter.NewBarChart(vals, vg.Points(w))
		if err != nil {
			return nil
		}
		bar.Color = peakShades[k%len(peakShades)]
		bar.LineStyle.Width = 0
		bar.Offset = vg.Points((float64(k) - float64(len(cols)-1)/2) * w)
		p.Add(bar)
		p.Legend.Add(col+" peak", bar)
	}
	x0, x1 := -0.6, float64(len(rows))-0.4
	target := line(plotter.XYs{{X: x0, Y: 100.0 / 9}, {X: x1, Y: 100.0 / 9}}, red, vg.Points(1.2))
	target.l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
	p.Add(target)
	p.Legend.Add("S/9 (11.1%)", target)
	p.NominalX(rows...)
	p.X.Min, p.X.Max = x0, x1
	p.Y.Min = 0
	legendRoom(p, top)
	return p
}

// placementFigures are the section's plots.
func placementFigures(pl *Placement) []*figure {
	if pl == nil || len(pl.Classes) == 0 {
		return nil
	}
	return []*figure{{IndexPlot: IndexPlot{Name: "placement-shares", Stage: StagePlacement, Title: "Storage per class against S/9",
		SVG: "plots/placement-shares.svg", PNG: "plots/placement-shares.png"}, build: func() *plot.Plot { return PlacementShares(pl) }, inline: true}}
}
