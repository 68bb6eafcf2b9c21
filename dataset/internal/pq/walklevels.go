package pq

import (
	"slices"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/klauspost/compress/zstd"
)

// WalkLevels is Walk that hands data the definition levels as they are in
// the page (the hybrid runs of 1-bit levels, nil for a required column),
// for a reader that counts them (CountDefs) where a column has no nulls
// rather than expanding them to an int32 a row.
func (s *PageReader) WalkLevels(b []byte, codec compress.Compression, maxDef int16, rows int,
	dict func(n int, body []byte) bool, data func(enc int32, levels int, def, vals []byte) bool) bool {
	if codec != compress.Codecs.Zstd && codec != compress.Codecs.Uncompressed || maxDef < 0 || maxDef > 1 || rows < 0 {
		return false
	}
	if codec == compress.Codecs.Zstd && s.zstd == nil {
		// DecodeAll decodes at most cap(dst): the page's declared size
		// (below). Without the limit a frame that declares a gigabyte of
		// content made the decoder allocate it before failing (a 130-byte
		// chunk took 0.4 s and 2 GB; FuzzWalkDecode's worker was killed).
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(1<<30), zstd.WithDecodeAllCapLimit(true))
		if err != nil {
			return false
		}
		s.zstd = d
	}
	seen, datas := 0, 0
	for p := 0; p < len(b); {
		h, hn, ok := ParsePageHeader(b[p:])
		if !ok || h.Compressed < 0 || h.Uncompressed < 0 || int64(h.Compressed) > int64(len(b)-p-hn) {
			return false
		}
		body := b[p+hn : p+hn+int(h.Compressed)]
		p += hn + int(h.Compressed)
		if h.Type == IndexPage {
			continue
		}
		if codec == compress.Codecs.Zstd {
			if h.Uncompressed > 1<<30 {
				return false
			}
			// The buffer keeps its capacity: cut to one page's size it
			// was allocated (and cleared) anew at every larger page, 0.5
			// of the 3 CPU seconds the usage columns took to read at
			// 10,000 tenants.
			s.page = slices.Grow(s.page[:0], int(h.Uncompressed))
			out, err := s.zstd.DecodeAll(body, s.page[:0:h.Uncompressed])
			if err != nil || len(out) != int(h.Uncompressed) {
				return false
			}
			body = out
		} else if h.Compressed != h.Uncompressed {
			return false
		}
		switch h.Type {
		case DictionaryPage: // first, once, PLAIN
			if datas > 0 || dict == nil || (h.DictEncoding != Plain && h.DictEncoding != PlainDict) || h.DictValues < 0 || !dict(int(h.DictValues), body) {
				return false
			}
			dict = nil
		case DataPage:
			nv := int(h.NumValues)
			if nv < 0 || nv > rows-seen {
				return false
			}
			var def []byte
			if maxDef == 1 {
				lv, rest, ok := LevelBytes(body)
				if !ok || h.DefEnc != RLE {
					return false
				}
				def, body = lv, rest
			}
			if !data(h.Encoding, nv, def, body) {
				return false
			}
			seen += nv
			datas++
		default: // version 2 data pages, unknown page types
			return false
		}
	}
	return seen == rows
}
