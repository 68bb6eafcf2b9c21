package slo

import (
	"fmt"
	"math"
	"sort"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/quantile"
)

func ptr(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	v = math.Round(v*1000) / 1000
	return &v
}

// result turns the accumulated graph into per-job SLOs.
func (f *inferer) result() *Result {
	res := &Result{Jobs: make([]Job, 0, len(f.jobs)), Graph: f.graph, Warnings: []string{}}
	for _, acc := range f.jobs {
		for c := range acc.consumers {
			if c >= 0 {
				f.graph.JobEdges++
			}
		}
	}
	res.Graph.JobEdges = f.graph.JobEdges

	// Periods first: the consumer-period rule needs every job's.
	periods := make([]Period, len(f.jobs))
	submits := make([][]int64, len(f.jobs))
	for j, acc := range f.jobs {
		var s []int64
		for _, r := range acc.runs {
			if t := f.runs[r].submit; t != dataset.NoTime {
				s = append(s, t)
			}
		}
		sortInt64(s)
		submits[j] = s
		if ov := f.opts.Overrides.find(acc.name); ov != nil && ov.PeriodS != nil {
			p := Period{PeriodS: *ov.PeriodS, Regular: true}
			for _, n := range NaturalPeriodsS {
				p.Snapped = p.Snapped || n == p.PeriodS
			}
			p.AnchorMs = anchor(s, p)
			periods[j] = p
			continue
		}
		periods[j] = findPeriod(s, f.opts.MaxPeriodCV, f.opts.SnapTolerance)
	}
	for j, acc := range f.jobs {
		res.Jobs = append(res.Jobs, f.job(int32(j), acc, periods, submits[j]))
	}
	sort.Slice(res.Jobs, func(a, b int) bool { return res.Jobs[a].Job < res.Jobs[b].Job })
	if f.graph.OutOfOrder > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d provenance rows are more than a minute earlier than rows before them: ingest logs in time order (edges of those rows may be missed)", f.graph.OutOfOrder))
	}
	if f.unknownCtx > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d provenance rows name a run (callerContext, trackingId or lineage) that is not in the runs table; they were attributed by user and time window", f.unknownCtx))
	}
	if f.graph.Events == 0 {
		res.Warnings = append(res.Warnings, "no provenance rows: no job has a consumer (ingest hdfs-audit or openlineage)")
	}
	if ov := f.opts.Overrides; ov != nil {
		known := map[string]bool{}
		for _, j := range res.Jobs {
			known[j.Job] = true
		}
		for _, o := range ov.Jobs {
			if !known[o.Job] {
				res.Warnings = append(res.Warnings, fmt.Sprintf("override for unknown job %q ignored", o.Job))
			}
		}
	}
	return res
}

func names[V any](f *inferer, set map[int32]V, none string) []string {
	out := []string{}
	for j := range set {
		if j < 0 {
			out = append(out, none)
		} else {
			out = append(out, f.jobs[j].name)
		}
	}
	sort.Strings(out)
	return out
}

// job computes one job's SLO (doc.go, "Per run and per job"): the period,
// the runs that can be measured, their times within their periods, the
// SLO those give, and why it is not actionable when it is not.
func (f *inferer) job(j int32, acc *jobAcc, periods []Period, submits []int64) Job {
	o := f.opts
	p := periods[j]
	out := Job{Job: acc.name, Runs: len(acc.runs), Consumers: names(f, acc.consumers, "egress"),
		Producers: names(f, acc.producers, "ingress"), Attribution: acc.attribution, Warnings: []string{}}
	setPeriod(&out, p, len(submits), o.Overrides.find(acc.name))
	ok, noEnd, failed := f.measurable(acc)
	out.Warnings = append(out.Warnings, runWarnings(acc, noEnd, failed)...)

	capRead := false
	if out.Periodic {
		minCons := consumerPeriodS(j, acc, periods)
		out.DeadlinePeriodS = ptr(math.Min(p.PeriodS, minCons))
		if minCons > p.PeriodS && !math.IsInf(minCons, 1) {
			capRead = true
			out.DeadlineRule = "consumer-period-longer"
		}
	}
	var t periodTimes
	if out.Periodic {
		t = f.periodTimes(ok, p, capRead)
	}
	readMAD := t.summarise(&out, o)

	readCV := math.Inf(1)
	if out.ReadCV != nil {
		readCV = *out.ReadCV
	}
	e := evidence{runs: len(acc.runs), submits: len(submits), ok: len(ok), reads: len(t.reads),
		period: p, periodic: out.Periodic, readCV: readCV, readMAD: readMAD, slack: out.SlackRatio}
	out.Reason = e.reason(o)
	out.Actionable = out.Reason == ""
	if !out.Actionable && len(t.reads) == 0 {
		out.DeadlineS = nil
	}
	o.Overrides.apply(&out)
	return out
}

