package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/reports"
)

// The data-quality section counts, per input, what ingest accepted and
// rejected and why, from the manifest and the rejects table: two inputs
// with rejects, one without, under a long directory and with a file name
// that is markup.
func TestReportDataQuality(t *testing.T) {
	ctx := context.Background()
	in := filepath.Join(t.TempDir(), strings.Repeat("a-very-long-directory-name-", 6))
	os.MkdirAll(in, 0o755)
	copyFile := func(src, name string) string {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(in, name)
		os.WriteFile(p, b, 0o644)
		return p
	}
	usage := copyFile("../testdata/usage_with_rejects.csv", "<b>usage.csv")
	offsets := copyFile("../testdata/jobs/skyline/offsets.csv", "offsets.csv")
	clean := copyFile("../testdata/resourceestimator/tpch_q12.txt", "tpch_q12.txt")
	var lines []string
	rep, err := Run(ctx, []string{in}, runOptions(filepath.Join(t.TempDir(), "out"), &lines))
	if err != nil {
		t.Fatal(err)
	}
	q := rep.Report.DataQuality
	byFile := map[string]reports.DataQualityInput{}
	for _, d := range q.Inputs {
		byFile[d.File] = d
	}
	if len(q.Inputs) != 3 || q.InputsWithRejects != 2 || q.Rejected != 7 || q.Accepted != 6+11+13 {
		t.Fatalf("totals: %d inputs, %d with rejects, %d accepted, %d rejected; want 3, 2, 30, 7", len(q.Inputs), q.InputsWithRejects, q.Accepted, q.Rejected)
	}
	if want := 7.0 / 37; q.RejectedFraction != want {
		t.Errorf("rejected fraction %g, want %g", q.RejectedFraction, want)
	}
	// usage_with_rejects.csv: 5 records rejected, each for its own
	// reason; the first 3 in the file's order, 2 more.
	u := byFile[usage]
	if u.Format != "csv" || u.Accepted != 6 || u.Rejected != 5 || u.Reasons != 5 || u.OtherRejected != 2 || u.RejectedFraction != 5.0/11 {
		t.Errorf("%s: %+v", usage, u)
	}
	if want := []reports.RejectReason{{Reason: "cpu is NaN", Count: 1}, {Reason: "cpu 1.7 is above 1 but the file's unit is fraction (cpu unit: fraction (from the header name)); pass --cpu-unit percent if it is percent", Count: 1},
		{Reason: "4 fields, the header has 5", Count: 1}}; !reflect.DeepEqual(u.TopReasons, want) {
		t.Errorf("%s: top reasons %+v", usage, u.TopReasons)
	}
	o := byFile[offsets]
	if want := []reports.RejectReason{{Reason: "containers is NaN", Count: 1}, {Reason: "containers -2 is negative", Count: 1}}; o.Format != "skyline-csv" || o.Accepted != 11 ||
		o.Rejected != 2 || o.Reasons != 2 || o.OtherRejected != 0 || !reflect.DeepEqual(o.TopReasons, want) {
		t.Errorf("%s: %+v", offsets, o)
	}
	c := byFile[clean]
	if c.Format != "re-native" || c.Accepted != 13 || c.Rejected != 0 || c.Reasons != 0 || c.TopReasons == nil || len(c.TopReasons) != 0 {
		t.Errorf("%s: %+v", clean, c)
	}
	b, err := os.ReadFile(filepath.Join(rep.Report.Dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	i := strings.Index(html, `<section id="quality">`)
	if i < 0 {
		t.Fatal("no data-quality section")
	}
	sec := html[i:]
	sec = sec[:strings.Index(sec, "</section>")]
	for _, w := range []string{"3 inputs ingested: 30 records accepted, 7 rejected (18.9%) in 2 of the inputs",
		"&lt;b&gt;usage.csv", `<td class="n"><b>5</b></td><td class="n">45.5%</td>`, "<b>1</b> containers is NaN", "and 2 more for 2 other reasons",
		"1 input without a rejected record", `tpch_q12.txt</td><td class="t">re-native</td><td class="n">13</td><td class="n">0</td><td class="n">–</td>`,
		`<td class="t">all 3 inputs</td><td class="t"></td><td class="n">30</td><td class="n">7</td><td class="n">18.9%</td>`} {
		if !strings.Contains(sec, w) {
			t.Errorf("the section lacks %q:\n%s", w, sec)
		}
	}
	if strings.Contains(html, "<b>usage") {
		t.Error("a file name is markup in the page")
	}
	// The summary card counts what the section shows.
	if !strings.Contains(html, "Inputs<b>3</b>7 records rejected (18.9%) in 2 of them; <a href=\"#quality\">data quality</a>") {
		t.Error("the Inputs card does not count the section's rejects")
	}
}

// Each job's section says why a stage has no result for it: the skyline
// stage's reason for a job it left out, and what a job lacks otherwise (a
// profiled job has no runs in the runs or skylines table).
func TestReportSaysWhyPerJob(t *testing.T) {
	ctx := context.Background()
	in := filepath.Join(t.TempDir(), "in")
	os.MkdirAll(in, 0o755)
	for _, f := range []string{"../testdata/jobs/skyline/offsets.csv", "../testdata/elasticity/profruns.csv"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(in, filepath.Base(f)), b, 0o644)
	}
	var lines []string
	rep, err := Run(ctx, []string{in}, runOptions(filepath.Join(t.TempDir(), "out"), &lines))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(rep.Report.Dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	job := func(name string) string {
		i := strings.Index(html, "<h3>"+name+"</h3>")
		if i < 0 {
			t.Fatalf("no section of job %s", name)
		}
		return html[i : i+strings.Index(html[i:], "</section>")]
	}
	if sec := job("report"); !strings.Contains(sec, "Skyline: not fitted: 1 run, fewer than --min-runs 2.") || strings.Count(sec, "fewer than --min-runs") != 1 {
		t.Errorf("job report:\n%s", sec)
	}
	for _, w := range []string{"SLO: not computed: no runs of this job in the runs table.", "Skyline: not computed: no runs of this job in the skylines table."} {
		if sec := job("wordcount"); !strings.Contains(sec, w) {
			t.Errorf("job wordcount lacks %q:\n%s", w, sec)
		}
	}
}
