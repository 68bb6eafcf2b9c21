package dataset

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// chunkKind is what a row group of dictRows holds, and so how its values
// chunk is to be written.
type chunkKind int

const (
	fewValues   chunkKind = iota // 4-decimal or whole-percent values: a dictionary
	oneValue                     // one value and nulls: a dictionary, ids of 1 bit
	manyValues                   // more distinct values than pq.MaxFloatDict: PLAIN
	allDistinct                  // fits a dictionary that is larger than PLAIN: PLAIN
	noValues                     // empty and all-null rows: PLAIN (nothing to intern)
)

func (k chunkKind) dict() bool { return k == fewValues || k == oneValue }

func (k chunkKind) String() string {
	return [...]string{"few values", "one value", "many values", "all distinct", "no values"}[k]
}

// dictRows is a seeded table of one row group (SeriesGroupRows rows) per
// kind, in the order given: NaN gaps, empty rows, and in a fewValues group
// with long, a row longer than a page (seriesPageLevels) with a null run
// across the boundary.
func dictRows(seed uint64, long bool, kinds ...chunkKind) []Series {
	r := rand.New(rand.NewPCG(seed, 0xd1c7))
	var rows []Series
	for g, kind := range kinds {
		for i := 0; i < SeriesGroupRows; i++ {
			var vals []float64
			switch kind {
			case fewValues:
				scale := []float64{1e4, 100}[r.IntN(2)]
				vals = make([]float64, 500+r.IntN(3000))
				for j := range vals {
					vals[j] = math.Round(r.Float64()*scale) / scale
				}
				if i == 3 && long && g == slices.Index(kinds, fewValues) {
					vals = make([]float64, seriesPageLevels+seriesPageLevels/3)
					for j := range vals {
						vals[j] = math.Round(r.Float64()*1e4) / 1e4
					}
					for j := seriesPageLevels - 7; j < seriesPageLevels+3; j++ {
						vals[j] = math.NaN()
					}
				}
			case oneValue:
				vals = make([]float64, 200+r.IntN(500))
				for j := range vals {
					vals[j] = 0.25
				}
			case manyValues:
				vals = make([]float64, 2500+r.IntN(1000)) // 32 × ≥ 2,500 > 65,536
				for j := range vals {
					vals[j] = math.Round(r.Float64()*1e6) / 1e6
				}
			case allDistinct:
				vals = make([]float64, 1+r.IntN(40))
				for j := range vals {
					vals[j] = float64(i*100+j) / 1e6
				}
			case noValues:
				vals = make([]float64, r.IntN(3)*r.IntN(50))
				for j := range vals {
					vals[j] = math.NaN()
				}
			}
			if kind != noValues && len(vals) > 0 {
				switch r.IntN(5) {
				case 0: // a gap
					at := r.IntN(len(vals))
					for j := at; j < min(len(vals), at+1+r.IntN(300)); j++ {
						vals[j] = math.NaN()
					}
				case 1: // scattered nulls
					for j := range vals {
						if r.IntN(7) == 0 {
							vals[j] = math.NaN()
						}
					}
				case 2: // leading and trailing nulls
					vals[0], vals[len(vals)-1] = math.NaN(), math.NaN()
				}
			}
			if i == 5 {
				vals = []float64{} // an empty series in every group
			}
			if i == 7 && kind == fewValues && len(vals) > 1 {
				vals[0], vals[1] = math.Copysign(0, -1), 0 // −0 and +0: two entries of the dictionary
			}
			rows = append(rows, Series{Tenant: fmt.Sprintf("%s-%d-%d", kind, g, i), StartMs: int64(g*1000 + i),
				StepS: 120, Values: vals, Servers: int32(i)})
		}
	}
	return rows
}

