package reports

import (
	"fmt"
	"html/template"
	"image/color"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// StageSimulate is the elastic-memory what-if's section (Iorgulescu et al., ATC'17 §3–§4).
const StageSimulate = "simulate"

// Simulation is the simulate stage's result as the report shows it: one
// workload on one cluster under each policy.
type Simulation struct {
	// Trace is the workload file; Cluster says what it ran on.
	Trace, Cluster string
	Policies       []SimPolicy
	// LeftOut are jobs with a task larger than a node, with the reason.
	LeftOut []Skipped
	// Warnings are the stage's (models that disagree with the trace, ...).
	Warnings []string
	// ObservedJCTS are the real runs' completion times when the workload
	// is the dataset's job history (drawn beside the simulated ones).
	ObservedJCTS []float64
}

// SimPolicy is one policy's outcome.
type SimPolicy struct {
	Policy                                     string
	MakespanS, MeanJCTS, MedianJCTS, P95JCTS   float64
	MemoryUtilisation                          float64
	Tasks, ElasticTasks                        int64
	JCTS                                       []float64 // every job's completion time
	MemoryStartS, MemoryEndS, MemoryUtilSeries []float64 // memory in use over time, as buckets
}

var policyColor = map[string]color.Color{"yarn": grey, "yarn-me": blue}

func polColor(p string) color.Color {
	if c, ok := policyColor[p]; ok {
		return c
	}
	return red
}

// SimJCTCDF draws each policy's distribution of job completion times
// (Iorgulescu et al., ATC'17 Fig. 6's measure). Nil without jobs.
func SimJCTCDF(s *Simulation) *plot.Plot {
	if s == nil || len(s.Policies) == 0 || len(s.Policies[0].JCTS) == 0 {
		return nil
	}
	hi := 0.0
	for _, p := range s.Policies {
		for _, x := range p.JCTS {
			hi = max(hi, x)
		}
	}
	for _, x := range s.ObservedJCTS {
		hi = max(hi, x)
	}
	unit, div := timeAxis(hi)
	pl := newPlot(fmt.Sprintf("Job completion times of %d jobs", len(s.Policies[0].JCTS)), "job completion time ("+unit+")", "fraction of jobs")
	cdf := func(jcts []float64) plotter.XYs {
		v := append([]float64(nil), jcts...)
		sort.Float64s(v)
		xy := make(plotter.XYs, 0, 2*len(v))
		for i, x := range v {
			xy = append(xy, plotter.XY{X: x / div, Y: float64(i) / float64(len(v))}, plotter.XY{X: x / div, Y: float64(i+1) / float64(len(v))})
		}
		return xy
	}
	for _, p := range s.Policies {
		l := line(cdf(p.JCTS), polColor(p.Policy), vg.Points(1.5))
		pl.Add(l)
		pl.Legend.Add(fmt.Sprintf("%s (mean %s)", p.Policy, durText(p.MeanJCTS)), l)
	}
	if len(s.ObservedJCTS) > 0 {
		mean := 0.0
		for _, x := range s.ObservedJCTS {
			mean += x / float64(len(s.ObservedJCTS))
		}
		l := line(cdf(s.ObservedJCTS), red, vg.Points(1.5))
		l.l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		pl.Add(l)
		pl.Legend.Add(fmt.Sprintf("observed runs (mean %s)", durText(mean)), l)
	}
	pl.X.Min, pl.Y.Min, pl.Y.Max = 0, 0, 1
	return pl
}

// SimMemory draws each policy's share of the cluster's memory held by
// tasks over time (Iorgulescu et al., ATC'17 Fig. 4a). Nil without series.
func SimMemory(s *Simulation) *plot.Plot {
	if s == nil || len(s.Policies) == 0 {
		return nil
	}
	hi := 0.0
	for _, p := range s.Policies {
		if n := len(p.MemoryEndS); n > 0 {
			hi = max(hi, p.MemoryEndS[n-1])
		}
	}
	if !(hi > 0) {
		return nil
	}
	unit, div := timeAxis(hi)
	pl := newPlot("Memory in use", unit+" from the first submission", "cluster memory held (%)")
	for _, p := range s.Policies {
		var xy plotter.XYs
		for i := range p.MemoryUtilSeries {
			y := 100 * p.MemoryUtilSeries[i]
			xy = append(xy, plotter.XY{X: p.MemoryStartS[i] / div, Y: y}, plotter.XY{X: p.MemoryEndS[i] / div, Y: y})
		}
		if len(xy) == 0 {
			continue
		}
		l := line(xy, polColor(p.Policy), vg.Points(1.2))
		pl.Add(l)
		pl.Legend.Add(fmt.Sprintf("%s (mean %.0f%%)", p.Policy, 100*p.MemoryUtilisation), l)
	}
	pl.X.Min, pl.X.Max, pl.Y.Min, pl.Y.Max = 0, hi/div, 0, 100
	return pl
}

func durText(s float64) string {
	if f, ok := funcs["dur"].(func(float64) string); ok {
		return f(s)
	}
	return fmt.Sprintf("%gs", s)
}

// simFigures are the section's plots.
func simFigures(s *Simulation) []*figure {
	if s == nil || len(s.Policies) == 0 {
		return nil
	}
	mk := func(name, title string, b func() *plot.Plot) *figure {
		return &figure{IndexPlot: IndexPlot{Name: name, Stage: StageSimulate, Title: title, SVG: "plots/" + name + ".svg", PNG: "plots/" + name + ".png"},
			build: b, inline: true}
	}
	// A figure with nothing to draw (every job left out: a task larger
	// than a node) is left out, not an error of the whole report.
	var figs []*figure
	if SimJCTCDF(s) != nil {
		figs = append(figs, mk("simulate-jct-cdf", "Job completion times", func() *plot.Plot { return SimJCTCDF(s) }))
	}
	if SimMemory(s) != nil {
		figs = append(figs, mk("simulate-memory", "Memory in use over time", func() *plot.Plot { return SimMemory(s) }))
	}
	return figs
}

// simStage fills the section's entry of index.json.
func simStage(in *Input, s *IndexStage) {
	s.Computed = in.Simulation != nil && len(in.Simulation.Policies) > 0
	if s.Computed {
		s.Jobs = len(in.Simulation.Policies[0].JCTS)
	}
}

// simulateHTML is the section (the page's template "simulate").
const simulateHTML = `{{define "simulate"}}{{with stage .Stages "simulate"}}<section id="simulate">
<h2>{{.Title}}</h2>
{{range .Notes}}<p class="nc">{{.}}</p>{{end}}
{{if not .Computed}}<p class="nc">Not computed.</p>{{end}}{{end}}
{{with .Sim}}{{if .Policies}}<p>The workload of {{.Trace}} on {{.Cluster}}, simulated under stock YARN and under YARN-ME, which starts a task with less than its ideal memory when it would still end by its job's estimated completion (Iorgulescu et al., ATC'17 §3; the rules are in simulate/doc.go).</p>
<table><tr><th>policy</th><th>makespan</th><th>mean JCT</th><th>median JCT</th><th>p95 JCT</th><th>memory utilisation</th><th>tasks</th><th>elastic tasks</th></tr>
{{range .Policies}}<tr><td>{{policyName .Policy}}</td><td>{{dur .MakespanS}}</td><td>{{dur .MeanJCTS}}</td><td>{{dur .MedianJCTS}}</td><td>{{dur .P95JCTS}}</td><td>{{pct .MemoryUtilisation}}</td><td>{{.Tasks}}</td><td>{{.ElasticTasks}}</td></tr>
{{end}}</table>
{{template "sizing" $}}
{{with stage $.Stages "simulate"}}{{if .Figures}}<div class="figs">{{range .Figures}}<figure>{{.SVG}}<figcaption>{{.Title}} · <a href="{{.SVGHref}}">SVG</a>{{if .PNGHref}} · <a href="{{.PNGHref}}">PNG</a>{{end}}</figcaption></figure>
{{end}}</div>{{end}}{{end}}
{{if .LeftOut}}<p class="muted">Not simulated:</p><ul>{{range .LeftOut}}<li>{{.Job}}: {{.Reason}}</li>{{end}}</ul>{{end}}
{{range .Warnings}}<p class="muted">{{.}}</p>{{end}}{{end}}{{end}}
</section>{{end}}`

func init() {
	sections = append(sections, func(page *template.Template) { template.Must(page.New("simulate-section").Parse(simulateHTML)) })
}
