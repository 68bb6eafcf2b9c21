// Package fft classifies tenants by the shape of their utilisation: the
// classify stage of the pipeline (seed 000, Zhang et al., OSDI 2016, §3 and
// §4.1). It reads the dataset's usage table (or the series table it wrote
// before) and returns, per tenant, a pattern, period and strength, and per
// K-Means class its mean, peak, current utilisation and headroom.
//
// Input side: SeriesBuilder / BuildSeries turn usage samples into each
// tenant's average-server series on a grid anchored at the Unix epoch
// (step 2 minutes, or the data's interval when coarser). The stage surface
// (stage.go, the same in every stage): Load(ctx, ds, Options) → Input;
// Run(ctx, Input, Options) → *Result; Result.Profile() → tenants.json
// (package profile). Input holds series in memory, or points at a fresh
// series table that Run classifies as it reads it, in two passes of a few
// row groups each (stream.go: the same result bit for bit, in 130 MB
// instead of 1.7 GB at 10,000 tenants); otherwise Load builds the series
// and Run stores them while it classifies. Analyse is the per-tenant core
// (one series → pattern, period, strength). Options documents every
// default; Options.Validate reports every bad value at once.
//
// Decision per tenant (classify.go, detect.go): insufficient (too short or
// too sparse, with the reason); constant (noise-corrected spread of hourly
// means ≤ max(5% of the mean, 0.01)); periodic (a periodogram peak that
// beats shuffled copies, harmonics followed to their fundamental, confirmed
// by the de-levelled autocorrelation, placed by the folded profile); else
// unpredictable.
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
// shuffles) under a tenth.
//
// Units: utilisation is a fraction of one server in [0,1];
// periods and steps are seconds (_s); instants are Unix milliseconds (Ms).
package fft
