package slo_test

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

// A world is a cluster whose true SLOs are known: recurring jobs (hourly
// and daily), their input arrivals, runs and consumers, written out as an
// HDFS audit log (what the NameNode would record) and YARN runs (what the
// ResourceManager would record). The truth is computed from the events the
// generator made, not from the logs, so a mismatch is an inference error.

// noise is one level of everything that makes inference harder.
type noise struct {
	Name         string
	NoContext    float64       // fraction of job lines without a callerContext (attributed by user and time window)
	LandJitter   time.Duration // ± on input arrival
	ReadJitter   time.Duration // ± on fixed consumer read times
	FailRate     float64       // runs that fail (no output)
	NoEndRate    float64       // runs whose end is missing from the RM log
	ChatterLines int           // metadata lines per run (getfileinfo, listStatus, ...)
	SkewRate     float64       // consumer reads logged before the producer's end (clock skew): must be ignored
	NoPathIDs    bool          // scratch directories do not carry the application id (Hive-style staging)
	Reported     bool          // beyond the bar: in the table, not asserted
}

var noiseLevels = []noise{
	{Name: "clean", NoContext: 0, LandJitter: 2 * time.Minute, ReadJitter: 10 * time.Second, ChatterLines: 2},
	{Name: "moderate", NoContext: 0.3, LandJitter: 10 * time.Minute, ReadJitter: 30 * time.Second, FailRate: 0.01, NoEndRate: 0.01, ChatterLines: 6, SkewRate: 0.01},
	{Name: "heavy", NoContext: 0.7, LandJitter: 25 * time.Minute, ReadJitter: 60 * time.Second, FailRate: 0.03, NoEndRate: 0.03, ChatterLines: 12, SkewRate: 0.03},
	{Name: "hostile", NoContext: 0.9, LandJitter: 25 * time.Minute, ReadJitter: 60 * time.Second, FailRate: 0.03, NoEndRate: 0.03, ChatterLines: 12, SkewRate: 0.03,
		NoPathIDs: true, Reported: true},
}

// consumer kinds
const (
	consFixedUser = iota // a user or dashboard reads at a fixed time: egress, actionable
	consFixedJob         // a periodic job reads at a fixed time: actionable
	consChain            // a downstream job starts right after the end: no slack
	consNone             // nobody reads: no consumer
	consRandom           // reads at random times: unstable
	consRollup           // hourly output read once a day by a daily rollup: footnote 5
)

type wJob struct {
	base      string
	user      string
	period    int64 // ms
	submitOff int64 // ms after the period start
	dur       int64 // ms, mean
	upstream  int   // index of the producer job, or -1 for an ingress input
	landOff   int64 // ms after the period start (ingress input)
	cons      int
	readOff   int64 // fixed read offset, ms
	reader    int   // index of the consumer job for consFixedJob/consChain/consRollup, else -1
	irregular bool
	triggered bool // submitted when its upstream ends (chain downstream)

	// per period: what happened (index = period number)
	runs []wRun
}

type wRun struct {
	app                string
	ok, hasEnd         bool
	periodStart        int64
	submit, start, end int64
	avail              int64 // when its output was renamed into place
	inAvail            int64 // last input arrival (truth)
	firstRead          int64 // first consumer read after end (truth), 0 when none
	outDir, datePart   string
}

// truth is the expected SLO of one job.
type truth struct {
	actionable bool
	arrivalS   float64
	deadlineS  float64
	class      string
}

type world struct {
	jobs  []*wJob
	runs  []dataset.Run
	truth map[string]truth // by normalised job name
	lines int64
}

const (
	hourMs = int64(time.Hour / time.Millisecond)
	dayMs  = 24 * hourMs
)

var worldStart = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()

func pct(xs []float64, p float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s) == 0 {
		return math.NaN()
	}
	h := float64(len(s)-1) * p / 100
	i := int(h)
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[i] + (h-float64(i))*(s[i+1]-s[i])
}

