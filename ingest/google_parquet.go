package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/wlprof/wlprof/dataset"
)

// parquetInput is an opened Parquet input read by record batches, with
// only the leaf columns a format needs decoded.
type parquetInput struct {
	path  string
	pf    *file.Reader
	rr    pqarrow.RecordReader
	tmp   string // decompressed copy of a compressed file, removed on close
	notes []string
}

// openParquet opens in and selects the leaf columns named in want (dotted
// paths); a missing column for which required says true refuses the file.
func openParquet(ctx context.Context, in *Input, want []string, required func(string) bool, what string) (*parquetInput, error) {
	p := &parquetInput{path: in.Path}
	var ra parquet.ReaderAtSeeker
	if data := in.Mapped(); data != nil {
		ra = bytes.NewReader(data)
	} else {
		// A compressed file is a stream; Parquet needs its footer first.
		f, err := os.CreateTemp("", "wlprof-parquet-*")
		if err != nil {
			return nil, err
		}
		p.tmp = f.Name()
		if _, err := io.Copy(f, in.Reader()); err != nil {
			f.Close()
			p.close()
			return nil, fmt.Errorf("%s: %w", in.Path, err)
		}
		ra = f
		p.notes = append(p.notes, "decompressed to a temporary file to read the Parquet footer")
	}
	pf, err := file.NewParquetReader(ra)
	if err != nil {
		if c, ok := ra.(io.Closer); ok {
			c.Close()
		}
		p.close()
		return nil, fmt.Errorf("%s: not a readable Parquet file: %w", in.Path, err)
	}
	p.pf = pf
	sc := pf.MetaData().Schema
	found := map[string]int{}
	for i := 0; i < sc.NumColumns(); i++ {
		found[sc.Column(i).Path()] = i
	}
	var leaves []int
	for _, name := range want {
		i, ok := found[name]
		if !ok {
			// A list (or struct) column: its leaves are under name.
			for j := 0; j < sc.NumColumns(); j++ {
				if strings.HasPrefix(sc.Column(j).Path(), name+".") {
					leaves, ok = append(leaves, j), true
				}
			}
			if ok {
				continue
			}
		}
		if !ok && required(name) {
			p.close()
			return nil, fmt.Errorf("%s: the Parquet file has no column %s; is it %s?", in.Path, name, what)
		}
		if ok {
			leaves = append(leaves, i)
		}
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: dataset.ReadBatchRows}, memory.DefaultAllocator)
	if err != nil {
		p.close()
		return nil, fmt.Errorf("%s: %w", in.Path, err)
	}
	if p.rr, err = fr.GetRecordReader(ctx, leaves, nil); err != nil {
		p.close()
		return nil, fmt.Errorf("%s: %w", in.Path, err)
	}
	return p, nil
}

// next returns the next record batch, or nil at the end.
func (p *parquetInput) next() (arrow.Record, error) {
	if p.rr == nil || !p.rr.Next() {
		if p.rr != nil {
			if err := p.rr.Err(); err != nil && !errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("%s: %w", p.path, err)
			}
		}
		return nil, nil
	}
	return p.rr.Record(), nil
}

// Notes are what opening the shard noted (drain records them: Noter).
func (p *parquetInput) Notes() []string { return p.notes }

// parquetReader is a format's reader over an opened Parquet shard.
type parquetReader[T any] interface {
	Reader[T]
	close()
}

// drainParquet drains the reader open returns into w. The Parquet decoder
// may panic on a corrupt file; that is the file's error, not a crash.
func drainParquet[T any](ctx context.Context, s *sink, in *Input, open func() (parquetReader[T], error), w appender[T]) (err error) {
	defer func() {
		if e := recover(); e != nil {
			err = fmt.Errorf("%s: corrupt Parquet file (%v)", in.Path, e)
		}
	}()
	r, err := open()
	if err != nil {
		return err
	}
	defer r.close()
	return drain[T](ctx, s, r, w)
}

// structFloats reads float children of a struct column (col, its name
// for messages): one accessor per name, absent (null) where the column or
// the child is missing; a null struct is null.
func structFloats(a arrow.Array, col string, names ...string) ([]func(int) (float64, bool), error) {
	out := make([]func(int) (float64, bool), len(names))
	for i := range out {
		out[i] = absentFloat
	}
	if a == nil {
		return out, nil
	}
	st, ok := a.(*array.Struct)
	if !ok {
		return nil, fmt.Errorf("column %s is %s, want a struct of %s", col, a.DataType(), strings.Join(names, " and "))
	}
	typ := st.DataType().(*arrow.StructType)
	for i, name := range names {
		k, ok := typ.FieldIdx(name)
		if !ok {
			continue
		}
		f, err := floatAccessor(st.Field(k), st)
		if err != nil {
			return nil, fmt.Errorf("column %s.%s: %w", col, name, err)
		}
		out[i] = f
	}
	return out, nil
}

