// Command spillsort is the profiler's reference workload: an external merge
// sort with a memory budget, the shape of a MapReduce reducer (Iorgulescu et al., ATC'17
// §2.3). Its input arrives as sorted segments of -segment bytes (4M; the
// map outputs a reducer fetches) of fixed-size records (TeraSort's 100
// bytes: a 10-byte key and a payload), buffered in -mem bytes that hold
// each record with 16 bytes of sort metadata (as Hadoop's io.sort.mb does):
// mem/116 records, so a budget of at least 1.16 × the input never spills (a
// well-sized task). When the buffer is full and more records come, its
// segments are spilled as they are, each to a file of -spill, with O_DIRECT
// (Iorgulescu et al., ATC'17 uses direct I/O so that spills cost what the disk costs; where
// the file system refuses it, through the page cache, synced and dropped
// every 8 MiB). The last buffer stays in memory, and one k-way merge of all
// segments, on disk or in memory, writes the output: the same merge at
// every memory, so spilling costs the writes and reads of what it spilled.
// It thus spills (⌈1.16·input/mem⌉ − 1) × mem/1.16 bytes, the sawtooth of
// Iorgulescu et al., ATC'17 Fig. 1b, which `wlprof elasticity --set wlprof.spill.buffer=true
// --set wlprof.expansion.factor=1.16` simulates.
//
// Its work per record does not depend on the memory: segments are sorted
// by an 8-byte key prefix and laid out in key order, so merges read memory
// sequentially; the buffer is mapped outside the Go heap, no larger than
// the input needs, and faulted in at start (a JVM's heap is there before
// its task starts; -hugepages faults it in transparent huge pages, see
// populatedBuf). It is one task on one slot: one goroutine locked to the
// main thread, spill I/O by raw system calls and no garbage collector, so
// the profiler's cpu_wait_s (read from the main thread) is all that a busy
// machine's CPUs add to its wall time. Memory beyond -mem is about 8 MiB
// (runtime, one 100 KiB read buffer per spilled segment, a 1 MiB write
// buffer; with -hugepages up to 2 MiB more): profile it with
// --cap-overhead 32M.
//
// It prints "phase: read", "phase: merge" (only when it spilled) and a last
// line "spilled_bytes=N runs=R records=C" to stdout; the sorted records go
// to -out (default: discarded). Input is -in FILE, or -gen BYTES of records
// generated from -seed, so tests and the demo need no data file.
//
//	spillsort -gen 64M -mem {mem} -spill {spill_dir}
//
// It lives under testdata because it is a fixture, not part of wlprof: the
// profiler's tests and scripts/demo.sh build it with `go build`.
package main

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

const (
	recSize  = 100
	keySize  = 10
	metaSize = 16 // bytes of sort metadata per record in the buffer
)

func main() {
	in := flag.String("in", "", "input file of 100-byte records")
	gen := flag.String("gen", "", "generate this many bytes of records instead of reading -in (e.g. 64M)")
	seed := flag.Uint64("seed", 1, "seed of -gen")
	mem := flag.String("mem", "64M", "memory budget for records, bytes or K/M/G")
	spill := flag.String("spill", os.TempDir(), "directory for spilled runs")
	segment := flag.String("segment", "4M", "bytes of records per sorted input segment (a map output)")
	out := flag.String("out", "", "output file (default: discard)")
	flag.BoolVar(&hugePages, "hugepages", false, "fault the record buffer in transparent huge pages where the kernel gives them")
	flag.Parse()
	budget, err := parseSize(*mem)
	if err != nil || budget < recSize {
		fail("bad -mem %q", *mem)
	}
	var src io.Reader
	size := int64(-1) // input bytes, when known
	switch {
	case *gen != "":
		n, err := parseSize(*gen)
		if err != nil {
			fail("bad -gen %q", *gen)
		}
		src = &generator{r: rand.New(rand.NewPCG(*seed, *seed^0x9e3779b97f4a7c15)), left: n / recSize}
		size = n
	case *in != "":
		f, err := os.Open(*in)
		if err != nil {
			fail("%v", err)
		}
		defer f.Close()
		src = f
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
	default:
		fail("give -in FILE or -gen BYTES")
	}
	dst := io.Discard
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fail("%v", err)
		}
		defer f.Close()
		dst = f
	}
	// The record buffer and the I/O buffers are mapped outside the Go heap,
	// which stays a few MiB: no garbage collection, so no collector
	// threads competing with the task's one thread.
	debug.SetGCPercent(-1)
	// A reducer is one task on one slot: one thread, the main one, does
	// the work (so the profiler's cpu_wait_s, read from the main thread,
	// is the whole of what a shared CPU cost it).
	runtime.GOMAXPROCS(1)
	runtime.LockOSThread()
	seg, err := parseSize(*segment)
	if err != nil || seg < recSize {
		fail("bad -segment %q", *segment)
	}
	st, err := run(bufio.NewReaderSize(src, 1<<16), dst, budget, size, int(seg/recSize), *spill)
	if err != nil {
		fail("%v", err)
	}
	fmt.Printf("spilled_bytes=%d runs=%d records=%d\n", st.spilled, st.runs, st.records)
}

