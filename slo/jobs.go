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

// job computes one job's SLO.
func (f *inferer) job(j int32, acc *jobAcc, periods []Period, submits []int64) Job {
	o := f.opts
	p := periods[j]
	out := Job{Job: acc.name, Runs: len(acc.runs), Consumers: names(f, acc.consumers, "egress"),
		Producers: names(f, acc.producers, "ingress"), Attribution: acc.attribution, Warnings: []string{}}
	out.PeriodCV = ptr(p.CV)
	out.PhaseSpread = ptr(p.PhaseSpread)
	if len(submits) >= 3 {
		out.Periodic = p.Regular
	}
	if ov := o.Overrides.find(acc.name); out.Periodic || ov != nil && ov.PeriodS != nil {
		// The anchor of the period used, inferred or overridden (apply
		// puts an overridden period in below).
		anchor := p.AnchorMs
		out.PeriodAnchorMs = &anchor
	}
	if out.Periodic {
		out.PeriodS = ptr(p.PeriodS)
		out.PeriodSnapped = p.Snapped
	}
	var noEnd, failed int
	var ok []int32
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
	if noEnd > 0 {
		out.Warnings = append(out.Warnings, fmt.Sprintf("%d runs without an end (still running, or their end is not in the logs): not measured", noEnd))
	}
	if failed > 0 {
		out.Warnings = append(out.Warnings, fmt.Sprintf("%d failed or killed runs: not measured", failed))
	}
	if acc.readBeforeEnd > 0 {
		out.Warnings = append(out.Warnings, fmt.Sprintf("%d reads of its output before the run ended (clock skew or partial reads): ignored", acc.readBeforeEnd))
	}
	if acc.skew > 0 {
		out.Warnings = append(out.Warnings, fmt.Sprintf("%d reads earlier than the write they read (clock skew or out-of-order logs): ignored", acc.skew))
	}
	if n := acc.attribution["user-window-ambiguous"]; n > 0 {
		out.Warnings = append(out.Warnings, fmt.Sprintf("%d edges attributed by user and time window with several candidate runs", n))
	}

	// Footnote 5: when the consumers run less often than the job, the
	// deadline is forced into the job's own (smaller) period; the period a
	// deadline refers to is the smallest of the job's and its consumers'.
	// Consumers with under a tenth of the reads (stray reads, edges
	// attributed to the wrong run) do not decide.
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
	capRead := false
	if out.Periodic {
		dp := math.Min(p.PeriodS, minCons)
		out.DeadlinePeriodS = ptr(dp)
		if minCons > p.PeriodS && !math.IsInf(minCons, 1) {
			capRead = true
			out.DeadlineRule = "consumer-period-longer"
		}
	}

	var inAvail, starts, ends, reads, slack, subRel []float64
	if out.Periodic {
		sub := make([]int64, len(ok))
		for i, r := range ok {
			sub[i] = f.runs[r].submit
		}
		ps := p.runPeriodStarts(sub)
		for i, r := range ok {
			ru := &f.runs[r]
			rel := func(t int64) float64 { return float64(t-ps[i]) / 1000 }
			subRel = append(subRel, rel(ru.submit))
			starts = append(starts, rel(ru.start))
			ends = append(ends, rel(ru.end))
			if ru.inAvail != dataset.NoTime {
				inAvail = append(inAvail, rel(ru.inAvail))
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
			reads = append(reads, read)
			if d := ru.end - ru.start; d > 0 {
				slack = append(slack, (read-rel(ru.end))/(float64(d)/1000))
			}
		}
	}
	out.RunsMeasured = len(reads)
	out.StartS = ptr(quantile.Percentile(starts, 50))
	out.EndS = ptr(quantile.Percentile(ends, 50))
	if len(reads) > 0 {
		out.ReadCV = ptr(robustCV(reads))
		out.DeadlineS = ptr(quantile.Percentile(reads, o.DeadlinePercentile))
	}
	if len(slack) > 0 {
		out.SlackRatio = ptr(quantile.Percentile(slack, 50))
	}
	switch {
	case len(inAvail) > 0:
		out.ArrivalS = ptr(quantile.Percentile(inAvail, o.ArrivalPercentile))
		out.ArrivalFrom, out.ArrivalRuns = "input-writes", len(inAvail)
	case len(subRel) > 0:
		// No input write seen: the earliest the job usually was submitted.
		out.ArrivalS = ptr(quantile.Percentile(subRel, 100-o.ArrivalPercentile))
		out.ArrivalFrom, out.ArrivalRuns = "submit", len(subRel)
	}

	readCV, readMAD := math.Inf(1), math.Inf(1)
	if out.ReadCV != nil {
		readCV = *out.ReadCV
	}
	if len(reads) > 0 {
		readMAD = mad(reads)
		out.ReadMADS = ptr(readMAD)
	}
	switch {
	case len(acc.runs) < o.MinRuns:
		out.Reason = fmt.Sprintf("too few runs (%d, need %d)", len(acc.runs), o.MinRuns)
	case len(submits) < 3:
		out.Reason = fmt.Sprintf("too few submissions with a time to find a period (%d)", len(submits))
	case !out.Periodic && p.CV > o.MaxPeriodCV:
		out.Reason = fmt.Sprintf("irregular period (submission spacing CV %.2f > %.2f)", p.CV, o.MaxPeriodCV)
	case !out.Periodic:
		out.Reason = fmt.Sprintf("irregular period (submission phase spread %.2f of the period > %.2f)", p.PhaseSpread, o.MaxPeriodCV)
	case len(ok) < o.MinRuns:
		out.Reason = fmt.Sprintf("too few successful runs with an end (%d, need %d)", len(ok), o.MinRuns)
	case len(reads) == 0:
		out.Reason = "no consumer: no output was read by another job or user after the run ended"
	case 2*len(reads) < len(ok) || len(reads) < 3:
		out.Reason = fmt.Sprintf("no consumer for most runs (%d of %d outputs read)", len(reads), len(ok))
	case readCV > o.MaxReadCV:
		out.Reason = fmt.Sprintf("unstable reads (CV of T_outRead %.3f > %.3f)", readCV, o.MaxReadCV)
	case readMAD > o.MaxReadSpread*p.PeriodS:
		out.Reason = fmt.Sprintf("unstable reads (MAD of T_outRead %.0f s > %.2f of the period)", readMAD, o.MaxReadSpread)
	case out.SlackRatio == nil || *out.SlackRatio < o.MinSlack:
		s := math.NaN()
		if out.SlackRatio != nil {
			s = *out.SlackRatio
		}
		out.Reason = fmt.Sprintf("no slack (median slack ratio %.2f < %.2f)", s, o.MinSlack)
	default:
		out.Actionable = true
	}
	if !out.Actionable && out.Reason != "" && len(reads) == 0 {
		out.DeadlineS = nil
	}
	o.Overrides.apply(&out)
	return out
}
