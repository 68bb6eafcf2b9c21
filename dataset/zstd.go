package dataset

import (
	"sync"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/klauspost/compress/zstd"
)

// arrow/go v16's zstd codec builds a new encoder (tables, goroutines) for
// every Parquet page it compresses, because the page writer always calls
// EncodeLevel. That made compression the slowest part of ingest. This codec
// keeps one encoder per level; zstd.Encoder.EncodeAll is safe for
// concurrent use. Decoding is left to the original codec.
type reusingZstd struct {
	compress.Codec
	mu   sync.Mutex
	encs map[zstd.EncoderLevel]*zstd.Encoder
}

// parquetZstdLevel is the level every dataset file is written with: the
// fastest, since dataset files are written once per ingest on the critical
// path and dictionary/delta encodings already do most of the shrinking.
const parquetZstdLevel = zstd.SpeedFastest

// parquetZstdLevelNum is parquetZstdLevel as zstd's number, for the writer
// properties (zstd.EncoderLevelFromZstd(1) is SpeedFastest).
const parquetZstdLevelNum = 1

func (z *reusingZstd) encoder(level zstd.EncoderLevel) *zstd.Encoder {
	z.mu.Lock()
	defer z.mu.Unlock()
	if e, ok := z.encs[level]; ok {
		return e
	}
	e, err := zstd.NewWriter(nil, zstd.WithZeroFrames(true), zstd.WithEncoderLevel(level), zstd.WithEncoderConcurrency(1))
	if err != nil {
		panic("dataset: zstd encoder: " + err.Error()) // only invalid options fail
	}
	z.encs[level] = e
	return e
}

func (z *reusingZstd) Encode(dst, src []byte) []byte {
	return z.encoder(parquetZstdLevel).EncodeAll(src, dst[:0])
}

func (z *reusingZstd) EncodeLevel(dst, src []byte, level int) []byte {
	l := parquetZstdLevel
	if level != compress.DefaultCompressionLevel {
		l = zstd.EncoderLevelFromZstd(level)
	}
	return z.encoder(l).EncodeAll(src, dst[:0])
}

func init() {
	orig, err := compress.GetCodec(compress.Codecs.Zstd)
	if err != nil {
		panic("dataset: arrow has no zstd codec: " + err.Error())
	}
	compress.RegisterCodec(compress.Codecs.Zstd, &reusingZstd{Codec: orig, encs: map[zstd.EncoderLevel]*zstd.Encoder{}})
}