type stats struct{ spilled, runs, records int64 }

// entry is a record's metadata in the sort buffer: its key's first 8
// bytes, big-endian (so integer order is byte order), and its offset.
type entry struct {
	pfx uint64
	off uint32
}

func run(src *bufio.Reader, dst io.Writer, budget, size int64, segRecs int, spillDir string) (stats, error) {
	var st stats
	fmt.Println("phase: read")
	// The budget holds records and their metadata, as Hadoop's io.sort.mb
	// holds 16 bytes of it per record: a buffer of budget bytes holds
	// budget/116 records.
	capRecs := int(budget / (recSize + metaSize))
	if capRecs < 1 {
		return st, fmt.Errorf("a budget of %d bytes holds no record and its %d bytes of metadata", budget, metaSize)
	}
	if size >= 0 {
		capRecs = int(min(int64(capRecs), max(size/recSize, 1)))
	}
	// The buffer and its metadata are one mapping outside the Go heap (no
	// garbage collector scans or moves it), no larger than the input needs,
	// and faulted in at once: a JVM's heap is there before the task
	// starts, so the task's own work is the same per record at every
	// memory setting.
	area := populatedBuf(capRecs * (recSize + metaSize))
	buf := area[: capRecs*recSize : capRecs*recSize]
	idx := unsafe.Slice((*entry)(unsafe.Pointer(&area[capRecs*recSize])), capRecs)[:0]
	var runs []string
	var segs [][]entry
	defer func() {
		for _, r := range runs {
			os.Remove(r)
		}
	}()
	for {
		n, err := io.ReadFull(src, buf)
		n -= n % recSize
		st.records += int64(n / recSize)
		idx = idx[:0]
		for off := 0; off < n; off += recSize {
			idx = append(idx, entry{binary.BigEndian.Uint64(buf[off:]), uint32(off)})
		}
		segs = segments(buf, idx, segRecs)
		last := err == io.EOF || err == io.ErrUnexpectedEOF
		if err != nil && !last {
			return st, err
		}
		if err == nil {
			// A buffer filled exactly by the last records is still the end.
			if _, perr := src.Peek(1); perr == io.EOF {
				last = true
			}
		}
		if last {
			break
		}
		// The buffer is full and more records come: spill its segments,
		// each to a file of its own as they are (sorted already), and
		// reuse it.
		for _, seg := range segs {
			p := filepath.Join(spillDir, fmt.Sprintf("run-%06d", len(runs)))
			if err := spillRun(p, buf, seg); err != nil {
				return st, err
			}
			runs = append(runs, p)
			st.runs++
		}
		st.spilled += int64(n)
	}
	// Like a reducer, the last buffer's segments stay in memory and are
	// merged with the runs on disk (if any): the same merge whether the
	// task spilled or not, only its sources differ.
	if len(runs) > 0 {
		fmt.Println("phase: merge")
	}
	return st, merge(dst, runs, buf, segs)
}

// segments sorts idx in segments of segRecs records, the map outputs a
// reducer receives already sorted, and lays each segment's records out in
// key order (in place, cycle by cycle), so that merges read memory
// sequentially as they read runs from disk: the work per record then
// depends neither on the buffer's size nor much on what other processes
// do to the caches.
func segments(buf []byte, idx []entry, segRecs int) [][]entry {
	var segs [][]entry
	var tmp [recSize]byte
	for i := 0; i < len(idx); i += segRecs {
		seg := idx[i:min(i+segRecs, len(idx))]
		base := i * recSize // idx was built in buffer order
		sortIdx(buf, seg)
		slot := func(k int) []byte { return buf[base+k*recSize : base+(k+1)*recSize] }
		for j := range seg {
			if int(seg[j].off) == base+j*recSize {
				continue // in place, or placed by an earlier cycle
			}
			copy(tmp[:], slot(j))
			for k := j; ; {
				src := int(seg[k].off) // where slot k's record is now
				seg[k].off = uint32(base + k*recSize)
				if src == base+j*recSize {
					copy(slot(k), tmp[:])
					break
				}
				copy(slot(k), buf[src:src+recSize])
				k = (src - base) / recSize
			}
		}
		segs = append(segs, seg)
	}
	return segs
}

