package prefetch

import "unsafe"

// Line starts loading the cache line holding p into every cache level
// (PREFETCHT0) and returns at once; p may be any address, even unmapped.
//
//go:noescape
func Line(p unsafe.Pointer)
