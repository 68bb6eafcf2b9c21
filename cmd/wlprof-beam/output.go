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
	"github.com/wlprof/wlprof/classify"
	"github.com/wlprof/wlprof/elasticity"
	"github.com/wlprof/wlprof/skyline"
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
func writeResults(dir string, res *classify.Result) error {
	doc := res.Document()
	if err := writeOut(dir, classifyJSON, func(w io.Writer) error { return writeJSON(w, doc) }); err != nil {
		return err
	}
	if err := writeOut(dir, tenantsParquet, func(w io.Writer) error { return tenantsTable(w, res.Tenants) }); err != nil {
		return err
	}
	return writeOut(dir, classesParquet, func(w io.Writer) error { return classesTable(w, res.Classes) })
}

// writeRejects writes the rejected records as CSV with a header (an empty
// file but for the header when there are none).
func writeRejects(dir string, rows []rejectRow) error {
	return writeOut(dir, rejectsCSV, func(w io.Writer) error {
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
	// writeOut's to sync and close.
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
func tenantsTable(w io.Writer, ts []classify.Tenant) error {
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
func classesTable(w io.Writer, cs []classify.Class) error {
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

// Outputs of skyline and elasticity, and the error file of a stage that
// failed on the data.
const (
	skylineJSON         = "skyline.json"         // exactly wlprof skyline -o json (solve_s aside: a time)
	skylinesParquet     = "skylines.parquet"     // one row per fitted job
	reservationsParquet = "reservations.parquet" // one row per fitted job and step
	elasticityJSON      = "elasticity.json"      // exactly wlprof elasticity -o json
	modelsParquet       = "models.parquet"       // one row per model
	curvesParquet       = "curves.parquet"       // one row per model and curve point
	errorsTxt           = "errors.txt"           // the stage's error, as wlprof says it
)

// writeSkylineResults writes skyline.json and the Parquet tables of res.
func writeSkylineResults(dir string, res *skyline.Result) error {
	doc := res.Document()
	if err := writeOut(dir, skylineJSON, func(w io.Writer) error { return writeJSON(w, doc) }); err != nil {
		return err
	}
	fits := res.Jobs
	if err := writeOut(dir, skylinesParquet, func(w io.Writer) error {
		return writeTable(w, len(fits), []column{
			str("job", func(i int) string { return fits[i].Job }),
			i64("runs", func(i int) int64 { return int64(fits[i].Runs) }),
			f64("step_s", func(i int) float64 { return fits[i].StepS }),
			f64("alpha", func(i int) float64 { return fits[i].Alpha }),
			f64("beta", func(i int) float64 { return fits[i].Beta }),
			f64("objective", func(i int) float64 { return fits[i].Objective }),
			f64("over_allocation", func(i int) float64 { return fits[i].OverAllocation }),
			f64("under_allocation", func(i int) float64 { return fits[i].UnderAllocation }),
			f64("provisioning_ratio", func(i int) float64 { return fits[i].ProvisioningRatio }),
			i64("peak_reservation", func(i int) int64 { return fits[i].Peak() }),
			i64("steps", func(i int) int64 { return int64(len(fits[i].Reservation)) }),
			f64("solve_s", func(i int) float64 { return fits[i].SolveS }),
		})
	}); err != nil {
		return err
	}
	type step struct {
		f *skyline.Fit
		k int
	}
	var steps []step
	for _, f := range fits {
		for k := range f.Reservation {
			steps = append(steps, step{f, k})
		}
	}
	return writeOut(dir, reservationsParquet, func(w io.Writer) error {
		return writeTable(w, len(steps), []column{
			str("job", func(i int) string { return steps[i].f.Job }),
			i64("step", func(i int) int64 { return int64(steps[i].k) }),
			f64("offset_s", func(i int) float64 { return float64(steps[i].k) * steps[i].f.StepS }),
			f64("containers", func(i int) float64 { return steps[i].f.Containers[steps[i].k] }),
			i64("reservation", func(i int) int64 { return steps[i].f.Reservation[steps[i].k] }),
		})
	})
}

// writeElasticityResults writes elasticity.json and the Parquet tables of
// res.
func writeElasticityResults(dir string, res *elasticity.Result) error {
	doc := res.Document()
	if err := writeOut(dir, elasticityJSON, func(w io.Writer) error { return writeJSON(w, doc) }); err != nil {
		return err
	}
	ms := res.Models
	if err := writeOut(dir, modelsParquet, func(w io.Writer) error {
		return writeTable(w, len(ms), []column{
			str("job", func(i int) string { return ms[i].Job }),
			str("task", func(i int) string { return ms[i].Task }),
			str("framework", func(i int) string { return ms[i].Framework }),
			i64("slots", func(i int) int64 { return int64(ms[i].Slots) }),
			str("kind", func(i int) string { return ms[i].Kind }),
			str("simulator", func(i int) string { return ms[i].Simulator }),
			i64("runs", func(i int) int64 { return int64(ms[i].Runs) }),
			i64("ideal_memory_bytes", func(i int) int64 { return ms[i].IdealMemoryBytes }),
			f64("ideal_runtime_s", func(i int) float64 { return ms[i].IdealRuntimeS }),
			i64("input_bytes", func(i int) int64 { return ms[i].InputBytes }),
			f64("disk_bandwidth_bytes_per_s", func(i int) float64 { return ms[i].DiskBandwidthBytesPerS }),
			i64("validation_runs", func(i int) int64 { return int64(ms[i].Validation.Runs) }),
			f64("validation_mean_abs_error", func(i int) float64 { return ms[i].Validation.MeanAbsError }),
			f64("validation_max_abs_error", func(i int) float64 { return ms[i].Validation.MaxAbsError }),
		})
	}); err != nil {
		return err
	}
	type point struct {
		m *elasticity.Model
		p elasticity.Point
	}
	var pts []point
	for _, m := range ms {
		for _, p := range m.Curve {
			pts = append(pts, point{m, p})
		}
	}
	return writeOut(dir, curvesParquet, func(w io.Writer) error {
		return writeTable(w, len(pts), []column{
			str("job", func(i int) string { return pts[i].m.Job }),
			str("task", func(i int) string { return pts[i].m.Task }),
			str("framework", func(i int) string { return pts[i].m.Framework }),
			i64("slots", func(i int) int64 { return int64(pts[i].m.Slots) }),
			i64("memory_bytes", func(i int) int64 { return pts[i].p.MemoryBytes }),
			f64("runtime_s", func(i int) float64 { return pts[i].p.RuntimeS }),
			f64("penalty", func(i int) float64 { return pts[i].p.Penalty }),
			f64("slowdown", func(i int) float64 { return pts[i].p.Slowdown }),
			i64("spilled_bytes", func(i int) int64 { return pts[i].p.SpilledBytes }),
			f64("disk_bytes_per_s", func(i int) float64 { return pts[i].p.DiskBytesPS }),
		})
	})
}
