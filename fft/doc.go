// Package fft classifies tenants by the shape of their utilisation: the
// classify stage of the pipeline (seed 000, Zhang et al., OSDI 2016, §3 and
// §4.1). It reads the dataset's usage table (or the series table it wrote
// before) and returns, per tenant, a pattern, period and strength, and per
// K-Means class its mean, peak, current utilisation and headroom.
//
// Input side: SeriesBuilder / BuildSeries turn usage samples into each
// tenant's average-server series on a grid anchored at the Unix epoch
// (step 2 minutes, or the data's interval when coarser); SeriesFromDataset
// reuses or rebuilds the series table. Entry point: Classify(ctx, Input,
// Options) → *Result; Options documents every default.
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
// pages and read back in parallel (dataset.ReadSeries decodes the values
// straight into their final slices); per tenant, one workspace per worker
// keeps the FFT objects and every scratch slice, the running sums that
// de-level a series are computed once for all its windows, the fold that
// places a period costs one pass per lag (Σy² − Σ S²/c), the 99th
// percentile is a heap of the top 1%, not a sort, and class headroom is
// summed class by class on the workers. What is left is mostly serial
// floating-point sums (autocorrelation, fold, mean) whose order the
// results' bits depend on, and gonum's FFT (a fifth of the time).
//
// Units: utilisation is a fraction of one server in [0,1];
// periods and steps are seconds (_s); instants are Unix milliseconds (Ms).
package fft
