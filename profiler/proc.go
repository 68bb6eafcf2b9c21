package profiler

import (
	"bytes"
	"encoding/binary"
	"os"
	"strconv"
	"syscall"
)

// clockTicks is USER_HZ, the unit of the times in /proc/PID/stat. It is 100
// on every Linux architecture Go supports.
const clockTicks = 100

// procStat is what one read of /proc/PID/stat and /proc/PID/io gives.
type procStat struct {
	state   byte
	ppid    int
	pgid    int
	sid     int
	ticks   int64 // utime + stime + cutime + cstime: own CPU plus reaped children's
	threads int32
	rss     int64 // bytes
	start   int64 // start time, clock ticks since boot: tells reused pids apart
	io      ioCounters
	ioOK    bool
}

// ioCounters are the fields of /proc/PID/io the profiler keeps. Like the
// CPU times above they include the process's reaped children.
type ioCounters struct {
	rchar, wchar, readBytes, writeBytes, cancelled int64
	// storage says the file had read_bytes and write_bytes: a kernel
	// without per-task storage I/O accounting leaves them out.
	storage bool
}

func (a *ioCounters) add(b ioCounters) {
	a.rchar += b.rchar
	a.wchar += b.wchar
	a.readBytes += b.readBytes
	a.writeBytes += b.writeBytes
	a.cancelled += b.cancelled
	a.storage = a.storage || b.storage
}

// reader reads small /proc files into one reused buffer: the sampler reads
// a few files per process per tick, and allocation would dominate its cost.
type reader struct {
	buf   []byte
	path  []byte
	dents []byte
}

func newReader() *reader { return &reader{buf: make([]byte, 4096), path: make([]byte, 0, 64)} }

// read returns the content of /proc/PID/name (valid until the next read).
func (r *reader) read(pid int, name string) ([]byte, bool) {
	r.path = append(r.path[:0], "/proc/"...)
	r.path = strconv.AppendInt(r.path, int64(pid), 10)
	r.path = append(r.path, '/')
	r.path = append(r.path, name...)
	f, err := os.Open(string(r.path))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	n := 0
	for {
		m, err := f.Read(r.buf[n:])
		n += m
		if err != nil || m == 0 {
			break
		}
		if n == len(r.buf) {
			r.buf = append(r.buf, make([]byte, len(r.buf))...)
		}
	}
	return r.buf[:n], n > 0
}

// stat reads /proc/PID/stat, and /proc/PID/io when withIO is set.
func (r *reader) stat(pid int, withIO bool) (procStat, bool) {
	var s procStat
	b, ok := r.read(pid, "stat")
	if !ok {
		return s, false
	}
	if !parseStat(b, &s) {
		return s, false
	}
	if withIO {
		if b, ok := r.read(pid, "io"); ok {
			s.io, s.ioOK = parseIO(b)
		}
	}
	return s, true
}

// parseStat reads /proc/PID/stat. The command name is in parentheses and may
// itself hold spaces and parentheses, so fields are counted from the last ')'.
func parseStat(b []byte, s *procStat) bool {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return false
	}
	b = b[i+2:]
	// Fields after the name, 0-based: 0 state, 1 ppid, 2 pgrp, 3 session,
	// 11 utime, 12 stime, 13 cutime, 14 cstime, 17 num_threads,
	// 19 starttime, 21 rss (pages).
	var f [22]int64
	field := 0
	for field < len(f) && len(b) > 0 {
		j := bytes.IndexByte(b, ' ')
		tok := b
		if j >= 0 {
			tok = b[:j]
			b = b[j+1:]
		} else {
			b = nil
		}
		if field == 0 {
			s.state = tok[0]
		} else {
			f[field] = atoi(tok)
		}
		field++
	}
	if field < len(f) {
		return false
	}
	s.ppid, s.pgid, s.sid = int(f[1]), int(f[2]), int(f[3])
	s.ticks = f[11] + f[12] + f[13] + f[14]
	s.threads = int32(f[17])
	s.start = f[19]
	s.rss = f[21] * int64(pageSize)
	return true
}

var pageSize = os.Getpagesize()

func atoi(b []byte) int64 {
	var n int64
	neg := false
	for i, c := range b {
		if i == 0 && c == '-' {
			neg = true
			continue
		}
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		return -n
	}
	return n
}

func parseIO(b []byte) (ioCounters, bool) {
	var c ioCounters
	n := 0
	for len(b) > 0 {
		j := bytes.IndexByte(b, '\n')
		line := b
		if j >= 0 {
			line, b = b[:j], b[j+1:]
		} else {
			b = nil
		}
		k := bytes.IndexByte(line, ':')
		if k < 0 {
			continue
		}
		v := atoi(bytes.TrimSpace(line[k+1:]))
		switch string(line[:k]) {
		case "rchar":
			c.rchar = v
		case "wchar":
			c.wchar = v
		case "read_bytes":
			c.readBytes = v
		case "write_bytes":
			c.writeBytes = v
			c.storage = true
		case "cancelled_write_bytes":
			c.cancelled = v
		default:
			continue
		}
		n++
	}
	return c, n > 0
}

// listPids appends the numeric entries of /proc to dst. It reads the
// directory with getdents into a reused buffer and parses names in place:
// the scan runs every tick, and allocating a string per process would make
// it the sampler's largest cost.
func (r *reader) listPids(dst []int) ([]int, error) {
	fd, err := syscall.Open("/proc", syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return dst, err
	}
	defer syscall.Close(fd)
	if len(r.dents) == 0 {
		r.dents = make([]byte, 32<<10)
	}
	for {
		n, err := syscall.Getdents(fd, r.dents)
		if err != nil {
			return dst, err
		}
		if n <= 0 {
			return dst, nil
		}
		// linux_dirent64: ino u64, off s64, reclen u16, type u8, name...
		for off := 0; off+19 < n; {
			reclen := int(binary.NativeEndian.Uint16(r.dents[off+16:]))
			if reclen == 0 {
				break
			}
			name := r.dents[off+19 : off+reclen]
			off += reclen
			pid := 0
			for _, c := range name {
				if c < '0' || c > '9' {
					if c != 0 {
						pid = 0
					}
					break
				}
				pid = pid*10 + int(c-'0')
			}
			if pid > 0 {
				dst = append(dst, pid)
			}
		}
	}
}

// hostMemBytes reads MemTotal from /proc/meminfo.
func hostMemBytes() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if rest, ok := bytes.CutPrefix(line, []byte("MemTotal:")); ok {
			return atoi(bytes.TrimSpace(rest)) << 10
		}
	}
	return 0
}
