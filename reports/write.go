package reports

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/wlprof/wlprof/profile"
	"gonum.org/v1/plot"
)

// Options of a report. Start from DefaultOptions.
type Options struct {
	// InlineJobs is how many jobs get their figures inline in index.html
	// (the largest reservations first); the others link to plots/. Every
	// job's figures are written to plots/ either way. Default 50.
	InlineJobs int
	// InlineTenants is how many tenants index.html lists (tenants.json has
	// them all). Default 200.
	InlineTenants int
	// MaxPenalty is the runtime penalty (a fraction) the summary's elastic
	// savings accept: the memory a task can give up while running at most
	// this much slower. Default 0.1.
	MaxPenalty float64
	// Workers render plots at once; ≤ 0: one per core.
	Workers int
	// AllPNG writes every figure as PNG too. By default SVG is written for
	// every figure and PNG for the stage figures and the inline jobs' ones:
	// a PNG costs three times an SVG to draw, and a thousand jobs' PNGs
	// would take most of the report's time.
	AllPNG bool
}

// DefaultOptions are the options of `wlprof report`.
func DefaultOptions() Options {
	return Options{InlineJobs: 50, InlineTenants: 200, MaxPenalty: 0.1}
}

// ErrNotReport is returned when the output directory exists, is not empty
// and is not a report: Write never replaces what it did not write.
var ErrNotReport = errors.New("output directory exists and is not a wlprof report")

// Index lists what a report holds; it is index.json in the report and
// what `wlprof report -o json` prints. Paths are relative to Dir.
type Index struct {
	Version   int            `json:"version"`
	Kind      string         `json:"kind"`
	Dir       string         `json:"dir"`
	IndexHTML string         `json:"index_html"`
	Tenants   *string        `json:"tenants"`
	Profiles  []IndexProfile `json:"profiles"`
	// Schemas are the JSON Schemas of the profile files, shipped beside
	// them (schema/job.schema.json, schema/tenants.schema.json): each
	// file's "$schema" is its schema's $id.
	Schemas []IndexSchema `json:"schemas"`
	// Reservations are the YARN reservation requests written (a job and
	// its file, as Profiles).
	Reservations []IndexProfile `json:"reservations"`
	// ReservationSubmit are the files that say how to submit the
	// reservations (reservations/SUBMIT.md) and do it (submit.sh); absent
	// without reservations.
	ReservationSubmit []string     `json:"reservation_submit,omitempty"`
	Plots             []IndexPlot  `json:"plots"`
	Stages            []IndexStage `json:"stages"`
	Summary           Summary      `json:"summary"`
	// DataQuality is the data-quality section: per ingested input, the
	// records accepted and rejected and the most frequent reasons.
	DataQuality DataQuality `json:"data_quality"`
}

// IndexProfile is one written profile file.
type IndexProfile struct {
	Job  string `json:"job"`
	Path string `json:"path"`
}

// IndexSchema is one shipped schema: the document kind it describes
// ("job", "tenants"), its $id and its file.
type IndexSchema struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
	Path string `json:"path"`
}

// IndexPlot is one figure, written as SVG and PNG.
type IndexPlot struct {
	Name  string `json:"name"`
	Stage string `json:"stage"`
	Job   string `json:"job,omitempty"`
	Title string `json:"title"`
	SVG   string `json:"svg"`
	// PNG is "" when the figure was written as SVG only (Options.AllPNG).
	PNG string `json:"png"`
}

// IndexStage says whether a stage's results are in the report.
type IndexStage struct {
	Stage    string `json:"stage"`
	Computed bool   `json:"computed"`
	// Jobs is the number of job profiles with the stage's section; 0 for
	// classify, which is about tenants.
	Jobs int `json:"jobs"`
	// Tenants is the number of tenants classified (classify) or, when
	// computed, in the replica-placement classes (placement).
	Tenants *int     `json:"tenants,omitempty"`
	Notes   []string `json:"notes"`
}

