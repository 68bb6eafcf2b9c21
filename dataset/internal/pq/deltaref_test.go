package pq

import (
	"encoding/binary"
	"unsafe"
)

// DecodeDelta is the reference DELTA_BINARY_PACKED decoder: the
// readers use DecodeDeltaFast, and the tests and fuzz targets check it
// against this one (the same verdicts, the same values).
// DecodeDelta decodes a DELTA_BINARY_PACKED stream of exactly len(dst)
// int64 values. False when it is malformed, short, or holds another count.
func DecodeDelta(b []byte, dst []int64) bool {
	blockSize, k1 := binary.Uvarint(b)
	if k1 <= 0 {
		return false
	}
	b = b[k1:]
	miniblocks, k2 := binary.Uvarint(b)
	if k2 <= 0 {
		return false
	}
	b = b[k2:]
	total, k3 := binary.Uvarint(b)
	if k3 <= 0 {
		return false
	}
	b = b[k3:]
	first, k4 := binary.Varint(b) // zigzag
	if k4 <= 0 {
		return false
	}
	b = b[k4:]
	if blockSize == 0 || blockSize%128 != 0 || blockSize > 1<<20 || miniblocks == 0 || blockSize%miniblocks != 0 ||
		(blockSize/miniblocks)%32 != 0 || total != uint64(len(dst)) {
		return false
	}
	if len(dst) == 0 {
		return true
	}
	dst[0] = first
	cur := uint64(first)
	per := int(blockSize / miniblocks)
	mbs := int(miniblocks)
	for i := 1; i < len(dst); {
		minDelta, k := binary.Varint(b)
		if k <= 0 || len(b)-k < mbs {
			return false
		}
		widths := b[k : k+mbs]
		b = b[k+mbs:]
		for m := 0; m < mbs && i < len(dst); m++ {
			w := int(widths[m])
			if w > 64 {
				return false
			}
			cnt := min(per, len(dst)-i)
			nb := per * w / 8
			if need := (cnt*w + 7) / 8; need > len(b) {
				return false
			}
			// The deltas go into out first, then become the values.
			out := unsafe.Slice((*uint64)(unsafe.Pointer(&dst[i])), cnt)
			UnpackBits(b[:min(nb, len(b))], w, out)
			md := uint64(minDelta)
			for j, d := range out {
				cur += md + d
				out[j] = cur
			}
			b = b[min(nb, len(b)):]
			i += cnt
		}
	}
	return true
}
