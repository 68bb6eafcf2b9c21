package profiler

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// cgroupHost is where the profiler may create memory cgroups: a child of
// the cgroup it runs in, so the limits above it keep holding and nothing
// outside its own subtree is touched.
type cgroupHost struct {
	version int    // 1 or 2
	parent  string // directory new cgroups are made in
}

// detectCgroups finds a memory cgroup hierarchy the profiler can create
// children in, or says why there is none.
func detectCgroups() (*cgroupHost, string) {
	if os.Geteuid() != 0 {
		// Delegated v2 subtrees also work for other users; try them first.
		if h, why := detectV2(); h != nil {
			return h, ""
		} else {
			return nil, "not root and " + why
		}
	}
	if h, why1 := detectV1(); h != nil {
		return h, ""
	} else if h, why2 := detectV2(); h != nil {
		return h, ""
	} else {
		return nil, why1 + "; " + why2
	}
}

// ownCgroups reads /proc/self/cgroup: controller list → path.
func ownCgroups() (map[string]string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[1] == "" {
			out[""] = parts[2] // v2
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			out[c] = parts[2]
		}
	}
	return out, nil
}

// mountPoint finds the mount of a cgroup file system: fstype "cgroup" with
// the super option opt (v1), or "cgroup2".
func mountPoint(fstype, opt string) string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent maj:min root mountpoint opts [optional...] - fstype source superopts
		fields := strings.Fields(sc.Text())
		dash := -1
		for i, x := range fields {
			if x == "-" {
				dash = i
				break
			}
		}
		if dash < 0 || len(fields) < dash+4 {
			continue
		}
		if fields[dash+1] != fstype {
			continue
		}
		if opt == "" || hasOpt(fields[dash+3], opt) {
			return fields[4]
		}
	}
	return ""
}

func hasOpt(opts, opt string) bool {
	for _, o := range strings.Split(opts, ",") {
		if o == opt {
			return true
		}
	}
	return false
}

func detectV1() (*cgroupHost, string) {
	own, err := ownCgroups()
	if err != nil {
		return nil, "cgroup v1: " + err.Error()
	}
	path, ok := own["memory"]
	if !ok {
		return nil, "cgroup v1: no memory controller"
	}
	mnt := mountPoint("cgroup", "memory")
	if mnt == "" {
		return nil, "cgroup v1: memory controller not mounted"
	}
	parent := filepath.Join(mnt, path)
	if _, err := os.Stat(filepath.Join(parent, "memory.limit_in_bytes")); err != nil {
		return nil, "cgroup v1: " + err.Error()
	}
	return &cgroupHost{version: 1, parent: parent}, ""
}

func detectV2() (*cgroupHost, string) {
	own, err := ownCgroups()
	if err != nil {
		return nil, "cgroup v2: " + err.Error()
	}
	path, ok := own[""]
	if !ok {
		return nil, "cgroup v2: not in a v2 hierarchy"
	}
	mnt := mountPoint("cgroup2", "")
	if mnt == "" {
		return nil, "cgroup v2: not mounted"
	}
	parent := filepath.Join(mnt, path)
	ctl, err := os.ReadFile(filepath.Join(parent, "cgroup.controllers"))
	if err != nil {
		return nil, "cgroup v2: " + err.Error()
	}
	if !hasWord(string(ctl), "memory") {
		return nil, fmt.Sprintf("cgroup v2: memory controller not available in %s", parent)
	}
	sub, _ := os.ReadFile(filepath.Join(parent, "cgroup.subtree_control"))
	if !hasWord(string(sub), "memory") {
		// Fails with EBUSY when this cgroup holds processes (the "no
		// internal processes" rule): run wlprof in a delegated leaf then.
		if err := os.WriteFile(filepath.Join(parent, "cgroup.subtree_control"), []byte("+memory"), 0); err != nil {
			return nil, fmt.Sprintf("cgroup v2: cannot enable the memory controller below %s (%v); run wlprof inside a delegated cgroup, e.g. systemd-run --scope -p Delegate=yes", parent, err)
		}
	}
	return &cgroupHost{version: 2, parent: parent}, ""
}

func hasWord(s, w string) bool {
	for _, f := range strings.Fields(s) {
		if f == w {
			return true
		}
	}
	return false
}

var cgroupSeq struct {
	sync.Mutex
	n int
}

// cgroup is one memory cgroup made for one copy of one run.
type cgroup struct {
	host  *cgroupHost
	dir   string
	fd    int // v2: directory fd for clone into the cgroup; -1 otherwise
	limit int64
}

