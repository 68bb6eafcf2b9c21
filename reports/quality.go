package reports

import (
	"html/template"
	"strconv"
	"strings"
)

// DataInput is one ingested input as the data-quality section shows it:
// what the dataset's manifest and rejects table say of it. Package
// pipeline builds it (dataset.RejectsBySource); this package imports no
// dataset.
type DataInput struct {
	// File is the input's path as ingest recorded it; Ingest is the
	// ingest that read it (a file ingested twice is two inputs).
	File, Format string
	Ingest       int
	// Accepted and Rejected are the manifest's counts of the input's
	// records.
	Accepted, Rejected int64
	// Reasons count the rejected records per reason, most frequent first.
	Reasons []RejectReason
}

// RejectReason is how many records of an input were rejected for one
// reason.
type RejectReason struct {
	Reason string `json:"reason"`
	Count  int64  `json:"count"`
}

// TopReasons is how many reasons per input the section and index.json
// show; wlprof rejects --file lists them all.
const TopReasons = 3

// DataQuality is index.json's data_quality: per input, what was accepted
// and rejected, and the most frequent reasons; then the totals.
type DataQuality struct {
	Inputs []DataQualityInput `json:"inputs"`
	// InputsWithRejects is how many inputs had a record rejected.
	InputsWithRejects int   `json:"inputs_with_rejects"`
	Accepted          int64 `json:"accepted"`
	Rejected          int64 `json:"rejected"`
	// RejectedFraction is Rejected over Accepted + Rejected (0 without
	// records).
	RejectedFraction float64 `json:"rejected_fraction"`
}

// DataQualityInput is one input of DataQuality.
type DataQualityInput struct {
	File             string  `json:"file"`
	Format           string  `json:"format"`
	Ingest           int     `json:"ingest"`
	Accepted         int64   `json:"accepted"`
	Rejected         int64   `json:"rejected"`
	RejectedFraction float64 `json:"rejected_fraction"`
	// TopReasons are up to TopReasons reasons, most frequent first;
	// Reasons is how many distinct reasons there are in all.
	TopReasons []RejectReason `json:"top_reasons"`
	Reasons    int            `json:"reasons"`
	// OtherRejected is the rejected records of the reasons not in
	// TopReasons.
	OtherRejected int64 `json:"other_rejected"`
}

func fraction(part, whole int64) float64 {
	if whole <= 0 {
		return 0
	}
	return float64(part) / float64(whole)
}

// dataQuality sums up the inputs, in the order given (the manifest's).
func dataQuality(inputs []DataInput) DataQuality {
	q := DataQuality{Inputs: []DataQualityInput{}}
	for _, in := range inputs {
		top := in.Reasons[:min(len(in.Reasons), TopReasons)]
		d := DataQualityInput{File: in.File, Format: in.Format, Ingest: in.Ingest, Accepted: in.Accepted, Rejected: in.Rejected,
			RejectedFraction: fraction(in.Rejected, in.Accepted+in.Rejected),
			TopReasons:       append([]RejectReason{}, top...), Reasons: len(in.Reasons)}
		for _, r := range in.Reasons[len(top):] {
			d.OtherRejected += r.Count
		}
		q.Inputs = append(q.Inputs, d)
		q.Accepted += in.Accepted
		q.Rejected += in.Rejected
		if in.Rejected > 0 {
			q.InputsWithRejects++
		}
	}
	q.RejectedFraction = fraction(q.Rejected, q.Accepted+q.Rejected)
	return q
}

// qualityView splits the inputs for the section: those with rejects
// first, each part in the manifest's order.
type qualityView struct {
	*DataQuality
	WithRejects, Clean []DataQualityInput
}

func newQualityView(q *DataQuality) *qualityView {
	v := &qualityView{DataQuality: q}
	for _, in := range q.Inputs {
		if in.Rejected > 0 {
			v.WithRejects = append(v.WithRejects, in)
		} else {
			v.Clean = append(v.Clean, in)
		}
	}
	return v
}

// pathParts cuts a path after each slash, so that the page can break a
// long path between its directories (<wbr>) rather than anywhere.
func pathParts(p string) []string {
	var parts []string
	for {
		i := strings.IndexByte(p, '/')
		if i < 0 || i == len(p)-1 {
			return append(parts, p)
		}
		parts = append(parts, p[:i+1])
		p = p[i+1:]
	}
}

// thousands writes n with thousands separators: 721,392.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// share writes a fraction as a percentage that does not round a few
// rejects in a large input to 0%: <0.001%, 0.018%, 4.0%, 100%.
func share(x float64) string {
	switch {
	case x == 0:
		return "0%"
	case x < 0.00001:
		return "<0.001%"
	case x < 0.001:
		return strconv.FormatFloat(100*x, 'g', 2, 64) + "%"
	case x >= 1:
		return "100%"
	}
	return strconv.FormatFloat(100*x, 'f', 1, 64) + "%"
}

// qualityHTML is the section (the page's template "quality"). Paths and
// reasons come from user files: html/template escapes them, and the
// columns wrap so that a long path or reason cannot widen the page.
const qualityHTML = `{{define "quality-row"}}<tr><td class="file">{{range $i, $p := pathParts .File}}{{if $i}}<wbr>{{end}}{{$p}}{{end}}</td><td>{{.Format}}</td><td>{{thousands .Accepted}}</td><td>{{if .Rejected}}<b>{{thousands .Rejected}}</b>{{else}}0{{end}}</td><td>{{if .Rejected}}{{share .RejectedFraction}}{{else}}–{{end}}</td><td class="why">{{range .TopReasons}}<div><b>{{thousands .Count}}</b> {{.Reason}}</div>{{end}}{{if .OtherRejected}}{{$n := minus .Reasons (len .TopReasons)}}<div class="muted">and {{thousands .OtherRejected}} more for {{$n}} other reason{{if ne $n 1}}s{{end}}</div>{{end}}</td></tr>
{{end}}{{define "quality"}}<section id="quality">
<h2>Data quality</h2>
{{with .Quality}}{{if .Inputs}}<p>{{len .Inputs}} inputs ingested: {{thousands .Accepted}} records accepted, {{thousands .Rejected}} rejected ({{share .RejectedFraction}}){{if .Rejected}} in {{.InputsWithRejects}} of the inputs, listed first{{end}}. Every rejected record is kept in the dataset's rejects table with its file, line and reason: <code>wlprof rejects --file FILE</code> lists them.</p>
<table class="dq"><tr><th>input</th><th>format</th><th>accepted</th><th>rejected</th><th>share</th><th>top reasons (records)</th></tr>
{{range .WithRejects}}{{template "quality-row" .}}{{end}}{{if .Clean}}{{if .WithRejects}}<tr class="sub"><td colspan="6">{{len .Clean}} input{{if ne (len .Clean) 1}}s{{end}} without a rejected record</td></tr>
{{end}}{{range .Clean}}{{template "quality-row" .}}{{end}}{{end}}<tr class="total"><td>all {{len .Inputs}} inputs</td><td></td><td>{{thousands .Accepted}}</td><td>{{thousands .Rejected}}</td><td>{{share .RejectedFraction}}</td><td class="why">{{if .Rejected}}in {{.InputsWithRejects}} inputs{{end}}</td></tr>
</table>{{else}}<p class="nc">Not known: the report's input lists no ingested input.</p>{{end}}{{end}}
</section>{{end}}`

func init() {
	sections = append(sections, func(page *template.Template) { template.Must(page.New("quality-section").Parse(qualityHTML)) })
}
