// Package prefetch asks the CPU to start loading a cache line that a loop
// will write to soon, so the loop does not stall on it: the series builder
// fills a line per tenant at a time, a thousand or more tenants in turn,
// more streams than the hardware prefetchers follow. Where the architecture
// has no prefetch instruction written here, Line does nothing.
package prefetch
