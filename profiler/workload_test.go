package profiler

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// buildSpillsort builds the reference workload (testdata/profiler/spillsort).
func buildSpillsort(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	bin := filepath.Join(t.TempDir(), "spillsort")
	cmd := exec.Command(goBin, "build", "-o", bin, "../testdata/profiler/spillsort")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building spillsort: %v\n%s", err, out)
	}
	return bin
}

// The reference workload really spills when under-sized and not when
// well-sized, and the profiler's spill accounting matches what it says it
// wrote: 8 MiB of 100-byte records is 83886 records; a 1 MiB budget holds
// 1048576/116 = 9039 records with their 16 bytes of metadata, so 9 full
// buffers (81351 records, 8135100 bytes) are spilled and the last 2535
// records stay in memory for the merge, like a reducer's last buffer.
func TestSpillsortSweep(t *testing.T) {
	bin := buildSpillsort(t)
	o, pids := sweepOpts(t, "none")
	o.Env = append(os.Environ(), "WLPROF_TEST_PIDS="+pids)
	o.Mems = []int64{1 << 20, 32 << 20}
	o.Cap = CapAuto
	o.CapOverhead = 16 << 20
	o.PhaseRegex = regexp.MustCompile(`^phase: (\w+)`)
	o.Interval = 50 * time.Millisecond
	runs, err := Sweep(context.Background(), []string{bin, "-gen", "8M", "-mem", "{mem}", "-spill", "{spill_dir}"}, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 {
		t.Fatalf("%d runs", len(runs))
	}
	const input = 9 * 9039 * 100
	under, well := runs[0], runs[1]
	for _, r := range runs {
		if r.Record.Outcome != "ok" {
			t.Fatalf("run %s: %s\n%s", r.Record.RunID, r.Record.Outcome, r.Tail)
		}
	}
	if !strings.Contains(under.Tail, fmt.Sprintf("spilled_bytes=%d runs=9 ", input)) {
		t.Errorf("spillsort at 1M did not report spilling %d bytes in 9 runs: %q", input, under.Tail)
	}
	if under.Record.SpilledBytes != input {
		t.Errorf("profiler saw %d bytes spilled at 1M, want %d", under.Record.SpilledBytes, input)
	}
	if names := phaseNames(under.Phases); !slices.Equal(names, []string{"read", "merge"}) {
		t.Errorf("phases at 1M: %v, want read, merge", names)
	}
	if well.Record.SpilledBytes != 0 || !strings.Contains(well.Tail, "spilled_bytes=0 ") {
		t.Errorf("at 32M: profiler saw %d spilled, spillsort said %q; want none", well.Record.SpilledBytes, well.Tail)
	}
	checkClean(t, o, pids)
}

func phaseNames(ps []Phase) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}

// GNU sort, a program nobody here wrote, with -S {mem} -T {spill_dir}: at
// 1M it writes temporary files (at least the whole input once) and removes
// them; at 64M it sorts in memory. Its output matches Go's sort of the
// same lines (in the C locale).
func TestGNUSortSweep(t *testing.T) {
	sortBin, err := exec.LookPath("sort")
	if err != nil {
		t.Fatalf("GNU sort (coreutils) is needed: %v", err)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "in.txt")
	r := rand.New(rand.NewPCG(3, 4))
	var lines []string
	var buf bytes.Buffer
	for i := 0; i < 120000; i++ {
		l := fmt.Sprintf("%016x %d", r.Uint64(), i)
		lines = append(lines, l)
		buf.WriteString(l + "\n")
	}
	if err := os.WriteFile(in, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	size := int64(buf.Len())
	o, pids := sweepOpts(t, "none")
	o.Env = append(os.Environ(), "LC_ALL=C", "WLPROF_TEST_PIDS="+pids)
	o.Mems = []int64{1 << 20, 64 << 20}
	o.CapOverhead = 16 << 20
	o.Cap = CapAuto
	runs, err := Sweep(context.Background(), []string{sortBin, "-S", "{mem}", "-T", "{spill_dir}", "-o", filepath.Join(dir, "out-{run}"), in}, o)
	if err != nil {
		t.Fatal(err)
	}
	under, well := runs[0].Record, runs[1].Record
	t.Logf("under: %+v\nsamples: %+v", under, runs[0].Samples)
	if under.Outcome != "ok" || well.Outcome != "ok" {
		t.Fatalf("outcomes %s, %s: %s", under.Outcome, well.Outcome, runs[0].Tail)
	}
	if under.SpilledBytes < size || under.SpilledBytes > 4*size {
		t.Errorf("sort -S 1M spilled %d bytes; want at least the input (%d) and at most 4 times it", under.SpilledBytes, size)
	}
	if well.SpilledBytes != 0 {
		t.Errorf("sort -S 64M spilled %d bytes, want 0", well.SpilledBytes)
	}
	slices.Sort(lines)
	for _, name := range []string{"out-1M-s1-r1-c1", "out-64M-s1-r1-c1"} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		i := 0
		for sc.Scan() {
			if i >= len(lines) || sc.Text() != lines[i] {
				t.Fatalf("%s line %d differs from Go's sort", name, i+1)
			}
			i++
		}
		f.Close()
		if i != len(lines) {
			t.Errorf("%s has %d lines, want %d", name, i, len(lines))
		}
	}
	checkClean(t, o, pids)
}
