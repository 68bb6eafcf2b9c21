package dataset

import (
	"os"
	"slices"
	"unsafe"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/wlprof/wlprof/dataset/internal/pq"
	"golang.org/x/sys/unix"
)

// The series values as this package writes them (uncompressed, version 1
// data pages with RLE/bit-packed levels, of PLAIN doubles or of ids into
// the chunk's PLAIN dictionary page) are read here straight from the
// file: one read of the column chunk into a buffer the worker keeps, the
// levels walked run by run (a month of a tenant is one run of repetition
// level 1 and, without gaps, one run of definition level 2), and the
// doubles copied once into their final place, or a page's ids unpacked
// and looked up there. Arrow's column reader copies the bytes three times
// on the way (into its chunk buffer, its page buffer, the decoded batch)
// and decodes every level into an array first: at 10,000 tenants that was
// 3.2 CPU seconds of classify's read, this path 1.
//
// Anything else (another writer's file, a compressed chunk, version 2
// pages, a page of more than seriesPageLevels levels, a page that does
// not add up) makes fastValues return ok=false, and the caller reads the
// chunk with arrow's column reader, which also gives the errors for a
// damaged file.

// prefault maps in a large new slice's pages with one system call
// (madvise MADV_POPULATE_WRITE, Linux 5.14). The values are then written
// once, in order, into memory the process has never touched: with a fault
// every 4 KiB page, the faults cost more than the copy itself (about 1 of
// the read's 2 CPU seconds at 10,000 tenants on this machine's VM). Where
// the kernel does not know the advice, the pages fault in as before.
func prefault(v []float64) {
	if len(v)*8 < 1<<20 {
		return
	}
	unix.Madvise(unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*8), unix.MADV_POPULATE_WRITE)
}

// mapped returns g's file mapped read-only (mapped once, unmapped by
// close), or nil where it cannot be: the fast path then reads each chunk
// with pread. Reading the chunks from the mapping saves a copy of every
// byte (0.35 CPU s at 10,000 tenants). Dataset files are never changed
// once committed (a transaction writes new files), so the mapping cannot
// shrink under the reader.
func (g *groupReader) mapped() []byte {
	if g.mm != nil || g.mmFailed {
		return g.mm
	}
	g.mmFailed = true
	fi, err := g.f.Stat()
	if err != nil || fi.Size() <= 0 || fi.Size() > 1<<40 {
		return nil
	}
	mm, err := unix.Mmap(int(g.f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil
	}
	g.mm, g.mmFailed = mm, false
	return mm
}

// chunkBytes returns the size bytes at off of a file: from mm, the file
// mapped, or when mm is nil read with pread into *buf (grown when too
// small, and kept by the caller for the next chunk). False when they are
// not all there.
func chunkBytes(mm []byte, f *os.File, off, size int64, buf *[]byte) ([]byte, bool) {
	if off < 0 || size <= 0 || size > 1<<31 {
		return nil, false
	}
	if mm != nil {
		if off > int64(len(mm)) || size > int64(len(mm))-off {
			return nil, false
		}
		return mm[off : off+size], true
	}
	*buf = slices.Grow((*buf)[:0], int(size))[:size]
	if n, err := f.ReadAt(*buf, off); err != nil || int64(n) != size {
		return nil, false
	}
	return *buf, true
}

// pageScratch is one worker's reusable buffers of the fast path.
type pageScratch struct {
	chunk []byte
	list  pq.ListScratch
}

// fastValues reads the values chunk cc (leaf with maximum definition
// level 2 and repetition level 1: optional doubles in a list) of a row
// group of rows rows. It returns the elements (nulls as NaN) and each
// row's start in them (rows+1 entries). The elements go into dst when it
// is large enough (a buffer the caller reuses from group to group), else
// into a new slice. The chunk (from its dictionary page, when it has one)
// is read from mm (the file mapped) or, when mm is nil, from f;
// pq.DoubleLists decodes it.
func fastValues(dst []float64, mm []byte, f *os.File, cc *metadata.ColumnChunkMetaData, maxDef, maxRep int16, rows int, ps *pageScratch) (all []float64, starts []int, ok bool) {
	if !pq.LittleEndian || maxDef != 2 || maxRep != 1 || cc.Type() != parquet.Types.Double ||
		cc.Compression() != compress.Codecs.Uncompressed {
		return nil, nil, false
	}
	off, size, levels := cc.DataPageOffset(), cc.TotalCompressedSize(), cc.NumValues()
	if cc.HasDictionaryPage() {
		// The chunk (and TotalCompressedSize) starts at its dictionary
		// page, which comes before the data pages.
		if d := cc.DictionaryPageOffset(); d > 0 && d < off {
			off = d
		} else {
			return nil, nil, false
		}
	}
	if off < 0 || size <= 0 || size > 1<<31 || levels < 0 {
		return nil, nil, false
	}
	b, bok := chunkBytes(mm, f, off, size, &ps.chunk)
	if !bok {
		return nil, nil, false
	}
	// The page headers must count the levels the footer does, each page
	// at most the writer's seriesPageLevels, before a buffer is sized by
	// them: dictionary ids and level runs take a few bytes for thousands
	// of levels, so the chunk's size bounds nothing.
	if hl, hok := pq.DataLevels(b, seriesPageLevels); !hok || hl != levels {
		return nil, nil, false
	}
	if int64(cap(dst)) >= levels {
		all = dst[:levels]
	} else {
		all = make([]float64, levels)
		prefault(all)
	}
	n, starts, ok := pq.DoubleLists(b, levels, rows, all, make([]int, 0, rows+1), &ps.list)
	if mm != nil {
		// Drop the chunk's pages from this mapping (the page cache keeps
		// them): otherwise the whole file counts in the process's RSS.
		pg := int64(os.Getpagesize())
		lo, hi := off/pg*pg, min((off+size+pg-1)/pg*pg, int64(len(mm)))
		unix.Madvise(mm[lo:hi], unix.MADV_DONTNEED)
	}
	if !ok {
		return nil, nil, false
	}
	return all[:n], starts, true // capacity kept: ScanSeries reuses the buffer
}
