package profiler

import (
	"bytes"
	"os"
	"slices"
	"syscall"
)

// tree follows the whole process tree of one run (every copy) from /proc.
//
// A process belongs to the run when it is a copy's root, when its parent
// or process group belongs, when it sits in one of the run's cgroups, or
// when its parent is the profiler itself: the profiler is a child
// subreaper during a sweep, so processes orphaned by the command (daemons,
// double forks) are re-parented to it rather than to init and stay found.
// Membership is sticky, so a process that calls setsid stays a member.
//
// CPU time and I/O counters of /proc/PID/stat and /proc/PID/io include the
// process's reaped children. Summing them over the live (and zombie)
// members therefore counts every process of the tree exactly once: a
// process reaped inside the tree has moved into its reaper's counters, and
// one re-parented to the profiler is read as a zombie and reaped here,
// its final counters kept in adopted.
type tree struct {
	r       *reader
	self    int
	roots   map[int]bool
	pgids   map[int]bool
	cgs     []*cgroup
	members map[int]*member
	others  map[int]uint32 // non-members, with the tick they were last seen
	tick    uint32
	adopted ioTotals // final counters of processes the profiler reaped
	pids    []int
	cgOnly  bool // every copy has a cgroup: membership is read from them
	// waitNs is each root's main thread's schedstat run_delay when last
	// read: the time it was runnable but waiting for a CPU, read to the
	// end (a zombie's main thread is still readable). Only main threads:
	// a helper thread that wakes often (a runtime's monitor) waits in the
	// run queue without delaying the work, so a sum over all threads
	// would count time the task did not lose.
	waitNs map[int]int64
}

type member struct {
	st   procStat
	seen uint32
}

// ioTotals is a point of the tree's cumulative counters and levels.
type ioTotals struct {
	ticks   int64
	io      ioCounters
	rss     int64
	threads int32
	procs   int32
}

func newTree() *tree {
	return &tree{r: newReader(), self: os.Getpid(), roots: map[int]bool{}, pgids: map[int]bool{},
		members: map[int]*member{}, others: map[int]uint32{}, waitNs: map[int]int64{}}
}

// readWait reads the run_delay of pid's main thread.
func (t *tree) readWait(pid int) {
	b, ok := t.r.read(pid, "schedstat")
	if !ok {
		return
	}
	// "on-CPU ns, run_delay ns, timeslices"
	fs := bytes.Fields(b)
	if len(fs) < 2 {
		return
	}
	if v := atoi(fs[1]); v > t.waitNs[pid] {
		t.waitNs[pid] = v
	}
}

// cpuWaitS is the roots' main threads' CPU wait so far, in seconds.
func (t *tree) cpuWaitS() float64 {
	var s int64
	for _, v := range t.waitNs {
		s += v
	}
	return float64(s) / 1e9
}

func (t *tree) addRoot(pid int) {
	t.roots[pid] = true
	t.pgids[pid] = true // roots lead their own process group (Setpgid)
}

// update rereads the tree and returns its totals. It reaps members that
// were re-parented to the profiler and have exited.
func (t *tree) update() ioTotals {
	t.tick++
	inCgroup := map[int]bool{}
	if t.cgOnly {
		// Every copy is in a cgroup of its own, and a cgroup holds all
		// descendants, escapers included: no need to scan /proc.
		t.pids = t.pids[:0]
		for _, cg := range t.cgs {
			t.pids = cg.procs(t.pids)
		}
		for pid := range t.members {
			t.pids = append(t.pids, pid) // zombies leave cgroup.procs
		}
		slices.Sort(t.pids)
		t.pids = slices.Compact(t.pids)
		for _, p := range t.pids {
			inCgroup[p] = true
		}
	} else {
		var err error
		if t.pids, err = t.r.listPids(t.pids[:0]); err != nil {
			return t.totals()
		}
		for _, cg := range t.cgs {
			for _, p := range cg.procs(nil) {
				inCgroup[p] = true
			}
		}
	}
	// Unknown processes are classified in passes, so a child and its own
	// child born in the same tick are both found whatever their pid order.
	var pending []int
	for _, pid := range t.pids {
		if m, ok := t.members[pid]; ok {
			if m.seen == t.tick {
				continue
			}
			if st, ok := t.r.stat(pid, true); ok {
				if !st.ioOK {
					st.io = m.st.io
				}
				m.st = st
				m.seen = t.tick
			}
			continue
		}
		if _, ok := t.others[pid]; ok {
			t.others[pid] = t.tick
			continue
		}
		pending = append(pending, pid)
	}
	for changed := true; changed && len(pending) > 0; {
		changed = false
		rest := pending[:0]
		for _, pid := range pending {
			st, ok := t.r.stat(pid, false)
			if !ok {
				continue // gone
			}
			if t.roots[pid] || inCgroup[pid] || t.pgids[st.pgid] || st.ppid == t.self && pid != t.self || t.members[st.ppid] != nil {
				if b, ok := t.r.read(pid, "io"); ok {
					st.io, st.ioOK = parseIO(b)
				}
				t.members[pid] = &member{st: st, seen: t.tick}
				changed = true
				continue
			}
			rest = append(rest, pid)
		}
		pending = rest
	}
	for _, pid := range pending {
		t.others[pid] = t.tick
	}
	for pid, m := range t.members {
		if m.seen != t.tick {
			delete(t.members, pid) // reaped by its parent, inside the tree
			continue
		}
		if t.roots[pid] {
			t.readWait(pid)
		}
		if m.st.state == 'Z' && m.st.ppid == t.self && !t.roots[pid] {
			t.reap(pid, m)
		}
	}
	for pid, seen := range t.others {
		if seen != t.tick {
			delete(t.others, pid)
		}
	}
	return t.totals()
}

// reap collects an adopted zombie: its final counters, then its exit.
func (t *tree) reap(pid int, m *member) {
	if st, ok := t.r.stat(pid, true); ok {
		if !st.ioOK {
			st.io = m.st.io
		}
		m.st = st
	}
	var ws syscall.WaitStatus
	if p, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil); p != pid || err != nil {
		return
	}
	t.adopted.ticks += m.st.ticks
	t.adopted.io.add(m.st.io)
	delete(t.members, pid)
}

func (t *tree) totals() ioTotals {
	s := ioTotals{ticks: t.adopted.ticks, io: t.adopted.io}
	for _, m := range t.members {
		s.ticks += m.st.ticks
		s.io.add(m.st.io)
		s.rss += m.st.rss
		s.threads += m.st.threads
		if m.st.state != 'Z' {
			s.procs++
		}
	}
	return s
}

// alive counts members that are not zombie roots: what is left to stop.
func (t *tree) alive() int {
	n := 0
	for pid, m := range t.members {
		if t.roots[pid] && m.st.state == 'Z' {
			continue
		}
		n++
	}
	return n
}

// signal sends sig to every process group, member and cgroup of the run.
func (t *tree) signal(sig syscall.Signal) {
	for pg := range t.pgids {
		syscall.Kill(-pg, sig)
	}
	for pid := range t.members {
		syscall.Kill(pid, sig)
	}
	for _, cg := range t.cgs {
		if sig == syscall.SIGKILL {
			cg.kill()
			continue
		}
		for _, p := range cg.procs(nil) {
			syscall.Kill(p, sig)
		}
	}
}