// newJobs lays out n groups of recurring jobs. Each group is one of the
// kinds above; chains and fixed-job consumers add the consumer as a job of
// its own.
func newJobs(rng *rand.Rand, groups int) []*wJob {
	var jobs []*wJob
	users := []string{"etl", "analytics", "ads", "finance", "search", "ml"}
	add := func(j *wJob) int {
		j.user = users[len(jobs)%len(users)]
		jobs = append(jobs, j)
		return len(jobs) - 1
	}
	for g := 0; g < groups; g++ {
		hourly := g%2 == 0
		p, kind := dayMs, g%7
		if hourly {
			p = hourMs
		}
		j := &wJob{period: p, upstream: -1, reader: -1}
		if hourly {
			j.base = fmt.Sprintf("hourly_clicks_%02d", g)
			j.submitOff = int64(rng.IntN(15)+2) * 60_000
			j.dur = int64(rng.IntN(6)+3) * 60_000
			j.landOff = j.submitOff - int64(rng.IntN(90)+30)*1000
		} else {
			j.base = fmt.Sprintf("daily_sales_%02d", g)
			j.submitOff = int64(rng.IntN(16)+1)*hourMs + int64(rng.IntN(60))*60_000
			j.dur = int64(rng.IntN(40)+10) * 60_000
			j.landOff = j.submitOff - int64(rng.IntN(40)+10)*60_000
		}
		// fixed reads come well after the slowest end: 2 to 5 durations of slack
		latestEnd := j.submitOff + 30*60_000 + j.dur*13/10
		j.readOff = latestEnd + j.dur*int64(rng.IntN(4)+2)
		switch kind {
		case 0, 1:
			j.cons = consFixedUser
		case 2:
			j.cons = consFixedJob
		case 3:
			j.cons = consChain
		case 4:
			j.cons = consNone
		case 5:
			j.cons = consRandom
		case 6:
			if hourly {
				j.cons = consRollup
			} else {
				j.cons = consFixedUser
				j.irregular = true
				j.base = fmt.Sprintf("adhoc_report_%02d", g)
			}
		}
		i := add(j)
		switch j.cons {
		case consFixedJob:
			c := &wJob{base: j.base + "_export", period: p, upstream: i, reader: -1, cons: consNone, submitOff: j.readOff, dur: j.dur / 2}
			j.reader = add(c)
		case consChain:
			// the downstream starts when j ends and is itself read at a fixed time
			c := &wJob{base: j.base + "_enrich", period: p, upstream: i, reader: -1, cons: consFixedUser, triggered: true, dur: j.dur / 2}
			c.readOff = j.readOff + j.dur
			j.reader = add(c)
		case consRollup:
			c := &wJob{base: fmt.Sprintf("daily_rollup_%02d", g), period: dayMs, upstream: i, reader: -1, cons: consNone,
				submitOff: 30 * 60_000, dur: 20 * 60_000}
			j.reader = add(c)
		}
	}
	return jobs
}

// event is one audit line, kept until every earlier line is known.
type event struct {
	t    int64
	line string
}

type gen struct {
	rng     *rand.Rand
	nz      noise
	loc     *time.Location
	seq     int
	pending []event
	out     *bufio.Writer
	lines   int64
	w       *world
}

func (g *gen) jit(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	ms := int64(d / time.Millisecond)
	return g.rng.Int64N(2*ms+1) - ms
}

func (g *gen) emit(t int64, user, cmd, src, dst, ctx string) {
	ts := time.UnixMilli(t).In(g.loc).Format("2006-01-02 15:04:05,000")
	if dst == "" {
		dst = "null"
	}
	line := ts + " INFO FSNamesystem.audit: allowed=true\tugi=" + user + "\tip=/10.0.0.1\tcmd=" + cmd + "\tsrc=" + src + "\tdst=" + dst + "\tperm=null\tproto=rpc"
	if ctx != "" {
		line += "\tcallerContext=" + ctx
	}
	g.pending = append(g.pending, event{t, line})
}

// jobCtx is the caller context of a job line, dropped at the noise rate.
func (g *gen) jobCtx(app string, task int) string {
	if g.rng.Float64() < g.nz.NoContext {
		return ""
	}
	return fmt.Sprintf("mr_attempt_%s_m_%06d_0", strings.TrimPrefix(app, "application_"), task)
}

// flush writes every pending line earlier than before, in time order.
func (g *gen) flush(before int64) {
	sort.SliceStable(g.pending, func(a, b int) bool { return g.pending[a].t < g.pending[b].t })
	k := sort.Search(len(g.pending), func(i int) bool { return g.pending[i].t >= before })
	for _, e := range g.pending[:k] {
		g.out.WriteString(e.line)
		g.out.WriteByte('\n')
	}
	g.lines += int64(k)
	g.pending = append(g.pending[:0], g.pending[k:]...)
}

