package pq

import (
	"bytes"
	"context"
	"math"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// With KeepCodecIfWorth a chunk keeps zstd where zstd shrinks it by an
// eighth (estimated from its dictionary page and first data page) and is
// stored uncompressed elsewhere; arrow-go's reader reads every mix back
// to the values written, the dictionary page first in each chunk, and the
// buffered and direct chunks give the same file.
func TestKeepCodecIfWorth(t *testing.T) {
	as := arrow.NewSchema([]arrow.Field{{Name: "v", Type: arrow.PrimitiveTypes.Float64}}, nil)
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd), parquet.WithDictionaryDefault(true))
	const rows, pageRows = 4000, 1000
	r := rand.New(rand.NewPCG(3, 8))
	type chunk struct {
		name string
		dict []float64
		ids  []int32
		zstd bool
	}
	ids := func(n int, id func(i int) int32) []int32 {
		out := make([]int32, n)
		for i := range out {
			out[i] = id(i)
		}
		return out
	}
	randomDict := func(n int) []float64 {
		d := make([]float64, n)
		for i := range d {
			d[i] = r.Float64()
		}
		return d
	}
	roundDict := func(n int) []float64 { // repeating bytes: zstd shrinks it
		d := make([]float64, n)
		for i := range d {
			d[i] = float64(i % 16)
		}
		return d
	}
	chunks := []chunk{
		// Random ids into random doubles: a usage cpu column.
		{"random ids, random values", randomDict(50_000), ids(rows, func(int) int32 { return r.Int32N(50_000) }), false},
		// The ids repeat every 100 rows (tenants listed in the same order
		// at every time step).
		{"periodic ids", randomDict(100), ids(rows, func(i int) int32 { return int32(i % 100) }), true},
		// Random ids, but a dictionary of 60,000 values that zstd shrinks
		// many times over outweighs them.
		{"compressible dictionary", roundDict(60_000), ids(rows, func(int) int32 { return r.Int32N(60_000) }), true},
		// The first page is random, the rest one run each: the first page
		// stands for the chunk, which is stored uncompressed.
		{"first page decides", randomDict(1 << 12), ids(rows, func(i int) int32 {
			if i < pageRows {
				return r.Int32N(1 << 12)
			}
			return 7
		}), false},
	}
	var worth []int
	write := func(buffered bool) []byte {
		var out bytes.Buffer
		p, err := NewFile(&out, as, props)
		if err != nil {
			t.Fatal(err)
		}
		p.KeepCodecIfWorth(worth...)
		var buf ChunkBuffer
		for _, ck := range chunks {
			p.StartGroup(rows)
			var c *Chunk
			if buffered {
				c, err = p.BufferedChunk(0, &buf)
			} else {
				c, err = p.Chunk()
			}
			if err != nil {
				t.Fatal(err)
			}
			c.DictPage(len(ck.dict), Float64Bytes(ck.dict))
			width := bits.Len32(uint32(len(ck.dict) - 1))
			for lo := 0; lo < rows; lo += pageRows {
				c.DataPage(pageRows, parquet.Encodings.RLEDict, AppendHybrid([]byte{byte(width)}, ck.ids[lo:lo+pageRows], width))
			}
			if buffered {
				err = p.WriteChunk(c)
			} else {
				err = c.End()
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := p.EndGroup(); err != nil {
				t.Fatal(err)
			}
		}
		if err := p.Footer(); err != nil {
			t.Fatal(err)
		}
		return out.Bytes()
	}
	worth = []int{0}
	b := write(true)
	if d := write(false); !bytes.Equal(b, d) {
		t.Fatalf("buffered chunks: %d bytes, direct: %d, differ", len(b), len(d))
	}
	// Another column named: this one's chunks all keep zstd.
	worth = []int{1}
	if all := write(true); codecs(all) != "ZSTD ZSTD ZSTD ZSTD" {
		t.Fatalf("codecs %s where the rule is not asked for", codecs(all))
	}
	f, err := file.NewParquetReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for g, ck := range chunks {
		cc, err := f.MetaData().RowGroup(g).ColumnChunk(0)
		if err != nil {
			t.Fatal(err)
		}
		if got := cc.Compression() == compress.Codecs.Zstd; got != ck.zstd {
			t.Errorf("%s: %v (%d of %d bytes), want zstd %v", ck.name, cc.Compression(), cc.TotalCompressedSize(), cc.TotalUncompressedSize(), ck.zstd)
		}
		if !cc.HasDictionaryPage() || cc.DictionaryPageOffset() >= cc.DataPageOffset() {
			t.Errorf("%s: dictionary page at %d, data at %d", ck.name, cc.DictionaryPageOffset(), cc.DataPageOffset())
		}
	}
	fr, err := pqarrow.NewFileReader(f, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	var got []float64
	for _, a := range tbl.Column(0).Data().Chunks() {
		got = append(got, a.(*array.Float64).Float64Values()...)
	}
	var want []float64
	for _, ck := range chunks {
		for _, id := range ck.ids {
			want = append(want, ck.dict[id])
		}
	}
	if len(got) != len(want) {
		t.Fatalf("read %d values, wrote %d", len(got), len(want))
	}
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("value %d: read %v, wrote %v", i, got[i], want[i])
		}
	}
}

// codecs is the codec of each row group's first column chunk in file b.
func codecs(b []byte) string {
	f, err := file.NewParquetReader(bytes.NewReader(b))
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	var out []string
	for g := 0; g < f.NumRowGroups(); g++ {
		cc, err := f.MetaData().RowGroup(g).ColumnChunk(0)
		if err != nil {
			return err.Error()
		}
		out = append(out, cc.Compression().String())
	}
	return strings.Join(out, " ")
}