// valuesChunks opens a series file and calls fn with each row group's
// values chunk metadata.
func valuesChunks(t *testing.T, path string, fn func(rg int, dict bool, encs []parquet.Encoding, dataEncs map[parquet.Encoding]int32)) {
	t.Helper()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	vi := pf.MetaData().Schema.ColumnIndexByName(seriesValuesPath)
	for rg := 0; rg < pf.NumRowGroups(); rg++ {
		cc, err := pf.MetaData().RowGroup(rg).ColumnChunk(vi)
		if err != nil {
			t.Fatal(err)
		}
		data := map[parquet.Encoding]int32{}
		for _, st := range cc.EncodingStats() {
			if st.PageType == 0 { // DATA_PAGE
				data[st.Encoding]++ // present (the metadata has no counts)
			}
		}
		fn(rg, cc.HasDictionaryPage(), cc.Encodings(), data)
	}
}

// checkEncodings: a group of a kind meant for a dictionary has a
// dictionary page and only RLE_DICTIONARY data pages, and the chunk's
// metadata lists RLE_DICTIONARY, PLAIN (the dictionary page) and RLE (the
// levels), as arrow's writer does; any other group only PLAIN data pages
// and no dictionary.
func checkEncodings(t *testing.T, path string, kinds []chunkKind) {
	t.Helper()
	valuesChunks(t, path, func(rg int, dict bool, encs []parquet.Encoding, data map[parquet.Encoding]int32) {
		k := kinds[rg]
		if k.dict() {
			if !dict || data[parquet.Encodings.Plain] != 0 || data[parquet.Encodings.RLEDict] == 0 ||
				!slices.Contains(encs, parquet.Encodings.RLEDict) || !slices.Contains(encs, parquet.Encodings.Plain) || !slices.Contains(encs, parquet.Encodings.RLE) {
				t.Errorf("row group %d (%v): dictionary page %v, encodings %v, data pages %v; want a dictionary", rg, k, dict, encs, data)
			}
			return
		}
		if dict || data[parquet.Encodings.RLEDict] != 0 || data[parquet.Encodings.Plain] == 0 || slices.Contains(encs, parquet.Encodings.RLEDict) {
			t.Errorf("row group %d (%v): dictionary page %v, encodings %v, data pages %v; want PLAIN", rg, k, dict, encs, data)
		}
	})
}

// A series file whose chunks are dictionary-encoded where that is
// smaller reads back bit for bit through the fast path, arrow's column
// reader and pqarrow, written in one call and in several, for seeded
// mixes of chunks that fit a dictionary and chunks that stay PLAIN.
func TestWriteSeriesDictionary(t *testing.T) {
	all := []chunkKind{fewValues, oneValue, manyValues, allDistinct, noValues}
	for seed := uint64(1); seed <= 3; seed++ {
		r := rand.New(rand.NewPCG(seed, 5))
		kinds := slices.Clone(all)
		r.Shuffle(len(kinds), func(i, j int) { kinds[i], kinds[j] = kinds[j], kinds[i] })
		kinds = append(kinds, fewValues, all[r.IntN(len(all))])
		rows := dictRows(seed, seed == 1, kinds...)
		for _, calls := range [][]int{nil, {SeriesGroupRows, 2 * SeriesGroupRows}} {
			ds := writeSeriesDS(t, rows, calls...)
			checkEncodings(t, seriesFile(t, ds), kinds)
			readsBackThreeWays(t, ds, rows, fmt.Sprintf("seed %d %v", seed, calls), func(i int) string {
				return fmt.Sprint(kinds[i/SeriesGroupRows])
			})
			assertFastChunks(t, ds)
		}
	}
}

