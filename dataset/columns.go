package dataset

import (
	"math"

	"github.com/apache/arrow/go/v16/arrow"
	"github.com/apache/arrow/go/v16/arrow/array"
)

// column binds one field of a record type T to one Arrow column. Both
// directions go through a pointer accessor so each table is declared once.
type column[T any] struct {
	field arrow.Field
	dict  bool // dictionary-encode in Parquet (low-cardinality strings)
	delta bool // DELTA_BINARY_PACKED in Parquet (sorted-ish integers)
	// appender returns a function appending r's field to the builder b.
	appender func(b array.Builder) func(r *T)
	// reader returns a function copying row i of a into r's field.
	reader func(a arrow.Array) func(i int, r *T)
}

func stringCol[T any](name string, dict bool, get func(*T) *string) column[T] {
	return column[T]{
		field: arrow.Field{Name: name, Type: arrow.BinaryTypes.String},
		dict:  dict,
		appender: func(b array.Builder) func(*T) {
			sb := b.(*array.StringBuilder)
			return func(r *T) { sb.Append(*get(r)) }
		},
		reader: func(a arrow.Array) func(int, *T) {
			sa := a.(*array.String)
			return func(i int, r *T) { *get(r) = sa.Value(i) }
		},
	}
}

func int64Col[T any](name string, get func(*T) *int64) column[T] {
	return column[T]{
		field: arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Int64},
		appender: func(b array.Builder) func(*T) {
			ib := b.(*array.Int64Builder)
			return func(r *T) { ib.Append(*get(r)) }
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
		appender: func(b array.Builder) func(*T) {
			ib := b.(*array.Int32Builder)
			return func(r *T) { ib.Append(*get(r)) }
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
		appender: func(b array.Builder) func(*T) {
			bb := b.(*array.BooleanBuilder)
			return func(r *T) { bb.Append(*get(r)) }
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
		appender: func(b array.Builder) func(*T) {
			fb := b.(*array.Float64Builder)
			if !nullable {
				return func(r *T) { fb.Append(*get(r)) }
			}
			return func(r *T) {
				if v := *get(r); math.IsNaN(v) {
					fb.AppendNull()
				} else {
					fb.Append(v)
				}
			}
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
	return column[T]{
		field: arrow.Field{Name: name, Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}, Nullable: true},
		delta: true,
		appender: func(b array.Builder) func(*T) {
			tb := b.(*array.TimestampBuilder)
			return func(r *T) {
				if v := *get(r); v == NoTime {
					tb.AppendNull()
				} else {
					tb.Append(arrow.Timestamp(v))
				}
			}
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
	return column[T]{
		field: arrow.Field{Name: name, Type: arrow.ListOfField(elem)},
		appender: func(b array.Builder) func(*T) {
			lb := b.(*array.ListBuilder)
			vb := lb.ValueBuilder().(*array.Float64Builder)
			return func(r *T) {
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
			}
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
