package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	stdhtml "html"
	"image/png"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/profile"
)

func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	m := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		m[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Every file the index names exists, loads with the profile package, and
// the report holds nothing else.
func TestWriteReportMatchesIndex(t *testing.T) {
	idx, dir := writeReport(t, synthInput(200, 6, 1), DefaultOptions())
	files := readTree(t, dir)
	want := map[string]bool{"index.html": true, "index.json": true, "tenants.json": true}
	for _, p := range idx.Profiles {
		want[p.Path] = true
		if _, err := profile.LoadJob(filepath.Join(dir, p.Path)); err != nil {
			t.Errorf("profile %s: %v", p.Path, err)
		}
	}
	if _, err := profile.LoadTenants(filepath.Join(dir, "tenants.json")); err != nil {
		t.Error(err)
	}
	// The report ships the schemas its files name in "$schema".
	ids := map[string]string{}
	for _, sc := range idx.Schemas {
		want[sc.Path] = true
		ids[sc.Kind] = sc.ID
		if b := files[sc.Path]; !bytes.Equal(b, map[string][]byte{"job": profile.JobSchema, "tenants": profile.TenantsSchema}[sc.Kind]) {
			t.Errorf("%s is not the published %s schema", sc.Path, sc.Kind)
		}
	}
	for _, f := range append([]string{"tenants.json"}, func() (ps []string) {
		for _, p := range idx.Profiles {
			ps = append(ps, p.Path)
		}
		return ps
	}()...) {
		var head struct {
			Schema string `json:"$schema"`
			Kind   string `json:"kind"`
		}
		if err := json.Unmarshal(files[f], &head); err != nil || head.Schema == "" || head.Schema != ids[head.Kind] {
			t.Errorf("%s: $schema %q, want the shipped %s schema's id %q (%v)", f, head.Schema, head.Kind, ids[head.Kind], err)
		}
	}
	for _, r := range idx.Reservations {
		want[r.Path] = true
	}
	for _, f := range idx.ReservationSubmit {
		want[f] = true
	}
	if len(idx.Reservations) != 2 {
		t.Errorf("%d reservations written, want 2 (jobs 0 and 3)", len(idx.Reservations))
	}
	for _, p := range idx.Plots {
		want[p.SVG], want[p.PNG] = true, p.PNG != ""
		if p.PNG == "" {
			t.Errorf("%s has no PNG, but every job is inline", p.Name)
		}
	}
	for f := range files {
		if !want[f] {
			t.Errorf("%s written but not in the index", f)
		}
	}
	for f, w := range want {
		if w && files[f] == nil {
			t.Errorf("%s in the index but not written", f)
		}
	}
	// 4 classify figures per pattern class set, the CDF, the plan's two,
	// the simulation's two, the estimate's one, the harvest's one, the
	// placement's one, the constraints' two, and per job: skyline, α
	// trade-off, elasticity, sweep.
	if n := len(idx.Plots); n != 2+2*9+1+2+2+1+1+1+2+4*6 {
		t.Errorf("%d plots, want %d", n, 2+2*9+1+2+2+1+1+1+2+4*6)
	}
	var back Index
	if err := json.Unmarshal(files["index.json"], &back); err != nil || back.Kind != "report" || len(back.Plots) != len(idx.Plots) {
		t.Errorf("index.json does not hold the index: %v", err)
	}
	for _, s := range idx.Stages {
		if !s.Computed {
			t.Errorf("stage %s not computed on a full input", s.Stage)
		}
	}
	if idx.Summary.Tenants != 200 || idx.Summary.Jobs != 6 || idx.Summary.ElasticSavingsFraction == nil {
		t.Errorf("summary %+v", idx.Summary)
	}
	// The synthetic curve has penalty 0.8·(1−f): ≤ 0.1 from f = 0.875, so
	// the smallest curve point within it is f = 0.9: 10% of memory saved.
	if f := *idx.Summary.ElasticSavingsFraction; f < 0.0999 || f > 0.1001 {
		t.Errorf("elastic savings %g, want 0.1", f)
	}
}

// Stages without results say "not computed", with the notes given.
func TestMissingStagesSayNotComputed(t *testing.T) {
	in := synthInput(0, 2, 2)
	in.Plan = nil
	in.Simulation = nil
	in.Estimate = nil
	in.Harvest = nil
	in.Placement = nil
	in.Constraints = nil
	for i := range in.Jobs {
		in.Jobs[i].Profile.SLO = nil
		in.Jobs[i].Profile.Elasticity = nil
		in.Jobs[i].Sweeps = nil
	}
	in.Notes = map[string][]string{StageClassify: {"classify: not built yet (issue 3)"}}
	idx, dir := writeReport(t, in, DefaultOptions())
	computed := map[string]bool{}
	for _, s := range idx.Stages {
		computed[s.Stage] = s.Computed
	}
	if computed[StageClassify] || computed[StageSLO] || !computed[StageSkyline] || computed[StageElasticity] || computed[StageProfiler] {
		t.Errorf("stages %+v", idx.Stages)
	}
	html, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	for _, w := range []string{"classify: not built yet (issue 3)", "Headroom by class: not computed", "SLO: not computed."} {
		if !strings.Contains(string(html), w) {
			t.Errorf("index.html lacks %q", w)
		}
	}
	if n := strings.Count(string(html), "<p class=\"nc\">Not computed.</p>"); n != 10 {
		t.Errorf("%d sections say not computed, want 10 (classify, slo, plan, elasticity, profiler, simulate, estimate, harvest, placement, constraints)", n)
	}
	if _, err := os.Stat(filepath.Join(dir, "tenants.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("tenants.json written without classify results")
	}
}

const xss = `<script>alert(1)</script>`

// Every string from the traces is escaped: a job, a tenant, a class, a
// task and a warning that are HTML do not become markup anywhere.
func TestReportEscapesTraceStrings(t *testing.T) {
	in := synthInput(30, 3, 3)
	in.Jobs[0].Profile.Job = xss
	in.Jobs[0].Profile.Identity.Names = []string{xss}
	in.Jobs[0].Profile.Warnings = []string{`run "</style><img src=x onerror=alert(2)>" is odd`}
	in.Jobs[0].Profile.Elasticity[0].Task = `<b onmouseover=alert(3)>`
	in.Jobs[0].Measured[0].Task = `<b onmouseover=alert(3)>`
	in.Tenants.File.Tenants[0].Tenant = `<svg onload=alert(4)>`
	in.Tenants.Representatives[0].Tenant = `<svg onload=alert(5)>`
	in.Skipped = []Skipped{{Stage: StageSkyline, Job: `"><script>alert(6)</script>`, Reason: "1 run"}}
	in.Inputs = []DataInput{{File: `in/<script>alert(7)</script>.csv`, Format: "csv", Rejected: 1, Reasons: []RejectReason{{`<img src=x onerror=alert(8)>`, 1}}}}
	opts := DefaultOptions()
	opts.InlineJobs = 10
	idx, dir := writeReport(t, in, opts)
	html, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	lower := strings.ToLower(string(html))
	for _, bad := range []string{"<script", "<img", "<b ", "onerror=alert(2)>", "<svg onload"} {
		if strings.Contains(lower, bad) {
			i := strings.Index(lower, bad)
			t.Errorf("index.html contains %q: …%s…", bad, html[max(0, i-80):min(len(html), i+80)])
		}
	}
	if !strings.Contains(string(html), "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("the job's name is not shown, escaped")
	}
	for _, p := range idx.Plots {
		b, _ := os.ReadFile(filepath.Join(dir, p.SVG))
		if strings.Contains(strings.ToLower(string(b)), "<script") || strings.Contains(string(b), "<b ") {
			t.Errorf("%s holds markup from a trace string", p.SVG)
		}
	}
	// The profile keeps the name as data, in a file with a safe name.
	j, err := profile.LoadJob(filepath.Join(dir, "profiles", profile.FileName(xss)))
	if err != nil || j.Job != xss {
		t.Errorf("profile of the script-named job: %v", err)
	}
	// No fetch can leave the page: no src or url(...) attribute at all,
	// and the CSP forbids them.
	if m := regexp.MustCompile(`(?i)<[^>]*\ssrc=|<[^>]*\shref="?(https?:|//)|url\(|@import`).Find(html); m != nil {
		t.Errorf("index.html refers to an external resource: %s", m)
	}
	if !strings.Contains(string(html), `content="default-src 'none';`) {
		t.Error("no Content-Security-Policy")
	}
	// Every link resolves to a written file, also for the job whose file
	// names are percent-encoded; every anchor exists.
	links := regexp.MustCompile(`href="([^"]*)"`).FindAllStringSubmatch(string(html), -1)
	if len(links) < 20 {
		t.Fatalf("%d links in index.html", len(links))
	}
	for _, m := range links {
		ref := stdhtml.UnescapeString(m[1])
		if frag, ok := strings.CutPrefix(ref, "#"); ok {
			if !strings.Contains(string(html), `id="`+frag+`"`) {
				t.Errorf("link to missing anchor %q", ref)
			}
			continue
		}
		u, err := url.Parse(ref)
		if err != nil || u.Scheme != "" || u.Host != "" {
			t.Errorf("link %q is not a relative path (%v)", ref, err)
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(u.Path))); err != nil {
			t.Errorf("link %q: %v", ref, err)
		}
	}
}

// A report replaces the previous one as a whole; a directory that is not
// a report is never touched; a failed write leaves the previous report.
func TestReportReplacesWholeDirectory(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "r")
	if _, err := Write(dir, synthInput(20, 3, 4), DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	small := synthInput(0, 1, 5)
	if _, err := Write(dir, small, DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	files := readTree(t, dir)
	if files["tenants.json"] != nil || files["profiles/job-0002.json"] != nil {
		t.Error("files of the previous report survived the new one")
	}
	before := readTree(t, dir)
	bad := synthInput(0, 2, 6)
	bad.Jobs[1].Profile.Skyline.StepS = -1
	if _, err := Write(dir, bad, DefaultOptions()); err == nil || !strings.Contains(err.Error(), "skyline.step_s") {
		t.Fatalf("an invalid profile was not refused: %v", err)
	}
	after := readTree(t, dir)
	if len(before) != len(after) {
		t.Fatalf("a failed write changed the report: %d files before, %d after", len(before), len(after))
	}
	for f, b := range before {
		if !bytes.Equal(after[f], b) {
			t.Errorf("%s changed", f)
		}
	}
	entries, _ := os.ReadDir(base)
	if len(entries) != 1 {
		t.Errorf("temporary directories left behind: %d entries", len(entries))
	}
	foreign := filepath.Join(base, "home")
	os.MkdirAll(foreign, 0o755)
	os.WriteFile(filepath.Join(foreign, "thesis.tex"), []byte("x"), 0o644)
	if _, err := Write(foreign, small, DefaultOptions()); !errors.Is(err, ErrNotReport) {
		t.Fatalf("wrote over a directory that is not a report: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(foreign, "thesis.tex")); string(b) != "x" {
		t.Fatal("a foreign file was touched")
	}
}

// The same input gives byte-identical reports.
func TestReportDeterministic(t *testing.T) {
	var trees [2]map[string][]byte
	for i := range trees {
		dir := filepath.Join(t.TempDir(), "r")
		opts := DefaultOptions()
		opts.Workers = 1 + i*3
		if _, err := Write(dir, synthInput(50, 3, 7), opts); err != nil {
			t.Fatal(err)
		}
		trees[i] = readTree(t, dir)
	}
	for f, b := range trees[0] {
		if !bytes.Equal(trees[1][f], b) {
			t.Errorf("%s differs between two runs", f)
		}
	}
}

// The PNGs decode and are not blank.
func TestPlotsDrawSomething(t *testing.T) {
	idx, dir := writeReport(t, synthInput(100, 2, 8), DefaultOptions())
	for _, p := range idx.Plots {
		if p.PNG == "" {
			t.Fatalf("%s: no PNG", p.Name)
		}
		b, _ := os.ReadFile(filepath.Join(dir, p.PNG))
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", p.PNG, err)
		}
		if f := inkFraction(img); f < 0.01 {
			t.Errorf("%s: %.4f of the pixels are not background", p.PNG, f)
		}
	}
}

// PNGs are written for the stage figures and the inline jobs, or for all
// with AllPNG; SVGs always.
func TestPNGScope(t *testing.T) {
	for _, all := range []bool{false, true} {
		opts := DefaultOptions()
		opts.InlineJobs, opts.AllPNG = 1, all
		idx, dir := writeReport(t, synthInput(20, 4, 10), opts)
		withPNG := map[string]bool{}
		for _, p := range idx.Plots {
			if _, err := os.Stat(filepath.Join(dir, p.SVG)); err != nil {
				t.Errorf("%s: %v", p.SVG, err)
			}
			_, err := os.Stat(filepath.Join(dir, "plots", p.Name+".png"))
			if (p.PNG != "") != (err == nil) {
				t.Errorf("%s: index png %q, file exists %v", p.Name, p.PNG, err == nil)
			}
			if p.Job != "" && p.PNG != "" {
				withPNG[p.Job] = true
			}
		}
		if want := map[bool]int{false: 1, true: 4}[all]; len(withPNG) != want {
			t.Errorf("AllPNG=%v: %d jobs with PNGs, want %d", all, len(withPNG), want)
		}
	}
}

// Ids as long as traces allow still give file names the file system takes.
func TestLongNames(t *testing.T) {
	in := synthInput(0, 2, 11)
	long := strings.Repeat("very/long:job-", 40)
	in.Jobs[0].Profile.Job = long
	in.Jobs[0].Profile.Elasticity[0].Task = strings.Repeat("task", 80)
	for i := range in.Jobs[0].Measured {
		in.Jobs[0].Measured[i].Task = strings.Repeat("task", 80)
	}
	idx, dir := writeReport(t, in, DefaultOptions())
	for _, p := range idx.Plots {
		if len(filepath.Base(p.SVG)) > 255 {
			t.Errorf("%s: name longer than 255 bytes", p.SVG)
		}
	}
	if _, err := profile.LoadJob(filepath.Join(dir, "profiles", profile.FileName(long))); err != nil {
		t.Error(err)
	}
}

// SLO offsets are written with their sign by the one duration formatter:
// an arrival 41 min 5 s before the period starts is "arrival -41m5s", never
// "+-2465s" (issue 22 item 5).
func TestNegativeOffsets(t *testing.T) {
	in := synthInput(0, 1, 0)
	in.Jobs[0].Profile.SLO = &profile.SLO{Runs: 5, Actionable: true, ArrivalS: &profile.Number{Value: -2465, Source: "inferred"},
		DeadlineS: &profile.Number{Value: 93600, Source: "inferred"}, Override: profile.Override{Fields: []string{}}}
	_, dir := writeReport(t, in, DefaultOptions())
	html, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	for _, w := range []string{"arrival -41m5s", "deadline &#43;1d2h"} {
		if !strings.Contains(string(html), w) {
			t.Errorf("index.html lacks %q", w)
		}
	}
	if strings.Contains(string(html), "&#43;-") || strings.Contains(string(html), "+-") {
		t.Error("index.html has +-")
	}
}

// The report's reserved and used totals weigh each job by how often it
// runs: an hourly job's run counts 24 times a day, a daily job's once, a
// job without a period once (and is counted). Before, every job's one run
// was simply added.
func TestSummaryWeighsJobsByRunsPerDay(t *testing.T) {
	sky := func(reserved, used float64) *profile.Skyline {
		return &profile.Skyline{ReservedAreaContainerS: reserved, UsedAreaContainerS: used}
	}
	hourly := &profile.Job{Job: "hourly", PeriodS: &profile.Number{Value: 3600}, Skyline: sky(100, 50)}
	daily := &profile.Job{Job: "daily", PeriodS: &profile.Number{Value: 86400}, Skyline: sky(1000, 900)}
	unknown := &profile.Job{Job: "unknown", Skyline: sky(10, 10)}
	s := summarise([]Job{{Profile: hourly}, {Profile: daily}, {Profile: unknown}}, nil, DefaultOptions())
	if want := 24*100.0 + 1000 + 10; s.ReservedPerDayContainerS != want {
		t.Errorf("reserved per day %g, want %g", s.ReservedPerDayContainerS, want)
	}
	if want := 24*50.0 + 900 + 10; s.UsedPerDayContainerS != want {
		t.Errorf("used per day %g, want %g", s.UsedPerDayContainerS, want)
	}
	if s.JobsWithoutPeriod != 1 || s.ReservedAreaContainerS != 1110 {
		t.Errorf("jobs without period %d (want 1), reserved per run %g (want 1110)", s.JobsWithoutPeriod, s.ReservedAreaContainerS)
	}
}

// Names with bidirectional overrides or controls are shown escaped in the
// page (issue 22): "abc\u202egnp.exe" must not render as "abcexe.png".
// The profile keeps the name as it is.
func TestReportEscapesInvisibleCharacters(t *testing.T) {
	in := synthInput(30, 3, 3)
	in.Jobs[0].Profile.Job = "abc\u202egnp.exe"
	in.Tenants.File.Tenants[0].Tenant = "a\u2066tenant\x1b[31m"
	in.Skipped = []Skipped{{Stage: StageSkyline, Job: "zero\u200bwidth", Reason: "1 run"}}
	opts := DefaultOptions()
	opts.InlineJobs = 10
	_, dir := writeReport(t, in, opts)
	html, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	for _, r := range string(html) {
		if r == '\u202e' || r == '\u2066' || r == '\u200b' || r == 0x1b {
			t.Fatalf("index.html holds %U unescaped", r)
		}
	}
	for _, want := range []string{`abc\u202egnp.exe`, `zero\u200bwidth`} {
		if !strings.Contains(string(html), want) {
			t.Errorf("index.html does not show %s", want)
		}
	}
	j, err := profile.LoadJob(filepath.Join(dir, "profiles", profile.FileName("abc\u202egnp.exe")))
	if err != nil || j.Job != "abc\u202egnp.exe" {
		t.Errorf("the profile does not keep the name: %v %q", err, j.Job)
	}
}

// The harvest section draws the kills per pattern, history beside blind,
// and nothing without a breakdown by pattern.
func TestHarvestKillsFigure(t *testing.T) {
	h := synthHarvest()
	if HarvestKills(h) == nil {
		t.Fatal("no figure with a breakdown by pattern")
	}
	if len(harvestFigures(h)) != 1 || harvestFigures(nil) != nil {
		t.Error("harvestFigures")
	}
	h.Groups = h.Groups[:2] // job types only
	if HarvestKills(h) != nil || HarvestKills(nil) != nil {
		t.Error("a figure without a breakdown by pattern")
	}
	// Listed, it would fail the report ("nothing to draw"), as a replay on
	// Kubernetes data whose runs met no classified tenant's servers did.
	if harvestFigures(h) != nil {
		t.Error("harvestFigures lists a figure with nothing to draw")
	}
}

// The placement section shows the classes, the replay and the warnings,
// escaped; index.json counts its tenants; the figure draws the nine
// shares against S/9 and needs classes.
func TestPlacementSection(t *testing.T) {
	in := synthInput(0, 1, 3)
	idx, dir := writeReport(t, in, DefaultOptions())
	var st *IndexStage
	for i := range idx.Stages {
		if idx.Stages[i].Stage == StagePlacement {
			st = &idx.Stages[i]
		}
	}
	if st == nil || !st.Computed || st.Tenants == nil || *st.Tenants != 12 {
		t.Fatalf("placement stage %+v", st)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	html := string(b)
	for _, w := range []string{`<section id="placement">`, "Replica placement", `<td class="t">intermediate/medium</td>`, `<td class="t">hdfs-stock</td>`,
		`<td class="nw n">0.2 (0–1)</td>`, `<td class="nw n">0.719% (0.665–0.75%)</td>`, `<td class="nw n">0%</td>`,
		"&lt;b&gt;1 tenant&lt;/b&gt; left out", "&lt;i&gt;ads&lt;/i&gt;, cache", "Storage per class against S/9"} {
		if !strings.Contains(html, w) {
			t.Errorf("index.html lacks %q", w)
		}
	}
	if strings.Contains(html, "<b>1 tenant") || strings.Contains(html, "<i>ads") {
		t.Error("a tenant's name reached the page unescaped")
	}
	if PlacementShares(nil) != nil || placementFigures(&Placement{}) != nil || PlacementShares(in.Placement) == nil {
		t.Error("PlacementShares")
	}
}
