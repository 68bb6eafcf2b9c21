package reports

import (
	"bytes"
	"fmt"
	"html/template"
	"math"
	"net/url"
	"sort"
	"strings"
	"sync"

	"github.com/wlprof/wlprof/internal/bytesize"
	"github.com/wlprof/wlprof/internal/safetext"
	"github.com/wlprof/wlprof/internal/timeflag"
	"github.com/wlprof/wlprof/profile"
)

// index.html is rendered with html/template: every string from the input
// (job, tenant, class and task names, warnings, reasons) is escaped for
// the context it lands in. The only unescaped content is the SVG of the
// figures, which vgsvg writes with its text escaped. A Content-Security-
// Policy forbids scripts and every fetch, so the page works from a mail
// attachment and nothing in it can call out.

type viewFigure struct {
	Title   string
	SVG     template.HTML
	SVGHref string
	PNGHref string
}

type viewJob struct {
	ID       string
	Anchor   string
	Profile  string // href of its profile file
	YARN     string // href of its YARN reservation request, or ""
	P        *profile.Job
	Figures  []viewFigure
	Inline   bool
	Warnings []string
	// SLOWhy and SkylineWhy say why the job has no SLO or skyline ("not
	// computed: ...", "not fitted: ..."); NotModelled are its tasks the
	// elasticity stage left out, with the reason.
	SLOWhy, SkylineWhy string
	NotModelled        []string
	// ProfRuns are the job's profiling runs (sweep points, else the
	// elasticity stage's measured settings).
	ProfRuns int
}

type viewStage struct {
	Name     string
	Title    string
	Computed bool
	Notes    []string
	Figures  []viewFigure
	// Skipped are the jobs the stage left out, listed in its section.
	Skipped []viewSkipped
}

// viewSkipped is a job a stage left out, linked to the job's section
// (Anchor is "" when the job has none).
type viewSkipped struct {
	Skipped
	Anchor string
}

type viewWarning struct {
	Where, Anchor, Text string
}

type view struct {
	Title       string
	S           Summary
	Patterns    []patternCount
	Stages      map[string]*viewStage
	Order       []*viewStage
	Tenants     *profile.Tenants
	TenantRows  []profile.Tenant
	MoreTenants int
	Jobs        []*viewJob
	SLOJobs     []*viewJob
	SkyJobs     []*viewJob
	Plan        *Plan
	Sim         *Simulation
	Est         *Estimate
	Harv        *Harvest
	Place       *Placement
	Cons        *Constraints
	ElastJobs   []*viewJob
	SweepJobs   []*viewJob
	Warnings    []viewWarning
	Skipped     []Skipped
	InlineJobs  int
	Quality     *qualityView
	Planner     *Planner
}

type patternCount struct {
	Pattern string
	N       int
}

func href(rel string) string {
	dir, file, _ := strings.Cut(rel, "/")
	return dir + "/" + url.PathEscape(file)
}

var stageTitles = map[string]string{
	StageClassify:   "Tenant classes",
	StageSLO:        "Inferred SLOs",
	StageSkyline:    "Reservation skylines",
	StagePlan:       "Reservation plan",
	StageElasticity: "Memory elasticity",
	StageProfiler:   "Profiler sweeps",
	StageSimulate:   "Elastic memory what-if",
	StageEstimate:   "Completion-goal estimate",
	StageHarvest:    "Harvesting what-if",
	StagePlacement:  "Replica placement",
}

