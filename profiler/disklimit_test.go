package profiler

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// localDiskDir is a directory on a block device for the disk limit: the
// test's temporary directory unless that is on tmpfs, else one in the
// package directory.
func localDiskDir(t *testing.T) string {
	t.Helper()
	if _, err := blockDevice(t.TempDir()); err == nil {
		return t.TempDir()
	}
	d, err := os.MkdirTemp(".", ".disklimit-")
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(d)
	t.Cleanup(func() { os.RemoveAll(abs) })
	return abs
}

// --disk-limit puts each run's copies in a cgroup that throttles the spill
// directory's disk to the rate, each way, with the memory cap still on;
// the run's config and the node's I/O capacity say so; writing 8 MiB with
// direct I/O at 4 MiB/s takes the two seconds the limit allows (at least
// one is asserted: a throttle cannot make it faster); nothing is left.
func TestDiskLimit(t *testing.T) {
	ioh, why := detectIO()
	if ioh == nil {
		t.Skipf("no cgroup block I/O controller here, so the disk limit is not tested: %s", why)
	}
	o, pids := sweepOpts(t, "directwrite")
	o.SpillDir = localDiskDir(t)
	o.IOCapacity = 0
	o.DiskLimit = 4 << 20
	o.Slots = []int{1}
	if host, _ := detectCgroups(); host != nil {
		o.Mems, o.Cap = []int64{64 << 20}, CapRequire
	}
	var out strings.Builder
	o.Output = &out
	r := one(t, o, childArgv("8388608")...)
	if r.Record.Outcome != "ok" {
		t.Fatalf("outcome %s: %s", r.Record.Outcome, r.Tail)
	}
	dev, err := blockDevice(o.SpillDir)
	if err != nil {
		t.Fatal(err)
	}
	want := dev + " 4194304"
	if ioh.version == 2 {
		want = dev + " rbps=4194304 wbps=4194304"
	}
	got := out.String()
	if !strings.Contains(got, want) || !strings.Contains(got, "limit "+cgroupPrefix+strconv.Itoa(os.Getpid())+"-") {
		t.Errorf("the child's cgroups say\n%s\nwant a %s cgroup limiting %q", got, cgroupPrefix, want)
	}
	if ioh.version == 1 && strings.Count(got, want) != 2 {
		t.Errorf("want the read and the write limit:\n%s", got)
	}
	var cfg map[string]any
	if err := json.Unmarshal([]byte(r.Record.Config), &cfg); err != nil || cfg["disk_limit_bytes_per_s"] != float64(4<<20) || cfg["disk_limit_device"] != dev {
		t.Errorf("config %s", r.Record.Config)
	}
	if o.Mems != nil && !r.Record.Capped {
		t.Errorf("not capped under the disk limit: %s", r.Record.CapNote)
	}
	if !strings.Contains(r.Record.Host, `"io_capacity_bytes_per_s":4194304,"io_capacity_source":"flag"`) {
		t.Errorf("host facts %s, want the limit as the node's I/O capacity", r.Record.Host)
	}
	if r.Record.RuntimeS < 1 {
		t.Errorf("8 MiB written at 4 MiB/s in %.2f s", r.Record.RuntimeS)
	}
	left, _ := filepath.Glob(filepath.Join(ioh.parent, cgroupPrefix+strconv.Itoa(os.Getpid())+"-*"))
	if len(left) > 0 {
		t.Errorf("cgroups left behind: %v", left)
	}
	checkClean(t, o, pids)
}

// Where the limit cannot be applied the sweep fails before any run and
// says why: a spill directory on no block device (or, on a machine without
// a block I/O controller, that).
func TestDiskLimitRefused(t *testing.T) {
	ioh, _ := detectIO()
	o, pids := sweepOpts(t, "nap")
	o.SpillDir = "/proc/self" // proc: device 0:N, not a block device
	o.DiskLimit = 1 << 20
	_, err := Sweep(context.Background(), childArgv(), o)
	if !errors.Is(err, ErrNoDiskLimit) || ioh != nil && !strings.Contains(err.Error(), "not a block device") {
		t.Errorf("err = %v, want ErrNoDiskLimit naming the device", err)
	}
	if s := survivors(t, pids); len(s) > 0 {
		t.Errorf("a run started: %v", s)
	}
}
