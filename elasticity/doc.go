// Package elasticity builds memory elasticity models from profiling runs:
// the elasticity stage of the pipeline (seed 004, Iorgulescu et al., "Don't
// cry over spilled records", ATC 2017, §2). It will fit step models for
// mappers and spill-rate models T(m) = T + spilledBytes(m)/diskRate for
// reducers, with a simulation of the framework's spill and merge logic.
//
// Not built yet: issue 7.
package elasticity
