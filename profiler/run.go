package profiler

import (
	"context"
	"encoding/json"
	"errors"
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
// one tree, and stops and cleans up whatever happens. Its steps are
// liveRun's methods: startCopies, then watch (sampling until every copy
// exits or is stopped), stopLeftovers, reap, and totals.
func runOne(ctx context.Context, argv []string, o Options, s setting, rep int,
	host *cgroupHost, capNote string, facts string, disk *diskLimit) (*Run, error) {
	memLabel := "nomem"
	if s.mem > 0 {
		memLabel = bytesize.Format(s.mem)
	}
	lr := &liveRun{o: &o, s: s, rep: rep, memLabel: memLabel, r: &Run{}}
	spillRoot, err := makeSpillRoot(o.SpillDir)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(spillRoot)

	lr.t = newTree()
	lr.copies = make([]*copyProc, s.slots)
	defer lr.cleanup()

	lr.capped, lr.note = capping(host, s.mem, o.overhead(), capNote)
	if disk != nil {
		nest := lr.capped && host.version == 2 && disk.host.version == 2
		if lr.io, err = disk.host.newIOGroup(disk.dev, disk.rate, nest); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrNoDiskLimit, err)
		}
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
	lr.start = time.Now()
	lr.out = newOutput(o.PhaseRegex, o.Output, lr.start)
	lr.marks, lr.watched = make(chan markSample), make(chan struct{})
	defer lr.endMarks() // also when the copies do not start: the reader must not wait
	lr.out.onMark = lr.markSample
	var outWG sync.WaitGroup
	outWG.Add(1)
	go lr.out.read(pr, &outWG)

	firstArgv, err := lr.startCopies(argv, spillRoot, host, pw)
	pw.Close() // the copies hold the write end now
	if err != nil {
		return nil, err
	}
	lr.t.cgOnly = len(lr.t.cgs) == len(lr.copies)
	lr.spill = newSpillWatch(spillRoot)

	exits := make(chan exitEvent, len(lr.copies))
	for i, c := range lr.copies {
		go waitExit(i, c.pid, exits)
	}

	lr.identify(facts)
	r, rec := lr.r, &lr.r.Record

	lr.sample()
	end, timedOut, interrupted := lr.watch(ctx, exits)
	lr.sample()
	rec.RuntimeS = end.Sub(lr.start).Seconds()

	lr.stopLeftovers(timedOut || interrupted)
	adopted := lr.t.adopted
	ws := lr.reap()
	waitOutput(&outWG, pr)
	rec.SpillPeakBytes, rec.SpilledBytes = lr.spill.close()
	r.Tail = lr.out.lastBytes()
	r.Phases = phases(lr.out.phases, rec.RuntimeS)

	lr.totals(ws, adopted)
	rec.Outcome, rec.ExitCode = outcome(ws, timedOut, rec.OOMKills > 0)
	cfg := map[string]any{"argv": firstArgv, "interval_s": o.Interval.Seconds(), "timeout_s": o.Timeout.Seconds()}
	if lr.capped {
		cfg["cap_limit_bytes"], cfg["cap_overhead_bytes"] = s.mem+o.overhead(), o.overhead()
	}
	if lr.io != nil {
		cfg["disk_limit_bytes_per_s"], cfg["disk_limit_device"] = lr.io.limit, disk.dev
	}
	if !lr.storageIO {
		// Zeros the node could not measure are not data: the sweep table
		// prints "-" (StorageIOMeasured).
		cfg["storage_io_measured"] = false
	}
	cfgJSON, _ := json.Marshal(cfg)
	rec.Config = string(cfgJSON)
	if interrupted {
		return nil, ctx.Err()
	}
	switch {
	case rec.Outcome == "oom-killed":
		warn(&o, r, fmt.Sprintf("run %s: OOM-killed by the memory cap, %s; the command needs more than its setting plus the overhead: "+
			"raise --cap-overhead (or the setting); exit %d; last output:\n%s", rec.RunID, strings.TrimPrefix(lr.note, "capped: "), rec.ExitCode, indent(r.Tail)))
	case rec.Outcome != "ok":
		warn(&o, r, fmt.Sprintf("run %s: %s (exit %d); last output:\n%s", rec.RunID, rec.Outcome, rec.ExitCode, indent(r.Tail)))
	}
	return r, nil
}