func renderHTML(in *Input, jobs []Job, idx *Index, figs []*figure, inline map[string]bool, opts Options) ([]byte, error) {
	v := &view{Title: in.Title, S: idx.Summary, Stages: map[string]*viewStage{}, Skipped: in.Skipped, InlineJobs: opts.InlineJobs, Plan: in.Plan, Sim: in.Simulation,
		Quality: newQualityView(&idx.DataQuality), Est: in.Estimate, Harv: in.Harvest, Planner: in.Planner, Place: in.Placement, Cons: in.Constraints}
	if v.Title == "" {
		v.Title = "wlprof report"
	}
	for _, st := range idx.Stages {
		vs := &viewStage{Name: st.Stage, Title: stageTitles[st.Stage], Computed: st.Computed, Notes: st.Notes}
		v.Stages[st.Stage] = vs
		v.Order = append(v.Order, vs)
	}
	for _, p := range patterns {
		v.Patterns = append(v.Patterns, patternCount{p, idx.Summary.TenantsByPattern[p]})
	}
	if in.Tenants != nil && in.Tenants.File != nil {
		t := in.Tenants.File
		v.Tenants = t
		n := min(len(t.Tenants), opts.InlineTenants)
		v.TenantRows, v.MoreTenants = t.Tenants[:n], len(t.Tenants)-n
		for _, w := range t.Warnings {
			v.Warnings = append(v.Warnings, viewWarning{Where: "classify", Anchor: "classify", Text: w})
		}
	}
	byJob := map[string]*viewJob{}
	for i := range jobs {
		p := jobs[i].Profile
		vj := &viewJob{ID: p.Job, Anchor: fmt.Sprintf("job-%d", i+1), Profile: href("profiles/" + profile.FileName(p.Job)),
			P: p, Inline: inline[p.Job], Warnings: p.Warnings}
		if len(jobs[i].Reservation) > 0 {
			vj.YARN = href("reservations/" + profile.FileName(p.Job))
		}
		for _, sw := range jobs[i].Sweeps {
			vj.ProfRuns += len(sw.Points)
		}
		if vj.ProfRuns == 0 {
			vj.ProfRuns = len(jobs[i].Measured)
		}
		byJob[p.Job] = vj
		v.Jobs = append(v.Jobs, vj)
		if p.SLO != nil {
			v.SLOJobs = append(v.SLOJobs, vj)
		}
		if p.Skyline != nil {
			v.SkyJobs = append(v.SkyJobs, vj)
		}
		if len(p.Elasticity) > 0 {
			v.ElastJobs = append(v.ElastJobs, vj)
		}
		if len(jobs[i].Sweeps) > 0 {
			v.SweepJobs = append(v.SweepJobs, vj)
		}
		for _, w := range p.Warnings {
			v.Warnings = append(v.Warnings, viewWarning{Where: p.Job, Anchor: vj.Anchor, Text: w})
		}
	}
	reasons(v, in, byJob)
	v.Warnings = groupWarnings(v.Warnings)
	for _, f := range figs {
		vf := viewFigure{Title: f.Title, SVG: template.HTML(f.svg), SVGHref: href(f.SVG)}
		if f.PNG != "" {
			vf.PNGHref = href(f.PNG)
		}
		if f.Job != "" {
			byJob[f.Job].Figures = append(byJob[f.Job].Figures, vf)
		} else {
			v.Stages[f.Stage].Figures = append(v.Stages[f.Stage].Figures, vf)
		}
	}
	var b bytes.Buffer
	if err := page().Execute(&b, v); err != nil {
		return nil, err
	}
	// Names from input files are shown with their invisible characters
	// (bidi overrides, controls) escaped, so no name renders as another.
	// The page has no script, so the escapes are plain text everywhere.
	return []byte(safetext.Escape(string(alignTables(b.Bytes())))), nil
}