// setPeriod fills in what the job's submissions say about its period: the
// regularity measures always, the period itself only when it is regular
// over three submissions or more, and the anchor of the period used when
// there is one, inferred or overridden (Overrides.apply puts an
// overridden period itself in later).
func setPeriod(out *Job, p Period, submits int, ov *Override) {
	out.PeriodCV = ptr(p.CV)
	out.PhaseSpread = ptr(p.PhaseSpread)
	if submits >= 3 {
		out.Periodic = p.Regular
	}
	if out.Periodic || ov != nil && ov.PeriodS != nil {
		anchor := p.AnchorMs
		out.PeriodAnchorMs = &anchor
	}
	if out.Periodic {
		out.PeriodS = ptr(p.PeriodS)
		out.PeriodSnapped = p.Snapped
	}
}

// measurable returns the job's runs that can be measured (successful,
// with a submission and an end), and counts the runs without an end and
// the failed ones, which the SLO leaves out and says so.
func (f *inferer) measurable(acc *jobAcc) (ok []int32, noEnd, failed int) {
	for _, r := range acc.runs {
		ru := &f.runs[r]
		switch {
		case ru.end == dataset.NoTime:
			noEnd++
		case !ru.ok:
			failed++
		case ru.submit != dataset.NoTime:
			ok = append(ok, r)
		}
	}
	return ok, noEnd, failed
}

// runWarnings are the job's caveats about the runs and edges left out or
// attributed by guesswork.
func runWarnings(acc *jobAcc, noEnd, failed int) []string {
	var w []string
	if noEnd > 0 {
		w = append(w, fmt.Sprintf("%d runs without an end (still running, or their end is not in the logs): not measured", noEnd))
	}
	if failed > 0 {
		w = append(w, fmt.Sprintf("%d failed or killed runs: not measured", failed))
	}
	if acc.readBeforeEnd > 0 {
		w = append(w, fmt.Sprintf("%d reads of its output before the run ended (clock skew or partial reads): ignored", acc.readBeforeEnd))
	}
	if acc.skew > 0 {
		w = append(w, fmt.Sprintf("%d reads earlier than the write they read (clock skew or out-of-order logs): ignored", acc.skew))
	}
	if n := acc.attribution["user-window-ambiguous"]; n > 0 {
		w = append(w, fmt.Sprintf("%d edges attributed by user and time window with several candidate runs", n))
	}
	return w
}

// consumerPeriodS is the smallest regular period of the job's consumers
// (+Inf when none has one), for footnote 5: when the consumers run less
// often than the job, the deadline is forced into the job's own
// (smaller) period; the period a deadline refers to is the smallest of
// the job's and its consumers'. Consumers with under a tenth of the reads
// (stray reads, edges attributed to the wrong run) do not decide.
func consumerPeriodS(j int32, acc *jobAcc, periods []Period) float64 {
	var total int64
	for _, n := range acc.consumers {
		total += n
	}
	minCons := math.Inf(1)
	for c, n := range acc.consumers {
		if c >= 0 && c != j && 10*n >= total && periods[c].Regular && periods[c].PeriodS > 0 {
			minCons = math.Min(minCons, periods[c].PeriodS)
		}
	}
	return minCons
}

// periodTimes are a periodic job's measured runs' times in seconds from
// the start of the period each run was submitted in.
type periodTimes struct {
	subRel, starts, ends []float64 // every measured run
	inAvail              []float64 // the runs whose last input write was seen
	reads                []float64 // the runs whose output was seen read (or capped, footnote 5)
	slack                []float64 // (read − end) / duration, of the reads' runs that last
}

// periodTimes measures the runs ok of a job with period p. With capRead
// (footnote 5) a read later than the job's period, or none, counts as
// read at the period's end (or the run's end, when later).
func (f *inferer) periodTimes(ok []int32, p Period, capRead bool) periodTimes {
	var t periodTimes
	sub := make([]int64, len(ok))
	for i, r := range ok {
		sub[i] = f.runs[r].submit
	}
	ps := p.runPeriodStarts(sub)
	for i, r := range ok {
		ru := &f.runs[r]
		rel := func(x int64) float64 { return float64(x-ps[i]) / 1000 }
		t.subRel = append(t.subRel, rel(ru.submit))
		t.starts = append(t.starts, rel(ru.start))
		t.ends = append(t.ends, rel(ru.end))
		if ru.inAvail != dataset.NoTime {
			t.inAvail = append(t.inAvail, rel(ru.inAvail))
		}
		read := math.NaN()
		if ru.outRead != dataset.NoTime {
			read = rel(ru.outRead)
		}
		if capRead && (math.IsNaN(read) || read > p.PeriodS) {
			read = math.Max(p.PeriodS, rel(ru.end))
		}
		if math.IsNaN(read) {
			continue
		}
		t.reads = append(t.reads, read)
		if d := ru.end - ru.start; d > 0 {
			t.slack = append(t.slack, (read-rel(ru.end))/(float64(d)/1000))
		}
	}
	return t
}

