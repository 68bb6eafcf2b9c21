package reports

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The section's numbers: per input and in total, the top reasons and what
// they leave out; an input without rejects is listed too; without inputs
// the section says so and index.json still has the field.
func TestDataQuality(t *testing.T) {
	in := synthInput(0, 1, 12)
	in.Inputs = []DataInput{
		{File: "a.csv", Format: "csv", Ingest: 1, Accepted: 90, Rejected: 10, Reasons: []RejectReason{{"bad cpu", 6}, {"3 fields", 2}, {"empty server", 1}, {"NaN", 1}}},
		{File: "clean.csv", Format: "csv", Ingest: 1, Accepted: 100},
		{File: "b.log", Format: "yarn-rm", Ingest: 2, Accepted: 0, Rejected: 1, Reasons: []RejectReason{{"no APPID", 1}}},
	}
	idx, dir := writeReport(t, in, DefaultOptions())
	q := idx.DataQuality
	if len(q.Inputs) != 3 || q.Accepted != 190 || q.Rejected != 11 || q.InputsWithRejects != 2 || q.RejectedFraction != 11.0/201 {
		t.Errorf("totals %+v", q)
	}
	a := q.Inputs[0]
	if a.RejectedFraction != 0.1 || len(a.TopReasons) != TopReasons || a.TopReasons[0] != (RejectReason{"bad cpu", 6}) || a.Reasons != 4 || a.OtherRejected != 1 {
		t.Errorf("a.csv %+v", a)
	}
	if c := q.Inputs[1]; c.File != "clean.csv" || c.RejectedFraction != 0 || c.TopReasons == nil || len(c.TopReasons) != 0 {
		t.Errorf("clean.csv %+v", c)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "index.json"))
	var back struct {
		DataQuality DataQuality `json:"data_quality"`
	}
	if err := json.Unmarshal(b, &back); err != nil || len(back.DataQuality.Inputs) != 3 || back.DataQuality.Inputs[2].TopReasons[0].Reason != "no APPID" {
		t.Errorf("index.json data_quality %+v (%v)", back.DataQuality, err)
	}
	html, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	for _, w := range []string{"3 inputs ingested: 190 records accepted, 11 rejected (5.5%) in 2 of the inputs",
		`<b>6</b> bad cpu`, "and 1 more for 1 other reason</div>", "1 input without a rejected record",
		`<td class="t">all 3 inputs</td><td class="t"></td><td class="n">190</td><td class="n">11</td><td class="n">5.5%</td>`, `<a href="#quality">Data quality</a>`} {
		if !strings.Contains(string(html), w) {
			t.Errorf("index.html lacks %q", w)
		}
	}
	// Rows with rejects come first, each part in the manifest's order.
	if i, j, k := strings.Index(string(html), ">a.csv<"), strings.Index(string(html), ">b.log<"), strings.Index(string(html), ">clean.csv<"); !(i < j && j < k) {
		t.Errorf("rows in order a.csv %d, b.log %d, clean.csv %d", i, j, k)
	}

	in.Inputs = nil
	idx, err := Write(dir, in, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(filepath.Join(dir, "index.json"))
	if idx.DataQuality.Inputs == nil || !strings.Contains(string(b), `"data_quality": {
    "inputs": [],`) {
		t.Errorf("index.json without inputs:\n%s", b)
	}
	html, _ = os.ReadFile(filepath.Join(dir, "index.html"))
	if !strings.Contains(string(html), "Not known: the report's input lists no ingested input.") {
		t.Error("the section does not say the inputs are not known")
	}
}

func TestShareAndThousands(t *testing.T) {
	for x, want := range map[float64]string{0: "0%", 1.0 / 721393: "<0.001%", 31.0 / 722663: "0.0043%", 133.0 / 721525: "0.018%", 0.04: "4.0%", 0.999: "99.9%", 1: "100%"} {
		if got := share(x); got != want {
			t.Errorf("share(%g) = %q, want %q", x, got, want)
		}
	}
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 721392: "721,392", -1234567: "-1,234,567"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
	if got := pathParts("/a/b//c.csv"); strings.Join(got, "|") != "/|a/|b/|/|c.csv" {
		t.Errorf("pathParts = %q", got)
	}
}

// wlprof report's text output says when inputs had rejects, and where to
// see them; it says nothing when none had.
func TestIndexTextDataQuality(t *testing.T) {
	idx := &Index{Dir: "r", IndexHTML: "index.html", DataQuality: DataQuality{
		Inputs: make([]DataQualityInput, 3), InputsWithRejects: 2, Accepted: 95, Rejected: 5}}
	var b strings.Builder
	if err := idx.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if want := "  data quality: 2 of 3 inputs had rejected records (5 of 100); see the report's data-quality section or wlprof rejects\n"; !strings.Contains(b.String(), want) {
		t.Errorf("text:\n%s\nwant a line %q", b.String(), want)
	}
	idx.DataQuality.Rejected, idx.DataQuality.InputsWithRejects = 0, 0
	b.Reset()
	idx.WriteText(&b)
	if strings.Contains(b.String(), "data quality") {
		t.Errorf("a line about rejects without any:\n%s", b.String())
	}
}
