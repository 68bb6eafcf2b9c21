package reports

import (
	"html/template"
	"strings"
)

// maxRiskRows is how many at-risk jobs the first screen lists
// (index.json has them all).
const maxRiskRows = 25

// decisionsHTML is the report's first screen (template "decisions"): the
// four answers, each linking to the section that proves it.
const decisionsHTML = `{{define "decisions"}}{{with .S.Decisions}}<section id="answers">
<h2>Answers</h2>
{{with .Warning}}<p class="nc">{{.}}</p>{{end}}
<div class="answers">
<div class="answer" id="answer-cluster"><h3>How big must the cluster be?</h3>
<p>{{.Cluster.Answer}}</p>
{{if .Cluster.Sizes}}<table><tr><th class="l">policy</th><th>nodes</th><th>memory</th><th>makespan</th></tr>
{{range .Cluster.Sizes}}<tr><td class="l">{{policyName .Policy}}</td>{{if .Nodes}}<td>{{deref64i .Nodes}}</td><td>{{memOf .MemoryBytes}}</td><td>{{dur (deref .MakespanS)}}</td>{{else}}<td colspan="3">none of the searched clusters</td>{{end}}</tr>
{{end}}</table>{{end}}
{{if .Cluster.Missing}}<p class="muted">To answer fully, pass {{range $i, $m := .Cluster.Missing}}{{if $i}}; {{end}}{{$m}}{{end}}.</p>{{end}}
{{template "proof" .Cluster.Sections}}</div>
<div class="answer" id="answer-harvest"><h3>What can be harvested?</h3>
{{if .Harvest.SpareAnswer}}<p>{{.Harvest.SpareAnswer}}</p>{{end}}
{{with .Harvest.SpareCores}}<table><tr><th class="l">spare now, for</th><th>short jobs</th><th>medium jobs</th><th>long jobs</th></tr>
<tr><td class="l">cores</td><td>{{sig .Short}}</td><td>{{sig .Medium}}</td><td>{{sig .Long}}</td></tr></table>
{{if $.S.Decisions.Harvest.SpareRule}}<p class="muted">{{$.S.Decisions.Harvest.SpareRule}}; <a href="#headroom">per class</a>.</p>{{else}}<p class="muted">Spare cores = headroom (a fraction of a {{term $.S.Decisions.Platform "server"}}) × {{term $.S.Decisions.Platform "servers"}} × {{$.S.Decisions.Harvest.CoresPerServer}} cores per {{term $.S.Decisions.Platform "server"}} ({{$.S.Decisions.Harvest.CoresFrom}}); <a href="#headroom">per class</a>.</p>{{end}}{{end}}
{{if .Harvest.Replay}}<p>Replay of {{.Harvest.Window}}:</p><table><tr><th class="l">policy</th><th>work completed</th><th>{{term $.S.Decisions.Platform "containers"}} killed</th><th>mean job time</th></tr>
{{range .Harvest.Replay}}<tr><td class="l">{{.Label}}</td><td>{{sig .CompletedCoreH}} core·h</td><td>{{thousands .Killed}} of {{thousands .Containers}}</td><td>{{with .MeanJobS}}{{dur (round .)}}{{else}}–{{end}}</td></tr>
{{end}}</table>{{end}}
{{if not .Harvest.SpareAnswer}}{{if not .Harvest.Replay}}<p>{{.Harvest.Answer}}</p>{{end}}{{end}}
{{if .Harvest.Missing}}<p class="muted">To answer fully, pass {{range $i, $m := .Harvest.Missing}}{{if $i}}; {{end}}{{$m}}{{end}}.</p>{{end}}
{{template "proof" .Harvest.Sections}}</div>
<div class="answer" id="answer-risk"><h3>Which {{term $.S.Decisions.Platform "jobs"}} may miss their deadline?</h3>
<p>{{.AtRisk.Answer}}</p>
{{if .AtRisk.Jobs}}<ul class="why">{{range $i, $j := .AtRisk.Jobs}}{{if lt $i 25}}<li><b>{{$j.Job}}</b>: {{range $k, $e := $j.Evidence}}{{if $k}}; {{end}}{{$e.Text}} (<a href="#{{$e.Section}}">{{$e.Section}}</a>){{end}}</li>{{end}}{{end}}</ul>
{{if gt (len .AtRisk.Jobs) 25}}<p class="muted">{{minus (len .AtRisk.Jobs) 25}} more in index.json (summary.decisions.at_risk).</p>{{end}}{{end}}
</div>
<div class="answer" id="answer-actions"><h3>What to do?</h3>
{{if .Actions}}<ol class="actions">{{range .Actions}}<li>{{.Text}} — <b>{{.Gain}}</b>. <span class="muted">{{.Evidence}} (<a href="#{{.Section}}">{{.Section}}</a>)</span>{{if .Command}}<br><code>{{.Command}}</code>{{end}}</li>
{{end}}</ol>{{else}}<p>Nothing the data supports yet: no reservation, memory model, sizing or harvest replay with a gain.</p>{{end}}
</div>
</div>
</section>{{end}}{{end}}
{{define "proof"}}{{if .}}<p class="muted">Shown by: {{range $i, $s := .}}{{if $i}}, {{end}}<a href="#{{$s}}">{{stageTitle $s}}</a>{{end}}.</p>{{end}}{{end}}`

