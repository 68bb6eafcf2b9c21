// Format "yarn-rm". Runs, skylines and job identity: package doc (doc.go).
//
// yarn-rm reads ResourceManager logs in log4j layout ("yyyy-MM-dd
// HH:mm:ss,SSS" or "yy/MM/dd HH:mm:ss" prefixes) and in the wrapped layout
// of the ResourceEstimator's sample logs ("N:e,MM/dd/yyyy HH:mm:ss,...",
// whose second comma field is the time). Times without an offset are read in
// Options.Location (--tz). Each ApplicationSummary line (comma-separated
// key=value with '\' escapes, looked up by key since fields vary by Hadoop
// version) is a run: appId, name, user, queue; submitTime (else the last
// Submit Application Request line, else startTime), launchTime (else
// startTime) as start, finishTime as end (epoch ms; 0 is "not set"); status
// FAILED or KILLED when state or finalStatus says so, else the state. The
// RM writes one summary per application: a second ApplicationSummary for
// an appId already summarised in the file is a reject naming the first's
// line, so one run id counts once.
// Skylines follow the estimator's RmSingleLineParser and JobMetaData
// exactly: the leftmost of "Submit Application Request", "AM Allocated
// Container", "AM Released Container", "finalState=FAILED",
// "ApplicationSummary", ", Resource:" decides a line's event; a submit line
// (re)starts the application's record, so a later one wins; a failed attempt
// discards what was recorded and restarts the skyline at the failure; a
// container holds the application's Resource spec (from an attempt or
// container id line with <memory:N, vCores:N>; 1024 MB and 1 vcore when
// there is none) over [start, end) in whole seconds from the submission
// (Java integer division); containers never released are left out; a skyline
// is kept only for an application whose ApplicationSummary has a
// pipeline-run name, under the pipeline id. Lines of the six events that
// lack the field the estimator needs are rejects (the estimator logs and
// skips them); events of applications not submitted in the file, log lines
// without these events and continuation lines are counted in the notes.
// State does not cross files, as in the estimator, which parses one file at
// a time: an application submitted in one rolled RM log and finished in the
// next gets its run from the ApplicationSummary (submit = startTime when the
// summary has no submitTime) but no skyline, and one still running at the
// end of a file is only noted. The same holds when log4j routes
// ApplicationSummary to its own file (rm-appsummary.log): merge it with the
// main log by time (sort -m) to get skylines. The per-container RESOURCE=
// field of Hadoop 3 audit lines is not used: the estimator sizes every
// container like the Resource spec line.
// Two deliberate departures, both on logs the RM does not write: a container
// whose release is timed before its allocation or before the submission (a
// log out of time order) is left out and counted, where the estimator would
// make a negative-time or never-ending interval of it; and an application is
// forgotten after its ApplicationSummary even without a recurring id, where
// the estimator keeps its record for a second summary that does not come.
// TestYarnRMMatchesEstimator checks the rest against a line-by-line
// transcription of the estimator on seeded random logs.

package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

func init() {
	register(&Format{
		Name:        "yarn-rm",
		Table:       "runs+skylines",
		Description: "YARN ResourceManager log: ApplicationSummary → runs, AM container allocate/release → skylines (Hadoop ResourceEstimator semantics)",
		Detect: func(name string, head []byte) bool {
			return bytes.Contains(head, []byte("RMAuditLogger")) ||
				bytes.Contains(head, []byte("RMAppManager$ApplicationSummary"))
		},
		ingest: func(ctx context.Context, in *Input, s *sink) error {
			return drainJobs(ctx, s, newYarnRM(in, s.opts.Location))
		},
	})
}

// The events of a ResourceManager log that make runs and skylines, found
// the way Hadoop's ResourceEstimator finds them (RmSingleLineParser): the
// leftmost of these markers in a line decides its event.
var rmMarkers = [...]string{
	"Submit Application Request", "AM Allocated Container", "AM Released Container",
	"finalState=FAILED", "ApplicationSummary", ", Resource:",
}

