// Command spillsort is the profiler's reference workload: an external merge
// sort with a memory budget, the shape of a MapReduce reducer or a Spark
// sort (seed 004 §2). It sorts fixed-size records (TeraSort's 100 bytes: a
// 10-byte key and a payload), keeping at most -mem bytes of records in
// memory; when the buffer fills it sorts it and spills it as a run file to
// -spill, and at the end merges the runs (one k-way pass) into the output.
// A budget at least the input's size never spills (a well-sized task).
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
	"container/heap"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
)

const (
	recSize = 100
	keySize = 10
)

func main() {
	in := flag.String("in", "", "input file of 100-byte records")
	gen := flag.String("gen", "", "generate this many bytes of records instead of reading -in (e.g. 64M)")
	seed := flag.Uint64("seed", 1, "seed of -gen")
	mem := flag.String("mem", "64M", "memory budget for records, bytes or K/M/G")
	spill := flag.String("spill", os.TempDir(), "directory for spilled runs")
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
	st, err := run(bufio.NewReaderSize(src, 1<<16), dst, budget-budget%recSize, *spill)
	if err != nil {
		fail("%v", err)
	}
	fmt.Printf("spilled_bytes=%d runs=%d records=%d\n", st.spilled, st.runs, st.records)
}

type stats struct{ spilled, runs, records int64 }

func run(src *bufio.Reader, dst io.Writer, budget int64, spillDir string) (stats, error) {
	var st stats
	fmt.Println("phase: read")
	buf := make([]byte, budget)
	idx := make([]int32, 0, budget/recSize)
	var runs []string
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
			idx = append(idx, int32(off))
		}
		sortIdx(buf, idx)
		last := err == io.EOF || err == io.ErrUnexpectedEOF
		if err != nil && !last {
			return st, err
		}
		if err == nil {
			// A buffer filled exactly by the last records is still the end:
			// such an input fits and must not spill.
			if _, perr := src.Peek(1); perr == io.EOF {
				last = true
			}
		}
		if last && len(runs) == 0 {
			// Everything fitted: the in-memory sort is the answer.
			return st, writeIdx(dst, buf, idx)
		}
		if n > 0 {
			p := filepath.Join(spillDir, fmt.Sprintf("run-%06d", len(runs)))
			if err := spillRun(p, buf, idx); err != nil {
				return st, err
			}
			runs = append(runs, p)
			st.spilled += int64(n)
			st.runs++
		}
		if last {
			break
		}
	}
	// The merge gets the budget the record buffer had: release it first.
	buf, idx = nil, nil
	debug.FreeOSMemory()
	fmt.Println("phase: merge")
	return st, merge(dst, runs, budget)
}

func sortIdx(buf []byte, idx []int32) {
	sort.Slice(idx, func(i, j int) bool {
		a, b := idx[i], idx[j]
		return bytes.Compare(buf[a:a+keySize], buf[b:b+keySize]) < 0
	})
}

func writeIdx(w io.Writer, buf []byte, idx []int32) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	for _, off := range idx {
		bw.Write(buf[off : off+recSize])
	}
	return bw.Flush()
}

func spillRun(path string, buf []byte, idx []int32) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := writeIdx(f, buf, idx); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// merge is one k-way pass over the runs, each read through a buffer that
// shares the budget.
func merge(dst io.Writer, runs []string, budget int64) error {
	// Buffers beyond 1 MiB do not make sequential reads faster.
	per := min(max(int(budget)/len(runs), 4096), 1<<20)
	h := &runHeap{}
	for _, p := range runs {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		r := &runReader{r: bufio.NewReaderSize(f, per)}
		if r.next() {
			h.rs = append(h.rs, r)
		} else if r.err != nil {
			return r.err
		}
	}
	heap.Init(h)
	bw := bufio.NewWriterSize(dst, 1<<16)
	for h.Len() > 0 {
		r := h.rs[0]
		bw.Write(r.rec[:])
		if r.next() {
			heap.Fix(h, 0)
		} else {
			if r.err != nil {
				return r.err
			}
			heap.Pop(h)
		}
	}
	return bw.Flush()
}

type runReader struct {
	r   *bufio.Reader
	rec [recSize]byte
	err error
}

func (r *runReader) next() bool {
	_, err := io.ReadFull(r.r, r.rec[:])
	if err != nil && err != io.EOF {
		r.err = err
	}
	return err == nil
}

type runHeap struct{ rs []*runReader }

func (h *runHeap) Len() int { return len(h.rs) }
func (h *runHeap) Less(i, j int) bool {
	return bytes.Compare(h.rs[i].rec[:keySize], h.rs[j].rec[:keySize]) < 0
}
func (h *runHeap) Swap(i, j int) { h.rs[i], h.rs[j] = h.rs[j], h.rs[i] }
func (h *runHeap) Push(x any)    { h.rs = append(h.rs, x.(*runReader)) }
func (h *runHeap) Pop() any {
	x := h.rs[len(h.rs)-1]
	h.rs = h.rs[:len(h.rs)-1]
	return x
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
