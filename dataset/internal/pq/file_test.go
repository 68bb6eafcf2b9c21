package pq

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
)

// joined, which hands the codec a page's one non-empty part as it is, gives
// the bytes of all the parts one after the other, whatever their number
// and which of them are empty.
func TestJoined(t *testing.T) {
	a, b, e := []byte("levels"), []byte("ids of a page"), []byte{}
	var scratch []byte
	for _, parts := range [][][]byte{nil, {e}, {a}, {e, b}, {a, e}, {a, b}, {a, e, b}, {e, e}, {b, a, b}} {
		got, want := joined(parts, &scratch), bytes.Join(parts, nil)
		if !bytes.Equal(got, want) {
			t.Errorf("joined(%q) = %q, want %q", parts, got, want)
		}
	}
}

// A chunk whose pages are kept in a ChunkBuffer and written by WriteChunk
// makes the file a direct chunk makes, byte for byte: the same pages at the
// same offsets, and the same footer, whichever of a row group's chunks are
// buffered and in whatever order they were encoded.
func TestBufferedChunkEqualsDirect(t *testing.T) {
	as := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int64},
		{Name: "b", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "c", Type: arrow.PrimitiveTypes.Int32},
	}, nil)
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd), parquet.WithCompressionFor("c", compress.Codecs.Uncompressed))
	r := rand.New(rand.NewPCG(7, 7))
	body := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.IntN(4))
		}
		return b
	}
	type page struct {
		dict  bool
		n     int
		parts [][]byte
	}
	groups := make([][][]page, 3)
	for g := range groups {
		groups[g] = make([][]page, 3)
		for c := range groups[g] {
			if r.IntN(2) == 0 {
				groups[g][c] = append(groups[g][c], page{dict: true, n: 5, parts: [][]byte{body(40)}})
			}
			for range 1 + r.IntN(3) {
				groups[g][c] = append(groups[g][c], page{n: 100, parts: [][]byte{body(r.IntN(9)), body(1 + r.IntN(3000))}})
			}
		}
	}
	write := func(buffered func(g, c int) bool) []byte {
		var out bytes.Buffer
		p, err := NewFile(&out, as, props)
		if err != nil {
			t.Fatal(err)
		}
		bufs := make([]ChunkBuffer, 3)
		for g, cols := range groups {
			p.StartGroup(100)
			chunks := make([]*Chunk, 3)
			for _, c := range []int{2, 0, 1} { // encoded out of order
				if !buffered(g, c) {
					continue
				}
				if chunks[c], err = p.BufferedChunk(c, &bufs[c]); err != nil {
					t.Fatal(err)
				}
				for _, pg := range cols[c] {
					if pg.dict {
						chunks[c].DictPage(pg.n, pg.parts[0])
					} else {
						chunks[c].DataPage(pg.n, parquet.Encodings.Plain, pg.parts...)
					}
				}
			}
			for c := range cols {
				if chunks[c] != nil {
					if err := p.WriteChunk(chunks[c]); err != nil {
						t.Fatal(err)
					}
					continue
				}
				ch, err := p.Chunk()
				if err != nil {
					t.Fatal(err)
				}
				for _, pg := range cols[c] {
					if pg.dict {
						ch.DictPage(pg.n, pg.parts[0])
					} else {
						ch.DataPage(pg.n, parquet.Encodings.Plain, pg.parts...)
					}
				}
				if err := ch.End(); err != nil {
					t.Fatal(err)
				}
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
	direct := write(func(int, int) bool { return false })
	for name, f := range map[string]func(g, c int) bool{
		"all buffered": func(int, int) bool { return true },
		"some":         func(g, c int) bool { return (g+c)%2 == 0 },
	} {
		if got := write(f); !bytes.Equal(got, direct) {
			t.Errorf("%s: %d bytes, the direct chunks' %d, differ", name, len(got), len(direct))
		}
	}
}
