package profiler

import (
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// Phase boundaries are the marks (the output lines the phase regex
// matched), not the first sample that happens to carry the new name: bytes
// written after a mark belong to the new phase. The child idles, prints
// "phase: write" and at once writes 4 MiB (fsync'd 64 KiB at a time); the
// sampling interval is longer than the write, so with boundaries at
// samples the write lands in the idle phase.
func TestPhaseBoundariesAtMarks(t *testing.T) {
	o, pids := sweepOpts(t, "phasedwrite")
	if !fsOnDisk(o.SpillDir) {
		t.Skipf("%s is not on a block device: its writes are not storage I/O", o.SpillDir)
	}
	o.PhaseRegex = regexp.MustCompile(`^phase: (\w+)`)
	o.Interval = 400 * time.Millisecond
	const n = 4 << 20
	r := one(t, o, childArgv("300ms", strconv.Itoa(n), filepath.Join(t.TempDir(), "out"))...)
	if r.Record.Outcome != "ok" || len(r.Phases) != 2 {
		t.Fatalf("outcome %s, phases %+v: %s", r.Record.Outcome, r.Phases, r.Tail)
	}
	mark := r.Phases[1].StartS // when the profiler read "phase: write"
	runs, samples := records(r)
	p := BuildProfile("task", runs, samples)
	if p == nil {
		t.Fatal("no profile")
	}
	bytes := map[string]float64{}
	start := map[string]float64{}
	for _, ph := range p.Phases {
		bytes[ph.Phase] += ph.IOBytesPerS * (ph.EndS - ph.StartS) * float64(p.Slots)
		start[ph.Phase] = ph.StartS
	}
	if got := bytes["write"]; got < 0.9*n {
		t.Errorf("phase write has %.0f bytes of I/O, idle %.0f; want at least 90%% of the %d written after the mark (phases %+v)",
			got, bytes["idle"], n, p.Phases)
	}
	if got := bytes["idle"]; got > 0.1*n {
		t.Errorf("phase idle has %.0f bytes of I/O, written after its end", got)
	}
	if d := start["write"] - mark; d < 0 || d > 0.05 {
		t.Errorf("phase write starts at %.3f s, the mark was read at %.3f s: want the boundary at the mark", start["write"], mark)
	}
	checkClean(t, o, pids)
}
