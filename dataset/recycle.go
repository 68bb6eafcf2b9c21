package dataset

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// A writer's batches are large (a million rows: 8 MB per int64 column), and
// a fresh slice per column per batch is fresh memory for the kernel to
// fault in and for the collector to sweep. Once the encoder goroutine has
// written a batch, the value slices of its fixed-width columns go back to
// their column writers (through spares, a small channel, since the encoder
// and the appender are different goroutines) for the batch after next.
// The Parquet encoder copies what it keeps, so nothing refers to a batch's
// values once it is written.

// spares holds slices to reuse. Writer.start calls init (initSpares)
// before the encoder goroutine runs; without it, take always makes a new
// slice and give drops.
type spares[V any] struct {
	ch   chan []V
	made int // slices take made
}

func (s *spares[V]) init() {
	if s.ch == nil {
		s.ch = make(chan []V, 2)
	}
}

// take returns an empty slice of capacity at least n: a spare one, or new.
// Once it has made one, it waits for a spare instead of making another: the
// column then has two slices, the one being filled and the one the encoder
// holds, which Writer.flush's caller gets back as soon as that batch is
// written (a third would be fresh memory for the kernel to fault in, for a
// wait that lasts only while the encoder is a batch behind).
func (s *spares[V]) take(n int) []V {
	if s.ch != nil {
		select {
		case v := <-s.ch:
			if cap(v) >= n {
				return v[:0]
			}
		default:
			if s.made > 0 {
				if v := <-s.ch; cap(v) >= n {
					return v[:0]
				}
			}
		}
	}
	s.made++
	return make([]V, 0, n)
}

// give offers v for reuse; it is dropped when enough are waiting.
func (s *spares[V]) give(v []V) {
	select {
	case s.ch <- v:
	default:
	}
}

// recycler is a column writer that can take back the buffers of an array
// it made, once that array has been written.
type recycler interface {
	recycle(a arrow.Array)
}

// bufferAs views buffer i of a as a []V, or nil.
func bufferAs[V any](a arrow.Array, i int) []V {
	bufs := a.Data().Buffers()
	if i >= len(bufs) || bufs[i] == nil || a.Data().Offset() != 0 {
		return nil
	}
	b := bufs[i].Bytes()
	var zero V
	n := len(b) / int(unsafe.Sizeof(zero))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*V)(unsafe.Pointer(&b[0])), n)[:0]
}

func (c *sliceCol[T, V]) recycle(a arrow.Array) {
	if v := bufferAs[V](a, 1); v != nil {
		c.spare.give(v)
	}
}

func (c *dictCol[T]) recycle(a arrow.Array) {
	if d, ok := a.(*array.Dictionary); ok {
		if v := bufferAs[int32](d.Indices(), 1); v != nil {
			c.spare.give(v)
		}
	}
}

// initSpares readies the spare channels of w's column writers.
func (w *Writer[T]) initSpares() {
	for _, c := range w.cols {
		switch c := c.(type) {
		case interface{ initSpare() }:
			c.initSpare()
		}
	}
}

func (c *sliceCol[T, V]) initSpare() { c.spare.init() }
func (c *dictCol[T]) initSpare()     { c.spare.init() }

// refill gives the column the slice for the next batch of n rows, once
// the last one was handed to the encoder (array left it without).
func (c *sliceCol[T, V]) refill(n int) { c.vals = c.spare.take(n) }
func (c *dictCol[T]) refill(n int)     { c.ids = c.spare.take(n) }

// refillCols gives w's column writers their slices for the next batch.
func (w *Writer[T]) refillCols(n int) {
	for _, c := range w.cols {
		if c, ok := c.(interface{ refill(int) }); ok {
			c.refill(n)
		}
	}
}

// recycleRecord hands the columns of a written batch back to their writers.
func (w *Writer[T]) recycleRecord(rec arrow.Record) {
	for i, c := range w.cols {
		if r, ok := c.(recycler); ok && i < int(rec.NumCols()) {
			r.recycle(rec.Column(i))
		}
	}
}
