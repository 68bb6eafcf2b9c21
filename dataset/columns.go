package dataset

import (
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/wlprof/wlprof/internal/strtab"
)

// column binds one field of a record type T to one Arrow column. Both
// directions go through a pointer accessor so each table is declared once.
type column[T any] struct {
	field   arrow.Field
	dict    bool // dictionary-encoded strings (Arrow dictionary, Parquet dictionary pages)
	delta   bool // DELTA_BINARY_PACKED in Parquet (sorted-ish integers)
	numDict bool // Parquet dictionary pages for a numeric column
	// writer returns a fresh column writer; one per table writer.
	writer func(mem memory.Allocator) colWriter[T]
	// reader returns a function copying row i of a into r's field.
	reader func(a arrow.Array) func(i int, r *T)
	// str is the field of a string column, checked for UTF-8 on append.
	str func(*T) *string
}

// colWriter accumulates one column of a batch.
type colWriter[T any] interface {
	append(r *T)
	// array returns the batch's column and starts a new batch.
	array() arrow.Array
	release()
}

// builderCol is a colWriter over an Arrow builder.
type builderCol[T any, B array.Builder] struct {
	b   B
	app func(b B, r *T)
}

func (c *builderCol[T, B]) append(r *T)        { c.app(c.b, r) }
func (c *builderCol[T, B]) array() arrow.Array { return c.b.NewArray() }
func (c *builderCol[T, B]) release()           { c.b.Release() }

func newBuilderCol[T any, B array.Builder](b B, app func(B, *T)) colWriter[T] {
	return &builderCol[T, B]{b: b, app: app}
}

// sliceCol is a colWriter for fixed-width values: appending is a slice
// append, and the batch's slice becomes the Arrow buffer without a copy.
// The validity bitmap is made at the first null (all set before it, and in
// every byte added later), so a column without nulls has none.
type sliceCol[T any, V int32 | int64 | float64] struct {
	typ   arrow.DataType
	width int
	get   func(*T) (V, bool) // value, and false for null
	vals  []V
	valid []byte // nil until the first null
	nullN int
	spare spares[V] // value slices the encoder is done with (recycle.go)
	// dirty: a value (not a null's zero) was written, to vals or to a
	// slice that may come back as a spare; until then every slice the
	// column has is zeros, and appendNulls need not clear.
	dirty bool
}

func (c *sliceCol[T, V]) append(r *T) {
	v, ok := c.get(r)
	if !ok {
		c.setNull(len(c.vals))
	} else {
		c.dirty = true
	}
	c.vals = append(c.vals, v)
}

// setNull marks row i null.
func (c *sliceCol[T, V]) setNull(i int) {
	for len(c.valid) <= i>>3 {
		c.valid = append(c.valid, 0xff)
	}
	bitutil.ClearBit(c.valid, i)
	c.nullN++
}

func (c *sliceCol[T, V]) array() arrow.Array {
	n := len(c.vals)
	var raw []byte
	if n > 0 {
		raw = unsafe.Slice((*byte)(unsafe.Pointer(&c.vals[0])), n*c.width)
	}
	bufs := []*memory.Buffer{nil, memory.NewBufferBytes(raw)}
	nullN := 0
	if c.nullN > 0 {
		for len(c.valid) < int(bitutil.BytesForBits(int64(n))) {
			c.valid = append(c.valid, 0xff)
		}
		bufs[0] = memory.NewBufferBytes(c.valid)
		nullN = c.nullN
	}
	data := array.NewData(c.typ, n, bufs, nil, nullN, 0)
	defer data.Release()
	c.vals = nil // the array owns the old slice now; refill takes the next
	c.valid, c.nullN = nil, 0
	return array.MakeFromData(data)
}

func (c *sliceCol[T, V]) release() {}

