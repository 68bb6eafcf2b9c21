package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/apache/arrow/go/v16/arrow"
	"github.com/apache/arrow/go/v16/arrow/array"
	"github.com/apache/arrow/go/v16/arrow/memory"
	"github.com/apache/arrow/go/v16/parquet"
	"github.com/apache/arrow/go/v16/parquet/file"
	"github.com/apache/arrow/go/v16/parquet/pqarrow"

	"github.com/wlprof/wlprof/dataset"
)

// googleParquet reads instance_usage Parquet shards (the BigQuery export:
// INT64 columns, average_usage a struct of cpus and memory, nulls for
// absent values). Only the six leaf columns wlprof uses are decoded. Row
// numbers (1-based, across row groups) stand for line numbers in rejects.
type googleParquet struct {
	g     *googleRows
	file  string
	pf    *file.Reader
	rr    pqarrow.RecordReader
	tmp   string // decompressed copy of a compressed shard, removed on close
	notes []string

	batch arrow.Record
	n, i  int
	row   int64
	cols  googleCols

	rec  dataset.Usage
	perr *ParseError
	err  error
}

// googleCols are accessors for one record batch's columns.
type googleCols struct {
	start, end, coll, mach func(int) (int64, bool)
	cpus, mem              func(int) (float64, bool)
}

// googleLeaves are the Parquet leaf paths read; the first four are required
// (collection_id only with the collection key).
var googleLeaves = []string{"start_time", "machine_id", "average_usage.cpus", "collection_id", "end_time", "average_usage.memory"}

func newGoogleParquet(ctx context.Context, in *Input, g *googleRows) (*googleParquet, error) {
	r := &googleParquet{g: g, file: in.Path}
	var ra parquet.ReaderAtSeeker
	if data := in.Mapped(); data != nil {
		ra = bytes.NewReader(data)
	} else {
		// A compressed shard is a stream; Parquet needs its footer first.
		f, err := os.CreateTemp("", "wlprof-parquet-*")
		if err != nil {
			return nil, err
		}
		r.tmp = f.Name()
		if _, err := io.Copy(f, in.Reader()); err != nil {
			r.close()
			f.Close()
			return nil, fmt.Errorf("%s: %w", in.Path, err)
		}
		ra = f
		r.notes = append(r.notes, "decompressed to a temporary file to read the Parquet footer")
		defer func() {
			if r.pf == nil {
				f.Close()
			}
		}()
	}
	pf, err := file.NewParquetReader(ra)
	if err != nil {
		r.close()
		return nil, fmt.Errorf("%s: not a readable Parquet file: %w", in.Path, err)
	}
	r.pf = pf
	sc := pf.MetaData().Schema
	found := map[string]int{}
	for i := 0; i < sc.NumColumns(); i++ {
		found[sc.Column(i).Path()] = i
	}
	var leaves []int
	for k, name := range googleLeaves {
		i, ok := found[name]
		required := k < 3 || (k == 3 && g.key == "collection")
		if !ok && required {
			r.close()
			return nil, fmt.Errorf("%s: the Parquet shard has no column %s; is it an instance_usage shard?", in.Path, name)
		}
		if ok {
			leaves = append(leaves, i)
		}
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: dataset.ReadBatchRows}, memory.DefaultAllocator)
	if err != nil {
		r.close()
		return nil, fmt.Errorf("%s: %w", in.Path, err)
	}
	if r.rr, err = fr.GetRecordReader(ctx, leaves, nil); err != nil {
		r.close()
		return nil, fmt.Errorf("%s: %w", in.Path, err)
	}
	return r, nil
}

func (r *googleParquet) close() {
	if r.rr != nil {
		r.rr.Release()
		r.rr = nil
	}
	if r.pf != nil {
		r.pf.Close()
		r.pf = nil
	}
	if r.tmp != "" {
		os.Remove(r.tmp)
		r.tmp = ""
	}
}

