package reports

import (
	"fmt"
	"html/template"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// StageConstraints is the placement constraints' section (Thinakaran et al., Phoenix,
// Phoenix).
const StageConstraints = "constraints"

// Constraints is the constraints stage's result as the report shows it:
// the constraint table, the Constraint Resource Vector over time and the
// M/G/1 waits against the trace's.
type Constraints struct {
	Summary string
	// WindowS is the CRV's step; the series start at Start (RFC 3339).
	WindowS float64
	Start   string
	Rows    []ConstraintRow
	CRV     []CRVSeries
	Rules   []string
	// Warnings are the stage's, shown under the table.
	Warnings []string
}

// ConstraintRow is one constraint.
type ConstraintRow struct {
	Attribute, Relation, Value string
	Tasks                      int64
	Hard                       bool
	Machines                   int
	Rho, PredictedS, ObservedS *float64
	Fit                        string
}

// CRVSeries is one attribute's demand/supply ratio per window (NaN where
// no machine has the attribute).
type CRVSeries struct {
	Attribute string
	Ratio     []float64
}

// crvColors tell the attributes apart; the series past them are grey.
var crvColors = []color.Color{blue, red, color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}, color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff}, color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff}}

// ConstraintsCRV draws each constrained attribute's demand over supply
// per window; gaps where no machine offers the attribute. Nil without
// a series.
func ConstraintsCRV(c *Constraints) *plot.Plot {
	if c == nil || len(c.CRV) == 0 {
		return nil
	}
	n := 0
	for _, s := range c.CRV {
		n = max(n, len(s.Ratio))
	}
	unit, div := timeAxis(float64(n) * c.WindowS)
	p := newPlot("Constraint Resource Vector: demand over supply", unit+" from "+c.Start, "tasks per machine with it")
	top := 0.0
	for i, s := range c.CRV {
		col := color.Color(grey)
		if i < len(crvColors) {
			col = crvColors[i]
		}
		// Attributes of equal demand and supply draw the same steps: the
		// second and third are dashed and dotted so that both show.
		mk := func(seg plotter.XYs) *plainLine {
			l := line(seg, col, vg.Points(1.2))
			switch i % 3 {
			case 1:
				l.l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
			case 2:
				l.l.Dashes = []vg.Length{vg.Points(1.5), vg.Points(2)}
			}
			return l
		}
		var seg plotter.XYs
		flush := func() {
			if len(seg) > 0 {
				p.Add(mk(seg))
				seg = nil
			}
		}
		var first *plainLine
		for w, r := range s.Ratio {
			if math.IsNaN(r) {
				flush()
				continue
			}
			top = max(top, r)
			x0, x1 := float64(w)*c.WindowS/div, float64(w+1)*c.WindowS/div
			seg = append(seg, plotter.XY{X: x0, Y: r}, plotter.XY{X: x1, Y: r})
		}
		if len(seg) > 0 {
			first = mk(seg)
			p.Add(first)
			seg = nil
		}
		if i < len(crvColors) && first != nil {
			p.Legend.Add(s.Attribute, first)
		}
	}
	p.X.Min, p.Y.Min = 0, 0
	legendRoom(p, math.Max(top, 1e-9))
	return p
}

// ConstraintsWaits draws each constraint's Pollaczek–Khinchine wait
// against the trace's mean wait, with the diagonal where they agree. Nil
// when no constraint has both.
func ConstraintsWaits(c *Constraints) *plot.Plot {
	if c == nil {
		return nil
	}
	var hard, soft plotter.XYs
	top := 0.0
	for _, r := range c.Rows {
		if r.PredictedS == nil || r.ObservedS == nil {
			continue
		}
		xy := plotter.XY{X: *r.ObservedS, Y: *r.PredictedS}
		top = max(top, xy.X, xy.Y)
		if r.Hard {
			hard = append(hard, xy)
		} else {
			soft = append(soft, xy)
		}
	}
	if len(hard)+len(soft) == 0 {
		return nil
	}
	top = math.Max(top*1.05, 1)
	p := newPlot("M/G/1 waits: predicted against observed", "observed mean wait SUBMIT→SCHEDULE (s)", "predicted wait (s)")
	diag := line(plotter.XYs{{X: 0, Y: 0}, {X: top, Y: top}}, grey, vg.Points(1))
	p.Add(diag)
	p.Legend.Add("prediction = observation", diag)
	if len(hard) > 0 {
		s := points(hard, blue, vg.Points(3), draw.CircleGlyph{})
		p.Add(s)
		p.Legend.Add("hard constraint", s)
	}
	if len(soft) > 0 {
		s := points(soft, red, vg.Points(3), draw.CrossGlyph{})
		p.Add(s)
		p.Legend.Add("soft constraint", s)
	}
	p.X.Min, p.Y.Min, p.X.Max = 0, 0, top
	legendRoom(p, top)
	return p
}