// sortIdx sorts by key: by the 8-byte prefix, then the remaining bytes.
func sortIdx(buf []byte, idx []entry) {
	slices.SortFunc(idx, func(a, b entry) int {
		if a.pfx != b.pfx {
			return cmp.Compare(a.pfx, b.pfx)
		}
		return bytes.Compare(buf[a.off+8:a.off+keySize], buf[b.off+8:b.off+keySize])
	})
}

// spillRun writes a sorted run so that the spill costs what it costs a
// reducer whose spills reach the drive (Iorgulescu et al., ATC'17 §2.1 uses direct I/O or
// caps the buffer cache for this): with O_DIRECT where the file system
// allows it, else through the page cache, synced and dropped every 8 MiB.
func spillRun(path string, buf []byte, seg []entry) error {
	w, err := createRun(path)
	if err != nil {
		return err
	}
	// A segment's records lie in key order from its first record on.
	if _, err := w.Write(buf[seg[0].off : int(seg[0].off)+len(seg)*recSize]); err != nil {
		w.f.Close()
		return err
	}
	if err := w.close(); err != nil {
		w.f.Close()
		return err
	}
	return w.f.Close()
}

// ioUnit is the size of a direct I/O transfer: a multiple of 4096 (its
// alignment) and of recSize (a record never straddles two transfers).
const ioUnit = 102400

// writeBuf is the one buffer of every runWriter (runs are written one at
// a time).
var writeBuf []byte

// hugePages is -hugepages.
var hugePages bool

// populatedBuf maps n bytes with their pages faulted in: in 4 KiB pages
// (MAP_POPULATE), or with -hugepages in transparent huge pages where the
// kernel gives them, as a JVM's heap gets them with
// -XX:+UseTransparentHugePages. Which costs less depends on the host: on
// this project's VM a 4 KiB fault cost 2-20 µs as its state moved
// (faulting a 74 MiB buffer took 70-370 ms, and walking it missed the
// TLB), while huge pages of 64 MiB buffers cost next to nothing but those
// of a 742 MiB one 1.3-1.8 s of system time against 0.3 s in 4 KiB pages
// (the VM's balloon hands free 2 MiB blocks back to its host, so touching
// them faults on the host too).
func populatedBuf(n int) []byte {
	if !hugePages {
		b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_POPULATE)
		if err != nil {
			return make([]byte, n)
		}
		return b
	}
	const huge = 2 << 20
	m, err := syscall.Mmap(-1, 0, n+huge, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return make([]byte, n)
	}
	// Huge pages need 2 MiB-aligned addresses: the buffer starts at the
	// first boundary of a mapping one huge page longer than it.
	skip := (huge - int(uintptr(unsafe.Pointer(&m[0]))%huge)) % huge
	b := m[skip : skip+n : skip+n]
	const madvHugepage, madvPopulateWrite = 14, 23
	_ = syscall.Madvise(b, madvHugepage)              // advice: without it, 4 KiB pages
	if syscall.Madvise(b, madvPopulateWrite) != nil { // before Linux 5.14
		for i := 0; i < len(b); i += 4096 {
			b[i] = 0
		}
	}
	return b
}

// alignedBuf maps n bytes: page-aligned, as O_DIRECT needs.
func alignedBuf(n int) []byte {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return make([]byte, n) // page-sized Go allocations are page-aligned in practice
	}
	return b
}

// runWriter writes a run in aligned transfers of 10 ioUnits.
type runWriter struct {
	f       *rawFile
	buf     []byte
	n       int
	direct  bool
	pending int // bytes written through the page cache since the last sync
}

func createRun(path string) (*runWriter, error) {
	if writeBuf == nil {
		writeBuf = alignedBuf(10 * ioUnit)
	}
	w := &runWriter{buf: writeBuf, direct: true}
	f, err := rawOpen(path, syscall.O_CREAT|syscall.O_WRONLY|syscall.O_TRUNC|syscall.O_DIRECT)
	if err != nil { // a file system without O_DIRECT (tmpfs)
		w.direct = false
		if f, err = rawOpen(path, syscall.O_CREAT|syscall.O_WRONLY|syscall.O_TRUNC); err != nil {
			return nil, err
		}
	}
	w.f = f
	return w, nil
}

func (w *runWriter) Write(p []byte) (int, error) {
	total := len(p)
	for len(p) > 0 {
		c := copy(w.buf[w.n:], p)
		w.n += c
		p = p[c:]
		if w.n == len(w.buf) {
			if err := w.flush(); err != nil {
				return total - len(p), err
			}
		}
	}
	return total, nil
}