// fourDecimalWorld is the series of tenants whose single server reports
// 4-decimal utilisation every 2 minutes for 30 days (the benchmark world
// of synth.Default with one server per tenant): daily cycles plus noise,
// with outages as null runs.
func fourDecimalWorld(seed uint64, tenants int) []Series {
	r := rand.New(rand.NewPCG(seed, 4))
	const slots = 30 * 720
	rows := make([]Series, tenants)
	for i := range rows {
		base, amp := 0.1+0.5*r.Float64(), 0.3*r.Float64()
		vals := make([]float64, slots)
		for j := range vals {
			v := base + amp*math.Sin(2*math.Pi*float64(j)/720) + 0.05*r.NormFloat64()
			vals[j] = math.Round(min(1, max(0, v))*1e4) / 1e4
		}
		for k := r.IntN(3); k > 0; k-- {
			at := r.IntN(slots)
			for j := at; j < min(slots, at+r.IntN(200)); j++ {
				vals[j] = math.NaN()
			}
		}
		rows[i] = Series{Tenant: fmt.Sprintf("t%04d", i), StartMs: 1_700_000_040_000, StepS: 120, Values: vals, Servers: 1}
	}
	return rows
}

// The series of a world of 4-decimal samples are dictionary-encoded in
// every chunk and take under a third of the PLAIN file's bytes (10,001
// possible values: 14-bit ids where a double has 64), and both files
// read back the same values.
func TestSeriesDictionaryFourDecimals(t *testing.T) {
	rows := fourDecimalWorld(3, 3*SeriesGroupRows)
	dictDS := writeSeriesDS(t, rows)
	seriesDict = false
	plainDS := writeSeriesDS(t, rows)
	seriesDict = true
	kinds := []chunkKind{fewValues, fewValues, fewValues}
	checkEncodings(t, seriesFile(t, dictDS), kinds)
	checkEncodings(t, seriesFile(t, plainDS), []chunkKind{manyValues, manyValues, manyValues})
	size := func(ds *Dataset) int64 {
		fi, err := os.Stat(seriesFile(t, ds))
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	d, p := size(dictDS), size(plainDS)
	t.Logf("%d tenants × 30 days: dictionary file %d bytes, PLAIN %d (%.1f%%)", len(rows), d, p, 100*float64(d)/float64(p))
	if 3*d > p {
		t.Errorf("dictionary file %d bytes, PLAIN %d: not under a third", d, p)
	}
	for name, ds := range map[string]*Dataset{"dictionary": dictDS, "PLAIN": plainDS} {
		fast, slow := readSeriesBothWays(t, ds)
		for i := range rows {
			if err := sameSeries(fast[i], rows[i]); err != nil {
				t.Fatalf("%s file, fast path, row %d: %v", name, i, err)
			}
			if err := sameSeries(slow[i], rows[i]); err != nil {
				t.Fatalf("%s file, arrow, row %d: %v", name, i, err)
			}
		}
	}
}

// A values chunk that does not fit a dictionary (more than
// pq.MaxFloatDict distinct values, here one more) is written PLAIN, and
// one with exactly MaxFloatDict distinct values is dictionary-encoded
// when the ids make that smaller.
func TestSeriesDictionaryLimit(t *testing.T) {
	for _, distinct := range []int{1 << 16, 1<<16 + 1} {
		rows := make([]Series, SeriesGroupRows)
		per := (distinct + len(rows) - 1) / len(rows)
		next := 0
		for i := range rows {
			vals := make([]float64, 8*per) // each value 8 times: the ids pay
			for j := range vals {
				vals[j] = float64(min(next+j%per, distinct-1)) / 1e6
			}
			next += per
			rows[i] = Series{Tenant: fmt.Sprint(i), StepS: 60, Values: vals}
		}
		ds := writeSeriesDS(t, rows)
		want := manyValues
		if distinct <= 1<<16 {
			want = fewValues
		}
		checkEncodings(t, seriesFile(t, ds), []chunkKind{want})
		fast, slow := readSeriesBothWays(t, ds)
		for i := range rows {
			if sameSeries(fast[i], rows[i]) != nil || sameSeries(slow[i], rows[i]) != nil {
				t.Fatalf("%d distinct: row %d does not read back", distinct, i)
			}
		}
	}
}
