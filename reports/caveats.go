package reports

import (
	"fmt"
	"html/template"
	"regexp"
	"strings"
)

// A stage often warns the same thing of many classes, tenants or jobs
// ("class constant-1 has no sample at …" thirteen times): the caveats
// show it once, with the others named.
var (
	warnSubject = regexp.MustCompile(`\b(class|tenant|job|task|server) (\S+)`)
	warnNumber  = regexp.MustCompile(`\d+([.:T-]\d+)*Z?`)
)

// maxNamed is how many others a grouped warning names.
const maxNamed = 12

// warnShape is a warning with its subject and numbers masked.
func warnShape(s string) string {
	return warnNumber.ReplaceAllString(warnSubject.ReplaceAllString(s, "$1 …"), "#")
}

// groupWarnings folds warnings of one place that differ only in their
// subject and numbers into the first, which names the others.
func groupWarnings(ws []viewWarning) []viewWarning {
	type group struct {
		first  int
		others []string
	}
	var out []viewWarning
	groups := map[string]*group{}
	var order []string
	for _, w := range ws {
		m := warnSubject.FindStringSubmatch(w.Text)
		if m == nil {
			out = append(out, w)
			continue
		}
		key := w.Where + "\x00" + warnShape(w.Text)
		if g := groups[key]; g != nil {
			g.others = append(g.others, m[1]+" "+m[2])
			continue
		}
		groups[key] = &group{first: len(out)}
		order = append(order, key)
		out = append(out, w)
	}
	for _, k := range order {
		g := groups[k]
		if len(g.others) == 0 {
			continue
		}
		names := g.others
		more := ""
		if len(names) > maxNamed {
			more = fmt.Sprintf(" and %d more", len(names)-maxNamed)
			names = names[:maxNamed]
		}
		out[g.first].Text += fmt.Sprintf(" (the same, with other times or numbers, for %d more: %s%s)", len(g.others), strings.Join(names, ", "), more)
	}
	return out
}

// wrapName writes a name from the traces (a job, a tenant) escaped, with
// a line-break opportunity (<wbr>) after each separator (_ - / . : + @)
// and every 16 characters of a longer unbroken run, such as a 64-character
// hash: table cells wrap names there, never mid-word, and never overflow
// (with CSS overflow-wrap:anywhere a table shrank the column and cut
// "daily_sales_03_enrich" anywhere).
func wrapName(s string) template.HTML {
	var b strings.Builder
	run := 0
	for _, r := range s {
		if run == 16 {
			b.WriteString("<wbr>")
			run = 0
		}
		b.WriteString(template.HTMLEscapeString(string(r)))
		run++
		if strings.ContainsRune("_-/.:+@", r) {
			b.WriteString("<wbr>")
			run = 0
		}
	}
	return template.HTML(b.String())
}
