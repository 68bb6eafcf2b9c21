package reports

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

// section is the HTML of the section with the given id.
func sectionOf(t *testing.T, html, id string) string {
	t.Helper()
	i := strings.Index(html, `<section id="`+id+`"`)
	if i < 0 {
		t.Fatalf("no section %q in the page", id)
	}
	j := strings.Index(html[i:], "</section>")
	return html[i : i+j]
}

func plannerFor(in *Input) *Planner {
	f := func(x float64) *float64 { return &x }
	n := func(x int) *int { return &x }
	m := func(x int64) *int64 { return &x }
	p := &Planner{CoresPerServer: 16, CoresFrom: "--server-cores", CapacityContainers: 4000, ClassDays: map[string][]float64{},
		Commands: map[string]string{"plan": "wlprof plan -d ds", "simulate": "wlprof simulate -d ds --trace t.csv --nodes 4,6 --node-memory 16G --target-makespan 15m",
			"skyline": "wlprof skyline -d ds", "elasticity": "wlprof elasticity -d ds", "harvest": "wlprof harvest -d ds --workload runs"},
		Sizing: &Sizing{Workload: "the 11 jobs of t.csv", TargetMakespanS: 900, Shape: "nodes of 16 GiB and 16 cores", NodeMemoryBytes: 16 << 30, NodeCores: 16,
			Searched: "node counts doubled", Sizes: []ClusterSize{{Policy: "yarn", Nodes: n(6), MemoryBytes: m(96 << 30), MakespanS: f(820)},
				{Policy: "yarn-me", Nodes: n(4), MemoryBytes: m(64 << 30), MakespanS: f(730)}}},
		HarvestWindow: "2024-01-09 to 2024-01-15 UTC (6 days; the whole data)",
		HarvestRuns: []HarvestOutcome{{Policy: "history", Label: "history (Algorithm 1)", Containers: 1000, Completed: 990, Killed: 10, CompletedCoreH: 880, LostCoreH: 5, Jobs: 100, JobsFinished: 100, MeanJobS: f(745), P95JobS: f(3163)},
			{Policy: "blind", Label: "blind (YARN-PT)", Containers: 1000, Completed: 950, Killed: 50, CompletedCoreH: 880, LostCoreH: 25, Jobs: 100, JobsFinished: 99, MeanJobS: f(773), P95JobS: f(3364)}}}
	for i, c := range in.Tenants.File.Classes {
		day := make([]float64, 24)
		for h := range day {
			day[h] = 0.2 + 0.3*math.Sin(float64(h+i)/24*2*math.Pi)*0.5
		}
		p.ClassDays[c.Class] = day
	}
	return p
}