func (w *runWriter) flush() error {
	if w.n == 0 {
		return nil
	}
	if w.direct && w.n%4096 != 0 {
		// The run's unaligned tail goes through the page cache.
		if _, _, e := syscall.RawSyscall(syscall.SYS_FCNTL, w.f.Fd(), syscall.F_SETFL, uintptr(syscall.O_WRONLY)); e != 0 {
			return e
		}
		w.direct = false
	}
	err := rawWrite(w.f, w.buf[:w.n])
	if !w.direct {
		w.pending += w.n
	}
	w.n = 0
	if err == nil && w.pending >= syncEvery {
		err = w.sync()
	}
	return err
}

// close writes what is left and syncs what went through the page cache.
func (w *runWriter) close() error {
	if err := w.flush(); err != nil {
		return err
	}
	if w.pending > 0 {
		return w.sync()
	}
	return nil
}

const syncEvery = 8 << 20

func (w *runWriter) sync() error {
	w.pending = 0
	if err := w.f.Sync(); err != nil {
		return err
	}
	fadvise(w.f, 4) // POSIX_FADV_DONTNEED: read it back from the disk
	return nil
}

// rawWrite and rawRead do the spill I/O without telling the Go scheduler
// (RawSyscall): the one goroutine on its one thread just waits for the
// disk, instead of handing its P to another thread at every I/O and
// waking the runtime's monitor — work that would land on other threads
// and make the spill's cost depend on how busy the machine is.
func rawWrite(f *rawFile, p []byte) error {
	for len(p) > 0 {
		n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, f.Fd(), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return &os.PathError{Op: "write", Path: f.Name(), Err: e}
		}
		p = p[n:]
	}
	return nil
}

// rawRead fills p unless the file ends first; n is what it read.
func rawRead(f *rawFile, p []byte) (int, error) {
	n := 0
	for n < len(p) {
		m, _, e := syscall.RawSyscall(syscall.SYS_READ, f.Fd(), uintptr(unsafe.Pointer(&p[n])), uintptr(len(p)-n))
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return n, &os.PathError{Op: "read", Path: f.Name(), Err: e}
		}
		if m == 0 {
			return n, io.EOF
		}
		n += int(m)
	}
	return n, nil
}

// fadvise is posix_fadvise over the whole file; advice is best effort.
func fadvise(f *rawFile, advice uintptr) {
	syscall.RawSyscall6(syscall.SYS_FADVISE64, f.Fd(), 0, 0, advice, 0, 0)
}

// rawFile is a file descriptor used through raw system calls only (see
// rawWrite): opening, syncing and closing a spill file also stay off the
// Go scheduler.
type rawFile struct {
	fd   int
	name string
}

func rawOpen(path string, flags int) (*rawFile, error) {
	p, err := syscall.BytePtrFromString(path)
	if err != nil {
		return nil, err
	}
	const atFdcwd = -100
	fd, _, e := syscall.RawSyscall6(syscall.SYS_OPENAT, uintptr(atFdcwd&0xffffffffffffffff), uintptr(unsafe.Pointer(p)), uintptr(flags|syscall.O_CLOEXEC), 0o644, 0, 0)
	if e != 0 {
		return nil, &os.PathError{Op: "open", Path: path, Err: e}
	}
	return &rawFile{fd: int(fd), name: path}, nil
}

func (f *rawFile) Fd() uintptr  { return uintptr(f.fd) }
func (f *rawFile) Name() string { return f.name }
func (f *rawFile) Close() error { return f.call(syscall.SYS_CLOSE, "close") }
func (f *rawFile) Sync() error  { return f.call(syscall.SYS_FDATASYNC, "fdatasync") }
func (f *rawFile) call(nr uintptr, op string) error {
	if _, _, e := syscall.RawSyscall(nr, uintptr(f.fd), 0, 0); e != 0 {
		return &os.PathError{Op: op, Path: f.name, Err: e}
	}
	return nil
}

// runReader reads a run in aligned transfers of one ioUnit, with O_DIRECT
// where the file system allows it; otherwise without kernel read-ahead
// (POSIX_FADV_RANDOM): with a large read_ahead_kb and many runs,
// read-ahead would overflow the memory cap and be evicted and read again
// before it is used. The merge reads through its own buffers, as Hadoop's
// merger does.
type runReader struct {
	f    *rawFile
	buf  []byte
	r, n int
	eof  bool
}

