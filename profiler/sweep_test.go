package profiler

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// sweepOpts are options for one quick run of a child mode. The I/O
// capacity is given, so that the sweeps do not each calibrate the disk
// (TestSweepRecordsIOCapacity measures it).
func sweepOpts(t *testing.T, mode string) (Options, string) {
	t.Helper()
	pids := t.TempDir()
	return Options{Job: "t", Repeat: 1, Interval: 20 * time.Millisecond, Grace: 300 * time.Millisecond,
		SpillDir: t.TempDir(), Env: childEnv(mode, pids), Cap: CapOff, IOCapacity: 500 << 20}, pids
}

// checkClean fails when a process of the runs or a spill directory is left.
func checkClean(t *testing.T, o Options, pids string) {
	t.Helper()
	if s := survivors(t, pids); len(s) > 0 {
		t.Errorf("processes left after the sweep: %v", s)
	}
	ents, _ := os.ReadDir(o.SpillDir)
	if len(ents) > 0 {
		t.Errorf("spill directories left: %d entries in %s", len(ents), o.SpillDir)
	}
}

func one(t *testing.T, o Options, argv ...string) *Run {
	t.Helper()
	runs, err := Sweep(context.Background(), argv, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 {
		t.Fatalf("%d runs, want 1", len(runs))
	}
	return runs[0]
}

// A child that writes a known number of bytes: the syscall counter equals
// it, the storage counter is at least it (fsync'd), and the spill directory
// saw all of it although half of the files were deleted before the end.
func TestCountersMatchKnownWrites(t *testing.T) {
	o, pids := sweepOpts(t, "write")
	const n = 5<<20 + 12345
	r := one(t, o, childArgv(strconv.Itoa(n), "{spill_dir}")...)
	rec := r.Record
	if rec.Outcome != "ok" || rec.ExitCode != 0 {
		t.Fatalf("outcome %s exit %d: %s", rec.Outcome, rec.ExitCode, r.Tail)
	}
	// wchar counts exactly the bytes passed to write(2) by the tree: the
	// child writes nothing else (its pid file is empty).
	if rec.WriteSyscallBytes != n {
		t.Errorf("write_syscall_bytes = %d, want %d", rec.WriteSyscallBytes, n)
	}
	if fsOnDisk(o.SpillDir) && rec.WriteBytes < n {
		t.Errorf("write_bytes = %d, want at least %d (every file was fsync'd)", rec.WriteBytes, n)
	}
	if rec.SpilledBytes != n {
		t.Errorf("spilled_bytes = %d, want %d", rec.SpilledBytes, n)
	}
	if rec.SpillPeakBytes <= 0 || rec.SpillPeakBytes > n {
		t.Errorf("spill_peak_bytes = %d, want in (0, %d]", rec.SpillPeakBytes, n)
	}
	checkClean(t, o, pids)
}

// A child that reads a known file: rchar counts it. The Go runtime reads a
// few small files of its own at start (transparent huge page settings), so
// the count is the file plus at most a few KiB.
func TestCountersMatchKnownReads(t *testing.T) {
	o, pids := sweepOpts(t, "read")
	const n = 3<<20 + 777
	f := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(f, make([]byte, n), 0o644); err != nil {
		t.Fatal(err)
	}
	r := one(t, o, childArgv(f)...)
	if got := r.Record.ReadSyscallBytes; got < n || got > n+16<<10 {
		t.Errorf("read_syscall_bytes = %d, want %d plus the runtime's few KiB", got, n)
	}
	if r.Record.WriteSyscallBytes != 0 {
		t.Errorf("write_syscall_bytes = %d, want 0", r.Record.WriteSyscallBytes)
	}
	checkClean(t, o, pids)
}

// fsOnDisk reports whether writes under dir reach a block device (tmpfs
// writes never count in write_bytes).
func fsOnDisk(dir string) bool {
	b, err := os.ReadFile("/proc/self/mounts")
	if err != nil {
		return false
	}
	best, typ := "", ""
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) > 2 && strings.HasPrefix(dir, f[1]) && len(f[1]) >= len(best) {
			best, typ = f[1], f[2]
		}
	}
	return typ != "tmpfs" && typ != "ramfs" && typ != ""
}