func (p *parquetInput) close() {
	if p.rr != nil {
		p.rr.Release()
		p.rr = nil
	}
	if p.pf != nil {
		p.pf.Close()
		p.pf = nil
	}
	if p.tmp != "" {
		os.Remove(p.tmp)
		p.tmp = ""
	}
}

// column returns the named top-level column of a batch, or nil.
func column(rec arrow.Record, name string) arrow.Array {
	if idx := rec.Schema().FieldIndices(name); len(idx) > 0 {
		return rec.Column(idx[0])
	}
	return nil
}

// parquetRow is the row cursor and current record of a Parquet reader:
// batch rows n, the next one i, the row number (1-based across row
// groups, the line number of rejects), and the record or reject read; it
// gives the Reader methods every format's Parquet reader shares.
type parquetRow[T any] struct {
	n, i int
	row  int64
	rec  T
	perr *ParseError
	err  error
}

// Line is where the reader is: the current record's row.
func (r *parquetRow[T]) Line() int64 { return r.row }

func (r *parquetRow[T]) Record() (*T, *ParseError) {
	if r.perr != nil {
		return nil, r.perr
	}
	return &r.rec, nil
}

func (r *parquetRow[T]) Err() error { return r.err }

// nextRow moves to the next row and returns its index in the batch,
// reading the next batch from p and binding its columns when the one
// read is used up; false at the end or on an error (kept in r.err, a
// bind error named by p's path).
func (r *parquetRow[T]) nextRow(p *parquetInput, bind func(arrow.Record) error) (int, bool) {
	for r.i >= r.n {
		if r.err != nil {
			return 0, false
		}
		batch, err := p.next()
		if err != nil || batch == nil {
			r.err = err
			return 0, false
		}
		r.n, r.i = int(batch.NumRows()), 0
		if err := bind(batch); err != nil {
			r.err = fmt.Errorf("%s: %w", p.path, err)
			return 0, false
		}
	}
	i := r.i
	r.i++
	r.row++
	return i, true
}

// googleParquet reads instance_usage Parquet shards (the BigQuery export:
// INT64 columns, average_usage a struct of cpus and memory, nulls for
// absent values). Only the leaf columns wlprof uses are decoded. Row
// numbers (1-based, across row groups) stand for line numbers in rejects.
type googleParquet struct {
	*parquetInput
	parquetRow[googleSample]
	g    *googleRows
	file string

	batch arrow.Record
	cols  googleCols
}

// googleCols are accessors for one record batch's columns.
type googleCols struct {
	start, end, coll, mach, inst, alloc func(int) (int64, bool)
	cpus, mem                           func(int) (float64, bool)
}

// googleLeaves are the Parquet leaf paths read. alloc_collection_id is read
// only with --tenant-key machine, the one key it changes (googleRows.record);
// a shard without it is read as having no alloc sets.
var googleLeaves = []string{"start_time", "machine_id", "average_usage.cpus", "collection_id", "end_time", "average_usage.memory", "instance_index"}

func newGoogleParquet(ctx context.Context, in *Input, g *googleRows) (*googleParquet, error) {
	required := func(name string) bool {
		switch name {
		case "start_time", "machine_id", "average_usage.cpus":
			return true
		case "collection_id":
			return g.key != "machine"
		}
		return false
	}
	leaves := googleLeaves
	if g.key == "machine" {
		leaves = append(leaves[:len(leaves):len(leaves)], "alloc_collection_id")
	}
	p, err := openParquet(ctx, in, leaves, required, "an instance_usage shard")
	if err != nil {
		return nil, err
	}
	return &googleParquet{parquetInput: p, g: g, file: in.Path}, nil
}

func (r *googleParquet) Scan() bool {
	i, ok := r.nextRow(r.parquetInput, r.bind)
	if !ok {
		return false
	}
	c := &r.cols
	var u googleUsage
	u.start, u.hasStart = c.start(i)
	u.end, u.hasEnd = c.end(i)
	u.collection, u.hasColl = c.coll(i)
	u.machine, u.hasMach = c.mach(i)
	u.instance, u.hasInst = c.inst(i)
	u.alloc, u.hasAlloc = c.alloc(i)
	u.cpus, u.hasCPU = c.cpus(i)
	u.memory, u.hasMem = c.mem(i)
	r.perr = nil
	if err := r.g.record(&u, &r.rec); err != nil {
		r.perr = &ParseError{File: r.file, Line: r.row, Err: err, Record: u.text()}
	}
	r.rec.line = r.row
	return true
}