// reasons puts every "skipped" and "not computed" where it shows: a stage's
// left-out jobs in its section, and in each job's section why it has no
// SLO, no skyline or no model of a task.
func reasons(v *view, in *Input, byJob map[string]*viewJob) {
	for _, sk := range in.Skipped {
		vj := byJob[sk.Job]
		vs := viewSkipped{Skipped: sk}
		if vj != nil {
			vs.Anchor = vj.Anchor
		}
		if st := v.Stages[sk.Stage]; st != nil {
			st.Skipped = append(st.Skipped, vs)
		}
		if vj == nil {
			continue
		}
		switch sk.Stage {
		case StageSLO:
			vj.SLOWhy = "not computed: " + sk.Reason
		case StageSkyline:
			vj.SkylineWhy = "not fitted: " + sk.Reason
			// The skyline stage also warns "skyline not fitted: REASON" in
			// the profile; the job's section says it once, in place (the
			// caveats still list it).
			var ws []string
			for _, w := range vj.Warnings {
				if w != "skyline not fitted: "+sk.Reason {
					ws = append(ws, w)
				}
			}
			vj.Warnings = ws
		case StageElasticity:
			vj.NotModelled = append(vj.NotModelled, sk.Reason)
		}
	}
	absent := func(stage string) string {
		if why := in.Absent[stage]; why != "" {
			return "not computed: " + why
		}
		if n := in.Notes[stage]; len(n) > 0 {
			return "not computed: " + n[0]
		}
		return "not computed"
	}
	for _, vj := range v.Jobs {
		if vj.P.SLO == nil && vj.SLOWhy == "" {
			vj.SLOWhy = absent(StageSLO)
		}
		if vj.P.Skyline == nil && vj.SkylineWhy == "" {
			vj.SkylineWhy = absent(StageSkyline)
		}
	}
}

var funcs = template.FuncMap{
	// num writes a number for a table: 3 significant digits, no exponent.
	"num": func(x float64) string {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Sprint(x)
		}
		return sig(x)
	},
	"pct": func(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) },
	// gib writes a memory size in the unit that fits it (MiB for a
	// MiB-sized task, not "0.02 GiB"), 3 significant digits.
	"gib":    func(x float64) string { return memText(x, x) },
	"dur":    timeflag.FormatSeconds,
	"offset": timeflag.FormatOffset,
	"hours":  func(s float64) string { return fmt.Sprintf("%.4g", s/3600) },
	"ratio": func(a, b float64) string {
		if b == 0 {
			return "–"
		}
		return fmt.Sprintf("%.2f", a/b)
	},
	"deref":      func(p *float64) float64 { return *p },
	"minus":      func(a, b int) int { return a - b },
	"plus":       func(a, b int) int { return a + b },
	"pathParts":  pathParts,
	"hasDate":    hasDate,
	"sig":        sig,
	"policyName": policyName,
	"term":       term,
	"stageTitle": func(s string) string { return stageTitles[s] },
	"deref64i":   func(p *int) int { return *p },
	"memOf":      func(p *int64) string { return bytesize.Human(float64(*p)) },
	"round":      func(p *float64) float64 { return math.Round(*p) },
	"glossary":   func() []GlossaryTerm { return Glossary },
	"wrap":       wrapName,
	"thousands":  thousands,
	"share":      share,
	"stage":      func(m map[string]*viewStage, s string) *viewStage { return m[s] },
	"sorted": func(m map[string]float64) []string {
		k := make([]string, 0, len(m))
		for n := range m {
			k = append(k, n)
		}
		sort.Strings(k)
		return k
	},
}

// page is the report's template, parsed when a report is first written:
// parsed at start-up, with the sections each file adds (sections), it cost
// every wlprof command 4 ms and 10,000 allocations before it began.
var page = sync.OnceValue(func() *template.Template {
	t := template.Must(template.New("index").Funcs(funcs).Parse(pageHTML))
	for _, add := range sections {
		add(t)
	}
	return t
})

// sections add their templates to the page, in the order of their files'
// init functions.
var sections []func(page *template.Template)

const pageHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#222;max-width:1100px;margin:0 auto;padding:0 1.2em 4em;background:#fff}
h1{margin:.8em 0 .2em}h2{border-bottom:2px solid #ddd;padding-bottom:.2em;margin-top:2em}h3{margin:1.6em 0 .4em;word-break:break-all}
nav a{margin-right:1em}table{border-collapse:collapse;margin:.6em 0;font-size:14px}
th,td{border-bottom:1px solid #e4e4e4;padding:.25em .6em;text-align:right;vertical-align:top}
th:first-child,td:first-child{text-align:left;overflow-wrap:break-word}th{background:#f6f6f6}
.nc{color:#8a6d00;background:#fff8e0;padding:.4em .8em;border-left:4px solid #e0b000}
.warn{color:#8a3000}.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(15em,1fr));gap:.8em}.card{border:1px solid #ddd;border-radius:6px;padding:.6em 1em}
.card b{display:block;font-size:1.5em}figure{margin:1em 0}figcaption{font-size:13px;color:#555}
table.dq{width:100%;table-layout:fixed}.dq td{overflow-wrap:anywhere}.dq td.file{word-break:normal}.dq td:nth-child(2),.dq td.why,.dq th:nth-child(2),.dq th:last-child{text-align:left}
.dq tr.total td{font-weight:bold;border-top:2px solid #ccc}.dq tr.sub td{color:#777;background:#fafafa;font-size:13px}.dq td.why b{font-weight:600;margin-right:.3em}
.dq th:nth-child(1){width:28%}.dq th:nth-child(2){width:11%}.dq th:nth-child(3),.dq th:nth-child(4){width:7%}.dq th:nth-child(5){width:7%}.dq td:nth-child(5){white-space:nowrap}
svg.fig{width:100%;height:auto;display:block}.figs{display:grid;grid-template-columns:repeat(auto-fill,minmax(460px,1fr));gap:0 1.2em}.muted{color:#777}
.answers{display:grid;grid-template-columns:repeat(auto-fit,minmax(30em,1fr));gap:1em}.answer{border:1px solid #ccd;border-radius:6px;padding:.2em 1em .6em;background:#fbfbfe;min-width:0}
.answer h3{margin:.5em 0 .3em}.answer p,.answer li{overflow-wrap:anywhere}.answer td:first-child,.answer th:first-child{overflow-wrap:normal;word-break:normal}.answer table{width:100%}.answer code{font-size:12px;overflow-wrap:anywhere;background:#f2f2f2;padding:0 .2em}ol.actions li{margin:.3em 0}
td.l,th.l{text-align:left}td.nw{white-space:nowrap}
td.n,th.n{text-align:right!important}td.t,th.t{text-align:left!important}ul.why{margin:.3em 0;padding-left:1.4em;font-size:14px}
</style>
</head>
<body>
<header>
<h1>{{.Title}}</h1>
<p class="muted">wlprof report: {{.S.Tenants}} tenants, {{.S.Jobs}} recurring jobs. Profiles for schedulers are in <code>profiles/</code> and <code>tenants.json</code>; every figure is also in <code>plots/</code> as SVG and PNG.</p>
<nav><a href="#answers">Answers</a><a href="#summary">Summary</a>{{range .Order}}<a href="#{{.Name}}">{{.Title}}</a>{{end}}<a href="#quality">Data quality</a><a href="#jobs">Jobs</a><a href="#glossary">Glossary</a><a href="#caveats">Caveats ({{plus .S.Warnings .S.Skipped}})</a></nav>
</header>

{{template "decisions" .}}

<section id="summary">
<h2>Summary</h2>
<div class="cards">
<div class="card">Tenants{{if .Tenants}}<b>{{.S.Tenants}}</b>{{range .Patterns}}{{.Pattern}}: {{.N}}<br>{{end}}{{else}}<b>–</b>not computed{{end}}</div>
<div class="card">Actionable SLOs{{if .S.JobsWithSLO}}<b>{{.S.JobsActionable}} / {{.S.JobsWithSLO}}</b>of the {{.S.JobsWithSLO}} jobs with an inferred SLO ({{.S.Jobs}} jobs in all); <a href="#slo">why not</a>{{else}}<b>–</b>not computed{{end}}</div>
<div class="card">Reserved vs used{{if .S.JobsWithSkyline}}<b>{{ratio .S.ReservedPerDayContainerS .S.UsedPerDayContainerS}}×</b>{{hours .S.ReservedPerDayContainerS}} vs {{hours .S.UsedPerDayContainerS}} container·h a day, {{.S.JobsWithSkyline}} jobs weighted by runs a day{{if .S.JobsWithoutPeriod}} ({{.S.JobsWithoutPeriod}} without a period counted once){{end}}{{with stage .Stages "skyline"}}{{with .Skipped}}; {{len .}} left out{{end}}{{end}}{{else}}<b>–</b>not computed{{end}}</div>
<div class="card">Elastic savings{{if .S.ElasticSavingsFraction}}<b>{{pct (deref .S.ElasticSavingsFraction)}}</b>of ideal memory at ≤ {{pct .S.MaxPenalty}} slower, {{.S.ElasticityModels}} models{{with stage .Stages "elasticity"}}{{with .Skipped}}; {{len .}} task{{if ne (len .) 1}}s{{end}} left out{{end}}{{end}}{{else}}<b>–</b>not computed{{end}}</div>
<div class="card">Inputs{{with .Quality}}{{if .Inputs}}<b>{{len .Inputs}}</b>{{if .Rejected}}{{thousands .Rejected}} records rejected ({{share .RejectedFraction}}) in {{.InputsWithRejects}} of them{{else}}no record rejected{{end}}{{else}}<b>–</b>not known{{end}}{{end}}; <a href="#quality">data quality</a></div>
<div class="card">Caveats<b>{{plus .S.Warnings .S.Skipped}}</b>{{.S.Warnings}} warnings, {{.S.Skipped}} skipped, each with its reason; <a href="#caveats">see below</a></div>
</div>
{{if .Tenants}}{{template "headroom" .}}
{{else}}<p class="nc">Headroom by class: not computed (no classify results).</p>{{end}}
</section>

{{with stage .Stages "classify"}}<section id="classify">
<h2>{{.Title}}</h2>
{{range .Notes}}<p class="nc">{{.}}</p>{{end}}
{{if not .Computed}}<p class="nc">Not computed{{if .Skipped}}: every job was left out, for the reasons below{{end}}.</p>{{end}}
{{if .Figures}}<div class="figs">{{range .Figures}}<figure>{{.SVG}}<figcaption>{{.Title}} · <a href="{{.SVGHref}}">SVG</a>{{if .PNGHref}} · <a href="{{.PNGHref}}">PNG</a>{{end}}</figcaption></figure>
{{end}}</div>{{end}}{{end}}
{{if .Tenants}}
<h3>Ranking of patterns per job type</h3>
<table><tr><th>job type</th><th>patterns, most preferred first</th></tr>
<tr><td>short</td><td>{{range .Tenants.Ranking.Short}}{{.}} {{end}}</td></tr>
<tr><td>medium</td><td>{{range .Tenants.Ranking.Medium}}{{.}} {{end}}</td></tr>
<tr><td>long</td><td>{{range .Tenants.Ranking.Long}}{{.}} {{end}}</td></tr></table>
<h3>Tenants</h3>
<table><tr><th>tenant</th><th class="l">pattern</th><th>class</th><th>period</th><th>strength</th><th>mean</th><th>peak</th></tr>
{{range .TenantRows}}<tr><td>{{wrap .Tenant}}</td><td class="l">{{.Pattern}}{{with .Reason}}: <span class="muted">{{.}}</span>{{end}}</td><td class="nw">{{if .Class}}{{.Class}}{{else}}–{{end}}</td><td>{{if .PeriodS}}{{dur (deref .PeriodS)}}{{else}}–{{end}}</td><td>{{num .Strength}}</td><td>{{num .Mean}}</td><td>{{num .Peak}}</td></tr>
{{end}}</table>
{{if .MoreTenants}}<p class="muted">{{.MoreTenants}} more tenants in <a href="tenants.json">tenants.json</a>.</p>{{end}}
{{end}}
</section>

{{with stage .Stages "slo"}}<section id="slo">
<h2>{{.Title}}</h2>
{{range .Notes}}<p class="nc">{{.}}</p>{{end}}
{{if not .Computed}}<p class="nc">Not computed{{if .Skipped}}: every job was left out, for the reasons below{{end}}.</p>{{end}}
{{if .Figures}}<div class="figs">{{range .Figures}}<figure>{{.SVG}}<figcaption>{{.Title}} · <a href="{{.SVGHref}}">SVG</a>{{if .PNGHref}} · <a href="{{.PNGHref}}">PNG</a>{{end}}</figcaption></figure>
{{end}}</div>{{end}}{{end}}
{{if .SLOJobs}}<p>{{.S.JobsWithSLO}} jobs with an inferred SLO: {{.S.JobsActionable}} actionable, {{minus .S.JobsWithSLO .S.JobsActionable}} not (why is in the last column){{if ne .S.Jobs .S.JobsWithSLO}}; {{minus .S.Jobs .S.JobsWithSLO}} of the {{.S.Jobs}} jobs have none (their sections below say why){{end}}.</p>
<table><tr><th>job</th><th>period</th><th>arrival</th><th>deadline</th><th>slack</th><th>actionable</th><th class="l">why not / override</th></tr>
{{range .SLOJobs}}{{$s := .P.SLO}}<tr><td><a href="#{{.Anchor}}">{{wrap .ID}}</a></td><td>{{if .P.PeriodS}}{{dur .P.PeriodS.Value}}{{else}}–{{end}}</td>
<td>{{with $s.ArrivalS}}{{offset .Value}} <span class="muted">({{.Source}})</span>{{else}}–{{end}}</td><td>{{with $s.DeadlineS}}{{offset .Value}} <span class="muted">({{.Source}})</span>{{else}}–{{end}}</td>
<td>{{if $s.SlackRatio}}{{num (deref $s.SlackRatio)}}{{else}}–{{end}}</td><td>{{if $s.Actionable}}yes{{else}}no{{end}}</td><td class="l">{{$s.Reason}}{{if $s.Override.Applies}}{{if $s.Reason}}; {{end}}<span class="muted">override: {{$s.Override.File}}</span>{{end}}</td></tr>
{{end}}</table>{{end}}
</section>

{{with stage .Stages "skyline"}}<section id="skyline">
<h2>{{.Title}}</h2>
{{range .Notes}}<p class="nc">{{.}}</p>{{end}}
{{if not .Computed}}<p class="nc">Not computed{{if .Skipped}}: every job was left out, for the reasons below{{end}}.</p>{{end}}{{end}}
{{if .SkyJobs}}<p class="muted">Reserved and used areas in container·hours per run; over- and under-allocation in container·steps, means over runs. Figures of the {{.InlineJobs}} largest reservations are shown with their job below; all are in plots/.</p>
<table><tr><th>job</th><th>runs</th><th>step</th><th>peak</th><th>reserved</th><th>used</th><th>ratio</th><th>over</th><th>under</th></tr>
{{range .SkyJobs}}{{$k := .P.Skyline}}<tr><td><a href="#{{.Anchor}}">{{wrap .ID}}</a></td><td>{{$k.Runs}}</td><td>{{dur $k.StepS}}</td><td>{{$k.PeakReservation}}</td><td>{{hours $k.ReservedAreaContainerS}}</td><td>{{hours $k.UsedAreaContainerS}}</td><td>{{num $k.ProvisioningRatio}}</td><td>{{num $k.OverAllocation}}</td><td>{{num $k.UnderAllocation}}</td></tr>
{{end}}</table>{{end}}
{{with stage .Stages "skyline"}}{{template "skipped" .Skipped}}{{end}}
</section>

{{with stage .Stages "plan"}}<section id="plan">
<h2>{{.Title}}</h2>
{{range .Notes}}<p class="nc">{{.}}</p>{{end}}
{{if not .Computed}}<p class="nc">Not computed{{if .Skipped}}: every job was left out, for the reasons below{{end}}.</p>{{end}}
{{if .Figures}}<div class="figs">{{range .Figures}}<figure>{{.SVG}}<figcaption>{{.Title}} · <a href="{{.SVGHref}}">SVG</a>{{if .PNGHref}} · <a href="{{.PNGHref}}">PNG</a>{{end}}</figcaption></figure>
{{end}}</div>{{end}}{{end}}
{{with .Plan}}{{if .Rows}}<p>Footprint <b>{{.Footprint}}</b> containers over a {{dur .LCMS}} LCM: naive {{.NaiveFootprint}}, lower bound {{.LowerBound}}. Each job is fitted on its earlier runs and its later runs are replayed against its reservation alone (no opportunistic capacity), with and without dynamic reprovisioning (DRA).</p>
<table><tr><th>job</th><th>period</th><th>window</th><th>offset</th><th>steps</th><th>peak</th><th>fitted on</th><th>held out</th><th>missed</th><th>missed with DRA</th><th>DRA added</th></tr>
{{range .Rows}}<tr><td>{{wrap .Job}}{{if .Naive}} <span class="muted">(kept at arrival)</span>{{end}}</td><td>{{dur .PeriodS}}</td><td>{{dur .WindowStartS}} – {{dur .WindowEndS}}</td><td>{{dur .OffsetS}}</td><td>{{.Steps}}</td><td>{{.Peak}}</td><td>{{.TrainRuns}}</td><td>{{.TestRuns}}</td><td>{{.Misses}}</td><td>{{.MissesDRA}}</td><td>{{hours .DRAAddedContainerS}} container·h</td></tr>
{{end}}</table>{{end}}{{if .NotPlanned}}<p class="muted">Not planned:</p><ul>{{range .NotPlanned}}<li>{{.Job}}: {{.Reason}}</li>{{end}}</ul>{{end}}{{end}}
</section>

{{with stage .Stages "elasticity"}}<section id="elasticity">
<h2>{{.Title}}</h2>
{{range .Notes}}<p class="nc">{{.}}</p>{{end}}
{{if not .Computed}}<p class="nc">Not computed{{if .Skipped}}: every job was left out, for the reasons below{{end}}.</p>{{end}}{{end}}
{{if .ElastJobs}}<table><tr><th>job</th><th>task</th><th>framework</th><th>model</th><th>ideal memory</th><th>ideal runtime</th><th>validation error (mean / max)</th></tr>
{{range .ElastJobs}}{{$j := .}}{{range .P.Elasticity}}<tr><td><a href="#{{$j.Anchor}}">{{$j.ID}}</a></td><td>{{.Task}}</td><td>{{.Framework}}</td><td>{{.Kind}}</td><td>{{gib .IdealMemoryBytes}}</td><td>{{dur .IdealRuntimeS}}</td><td>{{with .Validation}}{{pct .MeanAbsError}} / {{pct .MaxAbsError}} ({{.Runs}} runs){{else}}–{{end}}</td></tr>
{{end}}{{end}}</table>{{end}}
{{with stage .Stages "elasticity"}}{{template "skipped" .Skipped}}{{end}}
</section>

{{with stage .Stages "profiler"}}<section id="profiler">
<h2>{{.Title}}</h2>
{{range .Notes}}<p class="nc">{{.}}</p>{{end}}
{{if not .Computed}}<p class="nc">Not computed{{if .Skipped}}: every job was left out, for the reasons below{{end}}.</p>{{end}}{{end}}
{{if .SweepJobs}}<ul>{{range .SweepJobs}}<li><a href="#{{.Anchor}}">{{wrap .ID}}</a></li>{{end}}</ul>{{end}}
</section>

{{template "simulate" .}}

{{template "estimate" .}}

{{template "harvest" .}}
{{template "placement" .}}

{{template "constraints" .}}
{{template "quality" .}}
{{template "glossary" .}}

<section id="jobs">
<h2>Jobs</h2>
{{if not .Jobs}}<p class="nc">No recurring jobs.</p>{{end}}
{{if hasDate .Jobs}}<p class="muted">A <code>&lt;date&gt;</code> in a job's name stands for the date its runs' names carried (20240107, 2024-01-07): dates and run numbers are not part of a recurring job's identity, so the slo stage takes them out to find the runs of one job (Jyothi et al., OSDI'16 §4).</p>{{end}}
{{range .Jobs}}<section class="job" id="{{.Anchor}}">
<h3>{{.ID}}</h3>
<p class="muted"><a href="{{.Profile}}">profile</a>{{if .YARN}} · <a href="{{.YARN}}">YARN reservation</a>{{end}}{{with .P.Identity}}{{if .Runs}} · {{.Runs}} runs{{end}}{{end}}{{with .ProfRuns}} · {{.}} profiling runs{{end}}{{with .P.PeriodS}} · every {{dur .Value}} ({{.Source}}{{if .Detail}}: {{.Detail}}{{end}}){{end}}</p>
{{with .P.SLO}}<p>SLO: {{if .Actionable}}actionable{{else}}not actionable: {{.Reason}}{{end}}{{with .ArrivalS}}; arrival {{offset .Value}} ({{.Source}}{{if .Detail}}: {{.Detail}}{{end}}){{end}}{{with .DeadlineS}}; deadline {{offset .Value}} ({{.Source}}{{if .Detail}}: {{.Detail}}{{end}}){{end}}</p>{{else}}<p class="muted">SLO: {{.SLOWhy}}.</p>{{end}}
{{with .P.Skyline}}<p>Skyline: {{.Runs}} runs at {{dur .StepS}} steps, α={{num .Alpha}}, β={{num .Beta}}; peak {{.PeakReservation}} containers; reserved {{hours .ReservedAreaContainerS}} vs used {{hours .UsedAreaContainerS}} container·h (×{{num .ProvisioningRatio}}).</p>{{else}}<p class="muted">Skyline: {{.SkylineWhy}}.</p>{{end}}
{{range .NotModelled}}<p class="muted">Elasticity: not modelled: {{.}}.</p>{{end}}
{{range .P.Elasticity}}<p>{{.Task}} tasks: {{.Kind}} model, ideal {{gib .IdealMemoryBytes}} for {{dur .IdealRuntimeS}}.</p>{{if .Params}}<details class="muted"><summary>the model's {{len .Params}} fitted parameters</summary><ul class="why">{{range $k, $v := .Params}}<li>{{$k}} = {{num $v}}</li>{{end}}</ul></details>{{end}}{{end}}
{{range .P.Phases}}{{if eq .Phase ""}}{{else}}<p class="muted">phase {{.Phase}}: {{.Tasks}} tasks of {{dur .TaskRuntimeS}}, CPU {{pct .CPUShare}}, IO {{pct .IOShare}}, {{gib .MemoryBytes}}, {{.Slots}} slots</p>{{end}}{{end}}
{{if .Inline}}{{if .Figures}}<div class="figs">{{range .Figures}}<figure>{{.SVG}}<figcaption>{{.Title}} · <a href="{{.SVGHref}}">SVG</a>{{if .PNGHref}} · <a href="{{.PNGHref}}">PNG</a>{{end}}</figcaption></figure>
{{end}}</div>{{end}}{{else}}{{if .Figures}}<p class="muted">Figures: {{range .Figures}}<a href="{{.SVGHref}}">{{.Title}}</a> {{end}}</p>{{end}}{{end}}
{{if .Warnings}}<ol class="warn">{{range .Warnings}}<li>{{.}}</li>{{end}}</ol>{{end}}
</section>
{{end}}
</section>

<section id="caveats">
<h2>Caveats</h2>
{{if not .Warnings}}{{if not .Skipped}}<p>No warnings.</p>{{end}}{{end}}
{{if .Warnings}}<ol class="warn">{{range .Warnings}}<li><a href="#{{.Anchor}}">{{.Where}}</a>: {{.Text}}</li>
{{end}}</ol>{{end}}
{{if .Skipped}}<h3>Skipped</h3><table><tr><th>job</th><th>stage</th><th>reason</th></tr>
{{range .Skipped}}<tr><td>{{wrap .Job}}</td><td>{{.Stage}}</td><td>{{.Reason}}</td></tr>
{{end}}</table>{{end}}
</section>
</body>
</html>
{{define "skipped"}}{{if .}}<p class="muted">Left out ({{len .}}):</p><ul class="why">{{range .}}<li>{{if .Anchor}}<a href="#{{.Anchor}}">{{.Job}}</a>{{else}}{{.Job}}{{end}}: {{.Reason}}</li>{{end}}</ul>{{end}}{{end}}`