// liveRun is one repetition while it runs: the state runOne's steps share.
type liveRun struct {
	o        *Options
	s        setting
	rep      int
	memLabel string // the memory as run ids and {run} name it
	r        *Run

	t         *tree
	copies    []*copyProc
	capped    bool   // every copy is in a cgroup with the memory limit
	storageIO bool   // the tree's /proc/PID/io had storage counters (read_bytes, write_bytes)
	note      string // why or how the run is capped, for the record
	start     time.Time
	out       *output
	spill     *spillWatch
	prev      dataset.ProfSample // the last sample: counters never go back

	// marks carries the output reader's requests for a sample at a phase
	// mark to watch, which owns the tree; watched is closed when watch
	// returns, after which marks are only recorded.
	io *ioGroup // the run's disk limit (Options.DiskLimit), or nil

	marks    chan markSample
	watched  chan struct{}
	endWatch sync.Once

	finished bool // every copy was reaped: nothing is left to kill
}

// capping says whether a run at memory mem is capped (a cgroup host and a
// memory setting) and the note the record keeps: the limit written, or
// capNote, why there is none.
func capping(host *cgroupHost, mem, overhead int64, capNote string) (bool, string) {
	if host == nil || mem <= 0 {
		return false, capNote
	}
	how := fmt.Sprintf("setting %s + overhead %s", bytesize.Format(mem), bytesize.Format(overhead))
	if overhead == 0 {
		how = fmt.Sprintf("setting %s, no overhead", bytesize.Format(mem))
	}
	return true, fmt.Sprintf("capped: cgroup v%d %s = %s per copy (%s)", host.version,
		map[int]string{1: "memory.limit_in_bytes", 2: "memory.max"}[host.version], bytesize.Format(mem+overhead), how)
}

// identify fills in what the record says the run is: the task, the
// setting, when it started and on what host (facts).
func (lr *liveRun) identify(facts string) {
	o, s, rec := lr.o, lr.s, &lr.r.Record
	rec.Job, rec.Task, rec.Framework = o.Job, o.Task, "sandbox"
	rec.MemoryBytes, rec.Slots, rec.Repetition = s.mem, int32(s.slots), int32(lr.rep)
	rec.InputBytes = o.InputBytes
	rec.StartMs = lr.start.UnixMilli()
	rec.RunID = fmt.Sprintf("%d-%s-s%d-r%d", rec.StartMs, lr.memLabel, s.slots, lr.rep)
	rec.Host = facts
	rec.Source = "profile run"
}

// makeSpillRoot creates the run's spill directory under dir, by the path
// the kernel names it with, so that the walk and fanotify agree.
func makeSpillRoot(dir string) (string, error) {
	root, err := os.MkdirTemp(dir, "wlprof-spill-")
	if err != nil {
		return "", fmt.Errorf("profiler: spill directory: %w", err)
	}
	if p, err := filepath.EvalSymlinks(root); err == nil {
		if p, err = filepath.Abs(p); err == nil {
			root = p
		}
	}
	return root, nil
}

// cleanup makes sure nothing of the run survives it, whatever happened:
// it kills and waits for the copies unless they were reaped, and removes
// their cgroups.
func (lr *liveRun) cleanup() {
	if !lr.finished {
		lr.t.signal(syscall.SIGKILL)
		for _, c := range lr.copies {
			if c != nil && c.cmd != nil {
				c.cmd.Wait()
			}
		}
	}
	for _, c := range lr.copies {
		if c != nil && c.cg != nil {
			if err := c.cg.remove(); err != nil {
				warn(lr.o, lr.r, err.Error())
			}
		}
	}
	if lr.io != nil {
		if err := lr.io.remove(); err != nil {
			warn(lr.o, lr.r, err.Error())
		}
	}
}

