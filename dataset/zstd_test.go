package dataset

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/compress"
)

// TestZstdBytesAsArrow: the codec dataset registers writes the bytes
// arrow-go's own codec writes, at the dataset's level and at others, on
// seeded pages of mixed bytes (half dictionary-id-like, half rounded
// doubles: the pages where the encoder options made a difference), so
// replacing arrow-go's codec changes how encoders are kept, not the files.
func TestZstdBytesAsArrow(t *testing.T) {
	c, err := compress.GetCodec(compress.Codecs.Zstd)
	if err != nil {
		t.Fatal(err)
	}
	ours, ok := c.(*reusingZstd)
	if !ok {
		t.Fatalf("the registered zstd codec is %T, not dataset's", c)
	}
	r := rand.New(rand.NewPCG(5, 8))
	for trial := 0; trial < 12; trial++ {
		page := make([]byte, 0, 256<<10)
		for len(page) < cap(page)/2 {
			page = append(page, byte(r.IntN(40)))
		}
		for len(page)+8 <= cap(page) {
			page = binary.LittleEndian.AppendUint64(page, math.Float64bits(math.Round(r.Float64()*1e4)/1e4))
		}
		for _, level := range []int{parquetZstdLevelNum, 3, compress.DefaultCompressionLevel} {
			got := ours.EncodeLevel(nil, page, level)
			want := ours.Codec.EncodeLevel(nil, page, level)
			if level == compress.DefaultCompressionLevel {
				// arrow-go's default level is zstd's default; dataset
				// writes its own level then.
				want = ours.Codec.EncodeLevel(nil, page, parquetZstdLevelNum)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("trial %d, level %d: %d bytes, arrow-go's codec %d", trial, level, len(got), len(want))
			}
		}
	}
}
