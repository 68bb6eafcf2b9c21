package profiler

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/wlprof/wlprof/internal/bytesize"
)

// A disk limit (Options.DiskLimit, --disk-limit) throttles what every run
// reads from and writes to the block device under SpillDir to a rate in
// bytes per second, each way: the disk of the node the profile is for.
// Iorgulescu et al., ATC'17 §2 measures penalties with spills that reach the drive, and
// they depend on the drive (8 spilling reducers: 70% slower on an HDD, 15%
// on an SSD, §2.8); a sandbox on a fast or shared SSD measures another
// disk than the cluster's, and a cloud VM's disk changes speed with its
// host's caches. The copies of a run share the rate, as tasks on one node
// share its disk. cgroup v1: blkio.throttle.read_bps_device and
// write_bps_device of a blkio cgroup per run; v2: io.max (rbps, wbps) of a
// cgroup per run, with the copies' memory cgroups below it. Throttling
// acts on the block device, so it holds for direct I/O (Iorgulescu et al.'s (ATC'17) spills),
// for reads, and for writes the command itself syncs (fsync submits them
// from its own task); the page cache's background writeback is throttled
// under v2 only (v1 has no cgroup writeback: the kernel's flusher writes
// outside the cgroup). The kernel's throttle lets the first rate × slice
// bytes of a burst that follows an idle slice through at once (its slice
// is 20 ms on a non-rotational device, 100 ms on a rotational one), so a
// command whose spills are short bursts with pauses between them pays less
// than the rate says: spillsort's 3.5 MiB bursts at 100 MiB/s on a VM disk
// that calls itself rotational cost 15 ms per spilled MiB where the rate
// makes 20 (measured here). A lower rate, or a non-rotational disk, frees
// less (elasticity/doc.go, "From a sample to the whole input").

// diskLimit is a sweep's disk limit: where its cgroups go and the disk.
type diskLimit struct {
	host *cgroupHost // where per-run I/O cgroups are made
	dev  string
	rate int64
}

// ioGroup is one run's I/O cgroup.
type ioGroup struct {
	cgroup // dir, fd (v2), remove
	limit  int64
}

// ErrNoDiskLimit is returned when Options.DiskLimit cannot be applied.
var ErrNoDiskLimit = errors.New("profiler: --disk-limit cannot be applied on this machine")

// detectIO finds a hierarchy with the block I/O controller (v1 blkio, v2
// io) that the profiler can create cgroups in, or says why there is none.
func detectIO() (*cgroupHost, string) {
	own, err := ownCgroups()
	if err != nil {
		return nil, err.Error()
	}
	var why []string
	if path, ok := own["blkio"]; ok {
		if mnt := mountPoint("cgroup", "blkio"); mnt != "" {
			parent := filepath.Join(mnt, path)
			if _, err := os.Stat(filepath.Join(parent, "blkio.throttle.read_bps_device")); err == nil {
				return &cgroupHost{version: 1, parent: parent}, ""
			}
			why = append(why, "cgroup v1: blkio has no throttling (CONFIG_BLK_DEV_THROTTLING)")
		} else {
			why = append(why, "cgroup v1: blkio not mounted")
		}
	}
	if path, ok := own[""]; ok {
		if mnt := mountPoint("cgroup2", ""); mnt != "" {
			parent := filepath.Join(mnt, path)
			ctl, _ := os.ReadFile(filepath.Join(parent, "cgroup.controllers"))
			if !hasWord(string(ctl), "io") {
				why = append(why, fmt.Sprintf("cgroup v2: the io controller is not available in %s", parent))
			} else {
				sub, _ := os.ReadFile(filepath.Join(parent, "cgroup.subtree_control"))
				if !hasWord(string(sub), "io") {
					if err := os.WriteFile(filepath.Join(parent, "cgroup.subtree_control"), []byte("+io"), 0); err != nil {
						why = append(why, fmt.Sprintf("cgroup v2: cannot enable the io controller below %s (%v); run wlprof inside a delegated cgroup, e.g. systemd-run --scope -p Delegate=yes", parent, err))
						return nil, strings.Join(why, "; ")
					}
				}
				return &cgroupHost{version: 2, parent: parent}, ""
			}
		} else {
			why = append(why, "cgroup v2: not mounted")
		}
	}
	if len(why) == 0 {
		why = append(why, "no block I/O controller in /proc/self/cgroup")
	}
	return nil, strings.Join(why, "; ")
}

// blockDevice is the whole disk ("major:minor") holding dir's file
// system: throttling is per disk, so a partition stands for its disk.
func blockDevice(dir string) (string, error) {
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return "", err
	}
	dev := fmt.Sprintf("%d:%d", unix.Major(st.Dev), unix.Minor(st.Dev))
	sys := filepath.Join("/sys/dev/block", dev)
	if _, err := os.Stat(sys); err != nil {
		return "", fmt.Errorf("%s is on device %s, which is not a block device (tmpfs, overlay or a network file system?): give a --spill-dir on a local disk", dir, dev)
	}
	if _, err := os.Stat(filepath.Join(sys, "partition")); err == nil {
		// /sys/dev/block/M:m links to .../block/sda/sda1: its parent is
		// the disk.
		real, err := filepath.EvalSymlinks(sys)
		if err != nil {
			return "", err
		}
		b, err := os.ReadFile(filepath.Join(filepath.Dir(real), "dev"))
		if err != nil {
			return "", fmt.Errorf("the disk of partition %s: %w", dev, err)
		}
		dev = strings.TrimSpace(string(b))
	}
	return dev, nil
}

// newIOGroup makes a run's I/O cgroup, limited to limit bytes per second
// each way on dev. nestMemory (v2) enables the memory controller below it
// for the copies' memory cgroups.
func (h *cgroupHost) newIOGroup(dev string, limit int64, nestMemory bool) (*ioGroup, error) {
	dir, err := h.mkdir()
	if err != nil {
		return nil, err
	}
	g := &ioGroup{cgroup: cgroup{host: h, dir: dir, fd: -1}, limit: limit}
	rate := strconv.FormatInt(limit, 10)
	if h.version == 1 {
		if err = g.write("blkio.throttle.read_bps_device", dev+" "+rate); err == nil {
			err = g.write("blkio.throttle.write_bps_device", dev+" "+rate)
		}
	} else {
		err = g.write("io.max", fmt.Sprintf("%s rbps=%s wbps=%s", dev, rate, rate))
		if err == nil && nestMemory {
			err = g.write("cgroup.subtree_control", "+memory")
		}
		if err == nil {
			g.fd, err = syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		}
	}
	if err != nil {
		g.remove()
		return nil, fmt.Errorf("limiting %s to %s/s in %s: %w", dev, bytesize.Human(float64(limit)), dir, err)
	}
	return g, nil
}