func newSliceCol[T any, V int32 | int64 | float64](typ arrow.DataType, get func(*T) (V, bool)) colWriter[T] {
	var zero V
	return &sliceCol[T, V]{typ: typ, width: int(unsafe.Sizeof(zero)), get: get}
}

func stringCol[T any](name string, dict bool, get func(*T) *string) column[T] {
	c := column[T]{field: arrow.Field{Name: name, Type: arrow.BinaryTypes.String}, dict: dict, str: get,
		reader: func(a arrow.Array) func(int, *T) {
			if d, ok := a.(*array.Dictionary); ok {
				vals := d.Dictionary().(*array.String)
				return func(i int, r *T) { *get(r) = vals.Value(d.GetValueIndex(i)) }
			}
			sa := a.(*array.String)
			return func(i int, r *T) { *get(r) = sa.Value(i) }
		},
	}
	if dict {
		dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
		c.field.Type = dt
		c.writer = func(mem memory.Allocator) colWriter[T] {
			return &dictCol[T]{get: get, typ: dt, mem: mem, tab: strtab.New()}
		}
		return c
	}
	c.writer = func(mem memory.Allocator) colWriter[T] {
		return newBuilderCol(array.NewStringBuilder(mem), func(b *array.StringBuilder, r *T) { b.Append(*get(r)) })
	}
	return c
}

// dictCol writes a low-cardinality string column as an Arrow dictionary
// array: ids from an interning table, and the table's strings as the
// dictionary. Parquet then writes the ids directly instead of hashing every
// value again.
type dictCol[T any] struct {
	get   func(*T) *string
	typ   *arrow.DictionaryType
	mem   memory.Allocator
	tab   *strtab.Table
	ids   []int32
	spare spares[int32] // id slices the encoder is done with (recycle.go)
}

func (c *dictCol[T]) append(r *T) { c.ids = append(c.ids, c.tab.String(*c.get(r))) }

func (c *dictCol[T]) array() arrow.Array {
	ids := array.NewInt32Data(array.NewData(arrow.PrimitiveTypes.Int32, len(c.ids),
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(c.ids))}, nil, 0, 0))
	defer ids.Release()
	c.ids = nil // the array owns the old slice now; refill takes the next
	sb := array.NewStringBuilder(c.mem)
	defer sb.Release()
	sb.AppendValues(c.tab.Strings(), nil)
	dict := sb.NewArray()
	defer dict.Release()
	return array.NewDictionaryArray(c.typ, ids, dict)
}

func (c *dictCol[T]) release() {}

func int64Col[T any](name string, get func(*T) *int64) column[T] {
	return column[T]{
		field: arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Int64},
		writer: func(mem memory.Allocator) colWriter[T] {
			return newSliceCol(arrow.PrimitiveTypes.Int64, func(r *T) (int64, bool) { return *get(r), true })
		},
		reader: func(a arrow.Array) func(int, *T) {
			v := a.(*array.Int64).Int64Values()
			return func(i int, r *T) { *get(r) = v[i] }
		},
	}
}

func int32Col[T any](name string, get func(*T) *int32) column[T] {
	return column[T]{
		field: arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Int32},
		writer: func(mem memory.Allocator) colWriter[T] {
			return newSliceCol(arrow.PrimitiveTypes.Int32, func(r *T) (int32, bool) { return *get(r), true })
		},
		reader: func(a arrow.Array) func(int, *T) {
			v := a.(*array.Int32).Int32Values()
			return func(i int, r *T) { *get(r) = v[i] }
		},
	}
}

func boolCol[T any](name string, get func(*T) *bool) column[T] {
	return column[T]{
		field: arrow.Field{Name: name, Type: arrow.FixedWidthTypes.Boolean},
		writer: func(mem memory.Allocator) colWriter[T] {
			return newBuilderCol(array.NewBooleanBuilder(mem), func(b *array.BooleanBuilder, r *T) { b.Append(*get(r)) })
		},
		reader: func(a arrow.Array) func(int, *T) {
			ba := a.(*array.Boolean)
			return func(i int, r *T) { *get(r) = ba.Value(i) }
		},
	}
}

