package ingest

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/wlprof/wlprof/dataset"
)

// A YARN application that failed is started again, up to
// yarn.resourcemanager.am.max-attempts (spark.yarn.maxAppAttempts) times;
// each attempt writes its own event log with the same App ID and its own
// "App Attempt ID". The attempts of one application are one run: its
// start is the first attempt's, its end and status the last attempt's
// (YARN starts another attempt only when one failed, so the last decides
// the application's outcome), its skyline every attempt's executors at
// their instants. Each attempt's task attempts are kept, marked with
// app_attempt in their config. Runs and skylines of logs with an attempt
// id are therefore held until every input of the ingest is read.

// sparkAttempt is one held attempt log's run.
type sparkAttempt struct {
	attempt string
	run     dataset.Run
	samples []dataset.SkylineSample
	index   int // its input's FileResult in Result.Files
	file    string
}

// sparkAttempts holds the attempts of each application, by (job, run).
type sparkAttempts struct {
	apps  map[[2]string][]*sparkAttempt
	order [][2]string
}

func (st *runState) sparkAttempts() *sparkAttempts {
	if st.attempts == nil {
		st.attempts = &sparkAttempts{apps: map[[2]string][]*sparkAttempt{}}
	}
	return st.attempts
}

// hold keeps rec's run and samples (copied) for flush.
func (a *sparkAttempts) hold(rec *jobRecord, index int, file string) {
	k := [2]string{rec.Run.Job, rec.Run.Run}
	if _, ok := a.apps[k]; !ok {
		a.order = append(a.order, k)
	}
	a.apps[k] = append(a.apps[k], &sparkAttempt{attempt: rec.AppAttempt, run: *rec.Run,
		samples: append([]dataset.SkylineSample(nil), rec.Samples...), index: index, file: file})
}

// flush writes one run (and its skyline) per application.
func (a *sparkAttempts) flush(ctx context.Context, tx *dataset.Tx, res *Result) error {
	runs, sky := tx.Runs(), tx.Skylines()
	count := func(index int, n int64) {
		res.Files[index].Accepted += n
		res.Accepted += n
	}
	note := func(index int, s string) { res.Files[index].Notes = append(res.Files[index].Notes, s) }
	for _, k := range a.order {
		if err := ctx.Err(); err != nil {
			return err
		}
		all := a.apps[k]
		sort.SliceStable(all, func(i, j int) bool { return dataset.AttemptLess(all[i].attempt, all[j].attempt) })
		// The same attempt read twice (an .inprogress log beside its
		// final copy) counts once: the read that saw its end, else the
		// first.
		var atts []*sparkAttempt
		for _, x := range all {
			n := len(atts)
			if n == 0 || atts[n-1].attempt != x.attempt {
				atts = append(atts, x)
				continue
			}
			kept := atts[n-1]
			if kept.run.EndMs == dataset.NoTime && x.run.EndMs != dataset.NoTime {
				atts[n-1], kept, x = x, x, kept
			}
			note(x.index, fmt.Sprintf("attempt %s of %s/%s also read from %s: its run is written once, from there", x.attempt, k[0], k[1], kept.file))
		}
		first, last := atts[0], atts[len(atts)-1]
		run := last.run
		run.StartMs = first.run.StartMs
		var deltas []stepDelta
		for _, x := range atts {
			shift := float64(x.run.StartMs-run.StartMs) / 1000
			var prev dataset.SkylineSample
			for _, s := range x.samples {
				deltas = append(deltas, stepDelta{OffsetS: s.OffsetS + shift, Containers: s.Containers - prev.Containers,
					MemoryBytes: s.MemoryBytes - prev.MemoryBytes, VCores: s.VCores - prev.VCores})
				prev = s
			}
		}
		samples := stepSamples(run.Job, run.Run, deltas)
		if len(atts) == 1 {
			samples = first.samples
		}
		if err := runs.Append(&run); err != nil {
			return err
		}
		count(last.index, 1)
		for i := range samples {
			if err := sky.Append(&samples[i]); err != nil {
				return err
			}
		}
		count(last.index, int64(len(samples)))
		if len(atts) > 1 {
			ids := make([]string, len(atts))
			files := make([]string, len(atts))
			for i, x := range atts {
				ids[i], files[i] = x.attempt, filepath.Base(x.file)
			}
			for _, x := range atts {
				note(x.index, fmt.Sprintf("application attempt %s of %s/%s: one run of attempts %s (%s), its tasks kept per attempt (app_attempt); start from attempt %s, end and status (%s) from the last, attempt %s",
					x.attempt, k[0], k[1], strings.Join(ids, ", "), strings.Join(files, ", "), first.attempt, run.Status, last.attempt))
			}
		}
	}
	return nil
}
