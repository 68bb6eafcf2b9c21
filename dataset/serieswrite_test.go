package dataset

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/file"
)

// sameSeries: equal rows, values compared bit for bit (NaN equal to NaN),
// an empty list equal to a nil one.
func sameSeries(a, b Series) error {
	if a.Tenant != b.Tenant || a.StartMs != b.StartMs || math.Float64bits(a.StepS) != math.Float64bits(b.StepS) || a.Servers != b.Servers {
		return fmt.Errorf("row %q/%d/%g/%d vs %q/%d/%g/%d", a.Tenant, a.StartMs, a.StepS, a.Servers, b.Tenant, b.StartMs, b.StepS, b.Servers)
	}
	if len(a.Values) != len(b.Values) {
		return fmt.Errorf("%q: %d values vs %d", a.Tenant, len(a.Values), len(b.Values))
	}
	for i, v := range a.Values {
		w := b.Values[i]
		if math.Float64bits(v) != math.Float64bits(w) && !(math.IsNaN(v) && math.IsNaN(w)) {
			return fmt.Errorf("%q value %d: %v vs %v", a.Tenant, i, v, w)
		}
	}
	return nil
}

// writeSeriesDS writes rows with WriteSeries, calls rows per call, in one
// transaction.
func writeSeriesDS(t *testing.T, rows []Series, calls ...int) *Dataset {
	t.Helper()
	ds, tx := newTx(t)
	rest := rows
	for _, n := range calls {
		if err := tx.WriteSeries(rest[:n]); err != nil {
			t.Fatal(err)
		}
		rest = rest[n:]
	}
	if err := tx.WriteSeries(rest); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return ds
}

// writtenRows: seriesRows plus the cases the mix may miss: a start that
// is null, a series longer than one page, all-NaN and empty series, and a
// value that is −0.
func writtenRows(seed uint64) []Series {
	rows := seriesRows(seed, 70)
	r := rand.New(rand.NewPCG(seed, 99))
	rows[5].StartMs = NoTime
	rows[6].Values = []float64{}
	rows[7].Values = []float64{math.NaN(), math.NaN()}
	rows[8].Values = []float64{math.Copysign(0, -1), 1, math.NaN(), 0.5}
	if seed == 1 {
		long := make([]float64, seriesPageLevels+seriesPageLevels/2)
		for j := range long {
			long[j] = math.Round(r.Float64()*1e6) / 1e6
		}
		for j := seriesPageLevels - 5; j < seriesPageLevels+5; j++ { // a NaN run across the page boundary
			long[j] = math.NaN()
		}
		rows[9].Values = long
	}
	return rows
}

// WriteSeries writes what pqarrow's writer writes, as far as every reader
// can tell: the fast path, arrow's column reader and pqarrow's table
// reader each return the rows written, from a file written in one call
// and in several; and the small columns' statistics equal the ones arrow
// computes for the same rows.
func TestWriteSeriesReadBack(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		rows := writtenRows(seed)
		for _, calls := range [][]int{nil, {SeriesGroupRows, SeriesGroupRows}} {
			ds := writeSeriesDS(t, rows, calls...)
			if got := ds.Rows(SeriesTable.Name); got != int64(len(rows)) {
				t.Fatalf("manifest: %d rows, wrote %d", got, len(rows))
			}
			readsBackThreeWays(t, ds, rows, fmt.Sprintf("seed %d %v", seed, calls), nil)
			assertFastChunks(t, ds)
		}
		// Statistics against pqarrow's for the same rows and row groups.
		mine := writeSeriesDS(t, rows)
		theirs := writeOne(t, SeriesTable, rows, SeriesGroupRows)
		compareStats(t, seriesFile(t, mine), seriesFile(t, theirs))
	}
}

func seriesFile(t *testing.T, ds *Dataset) string {
	t.Helper()
	files := ds.Manifest().Tables[SeriesTable.Name].Files
	if len(files) != 1 {
		t.Fatalf("%d series files, want 1", len(files))
	}
	return filepath.Join(ds.Dir, files[0].Path)
}

