package dataset

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// ReadBatchRows is the Arrow record size used when reading tables row by
// row (Scan, ReadAll; ingest's Parquet inputs). arrow/go v16 needed a whole
// row group here: its delta decoder lost its position when a batch ended
// inside a page of a nullable delta-encoded column (apache/arrow#43276).
// arrow-go v18 keeps it (TestNullableTimeColumnReadsBackPastOneBatch), so
// batches are arrow's usual size again and a reader holds 64 Ki rows, not a
// million.
const ReadBatchRows = 1 << 16

// ScanRecords calls fn with every Arrow record of a table, file by file in
// manifest order. The record is only valid during the call. Columns are
// matched by name, so files written before a column was added still read.
func (d *Dataset) ScanRecords(ctx context.Context, table string, fn func(arrow.Record) error) error {
	for _, fi := range d.m.Tables[table].Files {
		if err := scanFile(ctx, filepath.Join(d.Dir, fi.Path), fn); err != nil {
			return err
		}
	}
	return nil
}

func scanFile(ctx context.Context, path string, fn func(arrow.Record) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	pf, err := file.NewParquetReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: ReadBatchRows}, memory.DefaultAllocator)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	rr, err := fr.GetRecordReader(ctx, nil, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer rr.Release()
	for rr.Next() {
		if err := fn(rr.Record()); err != nil {
			return err
		}
	}
	if err := rr.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// Scan calls fn for every row of table t. The record passed to fn is reused
// between calls; copy it to keep it.
func Scan[T any](ctx context.Context, d *Dataset, t *Table[T], fn func(*T) error) error {
	var r T
	return d.ScanRecords(ctx, t.Name, func(rec arrow.Record) error {
		readers := make([]func(int, *T), 0, len(t.cols))
		sch := rec.Schema()
		for _, c := range t.cols {
			idx := sch.FieldIndices(c.field.Name)
			if len(idx) == 0 {
				continue // column added after this file was written: zero value
			}
			readers = append(readers, c.reader(rec.Column(idx[0])))
		}
		n := int(rec.NumRows())
		for i := 0; i < n; i++ {
			for _, rd := range readers {
				rd(i, &r)
			}
			if err := fn(&r); err != nil {
				return err
			}
		}
		return nil
	})
}

// ReadAll returns every row of table t.
func ReadAll[T any](ctx context.Context, d *Dataset, t *Table[T]) ([]T, error) {
	out := make([]T, 0, d.Rows(t.Name))
	err := Scan(ctx, d, t, func(r *T) error {
		out = append(out, *r)
		return nil
	})
	return out, err
}