// constraintsFigures are the section's plots.
func constraintsFigures(c *Constraints) []*figure {
	if c == nil || len(c.Rows) == 0 {
		return nil
	}
	return []*figure{
		{IndexPlot: IndexPlot{Name: "constraints-crv", Stage: StageConstraints, Title: "Demand over supply per constrained attribute",
			SVG: "plots/constraints-crv.svg", PNG: "plots/constraints-crv.png"}, build: func() *plot.Plot { return ConstraintsCRV(c) }, inline: true},
		{IndexPlot: IndexPlot{Name: "constraints-waits", Stage: StageConstraints, Title: "Predicted against observed waits",
			SVG: "plots/constraints-waits.svg", PNG: "plots/constraints-waits.png"}, build: func() *plot.Plot { return ConstraintsWaits(c) }, inline: true},
	}
}

// constraintsStage fills the section's entry of index.json.
func constraintsStage(in *Input, s *IndexStage) {
	s.Computed = in.Constraints != nil && len(in.Constraints.Rows) > 0
}

func (r ConstraintRow) HardText() string {
	if r.Hard {
		return "hard"
	}
	return "soft"
}

func optNum(v *float64) string {
	if v == nil {
		return "–"
	}
	return fmt.Sprintf("%.3g", *v)
}

// constraintsHTML is the section (the page's template "constraints").
const constraintsHTML = `{{define "constraints"}}{{with stage .Stages "constraints"}}<section id="constraints">
<h2>{{.Title}}</h2>
{{range .Notes}}<p class="nc">{{.}}</p>{{end}}
{{if not .Computed}}<p class="nc">Not computed.</p>{{end}}{{end}}
{{with .Cons}}{{if .Rows}}<p>{{.Summary}} Each constraint's waits are those of an M/G/1 queue whose server is the machines satisfying it, taken as one server of their combined capacity (Pollaczek–Khinchine), against the trace's SUBMIT→SCHEDULE waits (Thinakaran et al., Phoenix §3; the rules are in constraints/doc.go).</p>
{{with stage $.Stages "constraints"}}{{if .Figures}}<div class="figs">{{range .Figures}}<figure>{{.SVG}}<figcaption>{{.Title}} · <a href="{{.SVGHref}}">SVG</a>{{if .PNGHref}} · <a href="{{.PNGHref}}">PNG</a>{{end}}</figcaption></figure>{{end}}</div>{{end}}{{end}}
<table><tr><th>attribute</th><th>relation</th><th>value</th><th>tasks</th><th>hard</th><th>machines</th><th>ρ</th><th>predicted wait (s)</th><th>observed wait (s)</th><th>fit</th></tr>
{{range .Rows}}<tr><td>{{.Attribute}}</td><td>{{.Relation}}</td><td>{{.Value}}</td><td>{{.Tasks}}</td><td>{{.HardText}}</td><td>{{.Machines}}</td><td>{{optnum .Rho}}</td><td>{{optnum .PredictedS}}</td><td>{{optnum .ObservedS}}</td><td>{{.Fit}}</td></tr>
{{end}}</table>
<p class="muted">Rules:</p><ul class="why">{{range .Rules}}<li>{{.}}</li>{{end}}</ul>
{{range .Warnings}}<p class="muted">{{.}}</p>{{end}}{{end}}{{end}}
</section>{{end}}`

func init() {
	stageTitles[StageConstraints] = "Placement constraints"
	sections = append(sections, func(page *template.Template) {
		page.Funcs(template.FuncMap{"optnum": optNum})
		template.Must(page.New("constraints-section").Parse(constraintsHTML))
	})
}
