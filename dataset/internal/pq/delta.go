package pq

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// Delta encoding: blocks of 128 values in 4 miniblocks of 32, as arrow
// and parquet-mr write it.
const (
	deltaBlock      = 128
	deltaMiniblocks = 4
)

// AppendDelta appends vals in Parquet's DELTA_BINARY_PACKED encoding.
func AppendDelta(b []byte, vals []int64) []byte {
	b, _, _ = AppendDeltaRange(b, vals)
	return b
}

// AppendDeltaRange is AppendDelta that also returns the least and the
// greatest of vals (MaxInt64 and MinInt64 when there are none), for a
// column chunk's statistics: a million times are read once instead of
// twice.
func AppendDeltaRange(b []byte, vals []int64) (_ []byte, lo, hi int64) {
	lo, hi = math.MaxInt64, math.MinInt64
	b = binary.AppendUvarint(b, deltaBlock)
	b = binary.AppendUvarint(b, deltaMiniblocks)
	b = binary.AppendUvarint(b, uint64(len(vals)))
	if len(vals) == 0 {
		return binary.AppendVarint(b, 0), lo, hi
	}
	b = binary.AppendVarint(b, vals[0])
	const per = deltaBlock / deltaMiniblocks
	var d [deltaBlock]uint64
	prev := vals[0]
	lo, hi = prev, prev
	for i := 1; i < len(vals); i += deltaBlock {
		n := min(deltaBlock, len(vals)-i)
		// One pass for the deltas, their least (the block's) and each
		// miniblock's greatest: a miniblock's width is that of its
		// greatest delta less the least, as the bit length of an OR is
		// that of its greatest operand.
		minD := int64(math.MaxInt64)
		var maxD [deltaMiniblocks]int64
		for m := 0; m < deltaMiniblocks; m++ {
			mx := int64(math.MinInt64)
			for j := m * per; j < min((m+1)*per, n); j++ {
				v := vals[i+j]
				lo, hi = min(lo, v), max(hi, v)
				dj := v - prev // wraps, as the reader's sum does
				prev = v
				d[j] = uint64(dj)
				minD, mx = min(minD, dj), max(mx, dj)
			}
			maxD[m] = mx
		}
		b = binary.AppendVarint(b, minD)
		var widths [deltaMiniblocks]int
		for m := 0; m < deltaMiniblocks; m++ {
			if m*per < n {
				widths[m] = bits.Len64(uint64(maxD[m]) - uint64(minD))
			}
			b = append(b, byte(widths[m]))
		}
		for m := 0; m*per < n; m++ {
			if widths[m] == 0 {
				// No bits (equal deltas: the rows of one time step of
				// time-ordered usage); 32 calls to put would add none.
				continue
			}
			var bw bitWriter
			bw.b = b
			for j := m * per; j < (m+1)*per; j++ {
				v := uint64(0) // the padding of the last miniblock
				if j < n {
					v = d[j] - uint64(minD)
				}
				bw.put(v, widths[m])
			}
			b = bw.flush()
		}
	}
	return b, lo, hi
}

// bitWriter packs values little-endian, least significant bit first.
type bitWriter struct {
	b   []byte
	acc uint64
	nb  int // bits in acc, < 32 between calls
}

func (w *bitWriter) put(v uint64, width int) {
	if width > 32 {
		w.putWide(v, width)
		return
	}
	w.acc |= (v & (1<<width - 1)) << w.nb
	w.nb += width
	if w.nb >= 32 {
		w.b = binary.LittleEndian.AppendUint32(w.b, uint32(w.acc))
		w.acc >>= 32
		w.nb -= 32
	}
}

func (w *bitWriter) putWide(v uint64, width int) {
	w.put(v&0xffffffff, 32)
	w.put(v>>32, width-32)
}

// flush writes the bytes of the bits left (a last byte padded with
// zeros) and returns the bytes.
func (w *bitWriter) flush() []byte {
	for ; w.nb > 0; w.nb -= 8 {
		w.b = append(w.b, byte(w.acc))
		w.acc >>= 8
	}
	w.acc, w.nb = 0, 0
	return w.b
}
