package profiler

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/wlprof/wlprof/internal/bytesize"
)

// The node's I/O capacity, against which Polo's (PhD thesis, UPC 2014) I/O shares are taken
// (Table 4.2: "the percentage of each TaskTracker's capacity"), is the
// sequential bandwidth of the file system the runs spill to, measured once
// per sweep before its first run: calPasses times, calBytes are written in
// calBlock pieces and read back, both with O_DIRECT so neither the page
// cache nor read-ahead of an earlier pass is measured, and the capacity is
// the median pass's bytes moved over its time, (written + read) / (write
// time + read time): the rate of a disk kept busy half writing, half
// reading. A pass that takes longer than calBudget ends the calibration
// (a slow disk gets fewer passes, not a long wait).
const (
	calBytes  = 64 << 20
	calBlock  = 1 << 20
	calPasses = 3
	calBudget = 2 * time.Second
)

// ioCapacity is the node's I/O capacity as the host facts record it.
type ioCapacity struct {
	BytesPerS float64 // 0: unknown
	Source    string  // "measured" or "flag"
	Detail    string  // how it was measured, for people
}

// ErrBadRate is returned by ParseRate for a rate it cannot read.
var ErrBadRate = errors.New("profiler: bad rate")

// ParseRate reads a rate in bytes per second such as "200MB", "1.5GiB"
// or "800M/s" (bytesize.Parse, binary multiples, with an optional "/s").
func ParseRate(s string) (int64, error) {
	t := strings.TrimSpace(s)
	t = strings.TrimSuffix(strings.TrimSuffix(t, "/s"), "/S")
	n, err := bytesize.Parse(t)
	if err != nil {
		return 0, fmt.Errorf("%w %q: want bytes per second such as 200MB or 1.5GiB", ErrBadRate, s)
	}
	return n, nil
}

// measureIOCapacity calibrates the file system of dir (see calBytes).
func measureIOCapacity(dir string) (ioCapacity, error) {
	buf, err := unix.Mmap(-1, 0, calBlock, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return ioCapacity{}, err
	}
	defer unix.Munmap(buf)
	// Random contents: a virtual disk may store zero blocks for free.
	rng := rand.NewChaCha8([32]byte{'w', 'l', 'p', 'r', 'o', 'f'})
	rng.Read(buf)

	type pass struct{ w, r, both float64 }
	var passes []pass
	direct := true
	start := time.Now()
	for i := 0; i < calPasses; i++ {
		t0 := time.Now()
		wr, rd, err := calPass(dir, buf, direct)
		if direct && errors.Is(err, unix.EINVAL) {
			direct = false // the file system refuses O_DIRECT (tmpfs)
			wr, rd, err = calPass(dir, buf, direct)
		}
		if err != nil {
			return ioCapacity{}, fmt.Errorf("profiler: I/O calibration in %s: %w", dir, err)
		}
		passes = append(passes, pass{calBytes / wr.Seconds(), calBytes / rd.Seconds(), 2 * calBytes / (wr + rd).Seconds()})
		if took := time.Since(t0); time.Since(start)+took > calBudget {
			break
		}
	}
	sort.Slice(passes, func(i, j int) bool { return passes[i].both < passes[j].both })
	m := passes[(len(passes)-1)/2]
	how := "O_DIRECT"
	if !direct {
		how = "buffered, fdatasync, page cache dropped: no O_DIRECT here"
	}
	return ioCapacity{
		BytesPerS: m.both,
		Source:    "measured",
		Detail: fmt.Sprintf("median of %d passes writing then reading %s sequentially in %s blocks (%s) in %s: write %s/s, read %s/s",
			len(passes), bytesize.Format(calBytes), bytesize.Format(calBlock), how, dir, bytesize.Human(m.w), bytesize.Human(m.r)),
	}, nil
}

// calPass writes calBytes to a new file in dir and reads them back, with
// O_DIRECT or else buffered with the pages dropped between, and returns
// the two times. The file is removed. A file system without O_DIRECT
// fails with EINVAL.
func calPass(dir string, buf []byte, direct bool) (wr, rd time.Duration, err error) {
	f, err := os.CreateTemp(dir, "wlprof-iocal-")
	if err != nil {
		return 0, 0, err
	}
	name := f.Name()
	f.Close()
	defer os.Remove(name)
	flags := unix.O_CLOEXEC
	if direct {
		flags |= unix.O_DIRECT
	}
	fd, err := unix.Open(name, unix.O_WRONLY|flags, 0)
	if err != nil {
		return 0, 0, err
	}
	t0 := time.Now()
	for n := 0; n < calBytes && err == nil; n += len(buf) {
		err = writeFull(fd, buf)
	}
	if err == nil {
		err = unix.Fdatasync(fd)
	}
	wr = time.Since(t0)
	if !direct && err == nil {
		err = unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED)
	}
	unix.Close(fd)
	if err != nil {
		return 0, 0, fmt.Errorf("writing %s: %w", filepath.Base(name), err)
	}
	if fd, err = unix.Open(name, unix.O_RDONLY|flags, 0); err != nil {
		return 0, 0, err
	}
	defer unix.Close(fd)
	t0 = time.Now()
	for n := 0; n < calBytes; {
		k, err := unix.Read(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, 0, fmt.Errorf("reading %s: %w", filepath.Base(name), err)
		}
		if k == 0 {
			return 0, 0, fmt.Errorf("%s is short (%d bytes)", filepath.Base(name), n)
		}
		n += k
	}
	return wr, time.Since(t0), nil
}

func writeFull(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := unix.Write(fd, b)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}
