package dataset

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// BatchRows is how many rows a writer buffers before handing them to the
// Parquet encoder; each batch becomes one row group.
const BatchRows = 1 << 20

// Writer appends rows of type T to one Parquet file of a transaction.
// Encoding runs in a background goroutine, so parsing the next batch and
// compressing the previous one overlap.
type Writer[T any] struct {
	tbl     *Table[T]
	dir     string
	rel     string
	ingest  int
	batch   int
	f       *os.File
	buf     *bufio.Writer
	fw      *pqarrow.FileWriter
	sink    recordSink // the table's own encoder (Table.pages), instead of fw
	cols    []colWriter[T]
	n       int   // rows in the builder
	rows    int64 // rows handed to the encoder
	queue   chan arrow.Record
	done    chan error
	err     error
	started bool
	fdicts  []*floatDict // per column: dictionary building for float columns (floatdict.go)
	// lastRows is the rows of the last row group handed to the encoder.
	lastRows int
}

func newWriter[T any](t *Table[T], staging string, ingest int) *Writer[T] {
	batch := BatchRows
	if t.groupRows > 0 {
		batch = t.groupRows
	}
	return &Writer[T]{
		tbl: t, dir: staging, ingest: ingest, batch: batch,
		rel: fmt.Sprintf("%s/part-%06d.parquet", t.Name, ingest),
	}
}

// writerProperties encodes low-cardinality strings with dictionaries, times
// with delta encoding, and compresses everything with zstd at its default
// level. (Do not set a level: arrow/go v16 then builds a new zstd encoder
// for every page, which made ingest three times slower.)
func writerProperties[T any](t *Table[T]) *parquet.WriterProperties {
	opts := []parquet.WriterProperty{
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithCompressionLevel(parquetZstdLevelNum),
		parquet.WithDictionaryDefault(false),
		parquet.WithCreatedBy(createdBy()),
		parquet.WithMaxRowGroupLength(BatchRows),
	}
	if t.pageBytes > 0 {
		opts = append(opts, parquet.WithDataPageSize(t.pageBytes))
	}
	for path, codec := range t.codecs {
		opts = append(opts, parquet.WithCompressionFor(path, codec))
	}
	for _, c := range t.cols {
		if c.dict {
			// Statistics of a dictionary column cost a hash of every id per
			// row group (arrow computes the referenced dictionary entries),
			// more than the rest of the column; min/max of names are of
			// little use for pruning, so they are left out.
			opts = append(opts, parquet.WithDictionaryFor(c.field.Name, true), parquet.WithStatsFor(c.field.Name, false))
		}
		if c.numDict {
			// No statistics either: float columns are handed over as
			// dictionary arrays (floatdict.go), whose statistics arrow
			// computes with a hash of every id per row group.
			opts = append(opts, parquet.WithDictionaryFor(c.field.Name, true), parquet.WithStatsFor(c.field.Name, false))
		}
		if c.delta {
			opts = append(opts, parquet.WithEncodingFor(c.field.Name, parquet.Encodings.DeltaBinaryPacked))
		}
	}
	return parquet.NewWriterProperties(opts...)
}

// plainWriter hides Close from the Parquet writer so the file can be synced
// before it is closed.
type plainWriter struct{ io.Writer }

