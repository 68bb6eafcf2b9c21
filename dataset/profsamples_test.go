package dataset

import (
	"math/rand/v2"
	"testing"
)

// The profiler's columns of profruns and its profsamples table round-trip
// like every other table (issue 6).
func TestRoundTripProfilerColumns(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	n := 40
	runs := make([]ProfRun, n)
	samples := make([]ProfSample, n)
	for i := range n {
		runs[i] = ProfRun{Job: "sort", Task: "task", Framework: "sandbox", MemoryBytes: r.Int64(), Slots: 2, Repetition: int32(i),
			RuntimeS: r.Float64(), RunID: rngStr(r, alpha), StartMs: maybeTime(r), Outcome: rngStr(r, "ok"),
			ReadSyscallBytes: r.Int64(), WriteSyscallBytes: r.Int64(), SpillPeakBytes: r.Int64(), PeakThreads: int32(r.IntN(99)),
			OOMKills: int32(r.IntN(2)), CapNote: rngStr(r, alpha)}
		samples[i] = ProfSample{Job: "sort", Run: rngStr(r, "ab"), OffsetS: float64(i) / 10, CPUS: r.Float64(), RSSBytes: r.Int64(),
			ReadBytes: r.Int64(), WriteBytes: r.Int64(), Threads: int32(r.IntN(50)), Procs: int32(r.IntN(5)), SpillBytes: r.Int64(),
			CgroupBytes: r.Int64(), Phase: rngStr(r, "mr")}
	}
	checkRoundTrip(t, ProfRunsTable, runs)
	checkRoundTrip(t, ProfSamplesTable, samples)
}