// compareStats: the same row groups, the same schema, and for every
// column but the values the same min, max and null count.
func compareStats(t *testing.T, mine, theirs string) {
	t.Helper()
	a, err := file.OpenParquetFile(mine, false)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := file.OpenParquetFile(theirs, false)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if !a.MetaData().Schema.Equals(b.MetaData().Schema) {
		t.Fatalf("schemas differ:\n%v\n%v", a.MetaData().Schema, b.MetaData().Schema)
	}
	if a.NumRowGroups() != b.NumRowGroups() {
		t.Fatalf("%d row groups, pqarrow %d", a.NumRowGroups(), b.NumRowGroups())
	}
	if got, want := a.MetaData().KeyValueMetadata().FindValue("wlprof.table"), b.MetaData().KeyValueMetadata().FindValue("wlprof.table"); got == nil || want == nil || *got != *want {
		t.Fatalf("key-value metadata: %v vs %v", a.MetaData().KeyValueMetadata(), b.MetaData().KeyValueMetadata())
	}
	for rg := 0; rg < a.NumRowGroups(); rg++ {
		ra, rb := a.MetaData().RowGroup(rg), b.MetaData().RowGroup(rg)
		if ra.NumRows() != rb.NumRows() {
			t.Fatalf("row group %d: %d rows, pqarrow %d", rg, ra.NumRows(), rb.NumRows())
		}
		for c := 0; c < ra.NumColumns(); c++ {
			ca, _ := ra.ColumnChunk(c)
			cb, _ := rb.ColumnChunk(c)
			if ca.NumValues() != cb.NumValues() {
				t.Fatalf("row group %d column %v: %d levels, pqarrow %d", rg, ca.PathInSchema(), ca.NumValues(), cb.NumValues())
			}
			if ca.PathInSchema().String() == seriesValuesPath {
				continue
			}
			sa, err := ca.Statistics()
			if err != nil || sa == nil {
				t.Fatalf("row group %d column %v: no statistics (%v)", rg, ca.PathInSchema(), err)
			}
			sb, err := cb.Statistics()
			if err != nil || sb == nil {
				t.Fatalf("pqarrow row group %d column %v: no statistics (%v)", rg, cb.PathInSchema(), err)
			}
			if sa.HasMinMax() != sb.HasMinMax() || sa.NullCount() != sb.NullCount() ||
				(sa.HasMinMax() && (!bytes.Equal(sa.EncodeMin(), sb.EncodeMin()) || !bytes.Equal(sa.EncodeMax(), sb.EncodeMax()))) {
				t.Fatalf("row group %d column %v: statistics %v, pqarrow %v", rg, ca.PathInSchema(), sa, sb)
			}
		}
	}
}

// assertFastChunks: the fast path takes every values chunk of the table.
func assertFastChunks(t *testing.T, ds *Dataset) {
	t.Helper()
	for _, fi := range ds.Manifest().Tables[SeriesTable.Name].Files {
		f, err := os.Open(filepath.Join(ds.Dir, fi.Path))
		if err != nil {
			t.Fatal(err)
		}
		pf, err := file.NewParquetReader(f)
		if err != nil {
			t.Fatal(err)
		}
		vi := pf.MetaData().Schema.ColumnIndexByName(seriesValuesPath)
		col := pf.MetaData().Schema.Column(vi)
		var ps pageScratch
		for rg := 0; rg < pf.NumRowGroups(); rg++ {
			cc, err := pf.MetaData().RowGroup(rg).ColumnChunk(vi)
			if err != nil {
				t.Fatal(err)
			}
			n := int(pf.MetaData().RowGroup(rg).NumRows())
			if _, starts, ok := fastValues(nil, nil, f, cc, col.MaxDefinitionLevel(), col.MaxRepetitionLevel(), n, &ps); !ok || len(starts) != n+1 {
				t.Errorf("%s row group %d: fast path refused a chunk this package wrote", fi.Path, rg)
			}
		}
		pf.Close()
	}
}

// A transaction writes the series table one way: WriteSeries after the
// generic writer is an error, not a second file.
func TestWriteSeriesOneWay(t *testing.T) {
	_, tx := newTx(t)
	defer tx.Rollback()
	WriterFor(tx, SeriesTable)
	if err := tx.WriteSeries(seriesRows(1, 3)); err == nil {
		t.Fatal("WriteSeries after WriterFor(SeriesTable): no error")
	}
}

// readsBackThreeWays reads the series table of ds with the fast path, the
// arrow column reader and pqarrow, and fails unless each gives rows; the
// message starts with what, and note (when not nil) says more of a row.
func readsBackThreeWays(t *testing.T, ds *Dataset, rows []Series, what string, note func(i int) string) {
	t.Helper()
	fast, slow := readSeriesBothWays(t, ds)
	generic, err := ReadAll(context.Background(), ds, SeriesTable)
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string][]Series{"fast path": fast, "arrow column reader": slow, "pqarrow": generic} {
		if len(got) != len(rows) {
			t.Fatalf("%s: %s read %d rows, wrote %d", what, name, len(got), len(rows))
		}
		for i := range rows {
			if err := sameSeries(got[i], rows[i]); err != nil {
				row := fmt.Sprint("row ", i)
				if note != nil {
					row += " (" + note(i) + ")"
				}
				t.Fatalf("%s: %s %s: %v", what, name, row, err)
			}
		}
	}
}