// The four answers are in index.json and on the first screen, and every
// number they give is the one the section that proves it shows.
func TestDecisionsMatchSections(t *testing.T) {
	in := synthInput(40, 6, 1)
	in.Planner = plannerFor(in)
	_, dir := writeReport(t, in, DefaultOptions())
	var idx struct {
		Summary struct {
			Decisions map[string]json.RawMessage `json:"decisions"`
		} `json:"summary"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &idx); err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{"version", "cluster", "harvest", "at_risk", "actions"} {
		if len(idx.Summary.Decisions[part]) == 0 {
			t.Errorf("index.json summary.decisions has no %s", part)
		}
	}
	var d Decisions
	full, _ := json.Marshal(idx.Summary.Decisions)
	if err := json.Unmarshal(full, &d); err != nil {
		t.Fatal(err)
	}
	hb, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	html := unaligned(string(hb))
	answers := sectionOf(t, html, "answers")
	if strings.Index(html, `<section id="answers"`) > strings.Index(html, `<section id="summary"`) {
		t.Error("the answers are not the first section")
	}
	for _, a := range []string{d.Cluster.Answer, d.Harvest.SpareAnswer, d.AtRisk.Answer} {
		if a == "" || !strings.Contains(answers, htmlText(a)) {
			t.Errorf("answer %q not on the first screen", a)
		}
	}

	// cluster: the footprint is the plan section's, the sizes the
	// simulate section's, the share of the capacity its quotient.
	if d.Cluster.FootprintContainers == nil || *d.Cluster.FootprintContainers != in.Plan.Footprint || *d.Cluster.NaivePeakContainers != in.Plan.NaiveFootprint {
		t.Errorf("footprint %v / naive %v, plan says %d / %d", d.Cluster.FootprintContainers, d.Cluster.NaivePeakContainers, in.Plan.Footprint, in.Plan.NaiveFootprint)
	}
	if !strings.Contains(sectionOf(t, html, "plan"), fmt.Sprintf("Footprint <b>%d</b>", in.Plan.Footprint)) {
		t.Error("the plan section does not show the footprint the answer gives")
	}
	if got, want := *d.Cluster.FootprintShare, float64(in.Plan.Footprint)/4000; got != want {
		t.Errorf("footprint share %g, want %g", got, want)
	}
	sim := sectionOf(t, html, "simulate")
	for _, s := range d.Cluster.Sizes {
		row := fmt.Sprintf("<td class=\"l\">%s</td><td>%d</td><td>%s</td>", policyName(s.Policy), *s.Nodes, funcs["memOf"].(func(*int64) string)(s.MemoryBytes))
		if !strings.Contains(sim, row) || !strings.Contains(answers, row) {
			t.Errorf("size %s: row %q not in both the answer and the simulate section", s.Policy, row)
		}
	}
	if d.Cluster.MemorySavedBytes == nil || *d.Cluster.MemorySavedBytes != 32<<30 {
		t.Errorf("memory saved %v, want 32 GiB (96 − 64)", d.Cluster.MemorySavedBytes)
	}

	// harvest: spare cores = headroom × servers × cores per server
	// (the definition), summed over the classes, and the same
	// number in the summary's headroom table.
	var want JobTypeCores
	for _, c := range in.Tenants.File.Classes {
		want.Short += c.Headroom.Short * float64(c.Servers) * 16
		want.Medium += c.Headroom.Medium * float64(c.Servers) * 16
		want.Long += c.Headroom.Long * float64(c.Servers) * 16
	}
	if got := *d.Harvest.SpareCores; math.Abs(got.Short-want.Short) > 1e-9 || math.Abs(got.Medium-want.Medium) > 1e-9 || math.Abs(got.Long-want.Long) > 1e-9 {
		t.Errorf("spare cores %+v, want %+v", got, want)
	}
	total := fmt.Sprintf("<td><b>%s</b></td><td><b>%s</b></td><td><b>%s</b></td>", sig(want.Short), sig(want.Medium), sig(want.Long))
	if !strings.Contains(sectionOf(t, html, "summary"), total) {
		t.Errorf("the headroom table's total %q is not the answer's", total)
	}
	if !strings.Contains(answers, fmt.Sprintf("<td>%s</td><td>%s</td><td>%s</td>", sig(want.Short), sig(want.Medium), sig(want.Long))) {
		t.Error("the answer's spare cores are not in its table")
	}
	sum := 0.0
	for _, x := range d.Harvest.SpareCoresByHour {
		sum += x
	}
	if len(d.Harvest.SpareCoresByHour) != 24 || math.Abs(sum-*d.Harvest.SpareCoreHPerDay) > 1e-9 {
		t.Errorf("spare cores by hour %v do not add up to %v core-hours a day", d.Harvest.SpareCoresByHour, *d.Harvest.SpareCoreHPerDay)
	}
	harv := sectionOf(t, html, "harvest")
	for _, r := range d.Harvest.Replay {
		row := fmt.Sprintf("<td class=\"l\">%s</td><td>%s core·h</td><td>%s core·h</td><td>%s of %s</td>", htmlText(r.Label), sig(r.CompletedCoreH), sig(r.LostCoreH), thousands(r.Killed), thousands(r.Containers))
		if !strings.Contains(harv, row) {
			t.Errorf("replay %s: row %q not in the harvest section", r.Policy, row)
		}
	}
	if !strings.Contains(harv, "Replayed: "+htmlText(in.Planner.HarvestWindow)) {
		t.Error("the harvest section does not start with the replayed window")
	}

	// at risk: every job with held-out misses in the plan is listed with
	// that evidence.
	risky := map[string]bool{}
	for _, j := range d.AtRisk.Jobs {
		risky[j.Job] = true
		if len(j.Evidence) == 0 {
			t.Errorf("%s at risk without evidence", j.Job)
		}
	}
	for _, r := range in.Plan.Rows {
		if r.Misses > 0 && !risky[r.Job] {
			t.Errorf("%s missed %d held-out runs but is not at risk", r.Job, r.Misses)
		}
	}
	for _, r := range in.Estimate.Rows {
		if !r.MeetsGoal && !risky[r.Job] {
			t.Errorf("%s cannot meet its goal but is not at risk", r.Job)
		}
	}

	// actions: ranked by their gain's share, each with its evidence and
	// a command.
	if len(d.Actions) == 0 {
		t.Fatal("no action")
	}
	for i, a := range d.Actions {
		if a.Rank != i+1 || a.Evidence == "" || a.Command == "" || a.Gain == "" {
			t.Errorf("action %d: %+v", i, a)
		}
		if i > 0 && a.GainShare > d.Actions[i-1].GainShare {
			t.Errorf("action %d gains %g, more than action %d's %g", i+1, a.GainShare, i, d.Actions[i-1].GainShare)
		}
		if !strings.Contains(answers, htmlText(a.Command)) {
			t.Errorf("action %d's command is not on the first screen", i+1)
		}
	}
}

// htmlText is s as html/template writes it in text.
func htmlText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;", "+", "&#43;").Replace(s)
}

// Without the stages the answers say what to pass, and an empty at-risk
// list says what was checked.
func TestDecisionsSayWhatToPass(t *testing.T) {
	d := decide(&Input{}, nil, DefaultOptions())
	if !strings.Contains(d.Cluster.Answer, "--target-makespan") || !strings.HasPrefix(d.Cluster.Answer, "Not computed: pass ") {
		t.Errorf("cluster: %q", d.Cluster.Answer)
	}
	if !strings.Contains(d.Harvest.Answer, "--harvest") {
		t.Errorf("harvest: %q", d.Harvest.Answer)
	}
	in := synthInput(0, 3, 2)
	in.Plan, in.Estimate = nil, nil
	for i := range in.Jobs {
		in.Jobs[i].Profile.Elasticity, in.Jobs[i].Profile.Skyline = nil, nil
		if s := in.Jobs[i].Profile.SLO; s != nil && s.SlackRatio != nil {
			x := 1.0
			s.SlackRatio = &x
		}
	}
	a := decideAtRisk(in, in.Jobs)
	if len(a.Jobs) != 0 || !strings.HasPrefix(a.Answer, "No job at risk; checked: ") {
		t.Errorf("at risk: %q, %d jobs", a.Answer, len(a.Jobs))
	}
}

// sig keeps 3 significant digits, with no exponent and no trailing
// zeros, for numbers from a millionth to a billion (seeded).
func TestSig(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for i := 0; i < 2000; i++ {
		x := math.Pow(10, r.Float64()*15-6)
		s := sig(x)
		if strings.ContainsAny(s, "eE") {
			t.Fatalf("sig(%g) = %q has an exponent", x, s)
		}
		v, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(v-x) > 0.005*x {
			t.Fatalf("sig(%g) = %q, off by more than half a unit of the third digit", x, s)
		}
		digits := strings.TrimLeft(strings.NewReplacer(",", "", ".", "").Replace(s), "0")
		if len(strings.TrimRight(digits, "0")) > 3 {
			t.Fatalf("sig(%g) = %q has more than 3 significant digits", x, s)
		}
	}
	for x, want := range map[float64]string{0.1: "0.1", 2: "2", 13700: "13,700", 635.4: "635", 0.02: "0.02", 71.3: "71.3"} {
		if got := sig(x); got != want {
			t.Errorf("sig(%g) = %q, want %q", x, got, want)
		}
	}
}

// The report cites the papers by authors, venue and section, never by
// their file name ("seed 000"): every section of a full report.
func TestReportNamesNoSeedFile(t *testing.T) {
	in := synthInput(40, 6, 1)
	in.Planner = plannerFor(in)
	_, dir := writeReport(t, in, DefaultOptions())
	for _, f := range []string{"index.html", "index.json"} {
		b, _ := os.ReadFile(filepath.Join(dir, f))
		if m := regexp.MustCompile(`(?i)seed\s+0\d\d`).Find(b); m != nil {
			t.Errorf("%s names a paper by its file name: %q", f, m)
		}
	}
}

// Thirteen warnings that differ only in their class and times show as
// one naming the other twelve; a different warning stays on its own
// (the demo's classify caveats).
func TestGroupWarnings(t *testing.T) {
	var ws []viewWarning
	for i := 1; i <= 13; i++ {
		ws = append(ws, viewWarning{Where: "classify", Text: fmt.Sprintf("class periodic-%d has no sample at 2024-03-01T00:04:00Z; current is its last sample before, at 2024-01-%02dT23:58:00Z", i, i)})
	}
	ws = append(ws, viewWarning{Where: "classify", Text: "utilisation mixes fractions of a server with NCU"})
	got := groupWarnings(ws)
	if len(got) != 2 || !strings.HasPrefix(got[0].Text, "class periodic-1 has no sample") ||
		!strings.HasSuffix(got[0].Text, "for 12 more: class periodic-2, class periodic-3, class periodic-4, class periodic-5, class periodic-6, class periodic-7, class periodic-8, class periodic-9, class periodic-10, class periodic-11, class periodic-12, class periodic-13)") {
		t.Errorf("grouped: %+v", got)
	}
}

// An elasticity model whose own measurements contradict it (a smaller
// memory ran faster, the demo's "nonmonotone" job) gives no action; the
// same model without that warning does, with its curve's numbers.
func TestShrinkMemoryOnlyOnSoundModels(t *testing.T) {
	in := synthInput(0, 1, 4)
	j := &in.Jobs[0]
	if len(j.Profile.Elasticity) == 0 {
		t.Fatal("the synthetic job has no model")
	}
	count := func() int {
		n := 0
		for _, a := range decideActions(in, in.Jobs, DefaultOptions()) {
			if a.Kind == "shrink-memory" {
				n++
			}
		}
		return n
	}
	sound := count()
	if sound == 0 {
		t.Fatal("no shrink-memory action from the synthetic models")
	}
	m := &j.Profile.Elasticity[0]
	m.Warnings = append(m.Warnings, "non-monotone measurements: the under-sized run is not slower than the well-sized run")
	if got := count(); got != sound-1 {
		t.Errorf("%d shrink-memory actions with one model contradicted by its runs, want %d", got, sound-1)
	}
}

// The demo's plan: LowCost packs to 51 containers under a naive spike of
// 2,538 that would flatten it on a linear axis; the figure's axis is then
// logarithmic, and linear when the two are close.
func TestPlanLoadAxis(t *testing.T) {
	pl := &Plan{LCMS: 3600, StepS: 5, Footprint: 51, NaiveFootprint: 2538, LowerBound: 50}
	for i := 0; i < 720; i++ {
		v := int64(0)
		if i < 20 {
			v = 2538
		}
		pl.Load, pl.NaiveLoad = append(pl.Load, 51), append(pl.NaiveLoad, v)
	}
	if _, ok := PlanLoad(pl).Y.Scale.(plot.LogScale); !ok {
		t.Error("a 50× naive spike is drawn on a linear axis")
	}
	pl.NaiveFootprint = 80
	if _, ok := PlanLoad(pl).Y.Scale.(plot.LogScale); ok {
		t.Error("a naive peak under 2× LowCost's is drawn on a log axis")
	}
}

// wrapName keeps the name (escaped) and breaks only after separators or
// every 16 characters of an unbroken run: a 64-character hash from the
// Azure trace and the daily_sales_03_enrich.
func TestWrapName(t *testing.T) {
	for name, want := range map[string]string{
		"daily_sales_03_enrich": "daily_<wbr>sales_<wbr>03_<wbr>enrich",
		"a<b>":                  "a&lt;b&gt;",
		"8u+M3WcFp8pq183WoMB79PhK7xUzbaviOBv0qWN6Xn4mbuNVM1GYJlIjswgit+k1": "8u+<wbr>M3WcFp8pq183WoMB<wbr>79PhK7xUzbaviOBv<wbr>0qWN6Xn4mbuNVM1G<wbr>YJlIjswgit+<wbr>k1",
	} {
		if got := string(wrapName(name)); got != want {
			t.Errorf("wrapName(%q) = %q, want %q", name, got, want)
		}
	}
}

// A simulation whose every job was left out (a task larger than a node)
// still gives a report: its figures, with nothing to draw, are left out.
func TestSimulationWithEveryJobLeftOut(t *testing.T) {
	in := synthInput(0, 1, 5)
	in.Simulation = &Simulation{Trace: "t.csv", Cluster: "4 nodes of 1 GiB", Policies: []SimPolicy{{Policy: "yarn"}, {Policy: "yarn-me"}},
		LeftOut: []Skipped{{Stage: StageSimulate, Job: "q", Reason: "task map: needs 2 GiB"}}}
	if _, err := Write(filepath.Join(t.TempDir(), "report"), in, DefaultOptions()); err != nil {
		t.Fatalf("report of a simulation with no job run: %v", err)
	}
}

// Data from Kubernetes: the answers speak of nodes, namespaces, CronJobs
// and pods, and their actions point at the patches; the numbers are the
// same as for a YARN cluster's words.
func TestDecisionsSpeakKubernetes(t *testing.T) {
	yarnIn := synthInput(40, 6, 1)
	yarnIn.Planner = plannerFor(yarnIn)
	in := synthInput(40, 6, 1)
	in.Planner = plannerFor(in)
	in.Planner.Platform = PlatformKubernetes
	in.Planner.Commands["kubernetes"] = "wlprof export kubernetes -d ds"
	yarn, d := decide(yarnIn, yarnIn.Jobs, DefaultOptions()), decide(in, in.Jobs, DefaultOptions())
	if yarn.Platform != "" || d.Platform != PlatformKubernetes {
		t.Errorf("platform %q and %q, want \"\" and kubernetes", yarn.Platform, d.Platform)
	}
	if b, _ := json.Marshal(yarn); strings.Contains(string(b), `"platform"`) {
		t.Error("a YARN report's decisions carry a platform field")
	}
	// The same numbers.
	if *yarn.Harvest.SpareCores != *d.Harvest.SpareCores || *yarn.Cluster.FootprintContainers != *d.Cluster.FootprintContainers || len(yarn.AtRisk.Jobs) != len(d.AtRisk.Jobs) || len(yarn.Actions) != len(d.Actions) {
		t.Fatalf("the numbers differ between the platforms:\n%+v\n%+v", yarn, d)
	}
	for _, c := range []struct{ name, yarn, kube, wantYARN, wantKube string }{
		{"cluster", yarn.Cluster.Answer, d.Cluster.Answer, "jobs need", "CronJobs need"},
		{"cluster", yarn.Cluster.Answer, d.Cluster.Answer, "containers at peak", "pods at peak"},
		{"harvest", yarn.Harvest.Answer, d.Harvest.Answer, "cores per server", "classes of namespaces (16 cores per node)"},
		{"harvest replay", yarn.Harvest.Answer, d.Harvest.Answer, "containers killed", "pods killed"},
		{"at risk", yarn.AtRisk.Answer, d.AtRisk.Answer, " jobs may miss", " CronJobs may miss"},
	} {
		if !strings.Contains(c.yarn, c.wantYARN) || !strings.Contains(c.kube, c.wantKube) {
			t.Errorf("%s: %q / %q, want %q / %q", c.name, c.yarn, c.kube, c.wantYARN, c.wantKube)
		}
		for _, yarnWord := range []string{" server", " containers", " jobs may"} {
			if strings.Contains(c.kube, yarnWord) {
				t.Errorf("%s: the Kubernetes answer says %q: %s", c.name, yarnWord, c.kube)
			}
		}
	}
	kinds := map[string]int{}
	for i, a := range d.Actions {
		kinds[a.Kind]++
		switch a.Kind {
		case "reserve-skyline":
			if a.Job != "" && (!strings.Contains(a.Text, "parallelism") || a.Command != "wlprof export kubernetes -d ds") {
				t.Errorf("action %q (%s), want the CronJob's parallelism by export kubernetes", a.Text, a.Command)
			}
		case "shrink-memory":
			if !strings.Contains(a.Text, "of CronJob ") || a.Command != "wlprof export kubernetes -d ds" {
				t.Errorf("action %q (%s), want the CronJob's pods' memory by export kubernetes", a.Text, a.Command)
			}
		case "harvest-history":
			if !strings.Contains(a.Text, "batch pods on nodes") {
				t.Errorf("action %q, want pods and nodes", a.Text)
			}
		}
		if a.Gain != yarn.Actions[i].Gain && strings.Contains(a.Gain, "container") {
			t.Errorf("action gain %q speaks of containers", a.Gain)
		}
	}
	if kinds["reserve-skyline"] == 0 || kinds["shrink-memory"] == 0 {
		t.Errorf("actions %v: the synthetic input should give skyline and memory actions", kinds)
	}
	// The first screen in the same words.
	_, dir := writeReport(t, in, DefaultOptions())
	hb, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	answers := sectionOf(t, unaligned(string(hb)), "answers")
	for _, want := range []string{"Which CronJobs may miss their deadline?", "a fraction of a node) × nodes × 16 cores per node", "pods killed"} {
		if !strings.Contains(answers, want) {
			t.Errorf("the first screen does not say %q", want)
		}
	}
}

// On Kubernetes data the spare cores are the nodes' (the pipeline's
// NodeSpare: a node shared by several namespaces counted once), the
// classes' sum kept beside them; the same planner on YARN data keeps the
// classes' sum, as before.
func TestHarvestCountsSharedNodesOnce(t *testing.T) {
	nodes := &NodeSpare{Cores: JobTypeCores{Short: 18, Medium: 17, Long: 16}, Nodes: 3, AllCores: 32, CoresFrom: "each its allocatable CPU",
		ByHour: []float64{16, 16, 16, 16, 16, 16, 17, 17, 17, 17, 17, 17, 18, 18, 18, 18, 18, 18, 17, 17, 17, 17, 17, 17}}
	yarnIn := synthInput(40, 6, 1)
	yarnIn.Planner = plannerFor(yarnIn)
	yarnIn.Planner.NodeSpare = nodes
	in := synthInput(40, 6, 1)
	in.Planner = plannerFor(in)
	in.Planner.Platform = PlatformKubernetes
	in.Planner.NodeSpare = nodes
	yarn, d := decide(yarnIn, yarnIn.Jobs, DefaultOptions()), decide(in, in.Jobs, DefaultOptions())
	if yarn.Harvest.ClassSpareCores != nil || yarn.Harvest.SpareRule != "" || *yarn.Harvest.SpareCores == nodes.Cores {
		t.Errorf("YARN data took the nodes' count: %+v", yarn.Harvest)
	}
	h := d.Harvest
	if *h.SpareCores != nodes.Cores || h.ClassSpareCores == nil || *h.ClassSpareCores != *yarn.Harvest.SpareCores {
		t.Fatalf("spare %+v, classes' %+v; want the nodes' %+v and the classes' sum %+v", h.SpareCores, h.ClassSpareCores, nodes.Cores, *yarn.Harvest.SpareCores)
	}
	if h.SpareCoreHPerDay == nil || *h.SpareCoreHPerDay != 16*6+17*12+18*6 {
		t.Errorf("core-hours a day %v, want the nodes' %d", h.SpareCoreHPerDay, 16*6+17*12+18*6)
	}
	for _, s := range []string{"18 spare cores for short jobs, 17 for medium and 16 for long ones now, on the 3 nodes", "over the day 16 to 18 cores, 408 core-hours a day"} {
		if !strings.Contains(h.Answer, s) {
			t.Errorf("answer %q lacks %q", h.Answer, s)
		}
	}
	if !strings.HasPrefix(h.SpareRule, "Spare cores = Σ over the 3 nodes of the node's cores (each its allocatable CPU)") {
		t.Errorf("rule %q", h.SpareRule)
	}
	// The page explains what was computed.
	dir := filepath.Join(t.TempDir(), "report")
	if _, err := Write(dir, in, DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "Spare cores = Σ over the 3 nodes") || strings.Contains(string(page), "Spare cores = headroom") {
		t.Error("the page does not explain the spare cores as counted node by node")
	}
}
