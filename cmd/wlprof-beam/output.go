package main

import (
	"encoding/csv"
	"io"
	"path/filepath"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/wlprof/wlprof/fft"
)

// Output files in the --out directory.
const (
	classifyJSON   = "classify.json"   // exactly wlprof classify -o json
	tenantsParquet = "tenants.parquet" // one row per tenant
	classesParquet = "classes.parquet" // one row per class
	rejectsCSV     = "rejects.csv"     // file,line,col,format,reason,record
)

func dirOf(path string) string { return filepath.Dir(path) }

// writeResults writes classify.json and the Parquet tables of res.
func writeResults(dir string, res *fft.Result) error {
	doc := res.Document()
	if err := writeFileAtomic(filepath.Join(dir, classifyJSON), func(w io.Writer) error { return writeJSON(w, doc) }); err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(dir, tenantsParquet), func(w io.Writer) error { return tenantsTable(w, res.Tenants) }); err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, classesParquet), func(w io.Writer) error { return classesTable(w, res.Classes) })
}

// writeRejects writes the rejected records as CSV with a header (an empty
// file but for the header when there are none).
func writeRejects(dir string, rows []rejectRow) error {
	return writeFileAtomic(filepath.Join(dir, rejectsCSV), func(w io.Writer) error {
		cw := csv.NewWriter(w)
		cw.Write([]string{"file", "line", "col", "format", "reason", "record"})
		for _, r := range rows {
			cw.Write([]string{r.File, strconv.FormatInt(r.Line, 10), strconv.Itoa(int(r.Col)), r.Format, r.Reason, r.Record})
		}
		cw.Flush()
		return cw.Error()
	})
}

// column is one column of a results table: its field and how to append
// row i.
type column struct {
	field arrow.Field
	add   func(b array.Builder, i int)
}

func str(name string, v func(i int) string) column {
	return column{arrow.Field{Name: name, Type: arrow.BinaryTypes.String},
		func(b array.Builder, i int) { b.(*array.StringBuilder).Append(v(i)) }}
}

func f64(name string, v func(i int) float64) column {
	return column{arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Float64},
		func(b array.Builder, i int) { b.(*array.Float64Builder).Append(v(i)) }}
}

func optF64(name string, v func(i int) *float64) column {
	return column{arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		func(b array.Builder, i int) {
			if p := v(i); p != nil {
				b.(*array.Float64Builder).Append(*p)
			} else {
				b.AppendNull()
			}
		}}
}

func i64(name string, v func(i int) int64) column {
	return column{arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Int64},
		func(b array.Builder, i int) { b.(*array.Int64Builder).Append(v(i)) }}
}

// writeTable writes n rows of cols as one Parquet file (zstd).
func writeTable(w io.Writer, n int, cols []column) error {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = c.field
	}
	schema := arrow.NewSchema(fields, nil)
	rb := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer rb.Release()
	for i := 0; i < n; i++ {
		for j, c := range cols {
			c.add(rb.Field(j), i)
		}
	}
	rec := rb.NewRecord()
	defer rec.Release()
	// pqarrow closes a writer that is an io.Closer; the file is
	// writeFileAtomic's to sync and close.
	fw, err := pqarrow.NewFileWriter(schema, struct{ io.Writer }{w}, parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithCreatedBy("wlprof-beam")), pqarrow.NewArrowWriterProperties())
	if err != nil {
		return err
	}
	if err := fw.Write(rec); err != nil {
		fw.Close()
		return err
	}
	return fw.Close()
}

// tenantsTable: tenant, pattern, period_s (null unless periodic),
// strength, mean, peak, class, servers, step_s, reason.
func tenantsTable(w io.Writer, ts []fft.Tenant) error {
	return writeTable(w, len(ts), []column{
		str("tenant", func(i int) string { return ts[i].Tenant }),
		str("pattern", func(i int) string { return string(ts[i].Pattern) }),
		optF64("period_s", func(i int) *float64 { return ts[i].PeriodS }),
		f64("strength", func(i int) float64 { return ts[i].Strength }),
		f64("mean", func(i int) float64 { return ts[i].Mean }),
		f64("peak", func(i int) float64 { return ts[i].Peak }),
		str("class", func(i int) string { return ts[i].Class }),
		i64("servers", func(i int) int64 { return int64(ts[i].Servers) }),
		f64("step_s", func(i int) float64 { return ts[i].StepS }),
		str("reason", func(i int) string { return ts[i].Reason }),
	})
}

// classesTable: class, pattern, tenants, servers, mean, peak, current,
// headroom_short/medium/long.
func classesTable(w io.Writer, cs []fft.Class) error {
	return writeTable(w, len(cs), []column{
		str("class", func(i int) string { return cs[i].Class }),
		str("pattern", func(i int) string { return string(cs[i].Pattern) }),
		i64("tenants", func(i int) int64 { return int64(cs[i].Tenants) }),
		i64("servers", func(i int) int64 { return int64(cs[i].Servers) }),
		f64("mean", func(i int) float64 { return cs[i].Mean }),
		f64("peak", func(i int) float64 { return cs[i].Peak }),
		f64("current", func(i int) float64 { return cs[i].Current }),
		f64("headroom_short", func(i int) float64 { return cs[i].Headroom.Short }),
		f64("headroom_medium", func(i int) float64 { return cs[i].Headroom.Medium }),
		f64("headroom_long", func(i int) float64 { return cs[i].Headroom.Long }),
	})
}
