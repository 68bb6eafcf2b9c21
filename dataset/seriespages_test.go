package dataset

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/file"
)

// seriesRows is a seeded mix of what the series table holds: long series,
// NaN runs (nulls) of every length, scattered NaNs, empty series and
// all-NaN ones, so the pages carry repeated and bit-packed level runs.
func seriesRows(seed uint64, n int) []Series {
	r := rand.New(rand.NewPCG(seed, seed))
	rows := make([]Series, n)
	for i := range rows {
		var vals []float64
		switch r.IntN(6) {
		case 0: // empty
			vals = []float64{}
		case 1: // short, mostly NaN
			vals = make([]float64, r.IntN(30))
			for j := range vals {
				vals[j] = maybeNaN(r)
			}
		default: // long, with runs of NaN
			vals = make([]float64, 1000+r.IntN(30000))
			for j := 0; j < len(vals); j++ {
				vals[j] = math.Round(r.Float64()*1e6) / 1e6
				if r.IntN(400) == 0 {
					for k := r.IntN(300); k > 0 && j < len(vals); k-- {
						vals[j] = math.NaN()
						j++
					}
				}
			}
		}
		rows[i] = Series{Tenant: rngStr(r, alpha), StartMs: int64(i) * 1000, StepS: 120, Values: vals, Servers: int32(i)}
	}
	return rows
}

// withFastPath runs f with the fast path on or off.
func withFastPath(on bool, f func()) {
	old := seriesFastPath
	seriesFastPath = on
	defer func() { seriesFastPath = old }()
	f()
}

// readSeriesBothWays reads the series table with the fast path and with
// arrow's column reader.
func readSeriesBothWays(t *testing.T, ds *Dataset) (fast, slow []Series) {
	t.Helper()
	var err error
	withFastPath(true, func() { fast, err = ReadSeries(context.Background(), ds) })
	if err != nil {
		t.Fatal(err)
	}
	withFastPath(false, func() { slow, err = ReadSeries(context.Background(), ds) })
	if err != nil {
		t.Fatal(err)
	}
	return fast, slow
}

// The fast path reads every values chunk this package writes (ok=true),
// and ReadSeries returns the same rows with it as with arrow's column
// reader, which is the oracle, over several seeds.
func TestSeriesFastPathEqualsArrow(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		rows := seriesRows(seed, 40)
		ds := writeIngests(t, SeriesTable, rows, 1+int(seed)*3)
		fast, slow := readSeriesBothWays(t, ds)
		if len(fast) != len(rows) || len(slow) != len(rows) {
			t.Fatalf("seed %d: fast %d rows, arrow %d, wrote %d", seed, len(fast), len(slow), len(rows))
		}
		for i := range rows {
			if !equalNaN(fast[i], rows[i]) || !equalNaN(slow[i], rows[i]) {
				t.Fatalf("seed %d row %d (%d values): fast and arrow paths differ from what was written", seed, i, len(rows[i].Values))
			}
		}
		assertFastChunks(t, ds) // every chunk went the fast way
	}
}

// A damaged values chunk never panics the fast path: each of many
// seeded corruptions (random bytes overwritten in the chunk) gives either
// ok=false (the caller falls back to arrow, which reports the damage) or
// rows that add up; in a chunk of PLAIN pages and in a dictionary-encoded
// one.
func TestSeriesFastPathCorruption(t *testing.T) {
	rows := seriesRows(9, 12)
	ds := writeIngests(t, SeriesTable, rows, 12)
	plain := filepath.Join(ds.Dir, ds.Manifest().Tables[SeriesTable.Name].Files[1].Path)
	dict := seriesFile(t, writeSeriesDS(t, dictRows(9, false, fewValues)))
	checkEncodings(t, dict, []chunkKind{fewValues})
	for _, path := range []string{plain, dict} {
		corruptValues(t, path)
	}
}

