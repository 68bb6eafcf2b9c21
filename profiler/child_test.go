package profiler

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The tests run the test binary itself as the profiled command: with
// WLPROF_TEST_CHILD set, TestMain plays a child instead of running tests.
// Every child writes its pid to $WLPROF_TEST_PIDS/<pid> so tests can check
// that no process of a run survives it.
func TestMain(m *testing.M) {
	if mode := os.Getenv("WLPROF_TEST_CHILD"); mode != "" {
		os.Exit(child(mode, os.Args[1:]))
	}
	os.Exit(m.Run())
}

// childArgv is the argv that runs the test binary as child mode with args.
func childArgv(args ...string) []string {
	return append([]string{os.Args[0]}, args...)
}

func childEnv(mode, pidDir string) []string {
	return append(os.Environ(), "WLPROF_TEST_CHILD="+mode, "WLPROF_TEST_PIDS="+pidDir)
}

func notePid() {
	if d := os.Getenv("WLPROF_TEST_PIDS"); d != "" {
		os.WriteFile(filepath.Join(d, strconv.Itoa(os.Getpid())), nil, 0o644)
	}
}

// spawn starts the test binary again in another child mode.
func spawn(mode string, args ...string) *exec.Cmd {
	c := exec.Command(os.Args[0], args...)
	c.Env = append(os.Environ(), "WLPROF_TEST_CHILD="+mode)
	c.Start()
	return c
}

func child(mode string, args []string) int {
	if mode == "stubborn" {
		signal.Ignore(syscall.SIGTERM) // first, to leave the least time unprotected
	}
	notePid()
	switch mode {
	case "contend", "spin0": // cpuwait_test.go
		return contend(mode)
	case "write": // write N bytes in files of 1 MiB to DIR, fsync, close; delete every other file
		n, _ := strconv.ParseInt(args[0], 10, 64)
		dir := args[1]
		buf := make([]byte, 1<<20)
		for i := 0; n > 0; i++ {
			k := min(n, int64(len(buf)))
			p := filepath.Join(dir, fmt.Sprintf("spill-%d", i))
			f, err := os.Create(p)
			if err != nil {
				return 3
			}
			f.Write(buf[:k])
			f.Sync()
			f.Close()
			n -= k
			if i%2 == 1 {
				time.Sleep(20 * time.Millisecond) // a merge would read it first
				os.Remove(p)
			}
		}
		return 0
	case "directwrite": // print the disk limits of the cgroups it is in, then write N bytes with O_DIRECT to $WLPROF_SPILL_DIR
		return directWrite(args[0])
	case "churn": // write K files of S bytes in DIR, deleting each as soon as it is closed
		k, _ := strconv.Atoi(args[0])
		size, _ := strconv.Atoi(args[1])
		for i := 0; i < k; i++ {
			p := filepath.Join(args[2], fmt.Sprintf("tmp-%d", i))
			os.WriteFile(p, make([]byte, size), 0o644)
			os.Remove(p)
		}
		return 0
	case "read": // read FILE to the end in 64 KiB reads
		f, err := os.Open(args[0])
		if err != nil {
			return 3
		}
		buf := make([]byte, 64<<10)
		for {
			if _, err := f.Read(buf); err != nil {
				break
			}
		}
		f.Close()
		return 0
	case "env": // record the WLPROF_* environment and the arguments
		var b strings.Builder
		for _, k := range []string{"WLPROF_MEM_BYTES", "WLPROF_SLOTS", "WLPROF_SPILL_DIR", "WLPROF_RUN", "WLPROF_COPY"} {
			fmt.Fprintf(&b, "%s=%s\n", k, os.Getenv(k))
		}
		fmt.Fprintf(&b, "args=%s\n", strings.Join(args, " "))
		os.WriteFile(filepath.Join(os.Getenv("WLPROF_TEST_PIDS"), "env-"+os.Getenv("WLPROF_COPY")), []byte(b.String()), 0o644)
		return 0
	case "spin": // burn D of CPU time
		d, _ := time.ParseDuration(args[0])
		spinFor(d)
		return 0
	case "fork": // two children that spin, one of which forks a grandchild that spins; wait for all
		a := spawn("forkmid", args...)
		b := spawn("spin", args...)
		a.Wait()
		b.Wait()
		return 0
	case "forkmid":
		c := spawn("spin", args...)
		d, _ := time.ParseDuration(args[0])
		spinFor(d)
		c.Wait()
		return 0
	case "daemon": // leave a background process (in a new session) behind and exit
		c := exec.Command(os.Args[0])
		c.Env = append(os.Environ(), "WLPROF_TEST_CHILD=hang")
		c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		c.Start()
		time.Sleep(200 * time.Millisecond) // let it start and note its pid
		return 0
	case "crash": // panic and die of SIGABRT, as a crashing native program would
		debug.SetTraceback("crash")
		panic("child crashes on purpose")
	case "exit": // exit with a status
		n, _ := strconv.Atoi(args[0])
		return n
	case "hang": // sleep, forking a child that sleeps too
		c := exec.Command(os.Args[0])
		c.Env = append(os.Environ(), "WLPROF_TEST_CHILD=sleep")
		c.Start()
		time.Sleep(time.Hour)
		return 0
	case "stubborn": // ignore SIGTERM (above): only SIGKILL ends it
		time.Sleep(time.Hour)
		return 0
	case "sleep":
		time.Sleep(time.Hour)
		return 0
	case "nap": // sleep briefly and exit
		d, _ := time.ParseDuration(args[0])
		time.Sleep(d)
		return 0
	case "alloc": // touch N bytes of memory, hold them briefly
		n, _ := strconv.ParseInt(args[0], 10, 64)
		b := make([]byte, n)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		time.Sleep(100 * time.Millisecond)
		return int(b[0]) - 1
	case "phasedwrite": // idle for D, then mark a phase and write N bytes to FILE in fsync'd 64 KiB pieces
		d, _ := time.ParseDuration(args[0])
		n, _ := strconv.ParseInt(args[1], 10, 64)
		fmt.Println("phase: idle")
		time.Sleep(d)
		fmt.Println("phase: write")
		f, err := os.Create(args[2])
		if err != nil {
			return 3
		}
		buf := make([]byte, 64<<10)
		for ; n > 0; n -= int64(len(buf)) {
			f.Write(buf[:min(n, int64(len(buf)))])
			f.Sync()
		}
		f.Close()
		time.Sleep(d)
		return 0
	case "phases":
		fmt.Println("phase: map")
		time.Sleep(300 * time.Millisecond)
		fmt.Println("phase: reduce")
		time.Sleep(300 * time.Millisecond)
		return 0
	}
	fmt.Fprintln(os.Stderr, "unknown child mode", mode)
	return 2
}

