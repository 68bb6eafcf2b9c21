package dataset

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/wlprof/wlprof/internal/duckdbtest"
)

// usageCodecs is the set of codecs of the usage files' column chunks.
func usageCodecs(t *testing.T, ds *Dataset) map[compress.Compression]bool {
	t.Helper()
	out := map[compress.Compression]bool{}
	for _, f := range ds.Manifest().Tables[UsageTable.Name].Files {
		r, err := file.OpenParquetFile(filepath.Join(ds.Dir, f.Path), false)
		if err != nil {
			t.Fatal(err)
		}
		for g := 0; g < r.NumRowGroups(); g++ {
			rg := r.MetaData().RowGroup(g)
			for c := 0; c < rg.NumColumns(); c++ {
				cc, err := rg.ColumnChunk(c)
				if err != nil {
					t.Fatal(err)
				}
				out[cc.Compression()] = true
			}
		}
		r.Close()
	}
	return out
}

// duckdb runs queries in DuckDB (internal/duckdbtest).
func duckdb(t *testing.T, queries ...string) [][]map[string]any {
	t.Helper()
	return duckdbtest.Query(t, queries...)
}

// DuckDB, a Parquet reader that shares no code with arrow, reads the
// files the own encoders write (usagewrite.go, serieswrite.go) row for
// row: every level, dictionary id, delta-encoded time, plain-page double,
// null and NaN element as written, in series files of PLAIN chunks and of
// dictionary-encoded ones.
func TestDuckDBReadsOwnFiles(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 7))
	usage := make([]Usage, 40_000)
	for i := range usage {
		tm := int64(1_700_000_000_000) + int64(i/40)*120_000
		if i%13 == 0 {
			tm = NoTime
		} else if i%17 == 0 {
			tm = r.Int64N(4e12) - 2e12 // ±60 years: DuckDB's timestamps end in 294247
		}
		cpu := float64(r.IntN(100)) / 100
		if i >= 20_000 {
			cpu = r.Float64() // more distinct values than a float dictionary takes: plain pages
		}
		usage[i] = Usage{Tenant: fmt.Sprintf("t%d-%s", r.IntN(50), runeStr(r)), Server: rngStr(r, "ab"),
			TimeMs: tm, CPU: cpu, Memory: maybeNaN(r)}
	}
	uds := writeIngests(t, UsageTable, usage, 9_000)
	// DuckDB reads files whose chunks mix zstd and uncompressed ones.
	if codecs := usageCodecs(t, uds); !codecs[compress.Codecs.Zstd] || !codecs[compress.Codecs.Uncompressed] {
		t.Fatalf("usage chunks' codecs %v: the test wants both zstd and uncompressed ones", codecs)
	}
	series := writtenRows(1) // seed 1 has a row longer than one page
	for i := range series {
		series[i].Tenant = runeStr(r) // valid UTF-8, as DuckDB wants of strings
	}
	sds := writeSeriesDS(t, series)
	// And a series file of dictionary-encoded chunks (with a row longer
	// than a page, empty rows, rows of nulls, ids of 1 bit) between PLAIN
	// ones: a dictionary that overflowed, one larger than PLAIN, no values.
	kinds := []chunkKind{fewValues, manyValues, oneValue, allDistinct, fewValues, noValues}
	dseries := dictRows(5, true, kinds...)
	dds := writeSeriesDS(t, dseries)
	checkEncodings(t, seriesFile(t, dds), kinds)
	seriesQuery := `SELECT tenant, epoch_ms(start)::VARCHAR AS start, step_s, "values" AS v, servers FROM read_parquet('%s/series/*.parquet', file_row_number=true) ORDER BY file_row_number`
	res := duckdb(t,
		fmt.Sprintf(`SELECT tenant, server, epoch_ms(time)::VARCHAR AS t, cpu, memory FROM read_parquet('%s/usage/*.parquet', filename=true, file_row_number=true) ORDER BY filename, file_row_number`, uds.Dir),
		fmt.Sprintf(seriesQuery, sds.Dir), fmt.Sprintf(seriesQuery, dds.Dir))
	urows := res[0]
	if len(urows) != len(usage) {
		t.Fatalf("usage: DuckDB read %d rows, wrote %d", len(urows), len(usage))
	}
	num := func(v any) float64 {
		if v == nil {
			return math.NaN()
		}
		return v.(float64)
	}
	ms := func(v any) int64 {
		if v == nil {
			return NoTime
		}
		n, err := strconv.ParseInt(v.(string), 10, 64)
		if err != nil {
			t.Fatalf("time %v: %v", v, err)
		}
		return n
	}
	for i, u := range usage {
		got := Usage{Tenant: urows[i]["tenant"].(string), Server: urows[i]["server"].(string), TimeMs: ms(urows[i]["t"]),
			CPU: num(urows[i]["cpu"]), Memory: num(urows[i]["memory"])}
		if !equalNaN(got, u) {
			t.Fatalf("usage row %d: DuckDB %+v, wrote %+v", i, got, u)
		}
	}
	for k, series := range [][]Series{series, dseries} {
		srows := res[1+k]
		if len(srows) != len(series) {
			t.Fatalf("series file %d: DuckDB read %d rows, wrote %d", k, len(srows), len(series))
		}
		for i, s := range series {
			vals, _ := srows[i]["v"].([]any)
			got := Series{Tenant: srows[i]["tenant"].(string), StartMs: ms(srows[i]["start"]), StepS: num(srows[i]["step_s"]),
				Servers: int32(num(srows[i]["servers"])), Values: make([]float64, len(vals))}
			for j, v := range vals {
				got.Values[j] = num(v)
			}
			// JSON has no −0 (JavaScript writes it as 0).
			s.Values = slices.Clone(s.Values)
			for j, v := range s.Values {
				if v == 0 {
					s.Values[j] = 0
				}
			}
			if err := sameSeries(got, s); err != nil {
				t.Fatalf("series file %d row %d: DuckDB and what was written differ: %v", k, i, err)
			}
		}
	}
}

// runeStr is a short string of runes of alpha (rngStr picks bytes).
func runeStr(r *rand.Rand) string {
	rs := []rune(alpha)
	var b strings.Builder
	for n := r.IntN(12); n > 0; n-- {
		b.WriteRune(rs[r.IntN(len(rs))])
	}
	return b.String()
}