// A child that forks children and a grandchild, all spinning: the CPU time
// of the whole tree is counted (three processes spinning 0.4 s each on a
// machine with fewer cores than that still total about 1.2 CPU seconds).
func TestForkingChildTreeCPU(t *testing.T) {
	o, pids := sweepOpts(t, "fork")
	r := one(t, o, childArgv("400ms")...)
	rec := r.Record
	t.Logf("runtime %.2f s, cpu %.2f s", rec.RuntimeS, rec.CPUS)
	if rec.Outcome != "ok" {
		t.Fatalf("outcome %s: %s", rec.Outcome, r.Tail)
	}
	if rec.CPUS < 1.0 || rec.CPUS > 1.2+0.5 {
		t.Errorf("cpu_s = %.2f, want about 1.2 (three processes spinning 0.4 s)", rec.CPUS)
	}
	maxProcs := int32(0)
	for _, s := range r.Samples {
		maxProcs = max(maxProcs, s.Procs)
	}
	if maxProcs < 4 {
		t.Errorf("at most %d processes seen at once, want 4 (root, two children, a grandchild)", maxProcs)
	}
	last := r.Samples[len(r.Samples)-1]
	if d := last.CPUS - rec.CPUS; d < -0.1 || d > 0.1 {
		t.Errorf("last sample cpu_s %.2f differs from the run's %.2f", last.CPUS, rec.CPUS)
	}
	checkClean(t, o, pids)
}

// A daemon left behind in its own session is found, killed and reaped.
func TestDaemonIsStopped(t *testing.T) {
	o, pids := sweepOpts(t, "daemon")
	var warned []string
	o.Warn = func(s string) { warned = append(warned, s) }
	r := one(t, o, childArgv()...)
	if r.Record.Outcome != "ok" {
		t.Fatalf("outcome %s", r.Record.Outcome)
	}
	if len(warned) == 0 || !strings.Contains(strings.Join(warned, "\n"), "outlived the command") {
		t.Errorf("no warning about the process left behind: %q", warned)
	}
	checkClean(t, o, pids)
}

func TestCrashingChild(t *testing.T) {
	o, pids := sweepOpts(t, "crash")
	r := one(t, o, childArgv()...)
	if r.Record.Outcome != "signaled" || r.Record.ExitCode != -6 {
		t.Errorf("outcome %s exit %d, want signaled -6 (SIGABRT)", r.Record.Outcome, r.Record.ExitCode)
	}
	if !strings.Contains(r.Tail, "goroutine") { // the end of the crash's stack dump
		t.Errorf("the crash's stack dump is not in the output tail: %q", r.Tail)
	}
	checkClean(t, o, pids)
}

func TestFailingChild(t *testing.T) {
	o, pids := sweepOpts(t, "exit")
	r := one(t, o, childArgv("7")...)
	if r.Record.Outcome != "failed" || r.Record.ExitCode != 7 {
		t.Errorf("outcome %s exit %d, want failed 7", r.Record.Outcome, r.Record.ExitCode)
	}
	checkClean(t, o, pids)
}

// A hanging child (with a child of its own) is stopped by SIGTERM at the
// timeout; one that ignores SIGTERM by SIGKILL after the grace period.
func TestTimeout(t *testing.T) {
	// The stubborn child gets more time: SIGTERM must come after it has
	// started ignoring it, and starting is slow on a loaded machine.
	for _, c := range []struct {
		mode    string
		code    int32
		timeout time.Duration
	}{{"hang", -15, 300 * time.Millisecond}, {"stubborn", -9, 1500 * time.Millisecond}} {
		t.Run(c.mode, func(t *testing.T) {
			o, pids := sweepOpts(t, c.mode)
			o.Timeout = c.timeout
			r := one(t, o, childArgv()...)
			if r.Record.Outcome != "timeout" || r.Record.ExitCode != c.code {
				t.Errorf("outcome %s exit %d, want timeout %d", r.Record.Outcome, r.Record.ExitCode, c.code)
			}
			if lo := c.timeout.Seconds(); r.Record.RuntimeS < lo || r.Record.RuntimeS > lo+o.Grace.Seconds()+1 {
				t.Errorf("runtime %.2f s, want the timeout (plus grace for SIGKILL)", r.Record.RuntimeS)
			}
			checkClean(t, o, pids)
		})
	}
}

// An interrupt stops the run in progress and keeps those finished before:
// the context is cancelled 150 ms into the second run, whose command naps
// 250 ms, so exactly one run is finished.
func TestInterruptKeepsFinishedRuns(t *testing.T) {
	o, pids := sweepOpts(t, "nap")
	o.Repeat = 10
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var seen int
	o.OnRun = func(*Run) error {
		seen++
		time.AfterFunc(150*time.Millisecond, cancel)
		return nil
	}
	runs, err := Sweep(ctx, childArgv("250ms"), o)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the context's", err)
	}
	if len(runs) != 1 || seen != 1 || runs[0].Record.Outcome != "ok" {
		t.Errorf("%d runs returned, %d passed to OnRun; want the one finished before the interrupt", len(runs), seen)
	}
	checkClean(t, o, pids)
}

// Slots: K copies at once, each with its own spill directory and {copy}.
func TestSlotsRunCopiesAtOnce(t *testing.T) {
	o, pids := sweepOpts(t, "write")
	o.Slots = []int{3}
	r := one(t, o, childArgv("1048576", "{spill_dir}")...)
	rec := r.Record
	if rec.Slots != 3 || rec.WriteSyscallBytes != 3<<20 || rec.SpilledBytes != 3<<20 {
		t.Errorf("slots %d write_syscall %d spilled %d, want 3 copies writing 1 MiB each", rec.Slots, rec.WriteSyscallBytes, rec.SpilledBytes)
	}
	checkClean(t, o, pids)
}

