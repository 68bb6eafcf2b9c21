package profiler

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The cgroup path, where the machine has one the profiler can use (root
// with cgroup v1 memory, or a v2 subtree with the memory controller): a
// child over its cap is OOM-killed and says so, one under it runs capped,
// and no cgroup is left behind.
func TestMemoryCap(t *testing.T) {
	host, why := detectCgroups()
	if host == nil {
		t.Skipf("no memory cgroup available here, so the cap is not tested: %s", why)
	}
	for _, c := range []struct {
		alloc   string
		outcome string
	}{{"16777216", "ok"}, {"268435456", "oom-killed"}} {
		t.Run(c.alloc, func(t *testing.T) {
			o, pids := sweepOpts(t, "alloc")
			o.Cap = CapRequire
			o.Mems = []int64{96 << 20}
			r := one(t, o, childArgv(c.alloc)...)
			rec := r.Record
			if !rec.Capped || !strings.HasPrefix(rec.CapNote, "capped: cgroup v") {
				t.Errorf("capped=%v note %q, want a cgroup cap", rec.Capped, rec.CapNote)
			}
			if rec.Outcome != c.outcome {
				t.Errorf("outcome %s (exit %d, oom kills %d), want %s", rec.Outcome, rec.ExitCode, rec.OOMKills, c.outcome)
			}
			if c.outcome == "oom-killed" && (rec.OOMKills < 1 || rec.ExitCode != -9) {
				t.Errorf("oom_kills %d exit %d, want >= 1 and -9", rec.OOMKills, rec.ExitCode)
			}
			if c.outcome == "ok" && rec.PeakRSSBytes < 16<<20 {
				t.Errorf("peak_rss_bytes %d, want at least the 16 MiB the child touched", rec.PeakRSSBytes)
			}
			var charged int64
			for _, s := range r.Samples {
				charged = max(charged, s.CgroupBytes)
			}
			if charged == 0 || charged > 96<<20+DefaultCapOverhead { // the limit: setting + default overhead
				t.Errorf("largest cgroup charge %d, want in (0, 96 MiB + %d]", charged, DefaultCapOverhead)
			}
			left, _ := filepath.Glob(filepath.Join(host.parent, cgroupPrefix+strconv.Itoa(os.Getpid())+"-*"))
			if len(left) > 0 {
				t.Errorf("cgroups left behind: %v", left)
			}
			checkClean(t, o, pids)
		})
	}
}

// keyedValue reads the v1 memory.oom_control and v2 memory.events shapes.
func TestKeyedValue(t *testing.T) {
	v1 := "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n"
	v2 := "low 0\nhigh 0\nmax 12\noom 2\noom_kill 2\noom_group_kill 0\n"
	if keyedValue([]byte(v1), "oom_kill") != 3 || keyedValue([]byte(v2), "oom_kill") != 2 || keyedValue([]byte(v2), "nope") != 0 {
		t.Error("keyedValue misread memory.oom_control or memory.events")
	}
}

// Where no cgroup can be made (played here by replacing the detection),
// auto runs the command uncapped, records why and warns; require refuses.
func TestNoCgroupWarnsOrRefuses(t *testing.T) {
	defer func(d func() (*cgroupHost, string)) { detect = d }(detect)
	detect = func() (*cgroupHost, string) { return nil, "cgroup v1: no memory controller; cgroup v2: not mounted" }
	o, pids := sweepOpts(t, "alloc")
	o.Mems = []int64{64 << 20}
	o.Cap = CapAuto
	var warned []string
	o.Warn = func(s string) { warned = append(warned, s) }
	r := one(t, o, childArgv("1048576")...)
	if r.Record.Capped || r.Record.CapNote != "not capped: cgroup v1: no memory controller; cgroup v2: not mounted" || r.Record.Outcome != "ok" {
		t.Errorf("capped %v, note %q, outcome %s", r.Record.Capped, r.Record.CapNote, r.Record.Outcome)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "not capped") {
		t.Errorf("warnings %q, want one saying memory is not capped", warned)
	}
	o.Cap = CapRequire
	if _, err := Sweep(context.Background(), childArgv("1"), o); !errors.Is(err, ErrNoCap) {
		t.Errorf("require without cgroups: err = %v, want ErrNoCap", err)
	}
	checkClean(t, o, pids)
}

// Under a cap the tree is read from the cgroups alone (no /proc scan):
// a forking child's whole tree is still found and its CPU counted.
func TestForkingChildUnderCap(t *testing.T) {
	if host, why := detectCgroups(); host == nil {
		t.Skipf("no memory cgroup available here: %s", why)
	}
	o, pids := sweepOpts(t, "fork")
	o.Mems = []int64{256 << 20}
	o.Cap = CapRequire
	t0 := time.Now()
	r := one(t, o, childArgv("400ms")...)
	t.Logf("runtime %.2f s, sweep %.2f s, warnings %q, samples %d", r.Record.RuntimeS, time.Since(t0).Seconds(), r.Warnings, len(r.Samples))
	if r.Record.Outcome != "ok" || !r.Record.Capped {
		t.Fatalf("outcome %s capped %v", r.Record.Outcome, r.Record.Capped)
	}
	if r.Record.CPUS < 1.0 || r.Record.CPUS > 1.7 {
		t.Errorf("cpu_s = %.2f, want about 1.2", r.Record.CPUS)
	}
	maxProcs := int32(0)
	for _, s := range r.Samples {
		maxProcs = max(maxProcs, s.Procs)
	}
	if maxProcs < 4 {
		t.Errorf("at most %d processes seen at once, want 4", maxProcs)
	}
	checkClean(t, o, pids)
}
