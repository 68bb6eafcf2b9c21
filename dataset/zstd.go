package dataset

import (
	"sync"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/klauspost/compress/zstd"
)

// reusingZstd replaces arrow-go's zstd codec for writing, for its reuse of
// encoders, not for its options, which are arrow-go's own. arrow-go v18
// takes an encoder per page from a sync.Pool and resets it on the way
// back; this codec keeps one encoder per level for every page
// (zstd.Encoder.EncodeAll is safe for concurrent use). Measured on the
// ingest benchmark (`wlprof ingest csv`, 4 M rows, the same level and
// options on both sides, byte-identical files): arrow-go's codec took
// 2.5% more CPU (perf stat, two rounds of five). The options were decided
// by the same benchmark: without all-literal entropy coding (skipping it
// was this codec's option before) the usage table comes out
// byte-identical, since its pages always have matches, so that option
// bought nothing there, while on pages of mixed bytes, half
// dictionary-id-like and half rounded doubles (300 pages of 1 MiB, a
// loaded 2-core machine), it wrote 206 MB where arrow-go's options write
// 128 MB. Decoding is left to the original codec.
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
	// Two EncodeAll calls at once each get an encoder of their own (the
	// usage sink compresses two columns at a time); the bytes do not
	// depend on which.
	e, err := zstd.NewWriter(nil, zstd.WithZeroFrames(true), zstd.WithEncoderLevel(level), zstd.WithEncoderConcurrency(2),
		zstd.WithAllLitEntropyCompression(true)) // arrow-go's options: the same bytes as its codec
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
