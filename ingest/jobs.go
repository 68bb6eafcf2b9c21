package ingest

import (
	"context"
	"fmt"
	"sort"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/profile"
)

// jobRecord is what the job-run formats (yarn-rm, spark-eventlog,
// skyline-csv) yield: one run and, when the format knows it, the run's
// skyline as change points of a step function.
type jobRecord struct {
	Run      *dataset.Run // nil: samples only
	Samples  []dataset.SkylineSample
	ProfRuns []dataset.ProfRun // task attempts as profiling runs (Spark)
	// AppAttempt is the YARN application attempt of a Spark log ("" when
	// it has none): its run and samples are held until the ingest's end,
	// to make one run of the application's attempts (sparkAttempts).
	AppAttempt string
}

// drainJobs writes every run to the runs table and its samples to the
// skylines table, its profiling runs to the profruns table, and every
// rejected record to the rejects table. Accepted counts rows written (runs,
// samples and profiling runs).
func drainJobs(ctx context.Context, s *sink, r Reader[jobRecord]) error {
	if c, ok := r.(interface{ Close() }); ok {
		defer c.Close() // a reader may hold files open (rolled Spark logs)
	}
	runs, sky := s.tx.Runs(), s.tx.Skylines()
	n := 0
	dups, firstDup := 0, ""
	for r.Scan() {
		rec, perr := r.Record()
		if perr != nil {
			if err := s.reject(perr); err != nil {
				return err
			}
			continue
		}
		// A run is written with its samples and profiling runs or not at
		// all: one string that is not UTF-8 rejects the record.
		if err := checkJobStrings(runs, sky, s.tx.ProfRuns(), rec); err != nil {
			if err := s.appendErr(err, lineOf(r)); err != nil {
				return err
			}
			continue
		}
		if rec.Run != nil && rec.AppAttempt != "" && s.run != nil {
			s.run.sparkAttempts().hold(rec, s.index, s.file)
			rec.Run, rec.Samples = nil, nil
		}
		if rec.Run != nil {
			if first := s.seenRun(rec.Run); first != "" {
				if dups++; dups == 1 {
					firstDup = fmt.Sprintf("%s/%s, first read from %s", rec.Run.Job, rec.Run.Run, first)
				}
			}
			if err := runs.Append(rec.Run); err != nil {
				return err
			}
			s.accepted++
			s.res.Accepted++
		}
		for i := range rec.Samples {
			if err := sky.Append(&rec.Samples[i]); err != nil {
				return err
			}
			s.accepted++
			s.res.Accepted++
		}
		for i := range rec.ProfRuns {
			if err := s.tx.ProfRuns().Append(&rec.ProfRuns[i]); err != nil {
				return err
			}
			s.accepted++
			s.res.Accepted++
		}
		if n++; n&0xff == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
	}
	if nr, ok := r.(Noter); ok {
		s.notes = append(s.notes, nr.Notes()...)
	}
	if dups > 0 {
		s.notes = append(s.notes, fmt.Sprintf("runs also read from another input of this ingest, written twice (an .inprogress log beside its final copy? a file named twice?): %d (%s)", dups, firstDup))
	}
	return r.Err()
}

// checkJobStrings is the first string of rec that its tables would refuse.
func checkJobStrings(runs *dataset.Writer[dataset.Run], sky *dataset.Writer[dataset.SkylineSample], prof *dataset.Writer[dataset.ProfRun], rec *jobRecord) error {
	if rec.Run != nil {
		if err := runs.CheckStrings(rec.Run); err != nil {
			return err
		}
	}
	for i := range rec.Samples {
		if err := sky.CheckStrings(&rec.Samples[i]); err != nil {
			return err
		}
	}
	for i := range rec.ProfRuns {
		if err := prof.CheckStrings(&rec.ProfRuns[i]); err != nil {
			return err
		}
	}
	return nil
}

// seenRun returns the input that already gave this (job, run) in this
// ingest, or "" (and remembers this one).
func (s *sink) seenRun(r *dataset.Run) string {
	if s.res.jobRuns == nil {
		s.res.jobRuns = map[[2]string]string{}
	}
	k := [2]string{r.Job, r.Run}
	if first, dup := s.res.jobRuns[k]; dup {
		return first
	}
	s.res.jobRuns[k] = s.file
	return ""
}

// stepDelta is a change of held resources at an offset from a run's start.
type stepDelta struct {
	OffsetS     float64
	Containers  float64
	MemoryBytes int64
	VCores      float64
}

// stepSamples turns deltas into the change points of a step function: one
// sample per offset where the held resources change, the value holding
// until the next sample. The first sample is at offset 0 (0 held when
// nothing starts there) and, when every delta is balanced, the last one
// is 0 at the moment the last container went. No deltas give the single
// sample (0, 0): an empty skyline, which is still a run.
func stepSamples(job, run string, deltas []stepDelta) []dataset.SkylineSample {
	sort.SliceStable(deltas, func(i, j int) bool { return deltas[i].OffsetS < deltas[j].OffsetS })
	out := []dataset.SkylineSample{{Job: job, Run: run}}
	var cur dataset.SkylineSample
	for i := 0; i < len(deltas); {
		off := deltas[i].OffsetS
		for ; i < len(deltas) && deltas[i].OffsetS == off; i++ {
			cur.Containers += deltas[i].Containers
			cur.MemoryBytes += deltas[i].MemoryBytes
			cur.VCores += deltas[i].VCores
		}
		last := &out[len(out)-1]
		if last.Containers == cur.Containers && last.MemoryBytes == cur.MemoryBytes && last.VCores == cur.VCores {
			continue
		}
		if off == last.OffsetS {
			last.Containers, last.MemoryBytes, last.VCores = cur.Containers, cur.MemoryBytes, cur.VCores
			continue
		}
		out = append(out, dataset.SkylineSample{Job: job, Run: run, OffsetS: off,
			Containers: cur.Containers, MemoryBytes: cur.MemoryBytes, VCores: cur.VCores})
	}
	return out
}

// Job names carry dates, run numbers and ids that are not part of a
// recurring job's identity; normaliseJobName strips them with the rule the
// profile format publishes (profile.AppJobKey), so that a scheduler holding
// a run's name finds the job's profile: "daily_etl_2024-01-31" becomes
// "daily_etl", "FraudDetection-1" "FraudDetection", "tpch_q12" stays.
func normaliseJobName(name string) string { return profile.AppJobKey(name) }

// jobLines is what the line-based job readers (yarn-rm, spark-eventlog,
// skyline-csv) keep to be a Reader: the line reader, the record or
// reject read last, and the error that stopped the input.
type jobLines struct {
	lr   lineReader
	rec  jobRecord
	perr *ParseError
	err  error
}

// Line is where the reader is: the current record's line (or row).
func (r *jobLines) Line() int64 { return r.lr.line }

func (r *jobLines) Record() (*jobRecord, *ParseError) {
	if r.perr != nil {
		return nil, r.perr
	}
	return &r.rec, nil
}

func (r *jobLines) Err() error { return r.err }