// startCopies starts the slots copies of argv, each with its own spill
// directory under spillRoot, its placeholders and WLPROF_* environment,
// and its cgroup when the run is capped, writing to pw. A cgroup that
// cannot be created fails the run under CapRequire, else leaves the run
// uncapped with a warning. It returns the first copy's arguments, which
// the record keeps.
func (lr *liveRun) startCopies(argv []string, spillRoot string, host *cgroupHost, pw *os.File) ([]string, error) {
	o, s := lr.o, lr.s
	var firstArgv []string
	for i := range lr.copies {
		dir := filepath.Join(spillRoot, fmt.Sprintf("c%d", i+1))
		if err := os.Mkdir(dir, 0o755); err != nil {
			return nil, err
		}
		v := vars{mem: s.mem, slots: s.slots, input: o.Input, spillDir: dir, run: fmt.Sprintf("%s-s%d-r%d-c%d", lr.memLabel, s.slots, lr.rep, i+1), copy: i + 1}
		args, err := v.argv(argv)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			firstArgv = args
		}
		c := &copyProc{}
		lr.copies[i] = c
		if lr.capped {
			mh := host
			if lr.io != nil && lr.io.host.version == 2 && host.version == 2 {
				mh = &cgroupHost{version: 2, parent: lr.io.dir} // below the run's io.max
			}
			if c.cg, err = mh.newCgroup(s.mem + o.overhead()); err != nil {
				if o.Cap == CapRequire {
					return nil, fmt.Errorf("%w: %v", ErrNoCap, err)
				}
				lr.capped = false
				lr.note = "not capped: creating the cgroup failed: " + err.Error()
				warn(o, lr.r, lr.note)
			} else {
				lr.t.cgs = append(lr.t.cgs, c.cg)
			}
		}
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Env = append(append([]string(nil), o.Env...), v.env()...)
		cmd.Dir = o.Dir
		cmd.Stdout, cmd.Stderr = pw, pw
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		switch {
		case c.cg != nil && c.cg.host.version == 2:
			cmd.SysProcAttr.UseCgroupFD = true
			cmd.SysProcAttr.CgroupFD = c.cg.fd
		case lr.io != nil && lr.io.host.version == 2:
			// v2 io beside v1 memory (a hybrid host), or no memory cgroup.
			cmd.SysProcAttr.UseCgroupFD = true
			cmd.SysProcAttr.CgroupFD = lr.io.fd
		}
		if err := startCopy(cmd, c.cg, lr.io); err != nil {
			return nil, fmt.Errorf("profiler: starting %s: %w", args[0], err)
		}
		c.cmd, c.pid = cmd, cmd.Process.Pid
		lr.t.addRoot(c.pid)
	}
	return firstArgv, nil
}

// markSample asks watch for a sample labelled with a phase that has just
// started.
type markSample struct {
	phase string
	done  chan struct{}
}

// markSample is the output reader's onMark: it waits until watch has
// taken a sample labelled with the new phase, so the counters at the
// phase's start are read at its mark (within the moment it takes to read
// the line and /proc), not at the next tick, which may be up to Interval
// later. Phases come from marks, and what the tree does after a mark
// counts in the new phase. The reader reads the next line only after
// this, so every mark gets its own sample, and the command, if it writes
// more output meanwhile, waits for the pipe at worst that long.
func (lr *liveRun) markSample(phase string) {
	req := markSample{phase, make(chan struct{})}
	select {
	case lr.marks <- req:
		<-req.done
	case <-lr.watched:
	}
}

// endMarks stops taking samples at marks (watch has returned).
func (lr *liveRun) endMarks() { lr.endWatch.Do(func() { close(lr.watched) }) }

// sample reads the tree once and appends a sample to the run, labelled
// with the current phase.
func (lr *liveRun) sample() { lr.sampleAs(lr.out.current()) }

// sampleAs reads the tree once and appends a sample labelled phase.
func (lr *liveRun) sampleAs(phase string) {
	o, rec := lr.o, &lr.r.Record
	tot := lr.t.update()
	sp := dataset.ProfSample{
		Job: o.Job, Run: rec.RunID, OffsetS: time.Since(lr.start).Seconds(),
		CPUS:      float64(tot.ticks) / clockTicks,
		RSSBytes:  tot.rss,
		ReadBytes: tot.io.readBytes, WriteBytes: tot.io.writeBytes,
		Threads: tot.threads, Procs: tot.procs,
		SpillBytes: lr.spill.sample(),
		Phase:      phase,
	}
	for _, c := range lr.copies {
		if c.cg != nil {
			sp.CgroupBytes += c.cg.usage()
		}
	}
	// Counters are monotone; a reap between two file reads can make
	// one sample see a child twice or not at all for an instant.
	sp.CPUS = max(sp.CPUS, lr.prev.CPUS)
	sp.ReadBytes = max(sp.ReadBytes, lr.prev.ReadBytes)
	sp.WriteBytes = max(sp.WriteBytes, lr.prev.WriteBytes)
	lr.prev = sp
	lr.r.Samples = append(lr.r.Samples, sp)
	rec.PeakRSSBytes = max(rec.PeakRSSBytes, sp.RSSBytes)
	rec.PeakThreads = max(rec.PeakThreads, sp.Threads)
}