// Summary is the report's first section, in numbers.
type Summary struct {
	Tenants          int            `json:"tenants"`
	TenantsByPattern map[string]int `json:"tenants_by_pattern"`
	Classes          int            `json:"classes"`
	Jobs             int            `json:"jobs"`
	JobsWithSLO      int            `json:"jobs_with_slo"`
	JobsActionable   int            `json:"jobs_actionable"`
	JobsWithSkyline  int            `json:"jobs_with_skyline"`
	// ReservedAreaContainerS and UsedAreaContainerS add up the fitted jobs'
	// reservation and mean used area, one run of each job (container·s),
	// however often the job runs.
	ReservedAreaContainerS float64 `json:"reserved_area_container_s"`
	UsedAreaContainerS     float64 `json:"used_area_container_s"`
	// ReservedPerDayContainerS and UsedPerDayContainerS weigh each fitted
	// job by its runs per day (86,400 s / its period): an hourly job
	// counts 24 times, a daily one once. A job without a known period
	// counts once a day; JobsWithoutPeriod says how many did.
	ReservedPerDayContainerS float64 `json:"reserved_area_container_s_per_day"`
	UsedPerDayContainerS     float64 `json:"used_area_container_s_per_day"`
	JobsWithoutPeriod        int     `json:"skyline_jobs_without_period"`
	ElasticityModels         int     `json:"elasticity_models"`
	// ElasticSavingsFraction is the share of the models' ideal memory that
	// could be given up at a runtime penalty of at most MaxPenalty; null
	// without models.
	ElasticSavingsFraction *float64 `json:"elastic_savings_fraction"`
	MaxPenalty             float64  `json:"max_penalty"`
	Warnings               int      `json:"warnings"`
	// Skipped is how many jobs (or a job's tasks) a stage left out, each
	// with its reason in the report (Input.Skipped).
	Skipped int `json:"skipped"`
	// Decisions answer the planner's four questions (FORMAT.md).
	Decisions Decisions `json:"decisions"`
}

// figure is a plot to render and where it goes.
type figure struct {
	IndexPlot
	build  func() *plot.Plot
	inline bool
	svg    []byte // kept only for inline figures
}

// stem is the file-name-safe form of a trace string.
func stem(s string) string { return strings.TrimSuffix(profile.FileName(s), ".json") }

// Write writes the report into dir: profiles/<job>.json, tenants.json,
// plots/*.svg and *.png, index.html and index.json. Everything goes to a
// temporary directory next to dir first, which then replaces dir as a whole,
// so a reader sees the previous report or the new one, never a mix. An
// existing dir must be empty or an earlier report (ErrNotReport otherwise).
func Write(dir string, in *Input, opts Options) (*Index, error) {
	if opts.InlineJobs < 0 || opts.InlineTenants < 0 || !(opts.MaxPenalty >= 0) {
		return nil, fmt.Errorf("reports: negative option in %+v", opts)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := replaceable(abs); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(abs), "."+filepath.Base(abs)+".tmp-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp) // after the swap it holds the previous report
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, err
	}
	idx, err := build(tmp, in, opts)
	if err != nil {
		return nil, err
	}
	if err := syncTree(tmp); err != nil {
		return nil, err
	}
	if err := swapDir(tmp, abs); err != nil {
		return nil, err
	}
	idx.Dir = abs
	return idx, nil
}

// CheckDir says whether Write may write dir (missing, empty, or an
// earlier report), so a command can refuse a bad destination before the
// work rather than after it.
func CheckDir(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if err := replaceable(abs); err != nil {
		return err
	}
	return creatable(abs)
}