const (
	rmSubmit = iota
	rmAllocated
	rmReleased
	rmFailed
	rmSummary
	rmSpec
)

// The field patterns of RmSingleLineParser, so that ids are found (or
// not) exactly where the estimator finds them.
var (
	rmAppIDRe     = regexp.MustCompile(`APPID=(\w+)`)
	rmContainerRe = regexp.MustCompile(`APPID=(\w+).*?CONTAINERID=(\w+)`)
	rmAttemptRe   = regexp.MustCompile(`appattempt_(\d+_\d+)_\d+`)
	rmFinishRe    = regexp.MustCompile(`appId=(\w+).*?name=(\w+)\-(\w+)`)
	rmSpecRe      = regexp.MustCompile(`(container_[^_]+|appattempt)_(\d+_\d+).*?memory:(\d+),\svCores:(\d+)`)
	rmUserRe      = regexp.MustCompile(`USER=([^\s"]+)`)
)

// Hadoop's default container when a log has no Resource spec for an
// application (JobMetaData.createSkyline): 1024 MB, 1 vcore.
const (
	rmDefaultMemoryMB = 1024
	rmDefaultVCores   = 1
)

// rmApp is what the log has said so far about one application. The
// estimator fields (est*) are reset by a later submit line or a failed
// attempt, as the estimator resets its JobMetaData.
type rmApp struct {
	user       string
	submitMs   int64 // latest Submit Application Request line
	submitLine int64

	estSubmitMs int64
	start, end  map[string]int64 // container id → ms
	specMB      int64
	specVCores  int64
}

func (a *rmApp) reset(ms int64) {
	a.estSubmitMs = ms
	a.start, a.end = map[string]int64{}, map[string]int64{}
	a.specMB, a.specVCores = 0, 0
}

// yarnRM reads a ResourceManager log, plain log4j or wrapped the way the
// ResourceEstimator's sample logs are, into runs (one per ApplicationSummary)
// and skylines (one per application the estimator would keep).
type yarnRM struct {
	jobLines
	file string
	loc  *time.Location

	apps map[string]*rmApp
	// summarised is the line of each application's ApplicationSummary in
	// this file: the RM writes one per application, so a second one is a
	// reject and one run id counts once.
	summarised map[string]int64
	done       bool

	// counts for the notes
	lines, nonLog, events, unknownApp, noRecurrence, unreleased, backwards, dupStart int64
	wrapped, plain                                                                   int64
}

func newYarnRM(in *Input, loc *time.Location) *yarnRM {
	if loc == nil {
		loc = time.UTC
	}
	return &yarnRM{jobLines: jobLines{lr: newLineReader(in)}, file: in.Path, loc: loc, apps: map[string]*rmApp{}, summarised: map[string]int64{}}
}

func (r *yarnRM) Scan() bool {
	r.perr, r.rec = nil, jobRecord{}
	for !r.done {
		line, err := r.lr.next()
		if err == io.EOF {
			r.done = true
			break
		}
		if err != nil && !errors.Is(err, errLineTooLong) {
			r.err, r.done = err, true
			return false
		}
		r.lines++
		if err != nil {
			r.perr = r.bad(line, err)
			return true
		}
		if r.line(line) {
			return true
		}
	}
	return false
}

func (r *yarnRM) bad(line []byte, err error) *ParseError {
	return &ParseError{File: r.file, Line: r.lr.line, Err: err, Record: recordText(line)}
}

