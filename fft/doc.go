// Package fft classifies tenants by the shape of their utilisation: the
// classify stage of the pipeline (seed 000, Zhang et al., OSDI 2016, §3 and
// §4.1). It reads the usage and series tables of the dataset and will build
// each tenant's average-server series on a fixed grid, classify it as
// periodic, constant or unpredictable with gonum's FFT, cluster each pattern
// into classes with K-Means, and compute each class's headroom for short,
// medium and long jobs.
//
// Not built yet: issue 3.
package fft