func TestPhases(t *testing.T) {
	o, pids := sweepOpts(t, "phases")
	o.PhaseRegex = regexp.MustCompile(`^phase: (\w+)`)
	r := one(t, o, childArgv()...)
	if len(r.Phases) != 2 || r.Phases[0].Name != "map" || r.Phases[1].Name != "reduce" {
		t.Fatalf("phases %+v", r.Phases)
	}
	if d := r.Phases[0].EndS - r.Phases[0].StartS; d < 0.29 || d > 2 { // loose above: the machine is shared
		t.Errorf("map phase lasted %.2f s, want about 0.3 (the child sleeps 0.3 s in it)", d)
	}
	if r.Phases[0].EndS != r.Phases[1].StartS || r.Phases[1].EndS != r.Record.RuntimeS {
		t.Errorf("phases %+v do not tile the run (%.2f s)", r.Phases, r.Record.RuntimeS)
	}
	tagged := map[string]int{}
	for _, s := range r.Samples {
		tagged[s.Phase]++
	}
	if tagged["map"] < 3 || tagged["reduce"] < 3 {
		t.Errorf("samples per phase %v, want several in each", tagged)
	}
	checkClean(t, o, pids)
}

// {mem} without --mem is refused before anything runs.
func TestMemPlaceholderNeedsMem(t *testing.T) {
	o, _ := sweepOpts(t, "exit")
	_, err := Sweep(context.Background(), childArgv("-S", "{mem}"), o)
	if err == nil || !strings.Contains(err.Error(), "{mem}") {
		t.Errorf("err = %v, want one naming {mem}", err)
	}
}

// Spill files deleted as soon as they are closed, never seen by a sample
// (the interval is longer than the run): fanotify's events hold the file,
// so every byte counts. Without fanotify (not root) the count is a lower
// bound and the test says so instead of checking equality.
func TestSpillChurnCounted(t *testing.T) {
	o, pids := sweepOpts(t, "churn")
	o.Interval = time.Hour
	r := one(t, o, childArgv("200", "10000", "{spill_dir}")...)
	got := r.Record.SpilledBytes
	if fd, err := unix.FanotifyInit(unix.FAN_CLASS_NOTIF, unix.O_RDONLY); err == nil {
		unix.Close(fd)
		if got != 200*10000 {
			t.Errorf("spilled_bytes = %d, want %d (200 files of 10000 bytes)", got, 200*10000)
		}
	} else {
		t.Logf("no fanotify here (%v): inotify alone counted %d of %d bytes", err, got, 200*10000)
		if got > 200*10000 {
			t.Errorf("spilled_bytes = %d, more than was written", got)
		}
	}
	checkClean(t, o, pids)
}

// Each copy sees its setting in its arguments and environment, and a spill
// directory of its own.
func TestCopiesSeeTheirSetting(t *testing.T) {
	o, pids := sweepOpts(t, "env")
	o.Slots = []int{2}
	o.Mems = []int64{64 << 20}
	one(t, o, childArgv("{mem}", "{mem_mb}", "{slots}", "{copy}", "{run}")...)
	for _, c := range []string{"1", "2"} {
		b, err := os.ReadFile(filepath.Join(pids, "env-"+c))
		if err != nil {
			t.Fatal(err)
		}
		got := string(b)
		for _, want := range []string{"WLPROF_MEM_BYTES=67108864\n", "WLPROF_SLOTS=2\n", "WLPROF_COPY=" + c + "\n",
			"/c" + c + "\n", "WLPROF_RUN=64M-s2-r1-c" + c + "\n", "args=64M 64 2 " + c + " 64M-s2-r1-c" + c + "\n"} {
			if !strings.Contains(got, want) {
				t.Errorf("copy %s: %q lacks %q", c, got, want)
			}
		}
		os.Remove(filepath.Join(pids, "env-"+c))
	}
	checkClean(t, o, pids)
}

// Phase names come from the first capture group that matched, so one
// regular expression can tell Hadoop's map and reduce progress apart.
func TestPhaseNames(t *testing.T) {
	o := newOutput(regexp.MustCompile(`(map) \d+% reduce 0%|(reduce) [1-9]`), nil, time.Now())
	for _, l := range []string{"map 0% reduce 0%", "map 50% reduce 0%", "noise", "map 100% reduce 0%", "map 100% reduce 33%", "map 100% reduce 100%"} {
		o.line([]byte(l + "\n"))
	}
	if len(o.phases) != 2 || o.phases[0].name != "map" || o.phases[1].name != "reduce" {
		t.Errorf("phases %+v, want map then reduce", o.phases)
	}
}