// spinFor burns d of the process's own CPU time (not wall time: the
// machine is shared, and the tests count CPU seconds).
func spinFor(d time.Duration) {
	used := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start := used()
	for {
		if used()-start >= d {
			return
		}
		for i := 0; i < 1e6; i++ {
		}
	}
}

// survivors lists the noted pids that still exist (as anything, zombie included).
func survivors(t *testing.T, pidDir string) []int {
	t.Helper()
	ents, err := os.ReadDir(pidDir)
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, e := range ents {
		pid, _ := strconv.Atoi(e.Name())
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// directWrite is the child "directwrite": for each cgroup line of
// /proc/self/cgroup, the throttling files of that cgroup (v1
// blkio.throttle.*_bps_device, v2 io.max) as "limit FILE: CONTENT"
// lines, then n bytes written to a file in $WLPROF_SPILL_DIR with O_DIRECT
// (through the page cache where O_DIRECT is refused), in 1 MiB pieces.
func directWrite(arg string) int {
	n, _ := strconv.ParseInt(arg, 10, 64)
	own, err := ownCgroups()
	if err != nil {
		return 3
	}
	for ctl, path := range own {
		var dir string
		var files []string
		switch ctl {
		case "blkio":
			dir, files = filepath.Join(mountPoint("cgroup", "blkio"), path), []string{"blkio.throttle.read_bps_device", "blkio.throttle.write_bps_device"}
		case "":
			dir, files = filepath.Join(mountPoint("cgroup2", ""), path), []string{"io.max"}
		}
		for _, f := range files {
			if b, err := os.ReadFile(filepath.Join(dir, f)); err == nil && len(strings.TrimSpace(string(b))) > 0 {
				fmt.Printf("limit %s %s: %s\n", filepath.Base(dir), f, strings.TrimSpace(string(b)))
			}
		}
	}
	p := filepath.Join(os.Getenv("WLPROF_SPILL_DIR"), "direct")
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|syscall.O_DIRECT, 0o644)
	if err != nil {
		if f, err = os.Create(p); err != nil {
			return 3
		}
	}
	defer f.Close()
	buf, err := syscall.Mmap(-1, 0, 1<<20, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return 3
	}
	for ; n > 0; n -= int64(len(buf)) {
		if _, err := f.Write(buf); err != nil {
			return 4
		}
	}
	return 0
}
