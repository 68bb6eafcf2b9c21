package slo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/quantile"
	"github.com/wlprof/wlprof/internal/yarnid"
)

// Options of Load and Run. Start from DefaultOptions; doc.go says why each
// default is what it is.
type Options struct {
	MinRuns            int     // fewer runs: not actionable (default 5)
	MaxPeriodCV        float64 // submission spacing CV above this: irregular (default 0.2)
	SnapTolerance      float64 // relative distance to a natural period to snap to it (default 0.1)
	MaxReadCV          float64 // CV of T_outRead above this: unstable reads (default 0.1)
	MaxReadSpread      float64 // MAD of T_outRead over the period above this: unstable reads (default 0.05)
	MinSlack           float64 // median slack ratio below this: no slack (default 0.5)
	ArrivalPercentile  float64 // of T_inAvail (default 95)
	DeadlinePercentile float64 // of T_outRead (default 50)
	WindowGraceS       float64 // user-window attribution: slack around a run's [start, end] (default 60 s)
	HorizonS           float64 // file state untouched this long is dropped (default 8 days)
	// Overrides, when set, are applied; else Load reads OverridesFile, if any.
	Overrides     *Overrides
	OverridesFile string // YAML or JSON file of user sign-offs and overrides ("": none)
	Job           string // only this job (normalised name, as listed); "": every job
}

// DefaultOptions returns the documented defaults.
func DefaultOptions() Options {
	return Options{MinRuns: 5, MaxPeriodCV: 0.2, SnapTolerance: 0.1, MaxReadCV: 0.1, MaxReadSpread: 0.05, MinSlack: 0.5,
		ArrivalPercentile: 95, DeadlinePercentile: 50, WindowGraceS: 60, HorizonS: 8 * 86400}
}

// Input is what Run reads: every run (from the runs table) and a stream
// of provenance rows, in time order (the order audit logs are written in;
// rows more than a minute out of order are counted in Graph.OutOfOrder).
// The stream is read twice.
type Input struct {
	// Dataset is where the input was read from, named in errors.
	Dataset string
	// Overrides, read by Load from Options.OverridesFile, replace
	// Options.Overrides when set.
	Overrides *Overrides
	Runs      []dataset.Run
	// Provenance calls fn with every row; the row may be reused between
	// calls. Nil: no provenance.
	Provenance func(fn func(*dataset.Provenance) error) error
}

// ErrNoRuns: there is nothing to infer from.
var ErrNoRuns = errors.New("slo: no runs (ingest scheduler logs such as yarn-rm or openlineage first)")

// run is one merged run.
type run struct {
	id                 string
	job                int32
	user               string
	ok                 bool // finished successfully
	submit, start, end int64
	winEnd             int64 // end, or start + the job's median duration when the end is unknown
	inAvail, outRead   int64
}

// jobAcc accumulates one job's edges while provenance streams by.
type jobAcc struct {
	name          string
	runs          []int32
	consumers     map[int32]int64 // consumer job index (-1 = egress) → reads after the end
	producers     map[int32]bool  // producer job indices; -1 = ingress
	attribution   map[string]int64
	readBeforeEnd int64
	skew          int64
}

type fileState struct {
	t, touch int64 // last write (NoTime: before the log) and last event
	w        int32 // writer run, -1 when no known run
	flags    uint8
}

const (
	readByJob uint8 = 1 << iota
	readByUser
)

type inferer struct {
	opts       Options
	runs       []run
	byID       map[string]int32
	jobs       []*jobAcc
	byUser     map[string][]int32 // runs sorted by start
	maxDur     map[string]int64
	files      map[string]fileState
	graph      Graph
	maxT       int64
	unknownCtx int64
	affRead    map[string]map[int32]int32 // stem → job → unambiguous reads
	affWrite   map[string]map[int32]int32 // stem → job → unambiguous writes
	cands      []int32
	learning   bool // pass 1: attribute only to learn affinities
}