// creatable says whether Write can create dir's temporary sibling: the
// nearest existing ancestor of dir's parent is a directory we may write
// in (tried by creating and removing a directory there, so a read-only
// or full file system fails now, before the work, and nothing is left).
func creatable(abs string) error {
	at := filepath.Dir(abs)
	for {
		st, err := os.Stat(at)
		if err == nil {
			if !st.IsDir() {
				return fmt.Errorf("cannot write a report at %s: %s is not a directory", abs, at)
			}
			break
		}
		if !errors.Is(err, os.ErrNotExist) || filepath.Dir(at) == at {
			return fmt.Errorf("cannot write a report at %s: %w", abs, err)
		}
		at = filepath.Dir(at)
	}
	probe, err := os.MkdirTemp(at, ".wlprof-check-")
	if err != nil {
		return fmt.Errorf("cannot write a report at %s: %s is not writable (%w)", abs, at, errors.Unwrap(err))
	}
	return os.Remove(probe)
}

// replaceable says whether dir may be replaced: missing, empty, or a
// report (it has index.json of kind report).
func replaceable(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) || err == nil && len(entries) == 0 {
		return nil
	}
	if err != nil {
		return err
	}
	b, err := os.ReadFile(filepath.Join(dir, "index.json"))
	var h struct{ Kind string }
	if err != nil || json.Unmarshal(b, &h) != nil || h.Kind != "report" {
		return fmt.Errorf("%s: %w (no index.json of a report in it); choose another --out", dir, ErrNotReport)
	}
	return nil
}

func writeFile(path string, b []byte) error {
	return os.WriteFile(path, b, 0o644)
}

