// Package classify classifies tenants by the shape of their utilisation: the
// classify stage of the pipeline (Zhang et al., OSDI 2016, §3 and
// §4.1). It reads the dataset's usage table (or the series table it wrote
// before) and returns, per tenant, a pattern, period and strength, and per
// K-Means class its mean, peak, current utilisation and headroom.
//
// Input side: SeriesBuilder / BuildSeries turn usage samples into each
// tenant's average-server series on a grid anchored at the Unix epoch
// (step 2 minutes, or the data's interval when coarser). A tenant sampled
// more coarsely than that grid (30-minute NYC taxi counts next to 5-minute
// CPU series) is analysed on its own step, the grid's times its typical
// gap between samples, at most an hour (nativestep.go), and says so
// (Tenant.StepS, step_s); class aggregates stay on the shared grid, where
// its slots hold the same samples. The stage surface (the stage contract,
// package internal/stage; Contract in flags.go): DefaultOptions, Options
// with AddFlags and Validate (every bad value at once), Load(ctx, ds,
// Options) → Input, which only reads but for the stage's cache;
// Run(ctx, Input, Options) → *Result, which only computes;
// Result.Document() → what the command prints; Result.Profile() →
// tenants.json (package profile); ErrNoSeries, the "nothing to classify"
// error. Series (store.go) is the one owner of the series table, the
// stage's cache: it returns the table when it is fresh, else builds the
// series from usage and stores them (on a read-only dataset it builds
// them and says so in a warning); Load calls it, and so do the stages that
// replay the series (harvest, placement, estimate), which get them and
// the classes through this surface only. Input holds series in memory,
// or points at a fresh series table that Run classifies as it reads it,
// in two passes of a few row groups each (stream.go: the same result bit
// for bit, in 130 MB instead of 1.7 GB at 10,000 tenants). Analyse is the
// per-tenant core (one series → pattern, period, strength). Options
// documents every default.
//
// Distributed (partial.go; cmd/wlprof-beam): a slot's servers are summed
// exactly (fixed point), so per-shard SeriesBuilder.Partials merged per
// tenant (Partial.Merge, in any grouping and order) give Series bit for
// bit; BatchStep is BuildSeries' step choice; Combine is Run's global part
// (classes, headroom) over tenants already analysed, the code Run uses.
//
// Decision per tenant (classify.go, detect.go, support.go), Zhang et al., OSDI'16 §3:
// periodic and constant tenants are those whose history predicts them,
// repeating periodically or all the time.
//
//   - insufficient: too short or too sparse, with the reason.
//   - Every other tenant is searched for a cycle; flat hourly means do not
//     end the search (a 30-minutes-on/30-minutes-off batch or an hourly
//     cron leaves them flat). The search runs on a detection grid of at
//     most DetectLen points (20 minutes for a month at 2 minutes; periods
//     then placed on the tenant's grid), and, for periods up to
//     ShortPeriod (2 hours), again on the tenant's own grid (its most
//     recent DetectLen slots), which does not average away a cycle of a
//     few slots. A candidate is a periodogram peak that beats shuffled
//     copies, followed through its harmonics to their fundamental, and
//     confirmed when the autocorrelation at the period of the series
//     minus its moving average over one period (the strength: the
//     repeating part's share of what is left) reaches MinStrength (0.3).
//     Over many cycles of a short period it is taken between slots where
//     the period falls there (15 minutes is 7.5 slots of 2 minutes).
//   - A confirmed period counts only if a person would accept it: a
//     natural period (whole minutes that divide an hour, whole hours that
//     divide a day, a day, a week; within max(1%, one step)) seen at
//     least MinCycles (3) times, or any other period seen at least
//     MinCyclesFree (48) times; and it shows in each half of the window
//     on its own (SplitStrength, halves of at least two cycles); seen
//     fewer than 2·MinCycles times (a week in three weeks of data), its
//     strength must reach FewCyclesStrength (0.6). Red noise, regime
//     switches and bursts give chance coincidences at lags of a few days
//     that pass MinStrength over the whole window, but not these tests.
//   - periodic: a period that counts. It is reported as the natural period
//     when within max(1%, half a step) of one. Whether a cycle is there is
//     judged against the noise, never against the level: a daily wave of
//     ±2% on a tenant at 85% is periodic. Only on a flat tenant (below) is
//     a cycle whose repeating part is under MinAmplitude (0.5% of a server)
//     too small to count.
//   - constant: flat, i.e. the noise-corrected spread of hourly means ≤
//     max(5% of the mean, 0.01), and no cycle that counts.
//   - unpredictable: the rest (wandering levels, regime switches, trends
//     without a cycle, irregular bursts).
//
// The rule is measured on independent worlds (worlds_test.go, ten
// generators written apart from internal/synth, frozen before the rule
// changed): TestWorldsAccuracy asserts at least 98% right overall and 90%
// per generator on the seeds it was tuned on and on held-out seeds.
//
// Speed (bench_test.go; 10,000 tenants × 30 days at 2 minutes, 216 M
// samples): BuildSeries reads the usage table row group by row group on
// every core (tenant and server as dictionary ids, pooled buffers) and
// folds samples into chunked per-tenant accumulators without a division or
// map lookup per row; the series table is written in small row groups and
// pages, uncompressed, and read back in parallel straight from the file's
// pages (dataset.ScanSeries, seriespages.go); the spectrum is taken on a
// 20-minute detection grid (DetectLen) by the package's own real FFT
// (rfft.go: a mixed-radix Stockham transform, 5.5 times faster than
// gonum's dsp/fourier at 2160 points, which it is tested against and which
// still takes the lengths with a factor 7); per tenant, one workspace per
// worker keeps the FFT plans and every scratch slice, the running sums
// that de-level a series are computed once for all its windows, the fold
// that places a period costs one pass per lag (Σy² − Σ S²/c) and the last
// placement climbs to the best fold in 3-5 of them, the 99th percentile
// is selected from the ~2% above a sampled threshold, and class headroom
// is summed in tenant order as the second pass reads. On a stored series
// table at that size classify takes 2.2-2.5 s on 2 cores (4.1-4.4 CPU s;
// 3.2-4 s with gonum's FFT, folds a cycle at a time and 64-tenant row
// groups): the read, the folds and the per-tenant passes each take about
// a fifth, the FFT (four per periodic tenant: the series and three
// shuffles) under a tenth. These figures are from before the current rule,
// which also searches flat tenants and, when the detection grid finds no
// long period, searches the tenant's own grid again (up to eight FFTs
// for such a tenant), and were not measured again; on the 360 tenants of
// TestWorldsAccuracy's tuned seeds analyse took the same time in all
// (about 0.35 ms a tenant on one core) before and after: flat and
// sub-hourly tenants now cost as much as the others, noise tenants
// rejected earlier cost less.
//
// Current utilisation (headroom.go), Zhang et al., OSDI'16 §4.1: short
// jobs' headroom is 1 − current, and current is the average server's at
// the current instant (--at, else the end of the data). Each tenant gives
// its latest value at or before it, server-weighted within the class, but
// not from its thin tail (dataset.Series.ThinTail: the last slots where at
// most half of the servers of its fullest recent slot still reported,
// servers ending at slightly different instants; the late servers alone
// are not the average server), and not a value more than an hour (or two
// of the tenant's steps) older than the current instant: inputs of
// different eras are left out with a warning, and a class with no current
// tenant takes its mean, as one with no sample at all.
//
// Units: utilisation is a fraction of one server in [0,1];
// periods and steps are seconds (_s); instants are Unix milliseconds (Ms).
package classify