// line handles one input line and reports whether it produced a record or
// a reject.
func (r *yarnRM) line(line []byte) bool {
	ev, at := -1, -1
	for i, m := range rmMarkers {
		if k := bytes.Index(line, []byte(m)); k >= 0 && (at < 0 || k < at) {
			ev, at = i, k
		}
	}
	if ev < 0 {
		if !looksLikeLogLine(line) {
			r.nonLog++
		}
		return false
	}
	ms, tail, err := r.frame(line)
	if err != nil {
		r.events++
		r.perr = r.bad(line, err)
		return true
	}
	if ms == dataset.NoTime {
		r.nonLog++ // a marker inside a stack trace or other continuation line
		return false
	}
	r.events++
	switch ev {
	case rmSubmit:
		m := rmAppIDRe.FindSubmatch(tail)
		if m == nil {
			r.perr = r.bad(line, errors.New("Submit Application Request without APPID"))
			return true
		}
		id := string(m[1])
		a := r.apps[id]
		if a == nil {
			a = &rmApp{}
			r.apps[id] = a
		}
		// A later submit line for the same application wins, and starts
		// the estimator's record afresh (RmSingleLineParser puts a new
		// JobMetaData).
		a.submitMs, a.submitLine = ms, r.lr.line
		if u := rmUserRe.FindSubmatch(tail); u != nil {
			a.user = string(u[1])
		}
		a.reset(ms)
	case rmAllocated, rmReleased:
		m := rmContainerRe.FindSubmatch(tail)
		if m == nil {
			r.perr = r.bad(line, fmt.Errorf("%s without APPID or CONTAINERID", rmMarkers[ev]))
			return true
		}
		a := r.apps[string(m[1])]
		if a == nil {
			r.unknownApp++
			return false
		}
		if ev == rmAllocated {
			if _, dup := a.start[string(m[2])]; dup {
				r.dupStart++
			}
			a.start[string(m[2])] = ms
		} else {
			a.end[string(m[2])] = ms
		}
	case rmSpec:
		m := rmSpecRe.FindSubmatch(tail)
		if m == nil {
			r.perr = r.bad(line, errors.New("Resource line without an application attempt or container id and <memory:N, vCores:N>"))
			return true
		}
		a := r.apps["application_"+string(m[2])]
		if a == nil {
			r.unknownApp++
			return false
		}
		mb, err1 := strconv.ParseInt(string(m[3]), 10, 64)
		vc, err2 := strconv.ParseInt(string(m[4]), 10, 64)
		if err1 != nil || err2 != nil || mb > 1<<40 || vc > 1<<20 {
			r.perr = r.bad(line, errors.New("Resource spec out of range"))
			return true
		}
		a.specMB, a.specVCores = mb, vc
	case rmFailed:
		m := rmAttemptRe.FindSubmatch(tail)
		if m == nil {
			r.perr = r.bad(line, errors.New("finalState=FAILED without an application attempt id"))
			return true
		}
		// A failed attempt discards what was recorded for the application;
		// its skyline starts again at the failure.
		if a := r.apps["application_"+string(m[1])]; a != nil {
			a.reset(ms)
		} else {
			r.unknownApp++
		}
	case rmSummary:
		return r.summary(line, ms, tail)
	}
	return false
}

// frame finds a line's time and the text after its prefix. Two layouts:
// the ResourceEstimator's wrapped sample lines ("N:e,MM/dd/yyyy HH:mm:ss,
// source,tag,... String1=\"...\""), whose second comma field is the time,
// and log4j lines starting "yyyy-MM-dd HH:mm:ss,SSS" or "yy/MM/dd HH:mm:ss".
// Both are local times without an offset, read in r.loc. A line in
// neither layout gives NoTime.
func (r *yarnRM) frame(line []byte) (int64, []byte, error) {
	if f := bytes.SplitN(line, []byte(","), 5); len(f) == 5 && isWrappedTime(f[1]) {
		ms, err := parseWrappedTime(f[1], r.loc)
		if err != nil {
			return 0, nil, err
		}
		r.wrapped++
		tail := f[4]
		// The estimator reads only what follows the third blank-separated
		// field of the fifth comma field (Pid=.. Tid=.. TS=..).
		tail = skipFields(tail, 3)
		tail = bytes.TrimPrefix(tail, []byte(`String1="`))
		tail = bytes.TrimSuffix(bytes.TrimRight(tail, " "), []byte(`"`))
		return ms, tail, nil
	}
	ms, n, ok, err := parseLog4jTime(line, r.loc)
	if err != nil {
		return 0, nil, err
	}
	if !ok {
		return dataset.NoTime, nil, nil
	}
	r.plain++
	return ms, line[n:], nil
}

