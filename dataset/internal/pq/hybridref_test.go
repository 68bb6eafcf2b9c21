package pq

import (
	"encoding/binary"
	"math"
)

// unpackHybridRef is the reference decoder of Parquet's RLE/bit-packed
// hybrid encoding that UnpackHybrid (unpackIDs, with the generated
// unpackers) is checked against: a value at a time through UnpackBits.
func unpackHybridRef(b []byte, width int, dst []int32) bool {
	if width < 0 || width > 32 {
		return false
	}
	vb := (width + 7) / 8
	for i := 0; i < len(dst); {
		h, k := binary.Uvarint(b)
		if k <= 0 {
			return false
		}
		b = b[k:]
		if h&1 == 0 { // a run of one value
			c := h >> 1
			if c == 0 || len(b) < vb {
				return false
			}
			var v uint64
			for j := 0; j < vb; j++ {
				v |= uint64(b[j]) << (8 * j)
			}
			b = b[vb:]
			if v >= 1<<width && width < 32 || v > math.MaxInt32 {
				return false
			}
			m := int(min(c, uint64(len(dst)-i)))
			fill := dst[i : i+m]
			for j := range fill {
				fill[j] = int32(v)
			}
			i += m
			continue
		}
		groups := h >> 1 // of 8 values, width bytes each (none at width 0)
		if groups == 0 || groups > 1<<31 {
			return false
		}
		nb := int(groups) * width
		if nb > len(b) {
			return false
		}
		m := int(min(groups*8, uint64(len(dst)-i)))
		out := dst[i : i+m]
		UnpackBits(b[:nb], width, out)
		if width == 32 {
			for _, v := range out {
				if v < 0 {
					return false
				}
			}
		}
		b = b[nb:]
		i += m
	}
	return true
}
