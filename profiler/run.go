package profiler

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/bytesize"
)

// copyProc is one copy of the command in a run.
type copyProc struct {
	cmd   *exec.Cmd
	pid   int
	cg    *cgroup
	final procStat // read while it was a zombie: includes its reaped descendants
	endAt time.Time
}

type exitEvent struct {
	i     int
	final procStat
	at    time.Time
}

// runOne runs one setting's repetition: slots copies at once, sampled as
// one tree, and stops and cleans up whatever happens.
func runOne(ctx context.Context, argv []string, o Options, s setting, rep int,
	host *cgroupHost, capNote string, facts string) (*Run, error) {
	memLabel := "nomem"
	if s.mem > 0 {
		memLabel = bytesize.Format(s.mem)
	}
	r := &Run{}
	spillRoot, err := os.MkdirTemp(o.SpillDir, "wlprof-spill-")
	if err != nil {
		return nil, fmt.Errorf("profiler: spill directory: %w", err)
	}
	defer os.RemoveAll(spillRoot)
	// Paths as the kernel names them, so the walk and fanotify agree.
	if p, err := filepath.EvalSymlinks(spillRoot); err == nil {
		if p, err = filepath.Abs(p); err == nil {
			spillRoot = p
		}
	}

	t := newTree()
	copies := make([]*copyProc, s.slots)
	finished := false
	defer func() {
		// Whatever happened, nothing of the run survives it.
		if !finished {
			t.signal(syscall.SIGKILL)
			for _, c := range copies {
				if c != nil && c.cmd != nil {
					c.cmd.Wait()
				}
			}
		}
		for _, c := range copies {
			if c != nil && c.cg != nil {
				if err := c.cg.remove(); err != nil {
					warn(&o, r, err.Error())
				}
			}
		}
	}()

	capped := host != nil && s.mem > 0
	note := capNote
	if capped {
		note = fmt.Sprintf("capped: cgroup v%d %s = %s per copy", host.version,
			map[int]string{1: "memory.limit_in_bytes", 2: "memory.max"}[host.version], bytesize.Format(s.mem+o.CapOverhead))
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	// Settle: the previous run's deferred disk work (dirty pages, the
	// file system journal's commit and, on a file system mounted with
	// discard, the trim of the spill files it deleted) would otherwise be
	// done during this run and charged to it.
	syscall.Sync()
	start := time.Now()
	out := newOutput(o.PhaseRegex, o.Output, start)
	var outWG sync.WaitGroup
	outWG.Add(1)
	go out.read(pr, &outWG)

	var firstArgv []string
	for i := range copies {
		dir := filepath.Join(spillRoot, fmt.Sprintf("c%d", i+1))
		if err := os.Mkdir(dir, 0o755); err != nil {
			pw.Close()
			return nil, err
		}
		v := vars{mem: s.mem, slots: s.slots, spillDir: dir, run: fmt.Sprintf("%s-s%d-r%d-c%d", memLabel, s.slots, rep, i+1), copy: i + 1}
		args, err := v.argv(argv)
		if err != nil {
			pw.Close()
			return nil, err
		}
		if i == 0 {
			firstArgv = args
		}
		c := &copyProc{}
		copies[i] = c
		if capped {
			if c.cg, err = host.newCgroup(s.mem + o.CapOverhead); err != nil {
				if o.Cap == CapRequire {
					pw.Close()
					return nil, fmt.Errorf("%w: %v", ErrNoCap, err)
				}
				capped = false
				note = "not capped: creating the cgroup failed: " + err.Error()
				warn(&o, r, note)
			} else {
				t.cgs = append(t.cgs, c.cg)
			}
		}
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Env = append(append([]string(nil), o.Env...), v.env()...)
		cmd.Dir = o.Dir
		cmd.Stdout, cmd.Stderr = pw, pw
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		if c.cg != nil && host.version == 2 {
			cmd.SysProcAttr.UseCgroupFD = true
			cmd.SysProcAttr.CgroupFD = c.cg.fd
		}
		if err := startCopy(cmd, c.cg); err != nil {
			pw.Close()
			return nil, fmt.Errorf("profiler: starting %s: %w", args[0], err)
		}
		c.cmd, c.pid = cmd, cmd.Process.Pid
		t.addRoot(c.pid)
	}
	pw.Close() // the copies hold the write end now
	t.cgOnly = len(t.cgs) == len(copies)
	spill := newSpillWatch(spillRoot)

	exits := make(chan exitEvent, len(copies))
	for i, c := range copies {
		go waitExit(i, c.pid, exits)
	}

	rec := &r.Record
	rec.Job, rec.Task, rec.Framework = o.Job, o.Task, "sandbox"
	rec.MemoryBytes, rec.Slots, rec.Repetition = s.mem, int32(s.slots), int32(rep)
	rec.InputBytes = o.InputBytes
	rec.StartMs = start.UnixMilli()
	rec.RunID = fmt.Sprintf("%d-%s-s%d-r%d", rec.StartMs, memLabel, s.slots, rep)
	rec.Host = facts
	rec.Source = "profile run"

	var prev dataset.ProfSample
	sample := func() {
		tot := t.update()
		sp := dataset.ProfSample{
			Job: o.Job, Run: rec.RunID, OffsetS: time.Since(start).Seconds(),
			CPUS:      float64(tot.ticks) / clockTicks,
			RSSBytes:  tot.rss,
			ReadBytes: tot.io.readBytes, WriteBytes: tot.io.writeBytes,
			Threads: tot.threads, Procs: tot.procs,
			SpillBytes: spill.sample(),
			Phase:      out.current(),
		}
		for _, c := range copies {
			if c.cg != nil {
				sp.CgroupBytes += c.cg.usage()
			}
		}
		// Counters are monotone; a reap between two file reads can make
		// one sample see a child twice or not at all for an instant.
		sp.CPUS = max(sp.CPUS, prev.CPUS)
		sp.ReadBytes = max(sp.ReadBytes, prev.ReadBytes)
		sp.WriteBytes = max(sp.WriteBytes, prev.WriteBytes)
		prev = sp
		r.Samples = append(r.Samples, sp)
		rec.PeakRSSBytes = max(rec.PeakRSSBytes, sp.RSSBytes)
		rec.PeakThreads = max(rec.PeakThreads, sp.Threads)
	}
	sample()

	ticker := time.NewTicker(o.Interval)
	defer ticker.Stop()
	var timeout <-chan time.Time
	if o.Timeout > 0 {
		tm := time.NewTimer(o.Timeout)
		defer tm.Stop()
		timeout = tm.C
	}
	var kill <-chan time.Time
	timedOut, interrupted := false, false
	stop := func() {
		t.signal(syscall.SIGTERM)
		km := time.NewTimer(o.Grace)
		kill = km.C
	}
	done := ctx.Done()
	pending := len(copies)
	var end time.Time
	for pending > 0 {
		select {
		case <-ticker.C:
			sample()
		case ev := <-exits:
			copies[ev.i].final, copies[ev.i].endAt = ev.final, ev.at
			end = ev.at
			pending--
		case <-timeout:
			timedOut = true
			timeout = nil
			warn(&o, r, fmt.Sprintf("run %s timed out after %v: stopping its process tree", rec.RunID, o.Timeout))
			stop()
		case <-done:
			interrupted = true
			done = nil
			if kill == nil {
				stop()
			}
		case <-kill:
			kill = nil
			t.signal(syscall.SIGKILL)
		}
	}
	sample()
	rec.RuntimeS = end.Sub(start).Seconds()

	// Processes the copies left behind are part of the run: stop them.
	t.update()
	if n := t.alive(); n > 0 {
		if !timedOut && !interrupted { // else they are being stopped already
			warn(&o, r, fmt.Sprintf("run %s: %d process(es) outlived the command and were killed", rec.RunID, n))
		}
		t.signal(syscall.SIGKILL)
		for i := 0; i < 300 && t.alive() > 0; i++ {
			time.Sleep(10 * time.Millisecond)
			t.update()
		}
	}
	adopted := t.adopted

	var ws []*os.ProcessState
	for _, c := range copies {
		c.cmd.Wait() // reaps the root; its exit status is in ProcessState
		ws = append(ws, c.cmd.ProcessState)
	}
	finished = true
	waitOutput(&outWG, pr)
	rec.SpillPeakBytes, rec.SpilledBytes = spill.close()
	r.Tail = out.lastBytes()
	r.Phases = phases(out.phases, rec.RuntimeS)

	// Totals: the roots' final counters (their reaped descendants
	// included) plus what the profiler reaped itself.
	var cpuS float64
	io := adopted.io
	for i, c := range copies {
		if ru, ok := ws[i].SysUsage().(*syscall.Rusage); ok {
			// ru_maxrss is not used: Linux keeps the high-water mark across
			// exec, so it holds the profiler's own size at fork time.
			cpuS += tv(ru.Utime) + tv(ru.Stime)
		} else {
			cpuS += float64(c.final.ticks) / clockTicks
		}
		io.add(c.final.io)
	}
	cpuS += float64(adopted.ticks) / clockTicks
	rec.CPUS = cpuS
	rec.CPUWaitS = t.cpuWaitS()
	rec.ReadBytes, rec.WriteBytes = io.readBytes, io.writeBytes
	rec.ReadSyscallBytes, rec.WriteSyscallBytes = io.rchar, io.wchar
	rec.Capped = capped
	rec.CapNote = note
	for _, c := range copies {
		if c.cg != nil {
			rec.OOMKills += int32(c.cg.oomKills())
		}
	}
	rec.Outcome, rec.ExitCode = outcome(ws, timedOut, rec.OOMKills > 0)
	cfg, _ := json.Marshal(map[string]any{
		"argv": firstArgv, "interval_s": o.Interval.Seconds(), "timeout_s": o.Timeout.Seconds(),
	})
	rec.Config = string(cfg)
	if interrupted {
		return nil, ctx.Err()
	}
	if rec.Outcome != "ok" {
		warn(&o, r, fmt.Sprintf("run %s: %s (exit %d); last output:\n%s", rec.RunID, rec.Outcome, rec.ExitCode, indent(r.Tail)))
	}
	return r, nil
}

// startCopy starts cmd, in cg when it is a v1 cgroup: v1 cannot clone into
// a cgroup, so the profiler moves itself there for the fork and back.
func startCopy(cmd *exec.Cmd, cg *cgroup) error {
	if cg == nil || cg.host.version != 1 {
		return cmd.Start()
	}
	v1Start.Lock()
	defer v1Start.Unlock()
	if err := moveSelf(cg.dir); err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		moveSelf(cg.host.parent)
		return err
	}
	err := moveSelf(cg.host.parent)
	if err == nil {
		err = cg.applyLimit()
	}
	if err != nil {
		// Started but not capped as asked: it must not run on.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	}
	return err
}

// waitExit waits for a copy's root to exit without reaping it, reads its
// final counters from /proc while it is a zombie, and reports.
func waitExit(i, pid int, ch chan<- exitEvent) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			break
		}
	}
	at := time.Now()
	st, _ := newReader().stat(pid, true)
	ch <- exitEvent{i: i, final: st, at: at}
}