// summary turns an ApplicationSummary line into a run and, when the
// estimator would keep one, a skyline.
func (r *yarnRM) summary(line []byte, ms int64, tail []byte) bool {
	body := tail
	if k := bytes.Index(body, []byte("ApplicationSummary:")); k >= 0 {
		body = body[k+len("ApplicationSummary:"):]
	}
	kv := parseSummary(body)
	id := kv["appId"]
	if id == "" {
		r.perr = r.bad(line, errors.New("ApplicationSummary without appId"))
		return true
	}
	if first, dup := r.summarised[id]; dup {
		// YARN logs one summary per application. A second one (a
		// duplicated or spliced log) would make a second run with the
		// same id and a second skyline restarting at offset 0; the first
		// summary stands.
		delete(r.apps, id)
		r.perr = r.bad(line, fmt.Errorf("second ApplicationSummary for %s (the first is on line %d; YARN writes one per application, so the first is kept)", id, first))
		return true
	}
	run := &dataset.Run{Run: id, Name: kv["name"], User: kv["user"], Queue: kv["queue"],
		SubmitMs: dataset.NoTime, StartMs: dataset.NoTime, EndMs: dataset.NoTime, Source: "yarn-rm"}
	for _, f := range []struct {
		key string
		dst *int64
	}{{"submitTime", &run.SubmitMs}, {"startTime", &run.StartMs}, {"launchTime", &run.StartMs}, {"finishTime", &run.EndMs}} {
		v, ok := kv[f.key]
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 || n > 1e15 {
			r.perr = r.bad(line, fmt.Errorf("ApplicationSummary %s=%q is not epoch milliseconds", f.key, v))
			return true
		}
		if n > 0 { // 0 is YARN's "not set"
			*f.dst = n
		}
	}
	run.Status = rmStatus(kv["state"], kv["finalStatus"])
	r.summarised[id] = r.lr.line
	a := r.apps[id]
	delete(r.apps, id)
	if run.SubmitMs == dataset.NoTime {
		switch {
		case a != nil:
			run.SubmitMs = a.submitMs
		case kv["startTime"] != "":
			run.SubmitMs = run.StartMs
		}
	}
	if run.User == "" && a != nil {
		run.User = a.user
	}
	// Identity: the estimator's recurring id ("pipeline-run" names) when it
	// finds one, else the normalised name.
	m := rmFinishRe.FindSubmatch(tail)
	if m != nil && string(m[1]) == id {
		run.Job = string(m[2])
	} else {
		run.Job = normaliseJobName(run.Name)
	}
	r.rec.Run = run
	if m == nil || string(m[1]) != id {
		r.noRecurrence++
		return true
	}
	if a != nil {
		r.rec.Samples = r.skyline(run.Job, id, a)
	}
	return true
}

// skyline is JobMetaData.createSkyline: every container with both an
// allocation and a release holds the application's container spec (or
// 1024 MB / 1 vcore) over [start, end) in whole seconds from the
// estimator's submission time.
func (r *yarnRM) skyline(job, id string, a *rmApp) []dataset.SkylineSample {
	mb, vc := a.specMB, a.specVCores
	if mb == 0 && vc == 0 {
		mb, vc = rmDefaultMemoryMB, rmDefaultVCores
	}
	ids := make([]string, 0, len(a.start))
	for c := range a.start {
		ids = append(ids, c)
	}
	sort.Strings(ids)
	var deltas []stepDelta
	for _, c := range ids {
		end, ok := a.end[c]
		if !ok {
			r.unreleased++
			continue
		}
		s, e := (a.start[c]-a.estSubmitMs)/1000, (end-a.estSubmitMs)/1000 // Java long division
		if s < 0 || e < s {
			r.backwards++
			continue
		}
		if s == e {
			continue
		}
		deltas = append(deltas,
			stepDelta{OffsetS: float64(s), Containers: 1, MemoryBytes: mb << 20, VCores: float64(vc)},
			stepDelta{OffsetS: float64(e), Containers: -1, MemoryBytes: -mb << 20, VCores: -float64(vc)})
	}
	return stepSamples(job, id, deltas)
}

