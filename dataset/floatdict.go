package dataset

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/wlprof/wlprof/dataset/internal/pq"
)

// Float columns with Parquet dictionary pages (cpu, memory) get their
// dictionaries from pq.FloatDict, which hashes the bits of a double in a
// few instructions: the usage encoder (usagewrite.go) writes its ids and
// values as they are; pqarrow's writer, where it writes such a column, is
// handed an Arrow dictionary array built from them. Either way the file
// has a dictionary page and bit-packed ids per column chunk, read back as
// plain doubles (the Arrow schema is not stored).

// maxFloatDict is the most distinct values a batch's dictionary may have;
// with more, the batch is written as plain doubles.
const maxFloatDict = pq.MaxFloatDict

var float64DictType = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.PrimitiveTypes.Float64}

// floatDict interns one float column's doubles. One per writer and
// column, reused for every batch.
type floatDict struct{ pq.FloatDict }

// validity is a's validity bitmap, nil when it has no nulls.
func validity(a arrow.Array) []byte {
	if a.NullN() == 0 {
		return nil
	}
	return a.NullBitmapBytes()
}

// encode returns a as a dictionary array (the ids valid until the next
// encode), or nil when a has more than maxFloatDict distinct values or is
// a slice.
func (d *floatDict) encode(a *array.Float64) arrow.Array {
	if a.Data().Offset() != 0 {
		return nil
	}
	ids, dict, ok := d.Encode(a.Float64Values(), validity(a))
	if !ok {
		return nil
	}
	// The dictionary is copied: pqarrow's column writer may keep it
	// until its row group ends, and d reuses its buffer.
	dict = slices.Clone(dict)
	idData := array.NewData(arrow.PrimitiveTypes.Int32, len(ids),
		[]*memory.Buffer{a.Data().Buffers()[0], memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(ids))}, nil, a.NullN(), 0)
	defer idData.Release()
	idArr := array.NewInt32Data(idData)
	defer idArr.Release()
	dictArr := array.NewFloat64Data(array.NewData(arrow.PrimitiveTypes.Float64, len(dict),
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Float64Traits.CastToBytes(dict))}, nil, 0, 0))
	defer dictArr.Release()
	return array.NewDictionaryArray(float64DictType, idArr, dictArr)
}

// writeRecord writes one batch as one row group, as FileWriter.Write does,
// with the float dictionary columns as Arrow dictionary arrays.
func (w *Writer[T]) writeRecord(rec arrow.Record) error {
	if w.sink != nil {
		return w.sink.write(rec)
	}
	if w.fdicts == nil {
		return w.fw.Write(rec)
	}
	w.fw.NewRowGroup()
	for i, col := range rec.Columns() {
		if d := w.fdicts[i]; d != nil {
			if fa, ok := col.(*array.Float64); ok {
				if enc := d.encode(fa); enc != nil {
					err := w.fw.WriteColumnData(enc)
					enc.Release()
					if err != nil {
						return err
					}
					continue
				}
			}
		}
		if err := w.fw.WriteColumnData(col); err != nil {
			return err
		}
	}
	return nil
}

// floatDicts returns one floatDict per float column with dictionary pages,
// nil elsewhere; nil when the table has none.
func floatDicts[T any](t *Table[T]) []*floatDict {
	var ds []*floatDict
	for i, c := range t.cols {
		if c.numDict && c.field.Type.ID() == arrow.FLOAT64 {
			if ds == nil {
				ds = make([]*floatDict, len(t.cols))
			}
			ds[i] = &floatDict{}
		}
	}
	return ds
}