// build writes the whole report into out, an empty directory.
func build(out string, in *Input, opts Options) (*Index, error) {
	jobs := append([]Job(nil), in.Jobs...)
	sort.Slice(jobs, func(a, b int) bool { return jobs[a].Profile.Job < jobs[b].Profile.Job })
	for i := 1; i < len(jobs); i++ {
		if jobs[i].Profile.Job == jobs[i-1].Profile.Job {
			return nil, fmt.Errorf("reports: job %q given twice", jobs[i].Profile.Job)
		}
	}
	idx := &Index{Version: 1, Kind: "report", Dir: ".", IndexHTML: "index.html",
		Profiles: []IndexProfile{}, Reservations: []IndexProfile{}, Plots: []IndexPlot{}}
	for _, d := range []string{"profiles", "plots", "schema"} {
		if err := os.Mkdir(filepath.Join(out, d), 0o755); err != nil {
			return nil, err
		}
	}
	// A scheduler validates the files it loads against the schemas of the
	// release that wrote them, shipped with them.
	for _, sc := range []IndexSchema{
		{Kind: "job", ID: profile.JobSchemaID, Path: "schema/job.schema.json"},
		{Kind: "tenants", ID: profile.TenantsSchemaID, Path: "schema/tenants.schema.json"},
	} {
		b := profile.JobSchema
		if sc.Kind == "tenants" {
			b = profile.TenantsSchema
		}
		if err := writeFile(filepath.Join(out, sc.Path), b); err != nil {
			return nil, err
		}
		idx.Schemas = append(idx.Schemas, sc)
	}
	var errs []error
	for i := range jobs {
		p := jobs[i].Profile
		b, err := p.Marshal()
		if err != nil {
			errs = append(errs, fmt.Errorf("profile of %q: %w", p.Job, err))
			continue
		}
		rel := "profiles/" + profile.FileName(p.Job)
		if err := writeFile(filepath.Join(out, rel), b); err != nil {
			return nil, err
		}
		idx.Profiles = append(idx.Profiles, IndexProfile{Job: p.Job, Path: rel})
		if r := jobs[i].Reservation; len(r) > 0 {
			if !json.Valid(r) {
				errs = append(errs, fmt.Errorf("reservation of %q is not JSON", p.Job))
				continue
			}
			if err := os.MkdirAll(filepath.Join(out, "reservations"), 0o755); err != nil {
				return nil, err
			}
			rel := "reservations/" + profile.FileName(p.Job)
			if err := writeFile(filepath.Join(out, rel), r); err != nil {
				return nil, err
			}
			idx.Reservations = append(idx.Reservations, IndexProfile{Job: p.Job, Path: rel})
		}
	}
	if t := in.Tenants; t != nil && t.File != nil {
		b, err := t.File.Marshal()
		if err != nil {
			errs = append(errs, fmt.Errorf("tenants.json: %w", err))
		} else if err := writeFile(filepath.Join(out, "tenants.json"), b); err != nil {
			return nil, err
		}
		name := "tenants.json"
		idx.Tenants = &name
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	submit, err := writeSubmitHowTo(out, idx.Reservations)
	if err != nil {
		return nil, err
	}
	idx.ReservationSubmit = submit
	idx.Summary = summarise(jobs, in.Tenants, opts)
	idx.Summary.Skipped = len(in.Skipped)
	idx.Summary.Decisions = decide(in, jobs, opts)
	idx.Stages = stages(jobs, in)
	idx.DataQuality = dataQuality(in.Inputs)

	inline := inlineJobs(jobs, opts.InlineJobs)
	figs := append(figures(jobs, in.Tenants, in.Plan, inline), append(append(simFigures(in.Simulation), estFigures(in.Estimate)...), harvestFigures(in.Harvest)...)...)
	figs = append(figs, placementFigures(in.Placement)...)
	figs = append(figs, constraintsFigures(in.Constraints)...)
	for _, f := range figs {
		if !f.inline && !opts.AllPNG {
			f.PNG = ""
		}
	}
	if err := renderAll(out, figs, opts.Workers); err != nil {
		return nil, err
	}
	for _, f := range figs {
		idx.Plots = append(idx.Plots, f.IndexPlot)
	}
	html, err := renderHTML(in, jobs, idx, figs, inline, opts)
	if err != nil {
		return nil, err
	}
	if err := writeFile(filepath.Join(out, "index.html"), html); err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(idx, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := writeFile(filepath.Join(out, "index.json"), append(b, '\n')); err != nil {
		return nil, err
	}
	return idx, nil
}

// inlineJobs picks the jobs whose figures index.html shows: the largest
// reserved areas first, then by id.
func inlineJobs(jobs []Job, n int) map[string]bool {
	order := make([]int, len(jobs))
	for i := range order {
		order[i] = i
	}
	area := func(i int) float64 {
		if sk := jobs[i].Profile.Skyline; sk != nil {
			return sk.ReservedAreaContainerS
		}
		return -1
	}
	sort.SliceStable(order, func(a, b int) bool { return area(order[a]) > area(order[b]) })
	m := map[string]bool{}
	for _, i := range order[:min(n, len(order))] {
		m[jobs[i].Profile.Job] = true
	}
	return m
}

// figures lists every plot of the report, in report order.
func figures(jobs []Job, t *Tenants, pl *Plan, inline map[string]bool) []*figure {
	var figs []*figure
	add := func(stage, job, name, title string, inl bool, b func() *plot.Plot) {
		name = boundName(name)
		figs = append(figs, &figure{IndexPlot: IndexPlot{Name: name, Stage: stage, Job: job, Title: title,
			SVG: "plots/" + name + ".svg", PNG: "plots/" + name + ".png"}, build: b, inline: inl})
	}
	if t != nil && t.File != nil {
		add(StageClassify, "", "tenant-patterns", "Tenants per pattern", true, func() *plot.Plot { return PatternCounts(t.File) })
		add(StageClassify, "", "class-scatter", "Mean and peak utilisation by pattern", true, func() *plot.Plot { return ClassScatter(t.File) })
		byClass := map[string][]Representative{}
		for _, r := range t.Representatives {
			byClass[r.Class] = append(byClass[r.Class], r)
		}
		for _, c := range t.File.Classes {
			reps := byClass[c.Class]
			if len(reps) == 0 {
				continue
			}
			class := c.Class
			add(StageClassify, "", "series-"+stem(class), "Class "+class+": series", true, func() *plot.Plot { return ClassSeries(class, reps) })
			add(StageClassify, "", "spectrum-"+stem(class), "Class "+class+": spectra", true, func() *plot.Plot { return ClassSpectra(class, reps) })
		}
	}
	if hasSLO(jobs) {
		add(StageSLO, "", "slack-cdf", "Slack ratio CDF", true, func() *plot.Plot { return SlackCDF(jobs) })
	}
	if pl != nil && len(pl.Rows) > 0 {
		add(StagePlan, "", "plan-load", "Packed load over the LCM", true, func() *plot.Plot { return PlanLoad(pl) })
		if len(pl.Alpha) > 0 && pl.Alpha[0].TestRuns > 0 {
			add(StagePlan, "", "plan-alpha", "Held-out SLO misses by α", true, func() *plot.Plot { return PlanAlphaMisses(pl) })
		}
	}
	for i := range jobs {
		j := &jobs[i]
		id, s, inl := j.Profile.Job, stem(j.Profile.Job), inline[j.Profile.Job]
		if sk := j.Profile.Skyline; sk != nil {
			add(StageSkyline, id, "skyline-"+s, "Skyline of "+id, inl, func() *plot.Plot { return JobSkyline(j) })
			if len(sk.AlphaSweep) > 0 {
				add(StageSkyline, id, "alpha-"+s, "α trade-off of "+id, inl, func() *plot.Plot { return AlphaTradeoff(j) })
			}
		}
		for k := range j.Profile.Elasticity {
			m := &j.Profile.Elasticity[k]
			add(StageElasticity, id, "elasticity-"+s+"-"+stem(m.Task), id+": "+m.Task+" elasticity", inl,
				func() *plot.Plot { return ElasticityCurve(j, m) })
		}
		for k := range j.Sweeps {
			sw := &j.Sweeps[k]
			add(StageProfiler, id, "sweep-"+s+"-"+stem(sw.Task)+"-"+stem(sw.Setting), id+": "+sw.Task+" sweep", inl,
				func() *plot.Plot { return ProfilerSweep(j, sw) })
		}
	}
	// Two figures must not share a file: tasks or classes whose safe names
	// collide get a counter.
	seen := map[string]int{}
	for _, f := range figs {
		if n := seen[f.Name]; n > 0 {
			f.Name = fmt.Sprintf("%s~%d", f.Name, n)
			f.SVG, f.PNG = "plots/"+f.Name+".svg", "plots/"+f.Name+".png"
		}
		seen[f.Name]++
	}
	return figs
}

// boundName keeps a figure's file name (a prefix and up to two
// profile.FileName stems) under file systems' 255-byte limit: a long name
// is cut and ends with a hash of the whole.
func boundName(name string) string {
	const limit = 200
	if len(name) <= limit {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	return name[:limit-17] + "~" + hex.EncodeToString(sum[:8])
}

// renderAll renders the figures on workers goroutines and writes them.
func renderAll(out string, figs []*figure, workers int) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	errs := make([]error, len(figs))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = renderOne(out, figs[i])
			}
		}()
	}
	for i := range figs {
		next <- i
	}
	close(next)
	wg.Wait()
	return errors.Join(errs...)
}

