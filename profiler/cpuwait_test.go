package profiler

import (
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

func init() {
	// The "contend" child burns CPU on its main thread, as cpu_wait_s
	// assumes of a single-threaded task.
	if m := os.Getenv("WLPROF_TEST_CHILD"); m == "contend" || m == "spin0" {
		runtime.LockOSThread()
	}
}

// pinToCPU0 binds the calling thread to CPU 0.
func pinToCPU0() error {
	var mask [16]uint64
	mask[0] = 1
	_, _, e := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, 0, unsafe.Sizeof(mask), uintptr(unsafe.Pointer(&mask)))
	if e != 0 {
		return e
	}
	return nil
}

// threadCPU is the calling thread's CPU time.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(1, &ru) // RUSAGE_THREAD
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// contend: "contend" starts a "spin0" copy of itself on CPU 0, pins its own
// main thread there too and burns 400 ms of its own CPU time, so it waits
// for the CPU about as long as it runs; "spin0" burns CPU until killed.
func contend(mode string) int {
	if err := pinToCPU0(); err != nil {
		return 3
	}
	if mode == "spin0" {
		for {
		}
	}
	c := exec.Command(os.Args[0])
	c.Env = append(os.Environ(), "WLPROF_TEST_CHILD=spin0")
	if c.Start() != nil {
		return 4
	}
	defer func() { c.Process.Kill(); c.Wait() }()
	x := 0
	for threadCPU() < 400*time.Millisecond {
		for i := 0; i < 1e5; i++ {
			x += i
		}
	}
	if x == 42 {
		return 5
	}
	return 0
}

// cpu_wait_s is the time the command's main thread waited for a CPU: a
// child sharing one CPU with a busy sibling waits about as long as it runs
// (and more when other processes of the machine use that CPU too), and
// wall time minus the wait is close to the 400 ms it ran.
func TestCPUWait(t *testing.T) {
	o, pids := sweepOpts(t, "contend")
	r := one(t, o, childArgv()...)
	rec := r.Record
	if rec.Outcome != "ok" {
		t.Fatalf("outcome %s (exit %d): %s", rec.Outcome, rec.ExitCode, r.Tail)
	}
	own := rec.RuntimeS - rec.CPUWaitS
	t.Logf("wall %.3f s, cpu_wait %.3f s, wall − wait %.3f s", rec.RuntimeS, rec.CPUWaitS, own)
	if rec.CPUWaitS < 0.15 || rec.CPUWaitS >= rec.RuntimeS {
		t.Errorf("cpu_wait_s %.3f of %.3f s wall: want most of the time beyond the 0.4 s the child ran", rec.CPUWaitS, rec.RuntimeS)
	}
	// The child ran 0.4 s on its main thread; starting and stopping its
	// sibling and the profiler's sampling add a little.
	if own < 0.35 || own > 0.65 {
		t.Errorf("wall − cpu_wait = %.3f s, want about the 0.4 s the child ran", own)
	}
	checkClean(t, o, pids)
}
