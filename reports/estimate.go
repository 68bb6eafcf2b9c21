package reports

import (
	"fmt"
	"html/template"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// StageEstimate is the completion-goal estimator's section (Polo, PhD thesis, UPC 2014
// §3.4, §5.3.4).
const StageEstimate = "estimate"

// Estimate is the estimate stage's result as the report shows it: the
// availability Ω(t) and each job's deadline and slots.
type Estimate struct {
	// At is the instant of the estimate (RFC 3339); AtS the same in Unix
	// seconds, the origin of the figure.
	At  string
	AtS float64
	// SlotCPU is a slot's share of a server; AvailabilityFrom where Ω
	// came from. StartS (seconds after UTC midnight) and Slots are Ω's
	// daily steps, repeating every day; empty without an availability.
	SlotCPU          float64
	AvailabilityFrom string
	StartS, Slots    []float64
	Rows             []EstimateRow
	NotEstimated     []Skipped
	Warnings         []string
}

// EstimateRow is one job's estimate.
type EstimateRow struct {
	Job            string
	DeadlineS      float64 // seconds after At
	Phase          string
	Pending        int
	MuS            float64
	SReq           int
	SFit           *int
	AvailMeanSlots *float64
	ShortTasks     *float64
	MeetsGoal      bool
	// SReqWaves is the fewest slots that meet the goal in whole-task
	// waves (§3.4.6), beside SReq's fluid eq. 1; LateTasks the tasks
	// ending after the goal under Ω (nil without an availability); Rank
	// the job's place in §3.4.1's placement order (0: none).
	SReqWaves int
	LateTasks *int
	Rank      int
}

var darkGrey = color.RGBA{R: 0x55, G: 0x55, B: 0x55, A: 0xff}

// omega is Ω at Unix second t.
func (e *Estimate) omega(t float64) float64 {
	tod := math.Mod(math.Mod(t, 86400)+86400, 86400)
	v := 0.0
	for i, s := range e.StartS {
		if s <= tod {
			v = e.Slots[i]
		}
	}
	return v
}

// EstimateAvailability draws Ω(t) from the instant to the last deadline
// (at least a day), with each job's deadline as a vertical line: red
// when the job cannot meet it. Nil without an availability.
func EstimateAvailability(e *Estimate) *plot.Plot {
	if e == nil || len(e.StartS) == 0 {
		return nil
	}
	hi := 86400.0
	for _, r := range e.Rows {
		hi = max(hi, 1.05*r.DeadlineS) // the last deadline inside the frame
	}
	unit, div := timeAxis(hi)
	pl := newPlot("Slots available to batch work, and the deadlines", unit+" from "+e.At, fmt.Sprintf("slots of %g server CPU", e.SlotCPU))
	var xy plotter.XYs
	top := 0.0
	// Step edges: every bin start in the horizon.
	prev := e.omega(e.AtS)
	xy = append(xy, plotter.XY{X: 0, Y: prev})
	dayStart := math.Floor(e.AtS/86400) * 86400
	for d := dayStart; d < e.AtS+hi; d += 86400 {
		for i, s := range e.StartS {
			t := d + s - e.AtS
			if t <= 0 || t >= hi {
				continue
			}
			xy = append(xy, plotter.XY{X: t / div, Y: prev}, plotter.XY{X: t / div, Y: e.Slots[i]})
			prev = e.Slots[i]
		}
	}
	xy = append(xy, plotter.XY{X: hi / div, Y: prev})
	for _, p := range xy {
		top = max(top, p.Y)
	}
	top = max(top*1.1, 1)
	l := line(xy, blue, vg.Points(1.5))
	pl.Add(l)
	pl.Legend.Add("Ω(t)", l)
	var late, ok bool
	for _, r := range e.Rows {
		if r.DeadlineS < 0 {
			continue
		}
		c := color.Color(darkGrey)
		if !r.MeetsGoal {
			c = red
		}
		dl := line(plotter.XYs{{X: r.DeadlineS / div, Y: 0}, {X: r.DeadlineS / div, Y: top}}, c, vg.Points(1))
		dl.l.LineStyle.Dashes = []vg.Length{vg.Points(4), vg.Points(2)} // not a grid line
		pl.Add(dl)
		switch {
		case !r.MeetsGoal && !late:
			pl.Legend.Add("deadline (goal missed)", dl)
			late = true
		case r.MeetsGoal && !ok:
			pl.Legend.Add("deadline", dl)
			ok = true
		}
	}
	pl.X.Min, pl.X.Max, pl.Y.Min, pl.Y.Max = 0, hi/div, 0, top
	return pl
}

// estFigures are the section's plots.
func estFigures(e *Estimate) []*figure {
	if e == nil || len(e.StartS) == 0 {
		return nil
	}
	return []*figure{{IndexPlot: IndexPlot{Name: "estimate-availability", Stage: StageEstimate, Title: "Availability Ω(t) and deadlines",
		SVG: "plots/estimate-availability.svg", PNG: "plots/estimate-availability.png"},
		build: func() *plot.Plot { return EstimateAvailability(e) }, inline: true}}
}

// estStage fills the section's entry of index.json.
func estStage(in *Input, s *IndexStage) {
	s.Computed = in.Estimate != nil && len(in.Estimate.Rows) > 0
	if in.Estimate != nil {
		s.Jobs = len(in.Estimate.Rows)
	}
}

// estimateHTML is the section (the page's template "estimate").
const estimateHTML = `{{define "estimate"}}{{with stage .Stages "estimate"}}<section id="estimate">
<h2>{{.Title}}</h2>
{{range .Notes}}<p class="nc">{{.}}</p>{{end}}
{{if not .Computed}}<p class="nc">Not computed.</p>{{end}}{{end}}
{{with .Est}}{{if .Rows}}<p>At {{.At}}: the slots each job needs in parallel to meet its deadline (s_req, eq. 1 of Polo, PhD thesis, UPC 2014, §3.4), the tasks Alg. 2 (§5.3.4.2) says must run before the earliest deadline given the availability Ω(t){{if .AvailabilityFrom}} ({{.AvailabilityFrom}}){{end}}, and whether the goal can be met (the rules are in estimate/doc.go).</p>
<p>s_req is eq. 1 read fluidly, a task's work spread over slots; s_req waves the fewest slots that meet the goal with whole tasks, one to a slot for µ (§3.4.6); late the tasks that end after the goal when Ω's slots go earliest goal first; rank the placement order of §3.4.1 over every job, those not estimated for want of µ included (missed goals, then jobs without data, then the largest s_req).</p>
{{with stage $.Stages "estimate"}}{{if .Figures}}<div class="figs">{{range .Figures}}<figure>{{.SVG}}<figcaption>{{.Title}} · <a href="{{.SVGHref}}">SVG</a>{{if .PNGHref}} · <a href="{{.PNGHref}}">PNG</a>{{end}}</figcaption></figure>
{{end}}</div>{{end}}{{end}}
<table><tr><th>job</th><th>deadline</th><th>phase</th><th>pending</th><th>µ</th><th>s_req</th><th>s_req waves</th><th>mean Ω</th><th>s_fit</th><th>short</th><th>late</th><th>meets goal</th><th>rank</th></tr>
{{range .Rows}}<tr><td>{{wrap .Job}}</td><td>{{dur .DeadlineS}}</td><td>{{.Phase}}</td><td>{{.Pending}}</td><td>{{dur .MuS}}</td><td>{{.SReq}}</td><td>{{.SReqWaves}}</td><td>{{with .AvailMeanSlots}}{{printf "%.1f" (deref .)}}{{else}}–{{end}}</td><td>{{with .SFit}}{{.}}{{else}}–{{end}}</td><td>{{with .ShortTasks}}{{printf "%.1f" (deref .)}}{{else}}–{{end}}</td><td>{{with .LateTasks}}{{.}}{{else}}–{{end}}</td><td>{{if .MeetsGoal}}yes{{else}}<b>no</b>{{end}}</td><td>{{if .Rank}}{{.Rank}}{{else}}–{{end}}</td></tr>
{{end}}</table>{{end}}
{{if .NotEstimated}}<p class="muted">Not estimated:</p><ul>{{range .NotEstimated}}<li>{{.Job}}: {{.Reason}}</li>{{end}}</ul>{{end}}
{{range .Warnings}}<p class="muted">{{.}}</p>{{end}}{{end}}
</section>{{end}}`

func init() {
	sections = append(sections, func(page *template.Template) { template.Must(page.New("estimate-section").Parse(estimateHTML)) })
}