func waitOutput(wg *sync.WaitGroup, pr *os.File) {
	c := make(chan struct{})
	go func() { wg.Wait(); close(c) }()
	select {
	case <-c:
	case <-time.After(2 * time.Second):
		// Something outside the tree holds the pipe; stop reading it.
		pr.Close()
		<-c
	}
}

func tv(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

// outcome summarises the copies' exits; the exit code is the first
// non-zero one in copy order, negative for a signal.
func outcome(ws []*os.ProcessState, timedOut, oom bool) (string, int32) {
	kind, code := "ok", int32(0)
	for _, w := range ws {
		st, ok := w.Sys().(syscall.WaitStatus)
		if !ok {
			continue
		}
		switch {
		case st.Signaled():
			if code == 0 {
				code = -int32(st.Signal())
			}
			if kind == "ok" || kind == "failed" {
				kind = "signaled"
			}
		case st.ExitStatus() != 0:
			if code == 0 {
				code = int32(st.ExitStatus())
			}
			if kind == "ok" {
				kind = "failed"
			}
		}
	}
	switch {
	case timedOut:
		kind = "timeout"
	case oom && kind != "ok":
		kind = "oom-killed"
	}
	return kind, code
}

func phases(marks []phaseMark, endS float64) []Phase {
	var out []Phase
	for i, m := range marks {
		e := endS
		if i+1 < len(marks) {
			e = marks[i+1].offsetS
		}
		out = append(out, Phase{Name: m.name, StartS: m.offsetS, EndS: e})
	}
	return out
}

func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return "  (no output)"
	}
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}
