package reports

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The constraints section: computed, its table with an unstable queue
// shown without a wait, both figures drawn, and trace strings escaped.
func TestConstraintsSection(t *testing.T) {
	in := synthInput(0, 2, 2)
	in.Constraints.Rows[0].Attribute = "<b>GK</b>"
	idx, dir := writeReport(t, in, DefaultOptions())
	computed := false
	for _, s := range idx.Stages {
		computed = computed || (s.Stage == StageConstraints && s.Computed)
	}
	if !computed {
		t.Errorf("constraints not computed: %+v", idx.Stages)
	}
	html, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	html = []byte(unaligned(string(html)))
	for _, w := range []string{`<section id="constraints">`, "Placement constraints", "&lt;b&gt;GK&lt;/b&gt;", "<td>unstable (ρ ≥ 1)</td>", "<td>–</td><td>–</td>", "constraints-crv.svg", "constraints-waits.svg"} {
		if !strings.Contains(string(html), w) {
			t.Errorf("index.html lacks %q", w)
		}
	}
	if strings.Contains(string(html), "<b>GK</b>") {
		t.Error("a trace string reached the page unescaped")
	}
	if ConstraintsWaits(&Constraints{Rows: []ConstraintRow{{Fit: "unstable (ρ ≥ 1)"}}}) != nil {
		t.Error("no constraint has both waits: no figure")
	}
}