// summarise puts the SLO the times give into out: the median start and
// end, the deadline (DeadlinePercentile of the reads), the arrival
// (ArrivalPercentile of the input writes, else the earliest usual
// submission), the slack and the reads' spread. It returns the reads' MAD
// unrounded (+Inf without reads), which the actionability test compares.
func (t periodTimes) summarise(out *Job, o Options) (readMAD float64) {
	out.RunsMeasured = len(t.reads)
	out.StartS = ptr(quantile.Percentile(t.starts, 50))
	out.EndS = ptr(quantile.Percentile(t.ends, 50))
	if len(t.reads) > 0 {
		out.ReadCV = ptr(robustCV(t.reads))
		out.DeadlineS = ptr(quantile.Percentile(t.reads, o.DeadlinePercentile))
	}
	if len(t.slack) > 0 {
		out.SlackRatio = ptr(quantile.Percentile(t.slack, 50))
	}
	switch {
	case len(t.inAvail) > 0:
		out.ArrivalS = ptr(quantile.Percentile(t.inAvail, o.ArrivalPercentile))
		out.ArrivalFrom, out.ArrivalRuns = "input-writes", len(t.inAvail)
	case len(t.subRel) > 0:
		// No input write seen: the earliest the job usually was submitted.
		out.ArrivalS = ptr(quantile.Percentile(t.subRel, 100-o.ArrivalPercentile))
		out.ArrivalFrom, out.ArrivalRuns = "submit", len(t.subRel)
	}
	readMAD = math.Inf(1)
	if len(t.reads) > 0 {
		readMAD = mad(t.reads)
		out.ReadMADS = ptr(readMAD)
	}
	return readMAD
}

// evidence is what decides whether a job's SLO is actionable.
type evidence struct {
	runs, submits int // runs, and submissions with a time
	ok, reads     int // measurable runs, and those whose output was read
	period        Period
	periodic      bool
	readCV        float64 // as reported (rounded); +Inf without reads
	readMAD       float64 // +Inf without reads
	slack         *float64
}

// reason is why the SLO is not actionable: the first of doc.go's checks
// that fails, in that order; "" when it is.
func (e evidence) reason(o Options) string {
	p := e.period
	switch {
	case e.runs < o.MinRuns:
		return fmt.Sprintf("too few runs (%d, need %d)", e.runs, o.MinRuns)
	case e.submits < 3:
		return fmt.Sprintf("too few submissions with a time to find a period (%d)", e.submits)
	case !e.periodic && math.IsInf(p.CV, 1):
		return "irregular period (half or more of the submissions share an instant: the median spacing is 0)"
	case !e.periodic && p.CV > o.MaxPeriodCV:
		return fmt.Sprintf("irregular period (submission spacing CV %.2f > %.2f)", p.CV, o.MaxPeriodCV)
	case !e.periodic:
		return fmt.Sprintf("irregular period (submission phase spread %.2f of the period > %.2f)", p.PhaseSpread, o.MaxPeriodCV)
	case e.ok < o.MinRuns:
		return fmt.Sprintf("too few successful runs with an end (%d, need %d)", e.ok, o.MinRuns)
	case e.reads == 0:
		return "no consumer: no output was read by another job or user after the run ended"
	case 2*e.reads < e.ok || e.reads < 3:
		return fmt.Sprintf("no consumer for most runs (%d of %d outputs read)", e.reads, e.ok)
	case e.readCV > o.MaxReadCV:
		return fmt.Sprintf("unstable reads (CV of T_outRead %.3f > %.3f)", e.readCV, o.MaxReadCV)
	case e.readMAD > o.MaxReadSpread*p.PeriodS:
		return fmt.Sprintf("unstable reads (MAD of T_outRead %.0f s > %.2f of the period)", e.readMAD, o.MaxReadSpread)
	case e.slack == nil || *e.slack < o.MinSlack:
		s := math.NaN()
		if e.slack != nil {
			s = *e.slack
		}
		return fmt.Sprintf("no slack (median slack ratio %.2f < %.2f)", s, o.MinSlack)
	}
	return ""
}