// float64Col stores NaN as null when nullable is set, so readers in other
// tools see a missing value rather than a NaN.
func float64Col[T any](name string, nullable bool, get func(*T) *float64) column[T] {
	return column[T]{
		field: arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Float64, Nullable: nullable},
		writer: func(mem memory.Allocator) colWriter[T] {
			if !nullable {
				return newSliceCol(arrow.PrimitiveTypes.Float64, func(r *T) (float64, bool) { return *get(r), true })
			}
			return newSliceCol(arrow.PrimitiveTypes.Float64, func(r *T) (float64, bool) {
				v := *get(r)
				if v != v { // NaN
					return 0, false
				}
				return v, true
			})
		},
		reader: func(a arrow.Array) func(int, *T) {
			fa := a.(*array.Float64)
			v := fa.Float64Values()
			if fa.NullN() == 0 {
				return func(i int, r *T) { *get(r) = v[i] }
			}
			return func(i int, r *T) {
				if fa.IsNull(i) {
					*get(r) = math.NaN()
				} else {
					*get(r) = v[i]
				}
			}
		},
	}
}

// timeCol stores milliseconds since the epoch as a UTC Arrow timestamp;
// NoTime becomes null.
func timeCol[T any](name string, get func(*T) *int64) column[T] {
	typ := &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}
	return column[T]{
		field: arrow.Field{Name: name, Type: typ, Nullable: true},
		delta: true,
		writer: func(mem memory.Allocator) colWriter[T] {
			return newSliceCol(typ, func(r *T) (int64, bool) {
				if v := *get(r); v != NoTime {
					return v, true
				}
				return 0, false
			})
		},
		reader: func(a arrow.Array) func(int, *T) {
			ta := a.(*array.Timestamp)
			v := ta.TimestampValues()
			return func(i int, r *T) {
				if ta.IsNull(i) {
					*get(r) = NoTime
				} else {
					*get(r) = int64(v[i])
				}
			}
		},
	}
}

// float64ListCol stores a slice as an Arrow list; NaN elements become nulls.
func float64ListCol[T any](name string, get func(*T) *[]float64) column[T] {
	elem := arrow.Field{Name: "element", Type: arrow.PrimitiveTypes.Float64, Nullable: true}
	typ := arrow.ListOfField(elem)
	return column[T]{
		field: arrow.Field{Name: name, Type: typ},
		writer: func(mem memory.Allocator) colWriter[T] {
			lb := array.NewListBuilderWithField(mem, elem)
			vb := lb.ValueBuilder().(*array.Float64Builder)
			return newBuilderCol(lb, func(lb *array.ListBuilder, r *T) {
				lb.Append(true)
				vals := *get(r)
				vb.Reserve(len(vals))
				for _, x := range vals {
					if math.IsNaN(x) {
						vb.AppendNull()
					} else {
						vb.UnsafeAppend(x)
					}
				}
			})
		},
		reader: func(a arrow.Array) func(int, *T) {
			la := a.(*array.List)
			va := la.ListValues().(*array.Float64)
			vals := va.Float64Values()
			return func(i int, r *T) {
				start, end := la.ValueOffsets(i)
				out := make([]float64, end-start)
				for j := start; j < end; j++ {
					if va.IsNull(int(j)) {
						out[j-start] = math.NaN()
					} else {
						out[j-start] = vals[j]
					}
				}
				*get(r) = out
			}
		},
	}
}

// withDict asks for Parquet dictionary pages on a numeric column. Sampled
// utilisation has few distinct values (a few decimals in [0,1]), so ids
// bit-packed against a dictionary are several times smaller than the
// doubles and cheaper to compress; Parquet falls back to plain pages by
// itself when a column has too many distinct values.
func withDict[T any](c column[T]) column[T] {
	c.numDict = true
	return c
}