func renderOne(out string, f *figure) error {
	p := f.build()
	if p == nil {
		return fmt.Errorf("reports: figure %s has nothing to draw", f.Name)
	}
	svg, png, err := render(p, figW, figH, f.PNG != "")
	if err != nil {
		return fmt.Errorf("figure %s: %w", f.Name, err)
	}
	if err := writeFile(filepath.Join(out, f.SVG), svg); err != nil {
		return err
	}
	if f.PNG != "" {
		if err := writeFile(filepath.Join(out, f.PNG), png); err != nil {
			return err
		}
	}
	if f.inline {
		f.svg = inlineSVG(svg)
	}
	return nil
}

func hasSLO(jobs []Job) bool {
	for _, j := range jobs {
		if s := j.Profile.SLO; s != nil && s.SlackRatio != nil {
			return true
		}
	}
	return false
}

func summarise(jobs []Job, t *Tenants, opts Options) Summary {
	s := Summary{TenantsByPattern: map[string]int{}, Jobs: len(jobs), MaxPenalty: opts.MaxPenalty}
	if t != nil && t.File != nil {
		s.Tenants, s.Classes = len(t.File.Tenants), len(t.File.Classes)
		for _, tn := range t.File.Tenants {
			s.TenantsByPattern[tn.Pattern]++
		}
		s.Warnings += len(t.File.Warnings)
	}
	var ideal, saved float64
	for _, j := range jobs {
		p := j.Profile
		s.Warnings += len(p.Warnings)
		if p.SLO != nil {
			s.JobsWithSLO++
			if p.SLO.Actionable {
				s.JobsActionable++
			}
		}
		if sk := p.Skyline; sk != nil {
			s.JobsWithSkyline++
			s.ReservedAreaContainerS += sk.ReservedAreaContainerS
			s.UsedAreaContainerS += sk.UsedAreaContainerS
			perDay := 1.0
			if p.PeriodS != nil && p.PeriodS.Value > 0 {
				perDay = 86400 / p.PeriodS.Value
			} else {
				s.JobsWithoutPeriod++
			}
			s.ReservedPerDayContainerS += perDay * sk.ReservedAreaContainerS
			s.UsedPerDayContainerS += perDay * sk.UsedAreaContainerS
		}
		for _, m := range p.Elasticity {
			s.ElasticityModels++
			ideal += m.IdealMemoryBytes
			saved += m.IdealMemoryBytes - smallestMemory(m, opts.MaxPenalty)
		}
	}
	if s.ElasticityModels > 0 && ideal > 0 {
		f := saved / ideal
		s.ElasticSavingsFraction = &f
	}
	return s
}