// watch samples every Interval until every copy has exited, and returns
// when the last one did. On Timeout or ctx's end it stops the tree with
// SIGTERM, then SIGKILL after Grace, and says which of the two happened.
func (lr *liveRun) watch(ctx context.Context, exits <-chan exitEvent) (end time.Time, timedOut, interrupted bool) {
	o := lr.o
	ticker := time.NewTicker(o.Interval)
	defer ticker.Stop()
	var timeout <-chan time.Time
	if o.Timeout > 0 {
		tm := time.NewTimer(o.Timeout)
		defer tm.Stop()
		timeout = tm.C
	}
	var kill <-chan time.Time
	stop := func() {
		lr.t.signal(syscall.SIGTERM)
		km := time.NewTimer(o.Grace)
		kill = km.C
	}
	defer lr.endMarks()
	done := ctx.Done()
	pending := len(lr.copies)
	for pending > 0 {
		select {
		case <-ticker.C:
			lr.sample()
		case m := <-lr.marks:
			lr.sampleAs(m.phase)
			close(m.done)
		case ev := <-exits:
			lr.copies[ev.i].final, lr.copies[ev.i].endAt = ev.final, ev.at
			end = ev.at
			pending--
		case <-timeout:
			timedOut = true
			timeout = nil
			warn(o, lr.r, fmt.Sprintf("run %s timed out after %v: stopping its process tree", lr.r.Record.RunID, o.Timeout))
			stop()
		case <-done:
			interrupted = true
			done = nil
			if kill == nil {
				stop()
			}
		case <-kill:
			kill = nil
			lr.t.signal(syscall.SIGKILL)
		}
	}
	return end, timedOut, interrupted
}

// stopLeftovers kills the processes the copies left behind, which are
// part of the run, and waits up to 3 s for them to go. It warns unless
// they are being stopped already (a timeout or an interrupt).
func (lr *liveRun) stopLeftovers(stopping bool) {
	t := lr.t
	t.update()
	if n := t.alive(); n > 0 {
		if !stopping {
			warn(lr.o, lr.r, fmt.Sprintf("run %s: %d process(es) outlived the command and were killed", lr.r.Record.RunID, n))
		}
		t.signal(syscall.SIGKILL)
		for i := 0; i < 300 && t.alive() > 0; i++ {
			time.Sleep(10 * time.Millisecond)
			t.update()
		}
	}
}

// reap waits for every copy's root and returns their exit states.
func (lr *liveRun) reap() []*os.ProcessState {
	var ws []*os.ProcessState
	for _, c := range lr.copies {
		c.cmd.Wait() // reaps the root; its exit status is in ProcessState
		ws = append(ws, c.cmd.ProcessState)
	}
	lr.finished = true
	return ws
}

// totals fills in what the run used: the roots' final counters (their
// reaped descendants included) plus what the profiler reaped itself
// (adopted), and the cap and its OOM kills.
func (lr *liveRun) totals(ws []*os.ProcessState, adopted ioTotals) {
	rec := &lr.r.Record
	var cpuS float64
	io := adopted.io
	for i, c := range lr.copies {
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
	rec.CPUWaitS = lr.t.cpuWaitS()
	rec.ReadBytes, rec.WriteBytes = io.readBytes, io.writeBytes
	lr.storageIO = io.storage
	rec.ReadSyscallBytes, rec.WriteSyscallBytes = io.rchar, io.wchar
	rec.Capped = lr.capped
	rec.CapNote = lr.note
	for _, c := range lr.copies {
		if c.cg != nil {
			rec.OOMKills += int32(c.cg.oomKills())
		}
	}
}

// startCopy starts cmd, in cg and io when they are v1 cgroups: v1 cannot
// clone into a cgroup, so the profiler moves itself there for the fork and
// back.
func startCopy(cmd *exec.Cmd, cg *cgroup, io *ioGroup) error {
	var v1 []*cgroup
	if cg != nil && cg.host.version == 1 {
		v1 = append(v1, cg)
	}
	if io != nil && io.host.version == 1 {
		v1 = append(v1, &io.cgroup)
	}
	if len(v1) == 0 {
		return cmd.Start()
	}
	v1Start.Lock()
	defer v1Start.Unlock()
	back := func() error {
		var err error
		for _, g := range v1 {
			err = errors.Join(err, moveSelf(g.host.parent))
		}
		return err
	}
	for _, g := range v1 {
		if err := moveSelf(g.dir); err != nil {
			back()
			return err
		}
	}
	if err := cmd.Start(); err != nil {
		back()
		return err
	}
	err := back()
	if err == nil && cg != nil && cg.host.version == 1 {
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