// intField and floatField render a Parquet value for the rejects table:
// name=value, or name=null.
func intField(name string, v int64, ok bool) string {
	if !ok {
		return name + "=null"
	}
	return name + "=" + strconv.FormatInt(v, 10)
}

func floatField(name string, v float64, ok bool) string {
	if !ok {
		return name + "=null"
	}
	return name + "=" + strconv.FormatFloat(v, 'g', -1, 64)
}

// text renders a Parquet row for the rejects table.
func (u *googleUsage) text() string {
	f, g := intField, floatField
	alloc := "" // read only for --tenant-key machine: null would say more than we know
	if u.hasAlloc {
		alloc = f("alloc_collection_id", u.alloc, true) + " "
	}
	return f("start_time", u.start, u.hasStart) + " " + f("end_time", u.end, u.hasEnd) + " " +
		f("collection_id", u.collection, u.hasColl) + " " + f("instance_index", u.instance, u.hasInst) + " " +
		f("machine_id", u.machine, u.hasMach) + " " + alloc +
		g("average_usage.cpus", u.cpus, u.hasCPU) + " " + g("average_usage.memory", u.memory, u.hasMem)
}

// bind finds the columns of one record batch.
func (r *googleParquet) bind(rec arrow.Record) error {
	r.batch = rec
	col := func(name string) arrow.Array { return column(rec, name) }
	var err error
	ints := func(name string) func(int) (int64, bool) {
		f, e := intAccessor(col(name))
		if e != nil && err == nil {
			err = fmt.Errorf("column %s: %w", name, e)
		}
		return f
	}
	c := &r.cols
	c.start, c.end, c.coll, c.mach = ints("start_time"), ints("end_time"), ints("collection_id"), ints("machine_id")
	c.inst, c.alloc = ints("instance_index"), ints("alloc_collection_id")
	fs, e := structFloats(col("average_usage"), "average_usage", "cpus", "memory")
	if e != nil {
		return e
	}
	c.cpus, c.mem = fs[0], fs[1]
	return err
}

func absentInt(int) (int64, bool)     { return 0, false }
func absentFloat(int) (float64, bool) { return 0, false }

// intAccessor reads an integer column of any width, or decimal strings.
// A null reads as (0, false), not as what the null slot holds: records
// must not depend on the bytes under a null (FuzzGoogleUsageParquet).
func intAccessor(a arrow.Array) (func(int) (int64, bool), error) {
	switch a := a.(type) {
	case nil:
		return absentInt, nil
	case *array.Int64:
		return func(i int) (int64, bool) {
			if !a.IsValid(i) {
				return 0, false
			}
			return a.Value(i), true
		}, nil
	case *array.Uint64:
		return func(i int) (int64, bool) {
			if !a.IsValid(i) || a.Value(i) > 1<<63-1 {
				return 0, false
			}
			return int64(a.Value(i)), true
		}, nil
	case *array.Int32:
		return func(i int) (int64, bool) {
			if !a.IsValid(i) {
				return 0, false
			}
			return int64(a.Value(i)), true
		}, nil
	case *array.String:
		return func(i int) (int64, bool) {
			if !a.IsValid(i) {
				return 0, false
			}
			v, err := strconv.ParseInt(a.Value(i), 10, 64)
			return v, err == nil
		}, nil
	}
	return nil, fmt.Errorf("type %s is not an integer", a.DataType())
}

// floatAccessor reads a float child of a struct; a null struct is null.
func floatAccessor(a arrow.Array, parent *array.Struct) (func(int) (float64, bool), error) {
	switch a := a.(type) {
	case *array.Float64:
		return func(i int) (float64, bool) {
			if !parent.IsValid(i) || !a.IsValid(i) {
				return 0, false
			}
			return a.Value(i), true
		}, nil
	case *array.Float32:
		return func(i int) (float64, bool) {
			if !parent.IsValid(i) || !a.IsValid(i) {
				return 0, false
			}
			return float64(a.Value(i)), true
		}, nil
	}
	return nil, fmt.Errorf("type %s is not a float", a.DataType())
}

func stringAccessor(a arrow.Array) (func(int) (string, bool), error) {
	switch a := a.(type) {
	case nil:
		return func(int) (string, bool) { return "", false }, nil
	case *array.String:
		return func(i int) (string, bool) { return a.Value(i), a.IsValid(i) }, nil
	case *array.Binary:
		return func(i int) (string, bool) { return string(a.Value(i)), a.IsValid(i) }, nil
	}
	return nil, fmt.Errorf("type %s is not a string", a.DataType())
}
