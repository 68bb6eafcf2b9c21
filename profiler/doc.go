// Package profiler runs a job in a sandbox under sweeps of memory and
// concurrency and records profiling runs in the dataset (seed 002, Polo,
// §4.2.6; seed 004, Iorgulescu et al., ATC 2017, §2): sampling the process
// tree from /proc, capping memory with cgroups where the machine allows,
// and measuring time, CPU, peak RSS, I/O and spilled bytes.
//
// Not built yet: issue 6.
package profiler