// genWorld writes the audit log of days days to out (in loc's local time)
// and returns the runs and the truth.
func genWorld(seed uint64, groups, days int, nz noise, loc *time.Location, out io.Writer) *world {
	rng := rand.New(rand.NewPCG(seed, 7))
	w := &world{jobs: newJobs(rng, groups), truth: map[string]truth{}}
	g := &gen{rng: rng, nz: nz, loc: loc, out: bufio.NewWriterSize(out, 1<<20), w: w}
	for _, j := range w.jobs {
		j.runs = make([]wRun, days*int(dayMs/j.period))
	}
	for d := 0; d < days; d++ {
		dayStart := worldStart + int64(d)*dayMs
		// jobs are laid out producers first, so a consumer sees its
		// producer's run of the same period
		for _, j := range w.jobs {
			per := int(dayMs / j.period)
			for k := 0; k < per; k++ {
				g.period(j, d*per+k, dayStart+int64(k)*j.period)
			}
		}
		g.flush(dayStart)
	}
	g.flush(math.MaxInt64)
	g.out.Flush()
	w.lines = g.lines
	w.computeTruth()
	return w
}

// period simulates one period of job j.
func (g *gen) period(j *wJob, n int, ps int64) {
	r := &j.runs[n]
	r.periodStart = ps
	g.seq++
	r.app = fmt.Sprintf("application_1704067200000_%06d", g.seq)
	date := time.UnixMilli(ps).UTC().Format("2006-01-02")
	if j.period == hourMs {
		date = time.UnixMilli(ps).UTC().Format("2006-01-02T15")
	}
	r.datePart = date
	r.outDir = "/data/" + j.base + "/" + date

	// input
	var inPaths []string
	var inRuns []*wRun // the producer run of each input path, nil for ingress
	switch {
	case j.upstream < 0:
		land := ps + j.landOff + g.jit(g.nz.LandJitter)
		tmp := "/landing/" + j.base + "/" + date + "/events.csv._COPYING_"
		g.emit(land-int64(g.rng.IntN(20_000)+1000), "loader", "create", tmp, "", "")
		g.emit(land, "loader", "rename", tmp, strings.TrimSuffix(tmp, "._COPYING_"), "")
		r.inAvail = land
		inPaths = []string{strings.TrimSuffix(tmp, "._COPYING_")}
		inRuns = []*wRun{nil}
	default:
		up := g.w.jobs[j.upstream]
		if up.period == j.period {
			u := &up.runs[n]
			if !u.ok {
				r.ok = false
				return // nothing to read: the scheduler skips this period
			}
			r.inAvail = u.avail
			inPaths = []string{u.outDir + "/part-00000", u.outDir + "/part-00001"}
			inRuns = []*wRun{u, u}
		} else { // daily rollup of hourly outputs: the previous day's 24 hours
			per := int(j.period / up.period)
			r.inAvail = 0
			for k := (n - 1) * per; k < n*per && k >= 0; k++ {
				u := &up.runs[k]
				if u.ok {
					inPaths = append(inPaths, u.outDir+"/part-00000")
					inRuns = append(inRuns, u)
					r.inAvail = max(r.inAvail, u.avail)
				}
			}
			if len(inPaths) == 0 {
				return
			}
		}
	}

	// submission and run
	switch {
	case j.irregular:
		if g.rng.Float64() < 0.4 {
			return // runs when someone asks, not every period
		}
		r.submit = ps + g.rng.Int64N(j.period)
	case j.triggered:
		r.submit = r.inAvail + 2000 + g.rng.Int64N(15_000)
	default:
		r.submit = ps + j.submitOff + g.rng.Int64N(20_000)
	}
	r.start = max(r.submit, r.inAvail) + 3000 + g.rng.Int64N(30_000)
	dur := j.dur * int64(90+g.rng.IntN(21)) / 100
	r.end = r.start + dur
	r.ok = g.rng.Float64() >= g.nz.FailRate
	r.hasEnd = g.rng.Float64() >= g.nz.NoEndRate
	status := "FINISHED"
	if !r.ok {
		status = "FAILED"
	}
	endMs := r.end
	if !r.hasEnd {
		endMs = dataset.NoTime
	}
	g.w.runs = append(g.w.runs, dataset.Run{Run: r.app, Name: j.base + " " + date, User: j.user, Queue: "prod",
		Status: status, SubmitMs: r.submit, StartMs: r.start, EndMs: endMs, Source: "world"})

	for i, p := range inPaths {
		t := r.start + int64(g.rng.IntN(20_000))
		g.emit(t, j.user, "open", p, "", g.jobCtx(r.app, i%4))
		if u := inRuns[i]; u != nil && t >= u.end && (u.firstRead == 0 || t < u.firstRead) {
			u.firstRead = t
		}
	}
	for c := 0; c < g.nz.ChatterLines; c++ {
		t := r.start + g.rng.Int64N(dur)
		cmd := []string{"getfileinfo", "listStatus", "mkdirs"}[c%3]
		g.emit(t, j.user, cmd, "/data/"+j.base, "", g.jobCtx(r.app, c))
	}
	if !r.ok {
		return
	}
	tmp := "/data/" + j.base + "/_temporary/" + r.app
	if g.nz.NoPathIDs {
		tmp = fmt.Sprintf("/data/%s/.staging_%08x", j.base, g.rng.Uint32())
	}
	for k := 0; k < 2; k++ {
		t := r.start + dur*int64(30+g.rng.IntN(60))/100
		part := fmt.Sprintf("%s/part-%05d", tmp, k)
		g.emit(t, j.user, "create", part, "", g.jobCtx(r.app, k))
		if g.rng.IntN(3) == 0 { // a task re-reading what it wrote
			g.emit(t+500, j.user, "open", part, "", g.jobCtx(r.app, k))
		}
	}
	r.avail = r.end - 1000 - g.rng.Int64N(4000)
	g.emit(r.avail, j.user, "rename", tmp, r.outDir, g.jobCtx(r.app, 0))
	g.emit(r.avail+200, j.user, "create", r.outDir+"/_SUCCESS", "", g.jobCtx(r.app, 0))

	// consumers
	read := func(t int64, user, ctx string) {
		if t < r.end {
			return
		}
		if r.firstRead == 0 || t < r.firstRead {
			r.firstRead = t
		}
		g.emit(t, user, "open", r.outDir+"/part-00000", "", ctx)
	}
	if g.rng.Float64() < g.nz.SkewRate {
		// a read logged before the producer ended: the inference must ignore it
		g.emit(r.end-60_000-g.rng.Int64N(60_000), "auditor", "open", r.outDir+"/part-00001", "", "")
	}
	switch j.cons {
	case consFixedUser:
		read(ps+j.readOff+g.jit(g.nz.ReadJitter), "dashboard", "")
	case consRandom:
		read(r.end+60_000+g.rng.Int64N(j.period), "analyst", "")
	case consFixedJob, consChain, consRollup:
		// the consumer job's own period reads it (it runs later in this loop)
	}
}

// computeTruth derives each job's true SLO from the simulated events.
func (w *world) computeTruth() {
	for _, j := range w.jobs {
		name := j.base + " <date>"
		var arr, reads []float64
		okRuns := 0
		for n := range j.runs {
			r := &j.runs[n]
			if r.start == 0 || !r.ok || !r.hasEnd {
				continue
			}
			okRuns++
			arr = append(arr, float64(r.inAvail-r.periodStart)/1000)
			if j.cons == consRollup {
				reads = append(reads, float64(j.period)/1000) // footnote 5: forced to its own period
			} else if r.firstRead > 0 {
				reads = append(reads, float64(r.firstRead-r.periodStart)/1000)
			}
		}
		tr := truth{class: className(j)}
		tr.actionable = !j.irregular && (j.cons == consFixedUser || j.cons == consFixedJob || j.cons == consRollup)
		tr.arrivalS = pct(arr, 95)
		tr.deadlineS = pct(reads, 50)
		w.truth[name] = tr
	}
}

func className(j *wJob) string {
	if j.irregular {
		return "irregular"
	}
	return []string{"fixed-user", "fixed-job", "chain", "none", "random", "rollup"}[j.cons]
}