// applyLimit sets a v1 cgroup's limit after the command was placed in it.
// The kernel refuses (EBUSY) a limit below what it cannot reclaim; the
// command has then already used more than its setting within moments of
// starting, and the run fails rather than run uncapped.
func (c *cgroup) applyLimit() error {
	lim := strconv.FormatInt(c.limit, 10)
	var err error
	for i := 0; i < 20; i++ {
		if err = c.write("memory.limit_in_bytes", lim); err == nil {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err != nil {
		return fmt.Errorf("setting memory.limit_in_bytes to %s: %w", lim, err)
	}
	// Without swap accounting this file is missing; no swap then.
	if c.exists("memory.memsw.limit_in_bytes") {
		return c.write("memory.memsw.limit_in_bytes", lim)
	}
	return nil
}

const cgroupPrefix = "wlprof-"

// mkdir creates a new cgroup directory below h.parent, named for this
// profiler (removeStale finds it by the pid once the profiler is gone).
func (h *cgroupHost) mkdir() (string, error) {
	cgroupSeq.Lock()
	cgroupSeq.n++
	name := fmt.Sprintf("%s%d-%d", cgroupPrefix, os.Getpid(), cgroupSeq.n)
	cgroupSeq.Unlock()
	dir := filepath.Join(h.parent, name)
	return dir, os.Mkdir(dir, 0o755)
}

// newCgroup creates a cgroup to be capped at limit bytes (v2 at once, v1
// by applyLimit).
func (h *cgroupHost) newCgroup(limit int64) (*cgroup, error) {
	dir, err := h.mkdir()
	if err != nil {
		return nil, err
	}
	cg := &cgroup{host: h, dir: dir, fd: -1, limit: limit}
	if h.version == 1 {
		// The limit is set by applyLimit once the command is in: v1 places
		// it by moving the profiler itself in for the fork, and the profiler
		// must never sit in a cgroup small enough for the OOM killer to
		// pick it over the command.
		return cg, nil
	}
	err = cg.write("memory.max", strconv.FormatInt(limit, 10))
	if err == nil && cg.exists("memory.swap.max") {
		err = cg.write("memory.swap.max", "0")
	}
	if err == nil {
		cg.fd, err = syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	}
	if err != nil {
		cg.remove()
		return nil, err
	}
	return cg, nil
}

func (c *cgroup) exists(name string) bool {
	_, err := os.Stat(filepath.Join(c.dir, name))
	return err == nil
}

func (c *cgroup) write(name, v string) error {
	return os.WriteFile(filepath.Join(c.dir, name), []byte(v), 0)
}

func (c *cgroup) readInt(name string) int64 {
	b, err := os.ReadFile(filepath.Join(c.dir, name))
	if err != nil {
		return 0
	}
	return atoi(bytes.TrimSpace(b))
}

// keyed reads one key of a "key value" file such as memory.events.
func (c *cgroup) keyed(name, key string) int64 {
	b, err := os.ReadFile(filepath.Join(c.dir, name))
	if err != nil {
		return 0
	}
	return keyedValue(b, key)
}

func keyedValue(b []byte, key string) int64 {
	for _, line := range bytes.Split(b, []byte("\n")) {
		f := bytes.Fields(line)
		if len(f) == 2 && string(f[0]) == key {
			return atoi(f[1])
		}
	}
	return 0
}

// usage is the memory charged to the cgroup now (page cache included).
func (c *cgroup) usage() int64 {
	if c.host.version == 1 {
		return c.readInt("memory.usage_in_bytes")
	}
	return c.readInt("memory.current")
}

// oomKills is how many processes the kernel's OOM killer ended in the cgroup.
func (c *cgroup) oomKills() int64 {
	if c.host.version == 1 {
		return c.keyed("memory.oom_control", "oom_kill")
	}
	return c.keyed("memory.events", "oom_kill")
}

// procs lists the processes in the cgroup.
func (c *cgroup) procs(dst []int) []int {
	b, err := os.ReadFile(filepath.Join(c.dir, "cgroup.procs"))
	if err != nil {
		return dst
	}
	for _, f := range bytes.Fields(b) {
		dst = append(dst, int(atoi(f)))
	}
	return dst
}

// kill sends SIGKILL to every process in the cgroup.
func (c *cgroup) kill() {
	if c.host.version == 2 && c.exists("cgroup.kill") {
		if c.write("cgroup.kill", "1") == nil {
			return
		}
	}
	for _, p := range c.procs(nil) {
		syscall.Kill(p, syscall.SIGKILL)
	}
}

// remove kills what is left in the cgroup and removes it. A cgroup can only
// be removed once empty, which takes the kernel a moment after the kill.
func (c *cgroup) remove() error {
	if c.fd >= 0 {
		syscall.Close(c.fd)
		c.fd = -1
	}
	// Child cgroups first: a v2 run's I/O cgroup holds its copies'
	// memory cgroups (disklimit.go).
	if ents, err := os.ReadDir(c.dir); err == nil {
		for _, e := range ents {
			if e.IsDir() {
				(&cgroup{host: c.host, dir: filepath.Join(c.dir, e.Name()), fd: -1}).remove()
			}
		}
	}
	var err error
	for i := 0; i < 200; i++ {
		if err = os.Remove(c.dir); err == nil || errors.Is(err, os.ErrNotExist) {
			return nil
		}
		c.kill()
		time.Sleep(10 * time.Millisecond)
	}
	return fmt.Errorf("removing cgroup %s: %w", c.dir, err)
}

// moveSelf moves the profiler's own process into dir's cgroup (v1 has no
// clone-into-cgroup: a child is placed by forking while the parent is in
// the cgroup, still without a limit, then the parent moves back and the
// limit is set).
func moveSelf(dir string) error {
	return os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(os.Getpid())), 0)
}

// v1Start serialises the move-fork-move dance of v1.
var v1Start sync.Mutex

// removeStale removes cgroups left by profilers that were killed (their
// pid, in the name, is gone), so a SIGKILLed run leaves no stray cgroup
// after the next one.
func (h *cgroupHost) removeStale() {
	ents, err := os.ReadDir(h.parent)
	if err != nil {
		return
	}
	for _, e := range ents {
		name := e.Name()
		if !e.IsDir() || !strings.HasPrefix(name, cgroupPrefix) {
			continue
		}
		pidStr, _, ok := strings.Cut(strings.TrimPrefix(name, cgroupPrefix), "-")
		pid, err := strconv.Atoi(pidStr)
		if !ok || err != nil || pid == os.Getpid() {
			continue
		}
		if syscall.Kill(pid, 0) == nil {
			continue // its profiler is still running
		}
		(&cgroup{host: h, dir: filepath.Join(h.parent, name), fd: -1}).remove()
	}
}