// Run is the slo stage: it builds the provenance graph, finds recurring
// jobs and their periods, and infers each job's arrival and deadline.
// Every job's inference needs the whole graph (a job's deadline is when
// another job reads its output), so the stage has no per-job core a
// distributed runner could call without that join first.
func Run(ctx context.Context, in Input, opts Options) (*Result, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if len(in.Runs) == 0 {
		return nil, ErrNoRuns
	}
	if in.Overrides != nil {
		opts.Overrides = in.Overrides
	}
	f := &inferer{opts: opts, byID: map[string]int32{}, byUser: map[string][]int32{}, maxDur: map[string]int64{},
		files: map[string]fileState{}, maxT: math.MinInt64,
		affRead: map[string]map[int32]int32{}, affWrite: map[string]map[int32]int32{}}
	f.graph.Ignored = map[string]int64{}
	f.graph.Attribution = map[string]int64{}
	f.mergeRuns(in.Runs)
	if in.Provenance != nil {
		// Pass 1 only learns which jobs touch which directories, from
		// edges whose run is certain, so that pass 2 can resolve
		// ambiguous ones from the first day of the log on.
		f.learning = true
		n := 0
		err := in.Provenance(func(p *dataset.Provenance) error {
			if n++; n&0xffff == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			switch p.Op {
			case "write", "rename":
				f.attribute(p, true, -1)
			case "read":
				f.attribute(p, false, -1)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		f.learning = false
		n = 0
		err = in.Provenance(func(p *dataset.Provenance) error {
			if n++; n&0xffff == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
				if n&0xfffff == 0 {
					f.evict()
				}
			}
			f.event(p)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	for k, st := range f.files {
		f.finish(st)
		delete(f.files, k)
	}
	res := f.result()
	res.opts = opts
	if opts.Job != "" && !res.Only(opts.Job) {
		names := make([]string, len(res.Jobs))
		for i, j := range res.Jobs {
			names[i] = j.Job
		}
		return nil, dataset.NewUnknownJob(in.Dataset, "SLO", opts.Job, names)
	}
	return res, nil
}

func isSuccess(status string) bool {
	switch strings.ToUpper(status) {
	case "", "FINISHED", "SUCCEEDED", "SUCCESS", "COMPLETE", "COMPLETED", "SUCCESSFUL":
		return true
	}
	return false
}

func isTerminal(status string) bool {
	switch strings.ToUpper(status) {
	case "", "RUNNING", "UNKNOWN", "NEW", "SUBMITTED", "ACCEPTED", "START":
		return false
	}
	return true
}

func minTime(a, b int64) int64 {
	if a == dataset.NoTime || (b != dataset.NoTime && b < a) {
		return b
	}
	return a
}

func maxTime(a, b int64) int64 {
	if a == dataset.NoTime || (b != dataset.NoTime && b > a) {
		return b
	}
	return a
}

// mergeRuns merges rows of one run id (OpenLineage writes one per event),
// groups runs into jobs by normalised name and indexes them by user.
func (f *inferer) mergeRuns(rows []dataset.Run) {
	jobIdx := map[string]int32{}
	status := map[int32]string{}
	for _, r := range rows {
		id := r.Run
		if id == "" {
			id = fmt.Sprintf("%s@%d", r.Name, r.SubmitMs)
		}
		i, ok := f.byID[id]
		if !ok {
			id = strings.Clone(id)
			key := RunJob(&r)
			j, ok := jobIdx[key]
			if !ok {
				j = int32(len(f.jobs))
				jobIdx[key] = j
				f.jobs = append(f.jobs, &jobAcc{name: key, consumers: map[int32]int64{}, producers: map[int32]bool{}, attribution: map[string]int64{}})
			}
			i = int32(len(f.runs))
			f.byID[id] = i
			f.runs = append(f.runs, run{id: id, job: j, submit: dataset.NoTime, start: dataset.NoTime, end: dataset.NoTime,
				inAvail: dataset.NoTime, outRead: dataset.NoTime})
			f.jobs[j].runs = append(f.jobs[j].runs, i)
		}
		ru := &f.runs[i]
		if ru.user == "" {
			ru.user = strings.Clone(r.User)
		}
		ru.submit = minTime(ru.submit, r.SubmitMs)
		ru.start = minTime(ru.start, r.StartMs)
		ru.end = maxTime(ru.end, r.EndMs)
		if s, seen := status[i]; !seen || !isTerminal(s) {
			status[i] = r.Status
		}
	}
	for i := range f.runs {
		ru := &f.runs[i]
		if ru.submit == dataset.NoTime {
			ru.submit = ru.start
		}
		if ru.start == dataset.NoTime {
			ru.start = ru.submit
		}
		if ru.submit == dataset.NoTime && ru.end != dataset.NoTime {
			ru.submit, ru.start = ru.end, ru.end // an end-only lineage event: a point run
		}
		ru.ok = isSuccess(status[int32(i)]) && ru.end != dataset.NoTime
		ru.winEnd = ru.end
	}
	// A run whose end is not in the logs still ran: for attribution it
	// lasts as long as its job's median run.
	for _, acc := range f.jobs {
		var d []float64
		for _, r := range acc.runs {
			if ru := &f.runs[r]; ru.end != dataset.NoTime && ru.start != dataset.NoTime {
				d = append(d, float64(ru.end-ru.start))
			}
		}
		if len(d) == 0 {
			continue
		}
		m := int64(quantile.Percentile(d, 50))
		for _, r := range acc.runs {
			if ru := &f.runs[r]; ru.end == dataset.NoTime && ru.start != dataset.NoTime {
				ru.winEnd = ru.start + m
			}
		}
	}
	for i := range f.runs {
		ru := &f.runs[i]
		if ru.user != "" && ru.start != dataset.NoTime && ru.winEnd != dataset.NoTime {
			f.byUser[ru.user] = append(f.byUser[ru.user], int32(i))
			if d := ru.winEnd - ru.start; d > f.maxDur[ru.user] {
				f.maxDur[ru.user] = d
			}
		}
	}
	for _, rs := range f.byUser {
		sort.Slice(rs, func(a, b int) bool { return f.runs[rs[a]].start < f.runs[rs[b]].start })
	}
	f.graph.Runs = len(f.runs)
	f.graph.Jobs = len(f.jobs)
}

// attribute finds the run that performed p and says how: the run its
// callerContext, trackingId or lineage event names; else the one run of
// that user whose [start, end] (widened by WindowGraceS) holds the time
// ("user-window"); else, among several such runs, the one whose job most
// often touched the same directory stem in this role before, ties to the
// most recently started ("user-window-ambiguous"); else none (-1).
func (f *inferer) attribute(p *dataset.Provenance, write bool, hint int32) (int32, string) {
	aff := f.affRead
	if write {
		aff = f.affWrite
	}
	if p.Run != "" {
		if i, ok := f.byID[p.Run]; ok {
			how := p.Attribution
			if how == "" {
				how = "run"
			}
			f.learn(aff, p.Path, i)
			return i, how
		}
		if !f.learning {
			f.unknownCtx++
		}
	}
	// MapReduce and Spark name their scratch directories after the
	// application (_temporary/attempt_..., .sparkStaging/application_...).
	if app := yarnid.AppID(p.Path); app != "" {
		if i, ok := f.byID[app]; ok {
			f.learn(aff, p.Path, i)
			return i, "path"
		}
	}
	rs := f.byUser[p.User]
	if len(rs) == 0 {
		return -1, "none"
	}
	grace := int64(f.opts.WindowGraceS * 1000)
	t := p.TimeMs
	k := sort.Search(len(rs), func(i int) bool { return f.runs[rs[i]].start > t+grace })
	cands := f.cands[:0]
	lo := t - f.maxDur[p.User] - grace
	for i := k - 1; i >= 0; i-- {
		ru := &f.runs[rs[i]]
		if ru.start < lo {
			break
		}
		if t <= ru.winEnd+grace {
			cands = append(cands, rs[i])
		}
	}
	f.cands = cands
	switch len(cands) {
	case 0:
		return -1, "none"
	case 1:
		// The only run in the window is still not the reader when the
		// directory is known to be touched by other jobs and never by this
		// one (its true reader may be missing from the runs table).
		if m := aff[stem(p.Path)]; m != nil && m[f.runs[cands[0]].job] == 0 && !f.learning {
			return -1, "none"
		}
		f.learn(aff, p.Path, cands[0])
		return cands[0], "user-window"
	}
	for _, c := range cands {
		if c == hint {
			return c, "user-window-ambiguous" // the run that wrote what is read: reading its own output
		}
	}
	best, bestN := cands[0], int32(-1)
	if m := aff[stem(p.Path)]; m != nil {
		for _, c := range cands { // most recently started first
			if n := m[f.runs[c].job]; n > bestN {
				best, bestN = c, n
			}
		}
	}
	return best, "user-window-ambiguous"
}

// learn counts that run r's job touched the stem of path.
func (f *inferer) learn(aff map[string]map[int32]int32, path string, r int32) {
	st := stem(path)
	m := aff[st]
	if m == nil {
		m = map[int32]int32{}
		aff[strings.Clone(st)] = m
	}
	m[f.runs[r].job]++
}

// stem is the part of a path that stays the same from run to run: the
// components before the first that looks per-run (holds four or more
// digits, as dates, hours, part numbers and application ids do), or up to
// and including the first that starts with "_" or "." as temporary and
// staging directories do.
// "/data/sales/2024-01-31/part-00000" → "/data/sales";
// "/data/sales/_temporary/0/part-0" → "/data/sales/_temporary".
func stem(path string) string {
	end := len(path)
	for i := 1; i < len(path); {
		j := strings.IndexByte(path[i:], '/')
		comp := path[i:]
		if j >= 0 {
			comp = path[i : i+j]
		}
		digits := 0
		for k := 0; k < len(comp); k++ {
			if comp[k] >= '0' && comp[k] <= '9' {
				digits++
			}
		}
		if digits >= 4 {
			end = i - 1
			break
		}
		if len(comp) > 0 && (comp[0] == '_' || comp[0] == '.') {
			end = i + len(comp) // keep "_temporary": a job's own scratch is not its output
			break
		}
		if j < 0 {
			break
		}
		i += j + 1
	}
	if end <= 0 {
		return path
	}
	return path[:end]
}

// intern returns s from m's keys, adding a copy when new: strings read
// from the dataset point into whole Arrow batches, which a map key would
// keep alive.
func intern(m map[string]int64, s string) string {
	if _, ok := m[s]; !ok {
		s = strings.Clone(s)
		m[s] = 0
	}
	return s
}

func (f *inferer) countEdge(r int32, how string) {
	how = intern(f.graph.Attribution, how)
	f.graph.Attribution[how]++
	if r >= 0 {
		f.jobs[f.runs[r].job].attribution[how]++
	}
}

func (f *inferer) event(p *dataset.Provenance) {
	f.graph.Events++
	t := p.TimeMs
	if f.maxT != math.MinInt64 && t < f.maxT-60_000 {
		f.graph.OutOfOrder++
	}
	if t > f.maxT {
		f.maxT = t
	}
	switch p.Op {
	case "write":
		r, how := f.attribute(p, true, -1)
		f.countEdge(r, how)
		f.setWrite(p.Path, t, r)
	case "rename":
		if p.Dst == "" {
			f.graph.Ignored["rename without dst"]++
			return
		}
		r, how := f.attribute(p, true, -1)
		if st, ok := f.files[p.Path]; ok {
			if r < 0 {
				r = st.w // a loader or user moved a job's output into place
			}
			f.finish(st)
			delete(f.files, p.Path)
		}
		f.countEdge(r, how)
		f.setWrite(p.Dst, t, r)
	case "delete":
		if st, ok := f.files[p.Path]; ok {
			f.finish(st)
			delete(f.files, p.Path)
		}
	case "read":
		f.read(p)
	default:
		f.graph.Ignored[intern(f.graph.Ignored, p.Op)]++
	}
}

func (f *inferer) setWrite(path string, t int64, r int32) {
	if st, ok := f.files[path]; ok {
		f.finish(st)
		st.t, st.touch, st.w, st.flags = t, t, r, 0
		f.files[path] = st
		return
	}
	f.graph.Files++
	f.files[strings.Clone(path)] = fileState{t: t, touch: t, w: r}
}

// lookup finds the newest version of path among the path itself and its
// ancestors (a read of a file below a directory that was renamed into
// place reads that directory's version; an older state of the exact path,
// such as an earlier read of a file not yet written, must not shadow it).
func (f *inferer) lookup(path string) (string, fileState, bool) {
	var key string
	var best fileState
	found := false
	for p := path; p != ""; {
		if st, ok := f.files[p]; ok && (!found || st.t != dataset.NoTime && (best.t == dataset.NoTime || st.t > best.t)) {
			key, best, found = p, st, true
		}
		i := strings.LastIndexByte(p, '/')
		if i <= 0 {
			break
		}
		p = p[:i]
	}
	return key, best, found
}

func (f *inferer) read(p *dataset.Provenance) {
	t := p.TimeMs
	key, st, ok := f.lookup(p.Path)
	hint := int32(-1)
	if ok {
		hint = st.w
	}
	r, how := f.attribute(p, false, hint)
	if !ok {
		key = strings.Clone(p.Path)
		st = fileState{t: dataset.NoTime, w: -1}
		f.graph.Files++
	}
	st.touch = t
	defer func() { f.files[key] = st }()
	if r >= 0 && r == st.w {
		return // a run reading its own output
	}
	f.countEdge(r, how)
	if st.t != dataset.NoTime && t < st.t {
		if r >= 0 {
			f.jobs[f.runs[r].job].skew++
		}
		return
	}
	if r >= 0 {
		st.flags |= readByJob
		ru := &f.runs[r]
		prod := int32(-1)
		if st.w >= 0 {
			prod = f.runs[st.w].job
		}
		// A job reading its own earlier output (an incremental job) does
		// not wait for it: that is neither an input arrival nor a producer.
		if prod != ru.job {
			f.jobs[ru.job].producers[prod] = true
			if st.t != dataset.NoTime {
				ru.inAvail = maxTime(ru.inAvail, st.t)
			}
		}
	} else {
		st.flags |= readByUser
	}
	if st.w < 0 {
		return
	}
	w := &f.runs[st.w]
	if w.end == dataset.NoTime {
		return // not measured; the run is reported as without an end
	}
	if t < w.end {
		f.jobs[w.job].readBeforeEnd++
		f.graph.ReadBeforeEnd++
		return
	}
	cons := int32(-1)
	if r >= 0 {
		cons = f.runs[r].job
	}
	if cons == w.job {
		return // the next run of the same job reading the previous output is not a consumer
	}
	w.outRead = minTime(w.outRead, t)
	f.jobs[w.job].consumers[cons]++
}

// finish classifies a file version that is replaced, deleted or dropped.
func (f *inferer) finish(st fileState) {
	switch {
	case st.w >= 0 && st.flags&readByJob == 0:
		f.graph.EgressFiles++
	case st.w < 0 && st.flags&readByJob != 0:
		f.graph.IngressFiles++
	}
}

// evict drops file state untouched for HorizonS, which bounds memory by
// the horizon rather than by the length of the log.
func (f *inferer) evict() {
	if len(f.files) < 1<<16 {
		return
	}
	cut := f.maxT - int64(f.opts.HorizonS*1000)
	for k, st := range f.files {
		if st.touch < cut {
			f.finish(st)
			delete(f.files, k)
		}
	}
}

// RunJob is the job a run of the runs table belongs to: the id ingest
// stored in runs.job, which the skylines and profiling runs of the job
// also carry (the report joins the stages by it): a name ingest normalised
// (yarn-rm, spark-eventlog), or the format's own recurring id
// (ResourceEstimator logs). OpenLineage job names are stored as logged and
// may carry a date or an hour, so they, and runs without a job, are
// grouped by their normalised name (profile.JobKey).
func RunJob(r *dataset.Run) string {
	if r.Job != "" && r.Source != "openlineage" {
		return r.Job
	}
	name := r.Job
	if name == "" {
		name = r.Name
	}
	return Normalise(name)
}
