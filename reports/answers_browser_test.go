package reports

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// measureJS runs in a test copy of the page (the report itself has no
// script and forbids any): it lists the cells whose content is wider than
// the cell (scrollWidth > clientWidth), tables wider than their section,
// and a page wider than the window, into <pre id="measured">.
const measureJS = `<script>
(function(){
  var out = [];
  document.querySelectorAll('td, th').forEach(function(c){
    if (c.scrollWidth > c.clientWidth + 1) out.push('cell overflows: ' + c.scrollWidth + ' > ' + c.clientWidth + ': ' + c.textContent.slice(0, 60));
  });
  document.querySelectorAll('table').forEach(function(t){
    var p = t.parentElement;
    if (t.getBoundingClientRect().width > p.getBoundingClientRect().width + 1) out.push('table wider than its section: ' + t.textContent.slice(0, 60));
  });
  document.querySelectorAll('p, li, h3, figcaption, code, div, section').forEach(function(e){ if (e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1) out.push('text overflows its <' + e.tagName.toLowerCase() + '>: ' + e.scrollWidth + ' > ' + e.clientWidth + ': ' + e.textContent.slice(0, 80)); });
  var W = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth > W + 1) {
    var worst = null, far = 0;
    document.querySelectorAll('body *').forEach(function(e){ var r = e.getBoundingClientRect(); var right = r.right + window.scrollX; if (right > far) { far = right; worst = e; } });
    out.push('page wider than the window: ' + document.documentElement.scrollWidth + ' > ' + W + (worst ? ': right edge ' + Math.round(far) + ' <' + worst.tagName.toLowerCase() + (worst.className ? ' class=' + worst.className : '') + '> ' + (worst.textContent || '').slice(0, 60) : ''));
  }
  // Every table: a cell that is text (it does not start as a number, or
  // it holds two words outside parentheses) is left-aligned; a bare
  // number (digits, separators, a percent sign) is right-aligned.
  document.querySelectorAll('table').forEach(function(t, ti){
    t.querySelectorAll('td').forEach(function(c){
      var s = c.textContent.trim();
      if (s === '' || s === '\u2013') return;
      var a = getComputedStyle(c).textAlign;
      var text = !/^[-+\u2212~\u2248\u2264\u2265<>\u00d7]?\s*\.?\d/.test(s) || /[A-Za-z]{2,}[^()]*\s[A-Za-z]{2,}/.test(s.replace(/\([^()]*\)/g, ''));
      var bare = /^[-+\u2212]?[\d,]*\.?\d+(e[-+]?\d+)?%?$/.test(s);
      if (text && a !== 'left' && a !== 'start') out.push('text cell not left-aligned (' + a + ') in table ' + ti + ' (' + (t.className || t.rows[0].textContent.slice(0, 40)) + '): ' + s.slice(0, 60));
      if (bare && a !== 'right' && a !== 'end') out.push('number cell not right-aligned (' + a + ') in table ' + ti + ' (' + (t.className || t.rows[0].textContent.slice(0, 40)) + '): ' + s);
    });
  });
  var a = document.getElementById('answers');
  var answers = a ? a.querySelectorAll('.answer') : [];
  var blank = 0;
  answers.forEach(function(x){ if (x.innerText.trim().length < 40 || x.getBoundingClientRect().height < 40) blank++; });
  var pre = document.createElement('pre');
  pre.id = 'measured';
  pre.textContent = 'answers=' + answers.length + ' blank=' + blank + ' top=' + (a ? Math.round(a.getBoundingClientRect().top) : -1) + '\n' + out.join('\n');
  document.body.appendChild(pre);
})();
</script>`

var measured = regexp.MustCompile(`(?s)<pre id="measured">(.*?)</pre>`)

// measure loads a copy of page with measureJS and returns what it found.
func measure(t *testing.T, page string) string {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy"[^>]*>`).ReplaceAllString(string(b), "")
	html = strings.Replace(html, "</body>", measureJS+"</body>", 1)
	cp := filepath.Join(filepath.Dir(page), "measure.html")
	if err := os.WriteFile(cp, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(cp)
	dom, _ := chromium(t, cp, "--dump-dom", "--window-size=1280,2000")
	m := measured.FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the measuring script did not run: %.300s", dom)
	}
	return strings.NewReplacer("&gt;", ">", "&lt;", "<", "&amp;", "&").Replace(m[1])
}

// formatError is what a formatting bug leaves on a page: fmt's %!verb,
// a template's <no value> or a nil pointer, a Go map or struct dump.
var formatError = regexp.MustCompile(`%!|&lt;no value&gt;|<no value>|&lt;nil&gt;|<nil>|map\[|0x[0-9a-f]{8,}`)

// The answers are the report's first screen in a real browser: four
// non-blank answers at the top; no table cell anywhere overflows its
// column, no table its section, the page not the window; no formatting
// error reaches the page; in every table, text cells are left-aligned and
// bare numbers right-aligned. The check can fail: a cell forced too narrow
// for its text, a right-aligned text cell and a left-aligned number are
// caught.
func TestAnswersInBrowser(t *testing.T) {
	in := synthInput(300, 6, 9)
	in.Planner = plannerFor(in)
	in.Jobs[0].Profile.Job = strings.Repeat("daily_sales_enrich_", 4) + "03"
	_, dir := writeReport(t, in, DefaultOptions())
	page := filepath.Join(dir, "index.html")
	b, _ := os.ReadFile(page)
	if m := formatError.FindString(string(b)); m != "" {
		i := strings.Index(string(b), m)
		t.Errorf("a formatting error reaches the page: %q in %q", m, string(b)[max(0, i-80):min(len(b), i+80)])
	}
	got := measure(t, page)
	head, problems, _ := strings.Cut(got, "\n")
	if !strings.HasPrefix(head, "answers=4 blank=0 ") {
		t.Errorf("the first screen: %s, want the four answers, none blank", head)
	}
	var top int
	if _, err := fmtSscanf(head, &top); err != nil || top > 400 {
		t.Errorf("the answers start %d pixels down (%v): not on the first screen", top, err)
	}
	if strings.TrimSpace(problems) != "" {
		t.Errorf("overflows:\n%s", problems)
	}

	// The check is not blind: a cell forced narrower than its text.
	bad := filepath.Join(t.TempDir(), "bad.html")
	os.WriteFile(bad, []byte(`<!DOCTYPE html><html><head><style>td{max-width:30px;white-space:nowrap;overflow:hidden}</style></head><body><table><tr><td>a-very-long-unbreakable-name</td></tr></table>`+
		`<table><tr><td style="text-align:right">spark, 4 slots</td><td style="text-align:left">12.5%</td></tr></table></body></html>`), 0o644)
	p := measure(t, bad)
	for _, want := range []string{"cell overflows", "text cell not left-aligned (right)", "number cell not right-aligned (left)"} {
		if !strings.Contains(p, want) {
			t.Errorf("the bad page: %q not caught: %q", want, p)
		}
	}
}

// fmtSscanf reads the answers' top from the measure's first line.
func fmtSscanf(head string, top *int) (int, error) {
	_, rest, _ := strings.Cut(head, "top=")
	return fmt.Sscanf(rest, "%d", top)
}