func (w *Writer[T]) start() error {
	w.started = true
	path := filepath.Join(w.dir, w.rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w.f = f
	w.buf = bufio.NewWriterSize(&writeback{f: f}, 1<<20)
	// The Arrow schema is not stored in the file: with it, readers rebuild
	// dictionary columns as Arrow dictionaries, and arrow/go cannot read
	// those across row groups whose dictionaries differ ("not
	// implemented"). Without it they read back as plain strings, which is
	// also what DuckDB and pandas see.
	w.fdicts = floatDicts(w.tbl)
	if w.tbl.pages != nil && ownPages {
		if w.sink, err = w.tbl.pages(w.buf, w.tbl.schema, writerProperties(w.tbl), w.fdicts); err != nil {
			return err
		}
	} else {
		fw, err := pqarrow.NewFileWriter(w.tbl.schema, plainWriter{w.buf}, writerProperties(w.tbl),
			pqarrow.NewArrowWriterProperties())
		if err != nil {
			return err
		}
		w.fw = fw
	}
	for _, c := range w.tbl.cols {
		w.cols = append(w.cols, c.writer(memory.DefaultAllocator))
	}
	w.initSpares()
	w.queue = make(chan arrow.Record, 1)
	w.done = make(chan error, 1)
	go func() {
		var err error
		for rec := range w.queue {
			if err == nil {
				err = w.writeRecord(rec)
			}
			// Even after an error: flush may be waiting for these
			// slices (spares.take).
			w.recycleRecord(rec)
			rec.Release()
		}
		w.done <- err
	}()
	return nil
}

// Append adds one row. It returns the first error of the writer, if any.
func (w *Writer[T]) Append(r *T) error {
	if w.err != nil {
		return w.err
	}
	if err := w.tbl.checkStrings(r); err != nil {
		return err
	}
	if !w.started {
		if w.err = w.start(); w.err != nil {
			return w.err
		}
	}
	for _, c := range w.cols {
		c.append(r)
	}
	w.n++
	if w.full() {
		w.flush()
	}
	return w.err
}

// groupHint is the rows the batch is likely to take: the last row
// group's where the table's group rule cut it, else the batch size. The
// column slices are reserved for it at once, and the recycled slices of
// a row group hold its rows, so a hint above them would allocate anew
// for every group.
func (w *Writer[T]) groupHint() int {
	if w.lastRows > 0 && w.tbl.groupDone != nil {
		return w.lastRows
	}
	return w.batch
}

// room is how many rows the batch takes before the writer asks again
// whether it is full.
func (w *Writer[T]) room() int {
	r := w.batch - w.n
	if w.tbl.groupDone != nil {
		r = min(r, groupStep-w.n%groupStep)
	}
	return r
}

// full says whether the batch is a row group: its size, or where the
// table's group rule ends it.
func (w *Writer[T]) full() bool {
	if w.n >= w.batch {
		return true
	}
	return w.tbl.groupDone != nil && w.n > 0 && w.n%groupStep == 0 && w.tbl.groupDone(w.n, w.cols)
}

// Rows is the number of rows appended so far.
func (w *Writer[T]) Rows() int64 { return w.rows + int64(w.n) }

func (w *Writer[T]) flush() {
	if n := w.n; w.send() {
		w.lastRows = n
		w.refillCols(n)
	}
}

// send hands the batch to the encoder and reports whether it took it; the
// columns are left without slices (refillCols).
func (w *Writer[T]) send() bool {
	if w.n == 0 {
		return false
	}
	arrs := make([]arrow.Array, len(w.cols))
	for i, c := range w.cols {
		arrs[i] = c.array()
	}
	rec := array.NewRecord(w.tbl.schema, arrs, int64(w.n))
	for _, a := range arrs {
		a.Release()
	}
	w.rows += int64(w.n)
	w.n = 0
	select {
	case err := <-w.done: // the encoder stopped early
		rec.Release()
		w.err = err
		w.done <- err
		return false
	case w.queue <- rec:
		return true
	}
}

func (w *Writer[T]) releaseCols() {
	for _, c := range w.cols {
		c.release()
	}
}

func (w *Writer[T]) finish() (FileInfo, bool, error) {
	if !w.started {
		return FileInfo{}, false, w.err
	}
	if w.err == nil {
		w.send() // the last batch: no slices for a next one
	}
	close(w.queue)
	if err := <-w.done; err != nil && w.err == nil {
		w.err = err
	}
	w.releaseCols()
	if w.err == nil && w.sink != nil {
		w.err = w.sink.close()
	} else if w.err == nil {
		w.err = w.fw.Close()
	}
	if w.err == nil {
		w.err = w.buf.Flush()
	}
	if w.err == nil {
		w.err = w.f.Sync()
	}
	var size int64
	if st, err := w.f.Stat(); err == nil {
		size = st.Size()
	}
	if err := w.f.Close(); err != nil && w.err == nil {
		w.err = err
	}
	w.started = false // abort has nothing left to release
	if w.err != nil {
		return FileInfo{}, false, w.err
	}
	return FileInfo{Path: w.rel, Rows: w.rows, Bytes: size, Ingest: w.ingest}, w.rows > 0, nil
}

func (w *Writer[T]) abort() {
	if !w.started {
		return
	}
	close(w.queue)
	<-w.done
	w.releaseCols()
	w.f.Close()
	w.started = false
}