// rmStatus folds YARN's state and final status into one word: FAILED or
// KILLED when either says so, FINISHED for a finished application that
// succeeded, else the state.
func rmStatus(state, final string) string {
	switch {
	case final == "FAILED" || state == "FAILED":
		return "FAILED"
	case final == "KILLED" || state == "KILLED":
		return "KILLED"
	}
	return state
}

// parseSummary splits an ApplicationSummary body: comma-separated
// key=value pairs in which ',', '=' and '\' inside values are escaped with
// '\' (Hadoop StringUtils.escapeString), and newlines written as \n and
// \r. Keys are trimmed, values unescaped; fields vary across Hadoop
// versions, so callers look them up by key.
func parseSummary(b []byte) map[string]string {
	out := map[string]string{}
	var key, val []byte
	inVal := false
	flush := func() {
		if k := string(bytes.TrimSpace(key)); k != "" {
			out[k] = string(val)
		}
		key, val, inVal = key[:0], val[:0], false
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '\\' && i+1 < len(b):
			i++
			switch c = b[i]; c { // newlines were written as \n and \r
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			}
			if inVal {
				val = append(val, c)
			} else {
				key = append(key, c)
			}
		case c == ',':
			flush()
		case c == '=' && !inVal:
			inVal = true
		case inVal:
			val = append(val, c)
		default:
			key = append(key, c)
		}
	}
	flush()
	return out
}

// isWrappedTime reports whether b looks like "MM/dd/yyyy HH:mm:ss".
func isWrappedTime(b []byte) bool {
	return len(b) == 19 && b[2] == '/' && b[5] == '/' && b[10] == ' ' && b[13] == ':' && b[16] == ':'
}

func parseWrappedTime(b []byte, loc *time.Location) (int64, error) {
	mo, ok1 := digits(b, 2)
	d, ok2 := digits(b[3:], 2)
	y, ok3 := digits(b[6:], 4)
	h, ok4 := digits(b[11:], 2)
	mi, ok5 := digits(b[14:], 2)
	s, ok6 := digits(b[17:], 2)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || s > 59 {
		return 0, fmt.Errorf("time %q is not MM/dd/yyyy HH:mm:ss", b)
	}
	return time.Date(y, time.Month(mo), d, h, mi, s, 0, loc).UnixMilli(), nil
}

