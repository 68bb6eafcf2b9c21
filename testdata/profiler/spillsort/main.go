// Command spillsort is the profiler's reference workload: an external merge
// sort with a memory budget, the shape of a MapReduce reducer (seed 004
// §2.3). It sorts fixed-size records (TeraSort's 100 bytes: a 10-byte key
// and a payload) in a buffer of -mem bytes that holds each record with 16
// bytes of sort metadata (as Hadoop's io.sort.mb does), so -mem holds
// mem/116 records: a budget of at least 1.16 × the input never spills (a
// well-sized task). When the buffer fills and more records come, it is
// sorted and spilled as a run file to -spill, synced and dropped from the
// page cache so that spills cost real disk writes and reads (seed 004 caps
// the buffer cache or uses direct I/O for the same reason); the last
// buffer stays in memory and one k-way pass merges it with the runs. It
// thus spills (⌈1.16·input/mem⌉ − 1) × mem/1.16 bytes: the sawtooth of
// seed 004 Fig. 1b, which `wlprof elasticity --set wlprof.spill.buffer=true
// --set wlprof.expansion.factor=1.16` simulates. Sorting is by an 8-byte
// key prefix held in the metadata, so the in-memory work per record barely
// depends on the buffer's size; it runs on one thread, as a task on one
// slot.
//
// It prints "phase: read", "phase: merge" (only when it spilled) and a last
// line "spilled_bytes=N runs=R records=C" to stdout; the sorted records go
// to -out (default: discarded). Input is -in FILE, or -gen BYTES of records
// generated from -seed, so tests and the demo need no data file.
//
//	spillsort -gen 64M -mem {mem_bytes} -spill {spill_dir}
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
	flag.Parse()
	budget, err := parseSize(*mem)
	if err != nil || budget < recSize {
		fail("bad -mem %q", *mem)
	}
	var src io.Reader
	switch {
	case *gen != "":
		n, err := parseSize(*gen)
		if err != nil {
			fail("bad -gen %q", *gen)
		}
		src = &generator{r: rand.New(rand.NewPCG(*seed, *seed^0x9e3779b97f4a7c15)), left: n / recSize}
	case *in != "":
		f, err := os.Open(*in)
		if err != nil {
			fail("%v", err)
		}
		defer f.Close()
		src = f
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
	// The record buffer is the budget; keep the Go heap close to it.
	debug.SetGCPercent(20)
	// A reducer is one task on one slot: one thread, the main one, does
	// the work (so the profiler's cpu_wait_s, read from the main thread,
	// is the whole of what a shared CPU cost it).
	runtime.GOMAXPROCS(1)
	runtime.LockOSThread()
	seg, err := parseSize(*segment)
	if err != nil || seg < recSize {
		fail("bad -segment %q", *segment)
	}
	st, err := run(bufio.NewReaderSize(src, 1<<16), dst, budget, int(seg/recSize), *spill)
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

func run(src *bufio.Reader, dst io.Writer, budget int64, segRecs int, spillDir string) (stats, error) {
	var st stats
	fmt.Println("phase: read")
	// The budget holds records and their metadata, as Hadoop's io.sort.mb
	// holds 16 bytes of it per record: a buffer of budget bytes holds
	// budget/116 records.
	capRecs := int(budget / (recSize + metaSize))
	if capRecs < 1 {
		return st, fmt.Errorf("a budget of %d bytes holds no record and its %d bytes of metadata", budget, metaSize)
	}
	// The buffer and its metadata are one mapping outside the Go heap, in
	// huge pages where the kernel gives them: the random accesses of the
	// sort and of writing records in key order then cost about the same
	// per record whatever the buffer's size (no TLB miss per record).
	area := hugeAlloc(capRecs * (recSize + metaSize))
	buf := area[: capRecs*recSize : capRecs*recSize]
	idx := unsafe.Slice((*entry)(unsafe.Pointer(&area[capRecs*recSize])), capRecs)[:0]
	var runs []string
	var segs [][]entry
	scratch := make([]byte, 0, min(segRecs, capRecs)*recSize)
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
		segs = segments(buf, idx, segRecs, &scratch)
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
		// The buffer is full and more records come: spill it and reuse it.
		p := filepath.Join(spillDir, fmt.Sprintf("run-%06d", len(runs)))
		if err := spillRun(p, buf, segs); err != nil {
			return st, err
		}
		runs = append(runs, p)
		st.spilled += int64(n)
		st.runs++
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
// key order (through scratch, one segment long), so that merges read
// memory sequentially as they read runs from disk: the work per record
// then depends neither on the buffer's size nor much on what other
// processes do to the caches.
func segments(buf []byte, idx []entry, segRecs int, scratch *[]byte) [][]entry {
	var segs [][]entry
	for i := 0; i < len(idx); i += segRecs {
		seg := idx[i:min(i+segRecs, len(idx))]
		sortIdx(buf, seg)
		base := int(idx[i].off) // records of a segment are contiguous
		for _, e := range seg {
			base = min(base, int(e.off))
		}
		sc := (*scratch)[:0]
		for _, e := range seg {
			sc = append(sc, buf[e.off:e.off+recSize]...)
		}
		*scratch = sc
		copy(buf[base:], sc)
		for j := range seg {
			seg[j].off = uint32(base + j*recSize)
		}
		segs = append(segs, seg)
	}
	return segs
}

// hugeAlloc maps n zeroed bytes, asking for transparent huge pages
// (MADV_HUGEPAGE); it falls back to the Go heap when mmap fails.
func hugeAlloc(n int) []byte {
	const hugePage = 2 << 20
	size := (n + hugePage - 1) / hugePage * hugePage
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return make([]byte, size)
	}
	const madvHugepage = 14
	syscall.Madvise(b, madvHugepage)
	return b
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

// spillRun writes a sorted run and makes the spill cost what it costs a
// reducer whose spills reach the drive (seed 004 §2.1 caps the buffer cache
// or uses direct I/O): the data is synced and then dropped from the page
// cache, so the merge reads it back from the disk.
func spillRun(path string, buf []byte, segs [][]entry) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	sw := &syncWriter{f: f}
	if err := merge(sw, nil, buf, segs); err != nil {
		f.Close()
		return err
	}
	if err := sw.sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// syncWriter syncs and drops what it wrote every syncEvery bytes, so the
// dirty pages of a spill never hold more than that much of the memory cap.
type syncWriter struct {
	f       *os.File
	pending int
}

const syncEvery = 8 << 20

func (w *syncWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	if w.pending += n; err == nil && w.pending >= syncEvery {
		err = w.sync()
	}
	return n, err
}

func (w *syncWriter) sync() error {
	w.pending = 0
	if err := w.f.Sync(); err != nil {
		return err
	}
	dropCache(w.f)
	return nil
}

// dropCache asks the kernel to forget the file's cached pages
// (posix_fadvise POSIX_FADV_DONTNEED); a failure only leaves them cached.
func dropCache(f *os.File) { fadvise(f, 4) }

// fadvise is posix_fadvise over the whole file; advice is best effort.
func fadvise(f *os.File, advice uintptr) {
	syscall.Syscall6(syscall.SYS_FADVISE64, f.Fd(), 0, 0, advice, 0, 0)
}

// source is one sorted input of the merge: a run on disk or the buffer
// left in memory.
type source struct {
	r    *bufio.Reader // nil for the in-memory buffer
	mem  []byte
	idx  []entry
	rec  []byte
	pfx  uint64
	rbuf [recSize]byte
	err  error
}

func (s *source) next() bool {
	if s.r == nil {
		if len(s.idx) == 0 {
			return false
		}
		e := s.idx[0]
		s.idx = s.idx[1:]
		s.rec, s.pfx = s.mem[e.off:e.off+recSize], e.pfx
		return true
	}
	if _, err := io.ReadFull(s.r, s.rbuf[:]); err != nil {
		if err != io.EOF {
			s.err = err
		}
		return false
	}
	s.rec, s.pfx = s.rbuf[:], binary.BigEndian.Uint64(s.rbuf[:])
	return true
}

func less(a, b *source) bool {
	if a.pfx != b.pfx {
		return a.pfx < b.pfx
	}
	return bytes.Compare(a.rec[8:keySize], b.rec[8:keySize]) < 0
}

// merge is one k-way pass over the runs on disk and the segments in
// memory, each run read through a 256 KiB buffer (the merge's memory beyond
// the record buffer, within the cap's overhead for the few runs a sweep
// makes). A spill is the same merge of the buffer's segments to a run.
func merge(dst io.Writer, runs []string, buf []byte, segs [][]entry) error {
	var h []*source
	add := func(s *source) error {
		if s.next() {
			h = append(h, s)
		}
		return s.err
	}
	for _, p := range runs {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		// The merge reads through its own buffers (as Hadoop's merger
		// does), so no kernel read-ahead (POSIX_FADV_RANDOM): with a
		// large read_ahead_kb and many runs, read-ahead would overflow the
		// memory cap and be evicted and read again before it is used.
		fadvise(f, 1)
		if err := add(&source{r: bufio.NewReaderSize(f, 256<<10)}); err != nil {
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
