package profiler

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// spillWatch measures a run's spill directory: its size at each sample
// (the growth, since the directory starts empty) and the total bytes
// written there, which is more than the peak when a workload merges spill
// files and deletes them as it goes (an external merge sort does).
//
// The total is the sum over every file ever seen of the largest size it
// was seen with. Files are seen by the walk at each sample and, between
// samples, at each close after writing: with fanotify (root), whose event
// carries an open descriptor of the file, so its final size is read even
// when the file was deleted before the profiler got to the event; without
// it, by inotify's IN_CLOSE_WRITE and a stat by path, which misses a file
// deleted before the profiler reads the event. Rewrites of a file in place
// count once, so the number is a lower bound for such workloads.
type spillWatch struct {
	root string

	mu    sync.Mutex
	max   map[fileKey]int64
	peak  int64
	ino   *os.File
	fd    int // ino's descriptor: os.File.Fd would make it blocking
	wds   map[int32]string
	done  chan struct{}
	inErr error
	fan   int // fanotify descriptor, -1 without
	fbuf  []byte
}

type fileKey struct {
	ino  uint64
	path string
}

func newSpillWatch(root string) *spillWatch {
	w := &spillWatch{root: root, max: map[fileKey]int64{}, wds: map[int32]string{}, done: make(chan struct{}), fan: -1}
	if fd, err := unix.FanotifyInit(unix.FAN_CLASS_NOTIF|unix.FAN_CLOEXEC|unix.FAN_NONBLOCK,
		unix.O_RDONLY|unix.O_LARGEFILE|unix.O_CLOEXEC); err == nil {
		w.fan = fd
		w.fbuf = make([]byte, 64<<10)
	}
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		w.inErr = err
		close(w.done)
		return w
	}
	// A non-blocking descriptor goes to Go's poller, so Close ends the Read.
	w.fd = fd
	w.ino = os.NewFile(uintptr(fd), "inotify")
	w.watchTree(root)
	go w.readEvents()
	return w
}

const spillMask = syscall.IN_CLOSE_WRITE | syscall.IN_CREATE | syscall.IN_MOVED_TO

func (w *spillWatch) watchTree(dir string) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			w.addWatch(p)
		}
		return nil
	})
}

func (w *spillWatch) addWatch(dir string) {
	if w.fan >= 0 {
		unix.FanotifyMark(w.fan, unix.FAN_MARK_ADD, unix.FAN_CLOSE_WRITE|unix.FAN_EVENT_ON_CHILD, unix.AT_FDCWD, dir)
	}
	wd, err := syscall.InotifyAddWatch(w.fd, dir, spillMask)
	if err == nil {
		w.mu.Lock()
		w.wds[int32(wd)] = dir
		w.mu.Unlock()
	}
}

func (w *spillWatch) readEvents() {
	defer close(w.done)
	buf := make([]byte, 64<<10)
	for {
		n, err := w.ino.Read(buf)
		if err != nil {
			return
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= n; {
			ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
			nameBytes := buf[off+syscall.SizeofInotifyEvent : off+syscall.SizeofInotifyEvent+int(ev.Len)]
			off += syscall.SizeofInotifyEvent + int(ev.Len)
			name := string(nameBytes)
			for len(name) > 0 && name[len(name)-1] == 0 {
				name = name[:len(name)-1]
			}
			w.mu.Lock()
			dir, ok := w.wds[ev.Wd]
			w.mu.Unlock()
			if !ok || name == "" {
				continue
			}
			p := filepath.Join(dir, name)
			if ev.Mask&syscall.IN_ISDIR != 0 {
				w.watchTree(p) // files made in it before the watch are found by the walk
				continue
			}
			var st syscall.Stat_t
			if syscall.Lstat(p, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFREG {
				w.see(fileKey{st.Ino, p}, st.Size)
			}
		}
	}
}

func (w *spillWatch) see(k fileKey, size int64) {
	w.mu.Lock()
	if size > w.max[k] {
		w.max[k] = size
	}
	w.mu.Unlock()
}

// drainFanotify reads the queued close-after-write events; each holds the
// file open, so its size is exact even if it is gone from the directory.
func (w *spillWatch) drainFanotify() {
	if w.fan < 0 {
		return
	}
	meta := int(unsafe.Sizeof(unix.FanotifyEventMetadata{}))
	for {
		n, err := unix.Read(w.fan, w.fbuf)
		if err != nil || n <= 0 {
			return
		}
		for off := 0; off+meta <= n; {
			ev := (*unix.FanotifyEventMetadata)(unsafe.Pointer(&w.fbuf[off]))
			if ev.Event_len < uint32(meta) {
				break
			}
			off += int(ev.Event_len)
			if ev.Fd < 0 {
				continue // queue overflow: the walk and inotify still count
			}
			fd := int(ev.Fd)
			var st unix.Stat_t
			p, lerr := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
			if unix.Fstat(fd, &st) == nil && lerr == nil && st.Mode&unix.S_IFMT == unix.S_IFREG {
				w.see(fileKey{st.Ino, strings.TrimSuffix(p, " (deleted)")}, st.Size)
			}
			unix.Close(fd)
		}
	}
}

// sample walks the directory and returns its current size in bytes.
func (w *spillWatch) sample() int64 {
	w.drainFanotify()
	var total int64
	filepath.WalkDir(w.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		var st syscall.Stat_t
		if syscall.Lstat(p, &st) == nil {
			total += st.Size
			w.see(fileKey{st.Ino, p}, st.Size)
		}
		return nil
	})
	w.mu.Lock()
	if total > w.peak {
		w.peak = total
	}
	w.mu.Unlock()
	return total
}

// close stops watching and returns the peak size and the total written.
func (w *spillWatch) close() (peak, written int64) {
	w.sample()
	w.drainFanotify()
	if w.fan >= 0 {
		unix.Close(w.fan)
	}
	if w.ino != nil {
		w.ino.Close()
	}
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, n := range w.max {
		written += n
	}
	return w.peak, written
}
