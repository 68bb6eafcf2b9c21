package reports

import (
	"regexp"
	"strings"
	"testing"
)

// Cells of the demo report (scripts/demo.sh) and what they are: quantities
// with units, durations, ratios and remarks are numbers; names, reasons
// and counts with a sentence after them are text.
func TestIsNumber(t *testing.T) {
	for _, s := range []string{"0.724", "16.7%", "1,590", "5s", "1h11m13s", "+10m (override)", "-41m5s (inferred)",
		"0.0% / 0.0% (2 runs)", "5.76 GiB", "57 core·h", "32.22 container·h", "10m – 30m", "236 of 14,649", "1.5e+06", "209ms"} {
		if !isNumber(s) {
			t.Errorf("%q: text, want a number", s)
		}
	}
	for _, s := range []string{"tenant-0001", "1 run, fewer than --min-runs 2", "100 unknown VM in join: vmid is not in the vm table",
		"task stage 47: show at <console>:33", "Spark shell", "blind (YARN-PT)", "yes", "insufficient: 6m of history, need at least 3d",
		"1 SparkListenerTaskEnd: truncated or invalid JSON", "testdata/jobs/skyline/offsets.csv", "–"} {
		if isNumber(s) {
			t.Errorf("%q: a number, want text", s)
		}
	}
}

// A table's cells get "n" or "t" by their content; a header and a missing
// value take their column's; a spanning cell is counted once per column;
// existing classes are kept.
func TestAlignTables(t *testing.T) {
	in := `<p>x</p><table><tr><th>job</th><th class="l">runs</th><th>why</th></tr>` +
		`<tr><td><a href="#a">a&amp;b</a></td><td>12</td><td>no &lt;slack&gt;</td></tr>` +
		`<tr><td>c</td><td class="nw">–</td><td>3 runs, fewer than 4</td></tr>` +
		`<tr><td colspan="2">none</td><td>4</td></tr></table>`
	want := `<p>x</p><table><tr><th class="t">job</th><th class="l n">runs</th><th class="t">why</th></tr>` +
		`<tr><td class="t"><a href="#a">a&amp;b</a></td><td class="n">12</td><td class="t">no &lt;slack&gt;</td></tr>` +
		`<tr><td class="t">c</td><td class="nw n">–</td><td class="t">3 runs, fewer than 4</td></tr>` +
		`<tr><td colspan="2" class="t">none</td><td class="n">4</td></tr></table>`
	if got := string(alignTables([]byte(in))); got != want {
		t.Errorf("got\n%s\nwant\n%s", strings.ReplaceAll(got, "<tr>", "\n<tr>"), strings.ReplaceAll(want, "<tr>", "\n<tr>"))
	}
}

var (
	alignOnly  = regexp.MustCompile(` class="[nt]"`)
	alignAdded = regexp.MustCompile(`class="([^"]*) [nt]"`)
)

// unaligned is a page without the classes alignTables adds, for tests of
// what the page says rather than how it aligns it.
func unaligned(page string) string {
	return alignAdded.ReplaceAllString(alignOnly.ReplaceAllString(page, ""), `class="$1"`)
}
