// Package slo infers deadlines (SLOs) of recurring jobs from data
// provenance: the slo stage of the pipeline (seed 001, Jyothi et al.,
// Morpheus, OSDI 2016, §2–§4). It will read the runs and provenance tables,
// build the job/file graph, find recurring jobs and their period, and
// derive each job's arrival (p95 of input availability) and deadline (p50
// of the first read of its output), saying why when a job is not actionable.
//
// Not built yet: issue 4.
package slo