func openRun(path string) (*runReader, error) {
	f, err := rawOpen(path, syscall.O_RDONLY|syscall.O_DIRECT)
	if err != nil {
		if f, err = rawOpen(path, syscall.O_RDONLY); err != nil {
			return nil, err
		}
		fadvise(f, 1)
	}
	return &runReader{f: f, buf: alignedBuf(ioUnit)}, nil
}

// record returns the next record, valid until the next call.
func (d *runReader) record() ([]byte, error) {
	if d.r == d.n {
		if d.eof {
			return nil, io.EOF
		}
		n, err := rawRead(d.f, d.buf)
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			d.eof, err = true, nil
		}
		if err != nil {
			return nil, err
		}
		if n%recSize != 0 {
			return nil, fmt.Errorf("%s: a run of %d-byte records ends in a partial record", d.f.Name(), recSize)
		}
		if n == 0 {
			return nil, io.EOF
		}
		d.r, d.n = 0, n
	}
	rec := d.buf[d.r : d.r+recSize]
	d.r += recSize
	return rec, nil
}

// source is one sorted input of the merge: a run on disk or a segment in
// memory.
type source struct {
	d   *runReader // nil for a segment in memory
	mem []byte
	idx []entry
	rec []byte
	pfx uint64
	err error
}

func (s *source) next() bool {
	if s.d == nil {
		if len(s.idx) == 0 {
			return false
		}
		e := s.idx[0]
		s.idx = s.idx[1:]
		s.rec, s.pfx = s.mem[e.off:e.off+recSize], e.pfx
		return true
	}
	rec, err := s.d.record()
	if err != nil {
		if err != io.EOF {
			s.err = err
		}
		return false
	}
	s.rec, s.pfx = rec, binary.BigEndian.Uint64(rec)
	return true
}

func less(a, b *source) bool {
	if a.pfx != b.pfx {
		return a.pfx < b.pfx
	}
	return bytes.Compare(a.rec[8:keySize], b.rec[8:keySize]) < 0
}

// merge is one k-way pass over the segments, on disk (runs) or in memory:
// the same merge, of as many sources, whatever the memory; each run is read
// through a 100 KiB buffer (a few MiB in all, within the cap's overhead).
func merge(dst io.Writer, runs []string, buf []byte, segs [][]entry) error {
	var h []*source
	add := func(s *source) error {
		if s.next() {
			h = append(h, s)
		}
		return s.err
	}
	for _, p := range runs {
		d, err := openRun(p)
		if err != nil {
			return err
		}
		defer d.f.Close()
		if err := add(&source{d: d}); err != nil {
			return err
		}
	}
	for _, seg := range segs {
		if err := add(&source{mem: buf, idx: seg}); err != nil {
			return err
		}
	}
	// A binary min-heap of the sources by their current record.
	down := func(i int) {
		for {
			c := 2*i + 1
			if c >= len(h) {
				return
			}
			if c+1 < len(h) && less(h[c+1], h[c]) {
				c++
			}
			if !less(h[c], h[i]) {
				return
			}
			h[i], h[c] = h[c], h[i]
			i = c
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		down(i)
	}
	bw := bufio.NewWriterSize(dst, 1<<16)
	for len(h) > 0 {
		s := h[0]
		bw.Write(s.rec)
		if !s.next() {
			if s.err != nil {
				return s.err
			}
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		}
		down(0)
	}
	return bw.Flush()
}

// generator yields records with random printable keys, a newline-ended
// payload, so the input is also readable by GNU sort as lines.
type generator struct {
	r    *rand.Rand
	left int64
	rec  [recSize]byte
	pos  int
}

func (g *generator) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if g.pos == 0 || g.pos == recSize {
			if g.left == 0 {
				if n == 0 {
					return 0, io.EOF
				}
				return n, nil
			}
			g.left--
			for i := 0; i < keySize; i++ {
				g.rec[i] = 'A' + byte(g.r.IntN(26))
			}
			for i := keySize; i < recSize-1; i++ {
				g.rec[i] = 'a' + byte(i%26)
			}
			g.rec[recSize-1] = '\n'
			g.pos = 0
		}
		c := copy(p[n:], g.rec[g.pos:])
		g.pos += c
		n += c
	}
	return n, nil
}

func parseSize(s string) (int64, error) {
	mult := int64(1)
	t := strings.ToUpper(strings.TrimSpace(s))
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'K':
			mult = 1 << 10
		case 'M':
			mult = 1 << 20
		case 'G':
			mult = 1 << 30
		}
		if mult > 1 {
			t = t[:n-1]
		}
	}
	v, err := strconv.ParseInt(t, 10, 64)
	return v * mult, err
}

func fail(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "spillsort: "+format+"\n", a...)
	os.Exit(1)
}
