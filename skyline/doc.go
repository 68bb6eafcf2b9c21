// Package skyline fits reservation skylines to the runs of recurring jobs:
// the skyline stage of the pipeline (seed 001, Morpheus, §5). It will read
// the skylines table, align runs at their start, and solve the LP that
// trades over-allocation against under-allocation debt with COIN-OR CLP
// (github.com/lanl/clp), matching Apache Hadoop's ResourceEstimator.
//
// Not built yet: issue 5. The cgo link to CLP is already exercised by
// clp_test.go so the toolchain set-up is proven on every machine.
package skyline
