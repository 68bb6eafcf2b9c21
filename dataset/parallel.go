package dataset

import (
	"context"
	"fmt"
	"golang.org/x/sys/unix"
	"math/bits"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// rowGroupTask is one row group of one file of a table.
type rowGroupTask struct {
	path string
	rg   int
}

// scanRowGroups decodes a table row group by row group on GOMAXPROCS
// workers and hands the results to fn in table order (file by file in
// manifest order, row groups in file order), so consumers see exactly what
// a sequential scan would. read runs on the workers, one row group at a
// time; it usually decodes the group with readGroup, whose decode gets
// every record of the group and must copy what it keeps: the records are
// released when it returns. cols names the columns to read (nil: all); dictCols are
// read as Arrow dictionaries, which keeps the strings of low-cardinality
// columns as ids instead of one string per row. A row group is the unit
// of reading: of a worker's task, of the page decoders (usagepages.go,
// seriespages.go), and of a string dictionary.
func scanRowGroups[B any](ctx context.Context, d *Dataset, table string, cols, dictCols []string,
	read func(ctx context.Context, g *groupReader, rg int) (B, error), fn func(B) error) error {
	var tasks []rowGroupTask
	for _, fi := range d.m.Tables[table].Files {
		path := filepath.Join(d.Dir, fi.Path)
		n, err := numRowGroups(path)
		if err != nil {
			return err
		}
		for rg := 0; rg < n; rg++ {
			tasks = append(tasks, rowGroupTask{path, rg})
		}
	}
	if len(tasks) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	// On every return, the workers are stopped and waited for: read may use
	// state the caller releases once this returns (ScanUsageBatches closes
	// its page decoders).
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	type result struct {
		b   B
		err error
	}
	workers := min(runtime.GOMAXPROCS(0), len(tasks))
	outs := make([]chan result, workers)
	for w := range outs {
		// Unbuffered: a worker holds the group it decoded until fn takes
		// it, so a scan has a batch per worker and fn's in memory, not one
		// more per worker queued (the usage table's are 24 MB each, every
		// page of them faulted in once).
		outs[w] = make(chan result)
		wg.Add(1)
		go func(w int, out chan<- result) {
			defer wg.Done()
			defer close(out)
			var rd *groupReader
			defer func() { rd.close() }()
			for i := w; i < len(tasks); i += workers {
				var r result
				if rd == nil || rd.path != tasks[i].path {
					rd.close()
					rd, r.err = openGroupReader(tasks[i].path, cols, dictCols)
				}
				if r.err == nil {
					r.b, r.err = read(ctx, rd, tasks[i].rg)
				}
				select {
				case out <- r:
				case <-ctx.Done():
					return
				}
				if r.err != nil {
					return
				}
			}
		}(w, outs[w])
	}
	for i := range tasks {
		r, ok := <-outs[i%workers]
		if !ok {
			return ctx.Err()
		}
		if r.err != nil {
			return r.err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(r.b); err != nil {
			return err
		}
	}
	return nil
}

func numRowGroups(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	pf, err := file.NewParquetReader(f)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	defer pf.Close()
	return pf.NumRowGroups(), nil
}

// groupReader reads chosen columns of one Parquet file by row group.
type groupReader struct {
	path string
	f    *os.File
	pf   *file.Reader
	fr   *pqarrow.FileReader
	cols []int // leaf column indexes; nil reads all
	// mm is the whole file mapped read-only, for the series fast path
	// (seriespages.go); mmFailed: mapping was tried and refused.
	mm       []byte
	mmFailed bool
}

func openGroupReader(path string, cols, dictCols []string) (*groupReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	g := &groupReader{path: path, f: f}
	if g.pf, err = file.NewParquetReader(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	sch := g.pf.MetaData().Schema
	// No batch size: a record reader of one row group (readGroup) reads
	// it in one batch, of the group's rows.
	props := pqarrow.ArrowReadProperties{}
	for _, name := range cols {
		i := sch.ColumnIndexByName(name)
		if i < 0 {
			g.close()
			return nil, fmt.Errorf("%s: no column %q", path, name)
		}
		g.cols = append(g.cols, i)
	}
	for _, name := range dictCols {
		if i := sch.ColumnIndexByName(name); i >= 0 {
			props.SetReadDict(i, true)
		}
	}
	if g.fr, err = pqarrow.NewFileReader(g.pf, props, &poolAllocator{}); err != nil {
		g.close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return g, nil
}

func (g *groupReader) close() {
	if g == nil {
		return
	}
	if g.pf != nil {
		g.pf.Close()
	}
	if g.mm != nil {
		unix.Munmap(g.mm)
		g.mm = nil
	}
	g.f.Close()
}

// readGroup decodes row group rg of g's file.
func readGroup[B any](ctx context.Context, g *groupReader, rg int, decode func([]arrow.Record) (B, error)) (b B, err error) {
	rr, err := g.fr.GetRecordReader(ctx, g.cols, []int{rg})
	if err != nil {
		return b, fmt.Errorf("%s: %w", g.path, err)
	}
	defer rr.Release()
	var recs []arrow.Record
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	for rr.Next() {
		rec := rr.Record()
		rec.Retain()
		recs = append(recs, rec)
	}
	if err := rr.Err(); err != nil {
		return b, fmt.Errorf("%s: %w", g.path, err)
	}
	return decode(recs)
}

// poolAllocator hands one reader's Arrow buffers back to it: decoding a
// row group allocates the same large buffers as the one before (growing
// each by doubling), and fresh memory from the Go heap costs page faults,
// zeroing and garbage collection. Buffers come in power-of-two sizes
// (so also 64-byte aligned, as Arrow wants) and are zeroed on reuse, as
// Go's allocator would. A reader is used by one goroutine; the lock is a
// guard for records released elsewhere.
type poolAllocator struct {
	mu   sync.Mutex
	free [64][][]byte
}

// poolKeep bounds the buffers kept per size.
const poolKeep = 8

func sizeClass(n int) int { return max(bits.Len(uint(n-1)), 6) }

func (p *poolAllocator) Allocate(size int) []byte {
	if size <= 0 {
		return []byte{}
	}
	c := sizeClass(size)
	p.mu.Lock()
	if k := len(p.free[c]); k > 0 {
		b := p.free[c][k-1]
		p.free[c] = p.free[c][:k-1]
		p.mu.Unlock()
		b = b[:size]
		clear(b)
		return b
	}
	p.mu.Unlock()
	return make([]byte, size, 1<<c)
}

func (p *poolAllocator) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) && cap(b) > 0 {
		old := len(b)
		b = b[:size]
		if size > old {
			clear(b[old:])
		}
		return b
	}
	nb := p.Allocate(size)
	copy(nb, b)
	p.Free(b)
	return nb
}

func (p *poolAllocator) Free(b []byte) {
	c := cap(b)
	if c < 64 || c&(c-1) != 0 {
		return // not one of ours
	}
	k := bits.Len(uint(c - 1))
	p.mu.Lock()
	if len(p.free[k]) < poolKeep {
		p.free[k] = append(p.free[k], b[:c])
	}
	p.mu.Unlock()
}
