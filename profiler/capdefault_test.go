package profiler

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gnuSortInput writes lines of random text (8 MiB, more than a 4 MiB
// sort buffer holds) and returns the file.
func gnuSortInput(t *testing.T) string {
	t.Helper()
	r := rand.New(rand.NewPCG(5, 6))
	var b bytes.Buffer
	for b.Len() < 8<<20 {
		fmt.Fprintf(&b, "%016x %d\n", r.Uint64(), b.Len())
	}
	in := filepath.Join(t.TempDir(), "in.txt")
	if err := os.WriteFile(in, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return in
}

// With the default options, an ordinary program given a small setting is
// not killed by the cap: GNU sort -S 4M under a cap of exactly 4 MiB (the
// old default, no overhead) was OOM-killed, because its code, libc, stack
// and the page cache it reads through need room beside the buffer {mem}
// sizes. The default overhead (DefaultCapOverhead) leaves that room.
func TestDefaultCapRunsGNUSortAtSmallSetting(t *testing.T) {
	if host, why := detectCgroups(); host == nil {
		t.Skipf("no memory cgroup available here: %s", why)
	}
	sortBin, err := exec.LookPath("sort")
	if err != nil {
		t.Fatalf("GNU sort (coreutils) is needed: %v", err)
	}
	in := gnuSortInput(t)
	o, pids := sweepOpts(t, "none")
	o.Env = append(os.Environ(), "LC_ALL=C", "WLPROF_TEST_PIDS="+pids)
	o.Mems = []int64{4 << 20}
	o.Cap = CapRequire
	r := one(t, o, sortBin, "-S", "{mem}", "-T", "{spill_dir}", "-o", "/dev/null", in)
	rec := r.Record
	if rec.Outcome != "ok" || !rec.Capped {
		t.Fatalf("sort -S 4M with the default cap: outcome %s (oom kills %d), capped %v, %s; want ok and capped",
			rec.Outcome, rec.OOMKills, rec.Capped, rec.CapNote)
	}
	if want := "= 36M per copy (setting 4M + overhead 32M)"; !strings.Contains(rec.CapNote, want) {
		t.Errorf("cap note %q lacks %q", rec.CapNote, want)
	}
	checkClean(t, o, pids)
}

// A run the cap OOM-kills is said to be, in the sweep table (JSON and the
// notes the text prints), with the limit and how it was made, and the
// overhead can still be turned off (NoCapOverhead: the cap is the setting).
func TestOOMKilledByCapIsSaid(t *testing.T) {
	if host, why := detectCgroups(); host == nil {
		t.Skipf("no memory cgroup available here: %s", why)
	}
	o, pids := sweepOpts(t, "alloc")
	o.Mems = []int64{16 << 20}
	o.CapOverhead = NoCapOverhead
	o.Cap = CapRequire
	var warned []string
	o.Warn = func(s string) { warned = append(warned, s) }
	r := one(t, o, childArgv("67108864")...) // 64 MiB
	if r.Record.Outcome != "oom-killed" || !strings.Contains(r.Record.CapNote, "= 16M per copy (setting 16M, no overhead)") {
		t.Fatalf("outcome %s, note %q; want oom-killed under a 16M cap", r.Record.Outcome, r.Record.CapNote)
	}
	if len(warned) == 0 || !strings.Contains(warned[0], "OOM-killed by the memory cap") {
		t.Errorf("warnings %q, want one saying the cap killed the run", warned)
	}
	runs, _ := records(r)
	st := Summarize(runs)
	if len(st) != 1 || st[0].OOMKilledByCap != 1 || len(st[0].Notes) != 1 {
		t.Fatalf("settings %+v, want one OOM-killed by the cap, with a note", st)
	}
	note := st[0].Notes[0]
	for _, want := range []string{"1 of 1 run(s) OOM-killed by the memory cap", "16M per copy", "--cap-overhead"} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q lacks %q", note, want)
		}
	}
	// The job's published profile warns too: its planner sees no phases
	// and must know why.
	if sb := Sandboxes(runs, nil); len(sb) != 1 || !strings.Contains(strings.Join(sb[0].Warnings, "\n"), note) {
		t.Errorf("sandbox warnings %q lack the note", sb[0].Warnings)
	}
	checkClean(t, o, pids)
}
