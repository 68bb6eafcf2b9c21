package pq

import (
	"encoding/binary"
	"unsafe"
)

// DecodeDeltaFast is DecodeDelta (the same verdicts, the same values) for
// time-ordered rows: a miniblock of width 0 (32 equal deltas: the rows of
// one time step) is a running sum with no unpacking, where DecodeDelta
// cleared the 32 deltas through a call to memclr, then added them. Most
// miniblocks of the usage table's times are such.
func DecodeDeltaFast(b []byte, dst []int64) bool {
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
		md := uint64(minDelta)
		for m := 0; m < mbs && i < len(dst); m++ {
			w := int(widths[m])
			if w > 64 {
				return false
			}
			cnt := min(per, len(dst)-i)
			out := unsafe.Slice((*uint64)(unsafe.Pointer(&dst[i])), cnt)
			i += cnt
			if w == 0 {
				for j := range out {
					cur += md
					out[j] = cur
				}
				continue
			}
			nb := per * w / 8
			if need := (cnt*w + 7) / 8; need > len(b) {
				return false
			}
			// The deltas go into out first, then become the values.
			UnpackBits(b[:min(nb, len(b))], w, out)
			for j, d := range out {
				cur += md + d
				out[j] = cur
			}
			b = b[min(nb, len(b)):]
		}
	}
	return true
}