// term is a word of the answers in the platform's own terms (decisions.go's
// terms): a node for a Kubernetes cluster's server, a pod for its
// container, a CronJob for its recurring job.
func term(platform, word string) string {
	if platform != PlatformKubernetes {
		return word
	}
	if k, ok := map[string]string{"server": "node", "servers": "nodes", "container": "pod", "containers": "pods", "job": "CronJob", "jobs": "CronJobs"}[word]; ok {
		return k
	}
	return word
}

func init() {
	sections = append(sections, func(page *template.Template) {
		page.Funcs(funcs)
		template.Must(page.New("decisions-section").Parse(decisionsHTML))
	})
}

// sizingHTML is the simulate section's proof of the cluster answer
// (template "sizing", given the page's view).
const sizingHTML = `{{define "sizing"}}{{with .S.Decisions.Cluster}}{{if .Sizes}}<h3 id="sizing">Smallest cluster for a {{dur (deref .TargetMakespanS)}} makespan</h3>
<table class="sizing"><tr><th class="l">policy</th><th>nodes</th><th>memory</th><th>makespan</th></tr>
{{range .Sizes}}<tr><td class="l">{{policyName .Policy}}</td>{{if .Nodes}}<td>{{deref64i .Nodes}}</td><td>{{memOf .MemoryBytes}}</td><td>{{dur (deref .MakespanS)}}</td>{{else}}<td colspan="3">none of the searched clusters</td>{{end}}</tr>
{{end}}</table>{{with $.Planner}}{{with .Sizing}}<p class="muted">Workload: {{.Workload}}, on {{.Shape}}; {{.Searched}}.</p>{{end}}{{end}}{{end}}{{end}}{{end}}`

// harvestTimesHTML is the harvest section's proof of the replay's
// outcome (template "harvest-times").
const harvestTimesHTML = `{{define "harvest-times"}}{{with .S.Decisions.Harvest}}{{if .Replay}}<h3 id="harvest-work">Work and job times per policy</h3>
<table class="htimes"><tr><th class="l">policy</th><th>work completed</th><th>work lost to kills</th><th>{{term $.S.Decisions.Platform "containers"}} killed</th><th>jobs finished</th><th>mean job time</th><th>p95 job time</th></tr>
{{range .Replay}}<tr><td class="l">{{.Label}}</td><td>{{sig .CompletedCoreH}} core·h</td><td>{{sig .LostCoreH}} core·h</td><td>{{thousands .Killed}} of {{thousands .Containers}}</td><td>{{.JobsFinished}} of {{.Jobs}}</td><td>{{with .MeanJobS}}{{dur (round .)}}{{else}}–{{end}}</td><td>{{with .P95JobS}}{{dur (round .)}}{{else}}–{{end}}</td></tr>
{{end}}</table>{{end}}{{end}}{{end}}`

// headroomHTML is the summary's headroom table: each class's headroom
// as a fraction of a server and the spare cores it makes (template
// "headroom"), the proof of the harvest answer's cores.
const headroomHTML = `{{define "headroom"}}{{with .S.Decisions.Harvest}}{{if .Classes}}<h3 id="headroom">Headroom and spare cores by class</h3>
<p class="muted">Headroom is the spare fraction of {{if eq .CapacityUnits "server"}}a {{term $.S.Decisions.Platform "server"}}{{else}}a capacity unit ({{.CapacityUnits}}){{end}} a job of each type can count on; spare cores = headroom × {{term $.S.Decisions.Platform "servers"}} × {{.CoresPerServer}} cores per {{term $.S.Decisions.Platform "server"}} ({{.CoresFrom}}).</p>
<table class="headroom"><tr><th class="l">class</th><th class="l">pattern</th><th>{{term $.S.Decisions.Platform "servers"}}</th><th>headroom short</th><th>medium</th><th>long (of a {{term $.S.Decisions.Platform "server"}})</th><th>spare cores short</th><th>medium</th><th>long</th></tr>
{{range .Classes}}<tr><td class="l nw">{{.Class}}</td><td class="l">{{.Pattern}}</td><td>{{.Servers}}</td><td>{{sig .Headroom.Short}}</td><td>{{sig .Headroom.Medium}}</td><td>{{sig .Headroom.Long}}</td><td>{{sig .Cores.Short}}</td><td>{{sig .Cores.Medium}}</td><td>{{sig .Cores.Long}}</td></tr>
{{end}}{{with .SpareCores}}<tr class="total"><td class="l">all classes</td><td></td><td></td><td></td><td></td><td></td><td><b>{{sig .Short}}</b></td><td><b>{{sig .Medium}}</b></td><td><b>{{sig .Long}}</b></td></tr>{{end}}</table>
{{if .SpareCoresByHour}}<p class="muted">Over the day (the classes' representative tenants folded by UTC hour, as short jobs see it): {{range $h, $c := .SpareCoresByHour}}{{if $h}}, {{end}}{{$h}}h {{sig $c}}{{end}} cores; {{sig (deref .SpareCoreHPerDay)}} core-hours a day.</p>{{end}}{{end}}{{end}}{{end}}`

func init() {
	sections = append(sections, func(page *template.Template) {
		template.Must(page.New("sizing-section").Parse(sizingHTML))
		template.Must(page.New("harvest-times-section").Parse(harvestTimesHTML))
		template.Must(page.New("headroom-section").Parse(headroomHTML))
	})
}

// hasDate says whether a job's name holds the slo stage's <date>.
func hasDate(js []*viewJob) bool {
	for _, j := range js {
		if strings.Contains(j.ID, "<date>") {
			return true
		}
	}
	return false
}
