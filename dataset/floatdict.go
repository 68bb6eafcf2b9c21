package dataset

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Float columns with Parquet dictionary pages (cpu, memory) are handed to
// the Parquet writer as Arrow dictionary arrays built here, instead of as
// plain doubles: arrow/go v16's float dictionary encoder boxes every value
// into an interface to hash it (an allocation and a generic hash per row),
// while this table hashes the bits of a double in a few instructions. The
// file is the same: a dictionary page and bit-packed ids per column chunk,
// read back as plain doubles (the Arrow schema is not stored).

const (
	// maxFloatDict is the most distinct values a batch's dictionary may
	// have; with more, the batch goes to Parquet as plain doubles (plain
	// pages: pqarrow's encoder falls back to them by itself, the usage
	// encoder writes them). 65536 doubles are
	// 512 KiB, under Parquet's 1 MiB dictionary page limit.
	maxFloatDict = 1 << 16
	// floatDictBits sizes the open-addressing table: twice maxFloatDict.
	floatDictBits = 17
)

var float64DictType = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.PrimitiveTypes.Float64}

// floatDict interns doubles by their bits. One per writer, reset per batch.
type floatDict struct {
	keys []uint64
	slot []int32 // id+1 of keys[i]; 0 is an empty slot
	ids  []int32 // the last batch's ids, reused once it is written
}

// encode returns a as a dictionary array, valid until the next encode
// (ids in order of first appearance, NaN payloads kept apart by their
// bits), or nil when a has more than maxFloatDict distinct values or is a
// slice.
func (d *floatDict) encode(a *array.Float64) arrow.Array {
	if a.Data().Offset() != 0 {
		return nil
	}
	if d.keys == nil {
		d.keys = make([]uint64, 1<<floatDictBits)
		d.slot = make([]int32, 1<<floatDictBits)
	} else {
		clear(d.slot)
	}
	vals := a.Float64Values()
	if cap(d.ids) < len(vals) {
		d.ids = make([]int32, len(vals))
	}
	ids := d.ids[:len(vals)]
	var dict []float64
	const mask = 1<<floatDictBits - 1
	hasNulls := a.NullN() > 0
	for i, v := range vals {
		if hasNulls && a.IsNull(i) {
			ids[i] = 0
			continue
		}
		k := math.Float64bits(v)
		h := (k * 0x9E3779B97F4A7C15) >> (64 - floatDictBits)
		for {
			s := d.slot[h]
			if s == 0 {
				if len(dict) == maxFloatDict {
					return nil
				}
				dict = append(dict, v)
				d.keys[h] = k
				d.slot[h] = int32(len(dict))
				ids[i] = int32(len(dict) - 1)
				break
			}
			if d.keys[h] == k {
				ids[i] = s - 1
				break
			}
			h = (h + 1) & mask
		}
	}
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
	if arrowFor["floatdict"] && (t.pages == nil || !ownPages) {
		return nil
	}
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