func (r *googleParquet) Scan() bool {
	for r.i >= r.n {
		if r.err != nil || r.rr == nil || !r.rr.Next() {
			if r.rr != nil && r.err == nil {
				if err := r.rr.Err(); err != nil && !errors.Is(err, io.EOF) {
					r.err = fmt.Errorf("%s: %w", r.file, err)
				}
			}
			return false
		}
		r.batch = r.rr.Record()
		r.n, r.i = int(r.batch.NumRows()), 0
		if err := r.bind(r.batch); err != nil {
			r.err = fmt.Errorf("%s: %w", r.file, err)
			return false
		}
	}
	i := r.i
	r.i++
	r.row++
	c := &r.cols
	var u googleUsage
	u.start, u.hasStart = c.start(i)
	u.end, u.hasEnd = c.end(i)
	u.collection, u.hasColl = c.coll(i)
	u.machine, u.hasMach = c.mach(i)
	u.cpus, u.hasCPU = c.cpus(i)
	u.memory, u.hasMem = c.mem(i)
	r.perr = nil
	if err := r.g.record(&u, &r.rec); err != nil {
		r.perr = &ParseError{File: r.file, Line: r.row, Err: err, Record: u.text()}
	}
	return true
}

func (r *googleParquet) Record() (*dataset.Usage, *ParseError) {
	if r.perr != nil {
		return nil, r.perr
	}
	return &r.rec, nil
}

func (r *googleParquet) Err() error { return r.err }

// text renders a Parquet row for the rejects table.
func (u *googleUsage) text() string {
	f := func(name string, v int64, ok bool) string {
		if !ok {
			return name + "=null"
		}
		return name + "=" + strconv.FormatInt(v, 10)
	}
	g := func(name string, v float64, ok bool) string {
		if !ok {
			return name + "=null"
		}
		return name + "=" + strconv.FormatFloat(v, 'g', -1, 64)
	}
	return f("start_time", u.start, u.hasStart) + " " + f("end_time", u.end, u.hasEnd) + " " +
		f("collection_id", u.collection, u.hasColl) + " " + f("machine_id", u.machine, u.hasMach) + " " +
		g("average_usage.cpus", u.cpus, u.hasCPU) + " " + g("average_usage.memory", u.memory, u.hasMem)
}

// bind finds the columns of one record batch.
func (r *googleParquet) bind(rec arrow.Record) error {
	sch := rec.Schema()
	col := func(name string) arrow.Array {
		if idx := sch.FieldIndices(name); len(idx) > 0 {
			return rec.Column(idx[0])
		}
		return nil
	}
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
	c.cpus, c.mem = absentFloat, absentFloat
	if a := col("average_usage"); a != nil {
		st, ok := a.(*array.Struct)
		if !ok {
			return fmt.Errorf("column average_usage is %s, want a struct of cpus and memory", a.DataType())
		}
		typ := st.DataType().(*arrow.StructType)
		for _, name := range []string{"cpus", "memory"} {
			k, ok := typ.FieldIdx(name)
			if !ok {
				continue
			}
			f, e := floatAccessor(st.Field(k), st)
			if e != nil {
				return fmt.Errorf("column average_usage.%s: %w", name, e)
			}
			if name == "cpus" {
				c.cpus = f
			} else {
				c.mem = f
			}
		}
	}
	return err
}

func absentInt(int) (int64, bool)     { return 0, false }
func absentFloat(int) (float64, bool) { return 0, false }

// intAccessor reads an integer column of any width, or decimal strings.
func intAccessor(a arrow.Array) (func(int) (int64, bool), error) {
	switch a := a.(type) {
	case nil:
		return absentInt, nil
	case *array.Int64:
		return func(i int) (int64, bool) { return a.Value(i), a.IsValid(i) }, nil
	case *array.Uint64:
		return func(i int) (int64, bool) { return int64(a.Value(i)), a.IsValid(i) && a.Value(i) <= 1<<63-1 }, nil
	case *array.Int32:
		return func(i int) (int64, bool) { return int64(a.Value(i)), a.IsValid(i) }, nil
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
		return func(i int) (float64, bool) { return a.Value(i), parent.IsValid(i) && a.IsValid(i) }, nil
	case *array.Float32:
		return func(i int) (float64, bool) { return float64(a.Value(i)), parent.IsValid(i) && a.IsValid(i) }, nil
	}
	return nil, fmt.Errorf("type %s is not a float", a.DataType())
}
