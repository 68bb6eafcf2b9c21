// Package harvest is the resource-harvesting what-if of seed 000 (Zhang
// et al., "History-Based Harvesting of Spare Cycles and Storage in
// Large-Scale Datacenters", OSDI'16, §4.1, §5, §6). It sits above the
// classify stage (package fft), whose public Load/Run it calls; no stage
// imports it.
//
// # Job length types (§4.1, Algorithm 1 line 3; §6)
//
// A recurring job is short, medium or long by the duration of its last
// run against two thresholds: shorter than ShortBelowS is short, longer
// than LongAboveS long; a job never seen is medium. The thresholds are
// --short-below and --long-above when given (§6 used 173 s and 433 s),
// else DeriveThresholds: the work-weighted quantiles of the historical
// run durations (work = duration × containers) at the share of the
// harvestable capacity held by unpredictable classes (short jobs'
// preferred classes) and at 1 − the share held by constant classes (long
// jobs'), so the work of each type is proportional to its preferred
// classes' capacity, as §4.1 asks in words. Capacity of a pattern is
// Σ over its classes of servers × max(0, cores × (1 − class mean) −
// reserve cores). With fewer than MinThresholdRuns runs before the
// replay, the paper's 173 s and 433 s are used (and said).
//
// The profiles publish each job's type (profile.Job.Harvest) so that a
// scheduler can apply Algorithm 1's W[type, class].
package harvest