// parseLog4jTime reads the time at the start of a log4j line:
// "yyyy-MM-dd HH:mm:ss,SSS" (Hadoop's ISO8601 layout, also with '.' or
// 'T') or "yy/MM/dd HH:mm:ss" (the console layout). It returns the time,
// the length of the prefix and whether there was one; a prefix with
// impossible fields is an error.
func parseLog4jTime(b []byte, loc *time.Location) (int64, int, bool, error) {
	var y, mo, d, h, mi, s, ms, n int
	switch {
	case len(b) >= 19 && b[4] == '-' && b[7] == '-' && (b[10] == ' ' || b[10] == 'T') && b[13] == ':' && b[16] == ':':
		var ok [6]bool
		y, ok[0] = digits(b, 4)
		mo, ok[1] = digits(b[5:], 2)
		d, ok[2] = digits(b[8:], 2)
		h, ok[3] = digits(b[11:], 2)
		mi, ok[4] = digits(b[14:], 2)
		s, ok[5] = digits(b[17:], 2)
		if ok != [6]bool{true, true, true, true, true, true} {
			return 0, 0, false, nil
		}
		n = 19
		if len(b) >= 23 && (b[19] == ',' || b[19] == '.') {
			if v, okf := digits(b[20:], 3); okf {
				ms, n = v, 23
			}
		}
	case len(b) >= 17 && b[2] == '/' && b[5] == '/' && b[8] == ' ' && b[11] == ':' && b[14] == ':':
		var ok [6]bool
		y, ok[0] = digits(b, 2)
		mo, ok[1] = digits(b[3:], 2)
		d, ok[2] = digits(b[6:], 2)
		h, ok[3] = digits(b[9:], 2)
		mi, ok[4] = digits(b[12:], 2)
		s, ok[5] = digits(b[15:], 2)
		if ok != [6]bool{true, true, true, true, true, true} {
			return 0, 0, false, nil
		}
		// Two-digit years as Java's SimpleDateFormat reads them today:
		// within 80 years before and 20 after the present, i.e. 20yy for
		// the years logs are from.
		y += 2000
		n = 17
	default:
		return 0, 0, false, nil
	}
	if mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || s > 59 {
		return 0, 0, false, fmt.Errorf("log time %q out of range", b[:n])
	}
	return time.Date(y, time.Month(mo), d, h, mi, s, ms*1e6, loc).UnixMilli(), n, true, nil
}

// looksLikeLogLine: a line with a recognisable time prefix (wrapped or
// log4j); others are continuations (stack traces), comments or noise.
func looksLikeLogLine(line []byte) bool {
	if f := bytes.SplitN(line, []byte(","), 3); len(f) == 3 && isWrappedTime(f[1]) {
		return true
	}
	_, _, ok, err := parseLog4jTime(line, time.UTC)
	return ok || err != nil
}

// Notes says what was counted but not turned into rows.
func (r *yarnRM) Notes() []string {
	var notes []string
	if r.events == 0 && r.lines > 0 {
		notes = append(notes, "no ResourceManager job events (submit, container, attempt, ApplicationSummary) in this file: is it a ResourceManager log?")
	}
	add := func(n int64, what string) {
		if n > 0 {
			notes = append(notes, fmt.Sprintf("%s: %d", what, n))
		}
	}
	add(r.wrapped, "event lines in the ResourceEstimator's wrapped layout (time from the second comma field)")
	add(r.lines-r.events-r.nonLog, "log lines without a run or container event (ignored)")
	add(r.nonLog, "lines that are not log records (continuations, comments; ignored)")
	add(r.unknownApp, "container or attempt events of applications not submitted in this file (ignored, as the estimator does)")
	add(r.noRecurrence, "runs whose name has no pipeline-run recurring id (no skyline, as the estimator; job = normalised name)")
	add(r.unreleased, "containers allocated but never released (left out of skylines, as the estimator)")
	add(r.backwards, "containers released before allocated or before submission (log out of order; left out of skylines)")
	add(r.dupStart, "containers allocated twice (the later allocation counts, as the estimator)")
	if len(r.apps) > 0 {
		ids := make([]string, 0, len(r.apps))
		for id := range r.apps {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		a := r.apps[ids[0]]
		notes = append(notes, fmt.Sprintf("applications without an ApplicationSummary (still running when the log ends, or finished in another file; no run written): %d, first %s submitted at %s:%d",
			len(ids), ids[0], r.file, a.submitLine))
	}
	return notes
}

// skipFields returns b after its first n blank-separated fields and the
// blanks that follow them; b itself when it has no more than n fields.
func skipFields(b []byte, n int) []byte {
	i := 0
	for f := 0; f < n; f++ {
		for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
			i++
		}
		for i < len(b) && b[i] != ' ' && b[i] != '\t' {
			i++
		}
	}
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	if i >= len(b) {
		return b
	}
	return b[i:]
}