func corruptValues(t *testing.T, path string) {
	t.Helper()
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	vi := pf.MetaData().Schema.ColumnIndexByName(seriesValuesPath)
	col := pf.MetaData().Schema.Column(vi)
	cc, err := pf.MetaData().RowGroup(0).ColumnChunk(vi)
	if err != nil {
		t.Fatal(err)
	}
	nrows := int(pf.MetaData().RowGroup(0).NumRows())
	off, size := cc.DataPageOffset(), cc.TotalCompressedSize()
	if cc.HasDictionaryPage() {
		off = cc.DictionaryPageOffset()
	}
	pf.Close()
	r := rand.New(rand.NewPCG(7, 7))
	bad := filepath.Join(t.TempDir(), "bad.parquet")
	refused := 0
	for i := 0; i < 400; i++ {
		b := append([]byte(nil), orig...)
		for k := 1 + r.IntN(4); k > 0; k-- {
			// Mostly near page starts, where headers and levels are.
			at := off + int64(r.IntN(int(size)))
			if r.IntN(2) == 0 {
				at = off + int64(r.IntN(64))
			}
			b[at] = byte(r.Uint32())
		}
		if err := os.WriteFile(bad, b, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(bad)
		if err != nil {
			t.Fatal(err)
		}
		var ps pageScratch
		all, starts, ok := fastValues(nil, nil, f, cc, col.MaxDefinitionLevel(), col.MaxRepetitionLevel(), nrows, &ps)
		f.Close()
		if !ok {
			refused++
			continue
		}
		if len(starts) != nrows+1 || starts[0] != 0 || starts[nrows] != len(all) {
			t.Fatalf("corruption %d: ok with starts %v for %d values", i, starts, len(all))
		}
		for j := 1; j < len(starts); j++ {
			if starts[j] < starts[j-1] {
				t.Fatalf("corruption %d: starts go backwards: %v", i, starts)
			}
		}
	}
	if refused == 0 {
		t.Errorf("%s: no corruption out of 400 was refused", filepath.Base(path))
	}
	t.Logf("%s: %d of 400 corruptions refused (the rest hit value bytes)", filepath.Base(path), refused)
}

// ScanSeries hands every row group to fn once, with the rows ReadSeries
// returns (values copied out, since the worker reuses its buffer), and
// stops with fn's error.
func TestScanSeriesEqualsReadSeries(t *testing.T) {
	rows := seriesRows(11, 50)
	ds := writeIngests(t, SeriesTable, rows, 6)
	want, err := ReadSeries(context.Background(), ds)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	groups := map[int][]Series{}
	n, err := ScanSeries(context.Background(), ds, func(_ context.Context, w, g int, rs []Series) error {
		cp := make([]Series, len(rs))
		for i, r := range rs {
			r.Values = slices.Clone(r.Values)
			cp[i] = r
		}
		mu.Lock()
		defer mu.Unlock()
		if _, dup := groups[g]; dup {
			t.Errorf("group %d twice", g)
		}
		groups[g] = cp
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []Series
	for g := 0; g < n; g++ {
		got = append(got, groups[g]...)
	}
	if n < 5 || len(got) != len(want) {
		t.Fatalf("%d groups, %d rows; want ≥ 5 groups and %d rows", n, len(got), len(want))
	}
	for i := range want {
		if !equalNaN(got[i], want[i]) {
			t.Fatalf("row %d differs", i)
		}
	}
	stop := errors.New("stop")
	if _, err := ScanSeries(context.Background(), ds, func(context.Context, int, int, []Series) error { return stop }); !errors.Is(err, stop) {
		t.Fatalf("fn's error: got %v", err)
	}

}

// ReadSeriesOf returns the rows of the tenants asked for, in table order,
// with their own values: every group has the same size here, so each
// worker decodes into one reused buffer, and values that were not copied
// out would be overwritten by the next group.
func TestReadSeriesOf(t *testing.T) {
	rows := seriesRows(12, 60)
	for i := range rows {
		rows[i].Values = make([]float64, 2000)
		for j := range rows[i].Values {
			rows[i].Values[j] = float64(i*10000 + j)
		}
		rows[i].Tenant = fmt.Sprintf("t%03d", i)
	}
	ds := writeIngests(t, SeriesTable, rows, 6)
	pick := map[string]bool{}
	var want []Series
	for i, r := range rows {
		if i%7 == 3 || i == len(rows)-1 {
			pick[r.Tenant] = true
			want = append(want, r)
		}
	}
	got, err := ReadSeriesOf(context.Background(), ds, func(tenant string) bool { return pick[tenant] })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if !equalNaN(got[i], want[i]) {
			t.Fatalf("row %d (%s) differs", i, want[i].Tenant)
		}
	}
}
