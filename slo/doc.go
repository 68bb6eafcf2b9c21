// Package slo infers deadlines (SLOs) of recurring jobs from data
// provenance: the slo stage of the pipeline (Jyothi et al.,
// Morpheus, OSDI 2016, §2–§4 and footnote 5).
//
// # Place in the pipeline
//
// Input: the runs table (ingest formats yarn-rm and openlineage) and the
// provenance table (hdfs-audit and openlineage), as an Input that Load
// reads from a dataset: runs in memory, provenance as a stream read twice.
// Run infers; its Result has one Job per recurring job and a summary of
// the provenance graph, and Result.Profile sets each job's period and SLO
// section (package profile). Identify adds what the runs table says of
// each profiled job (names, run starts, and a period for a job Run found
// none for). The command
// wlprof slo prints it as a table or as the versioned JSON document of
// DESIGN.md (jobs[] with job, period_s, runs, actionable, arrival_s,
// deadline_s, slack_ratio, reason, and more).
//
// # Units
//
// Instants are UTC milliseconds inside; every number in a Job is seconds
// (fields end in _s) or a ratio. Offsets (arrival_s, deadline_s, start_s,
// end_s) are from the start of the run's period: UTC midnight for daily
// periods and periods that divide a day (the top of the hour for hourly),
// Monday 00:00 UTC for weekly, and for other periods the usual submission
// phase minus half a period. An offset may exceed the period (a daily job
// whose output is read at 01:00 the next day has a deadline of 25 h).
//
// # The graph and attribution (§4 "Provenance Graph")
//
// Nodes are runs and files; edges are writes (create, append, ..., and a
// rename, whose destination becomes available at the rename: "a rename
// into place"), reads (open) and deletes. A read of a file below a
// directory that was written or renamed into place is a read of that
// directory's version. Each edge's run is found, and the result counts
// each way per job (Job.Attribution, Graph.Attribution):
//
//   - callerContext, trackingId, lineage: the run the line or event names;
//   - path: an application id inside the path (MapReduce _temporary/attempt_...,
//     Spark .sparkStaging/application_...);
//   - user-window: the only run of the line's user whose [start, end]
//     (±WindowGraceS) holds its time, unless the directory is known to be
//     touched by other jobs and never by this one;
//   - user-window-ambiguous: several such runs; the run that wrote the file
//     being read (a run reading its own output) wins, else the run whose job
//     most often touched the same directory stem in the same role (learnt
//     in a first pass over the stream from edges whose run is certain),
//     else the most recently started;
//   - none: no run; a write by no run makes an ingress file, a read by no
//     run (a user, a dashboard, an export) is an egress read, which counts
//     as a consumer read: a person reading a report at 09:00 is the
//     deadline the paper means.
//
// A run's end missing from the logs (a run without an end) does not stop
// attribution: the run lasts its job's median duration there, but it is
// not measured.
//
// # Recurring jobs and their period (§4)
//
// A job's identity is the job id ingest stored with its runs (runs.job:
// the name ingest normalised for yarn-rm and Spark logs, the format's own
// id for ResourceEstimator logs), the id its skylines and profiling runs
// carry too. OpenLineage job names, stored as logged, and runs without a
// job id are grouped by their name normalised by Normalise: dates, times,
// timestamps, UUIDs, YARN ids, run and attempt numbers and long hex hashes
// are replaced by placeholders, short numbers are kept (job042 is a job).
// The period is the median spacing of submission times (robust to a missed
// or an extra run), snapped to a natural period (NaturalPeriodsS) within
// SnapTolerance. A job is irregular when the spacing's CV = MAD/median, or
// the MAD of the submissions' phase within the period over the period,
// exceeds MaxPeriodCV.
//
// # Per run and per job (§4 "Estimating SLOs", Fig. 4)
//
// For each successful run with an end: T_inAvail, the last write to any of
// its inputs before it read them (a run reading its own earlier output is
// not waiting for an input); T_start; T_end; T_outRead, the first read of
// any of its outputs by someone else after T_end. Reads before T_end (clock
// skew, partial reads) and reads earlier than the write they read are
// ignored and counted in the job's warnings. The job is actionable when it
// has at least MinRuns runs, a regular period, at least three runs and half
// of its successful runs with a consumer read, CV(T_outRead) ≤ MaxReadCV,
// MAD(T_outRead) ≤ MaxReadSpread × period, and median((T_outRead − T_end) /
// (T_end − T_start)) ≥ MinSlack. Then arrival = the ArrivalPercentile of
// T_inAvail (of the submission offsets when no input write was seen,
// arrival_from says which) and deadline = the DeadlinePercentile of
// T_outRead, both by linear interpolation between order statistics (numpy's
// default). Otherwise Reason says the first check that failed.
//
// Footnote 5: when the consumers that do most of the reading run less often
// than the job (daily outputs rolled up monthly), the deadline is forced into
// the job's own, smaller period: T_outRead is capped at the period's end, so
// the output is due before the next run (deadline_rule
// "consumer-period-longer"). deadline_period_s is always the smallest of the
// job's and its consumers' periods.
//
// # Defaults, and why
//
//   - MinRuns 5: the median spacing and MAD need a handful of gaps; five
//     runs are five days of a daily job, and fewer give no percentile worth
//     the name.
//   - MaxPeriodCV 0.2: a cron job's spacing varies by minutes (CV ≈ 0.01
//     daily, ≤ 0.1 hourly with queueing); submissions at random times have a
//     spacing CV and phase spread near 0.3 (the MAD of a triangular and of a
//     uniform distribution over the period), so 0.2 sits between.
//   - SnapTolerance 0.1: cron periods drift by seconds, not by a tenth; a
//     tenth still catches a job that skips runs now and then.
//   - MaxReadCV 0.1: the paper's test. A consumer reading "every day at
//     4 pm" ± 10 min has CV 0.01; reads spread over hours fail.
//   - MaxReadSpread 0.05: CV = MAD/median depends on where the period starts
//     (a read at 30 h with a MAD of 3 h has CV 0.1), so the spread is also
//     bounded against the period: ± 72 min for a daily job, ± 3 min for an
//     hourly one.
//   - MinSlack 0.5: the paper asks for "non-trivial" slack; half a run of
//     room is the least that lets a reservation move; a downstream job that
//     starts as soon as the output lands (slack ≈ 0.1) is a chain, not a
//     deadline.
//   - Percentiles 95 (arrival) and 50 (deadline): the paper's example.
//   - WindowGraceS 60: NameNode and ResourceManager clocks and the gap
//     between a container's last write and the application's finish.
//   - HorizonS 8 days: file state untouched this long is dropped, which
//     bounds memory by a week of files rather than by the log; a weekly
//     consumer still finds last week's output.
//
// # Overrides
//
// An Overrides file (JSON, or YAML for .yaml/.yml, read with
// go.yaml.in/yaml/v3, the maintained fork of the archived gopkg.in/yaml.v3;
// pure Go) signs off, corrects or rejects inferred SLOs per job; Run
// applies it and the output echoes it in Job.Override. See Overrides for
// the format.
//
// # Accuracy
//
// quality_test.go builds worlds (world_test.go) of dozens of hourly and
// daily jobs, DAG chains, fixed-time readers, jobs without consumers,
// random readers, irregular jobs and daily rollups of hourly jobs, at three
// noise levels (missing caller contexts, input-arrival jitter, failed runs,
// runs without an end, metadata chatter, reads logged before the end), and
// requires actionable precision and recall ≥ 0.95 and ≥ 95% of actionable
// jobs within one minute of the true arrival and deadline.
package slo