// smallestMemory is the least memory on the model's curve whose penalty is
// at most maxPenalty (the ideal memory when none is).
func smallestMemory(m profile.ElasticityModel, maxPenalty float64) float64 {
	best := m.IdealMemoryBytes
	for _, c := range m.Curve {
		if c.Penalty <= maxPenalty && c.MemoryBytes < best {
			best = c.MemoryBytes
		}
	}
	return best
}

func stages(jobs []Job, in *Input) []IndexStage {
	count := map[string]int{}
	for _, j := range jobs {
		p := j.Profile
		if p.SLO != nil {
			count[StageSLO]++
		}
		if p.Skyline != nil {
			count[StageSkyline]++
		}
		if len(p.Elasticity) > 0 {
			count[StageElasticity]++
		}
		if len(j.Sweeps) > 0 {
			count[StageProfiler]++
		}
	}
	var out []IndexStage
	for _, st := range Stages {
		s := IndexStage{Stage: st, Jobs: count[st], Computed: count[st] > 0, Notes: append([]string{}, in.Notes[st]...)}
		if st == StagePlan {
			s.Computed = in.Plan != nil && len(in.Plan.Rows) > 0
			if in.Plan != nil {
				jobs := map[string]bool{}
				for _, r := range in.Plan.Rows {
					jobs[r.Job] = true
				}
				s.Jobs = len(jobs)
			}
		}
		if st == StageSimulate {
			simStage(in, &s)
		}
		if st == StageEstimate {
			estStage(in, &s)
		}
		if st == StageHarvest {
			harvestStage(in, &s)
		}
		if st == StagePlacement {
			placementStage(in, &s)
		}
		if st == StageConstraints {
			constraintsStage(in, &s)
		}
		if st == StageClassify {
			s.Computed = in.Tenants != nil && in.Tenants.File != nil
			n := 0
			if s.Computed {
				n = len(in.Tenants.File.Tenants)
			}
			s.Tenants = &n
		}
		out = append(out, s)
	}
	return out
}
