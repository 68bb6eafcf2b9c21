package pq

import (
	"encoding/binary"
	"math"
	"math/bits"
)

//go:generate go run ./internal/genunpack

// The decoders here read what DictIDs and UnpackHybrid read, with the same
// verdicts, in one pass: a bit-packed run is unpacked 8 values at a time by
// code written for its width (unpack_gen.go: shifts and masks known at
// compile time, two loads for the 8 ids of 10 to 16 bits), the greatest id
// is kept in a register on the way and checked against the dictionary once
// per run, and dictionary doubles are looked up as a group's ids come, its
// greatest checked first. DictIDs wrote the ids, read all of them back to check
// their bound and, for doubles, a third time to look them up; UnpackBits
// moved a bit cursor and checked bounds at every value. The old decoders
// stay as the reference the tests hold these to.

// DecodeIDs is DictIDs: a data page's dictionary ids (a bit width byte,
// then hybrid runs) into dst, each below size.
func DecodeIDs(vals []byte, dst []int32, size int) bool {
	if len(dst) == 0 {
		return true
	}
	if len(vals) < 1 {
		return false
	}
	hi, ok := unpackIDs(vals[1:], int(vals[0]), dst)
	return ok && uint64(hi) < uint64(max(size, 0))
}

// DecodeDictDoubles sets dst[i] to dict[id] of the i-th of a data page's
// dictionary ids (a bit width byte, then hybrid runs): DictIDs then a
// lookup, without the ids in between. False where DictIDs(vals, ids,
// len(dict)) is.
func DecodeDictDoubles(vals []byte, dict, dst []float64) bool {
	if len(dst) == 0 {
		return true
	}
	if len(vals) < 1 || vals[0] > 32 {
		return false
	}
	width := int(vals[0])
	b := vals[1:]
	vb := (width + 7) / 8
	var ids [64]int32 // the ids of a bit-packed run's last groups
	for i := 0; i < len(dst); {
		h, k := binary.Uvarint(b)
		if k <= 0 {
			return false
		}
		b = b[k:]
		if h&1 == 0 { // a run of one id
			c := h >> 1
			if c == 0 || len(b) < vb {
				return false
			}
			v := runValue(b, vb)
			b = b[vb:]
			if v >= 1<<width && width < 32 || v > math.MaxInt32 || v >= uint64(len(dict)) {
				return false
			}
			fill := dst[i : i+int(min(c, uint64(len(dst)-i)))]
			x := dict[v]
			for j := range fill {
				fill[j] = x
			}
			i += len(fill)
			continue
		}
		groups := h >> 1 // of 8 ids, width bytes each (none at width 0)
		if groups == 0 || groups > 1<<31 {
			return false
		}
		nb := int(groups) * width
		if nb > len(b) {
			return false
		}
		run, out := b[:nb], dst[i:i+int(min(groups*8, uint64(len(dst)-i)))]
		b = b[nb:]
		i += len(out)
		if width == 0 { // ids of no bits: all 0
			if len(dict) == 0 {
				return false
			}
			for j := range out {
				out[j] = dict[0]
			}
			continue
		}
		n, ok := lookupGroups[width](run, dict, out)
		if !ok {
			return false
		}
		if n < len(out) { // the last groups, as unpackRun reads them
			blk := ids[:len(out)-n]
			if hi := unpackRun(run[n/8*width:], width, blk); hi > math.MaxInt32 || uint64(hi) >= uint64(len(dict)) {
				return false
			}
			for j, id := range blk {
				out[n+j] = dict[id]
			}
		}
	}
	return true
}

// runValue is the value of an RLE run: vb little-endian bytes of b.
func runValue(b []byte, vb int) uint64 {
	var v uint64
	for j := 0; j < vb; j++ {
		v |= uint64(b[j]) << (8 * j)
	}
	return v
}

// unpackIDs is UnpackHybrid that also returns the greatest value.
func unpackIDs(b []byte, width int, dst []int32) (hi uint32, ok bool) {
	if width < 0 || width > 32 {
		return 0, false
	}
	vb := (width + 7) / 8
	for i := 0; i < len(dst); {
		h, k := binary.Uvarint(b)
		if k <= 0 {
			return 0, false
		}
		b = b[k:]
		if h&1 == 0 { // a run of one value
			c := h >> 1
			if c == 0 || len(b) < vb {
				return 0, false
			}
			v := runValue(b, vb)
			b = b[vb:]
			if v >= 1<<width && width < 32 || v > math.MaxInt32 {
				return 0, false
			}
			fill := dst[i : i+int(min(c, uint64(len(dst)-i)))]
			for j := range fill {
				fill[j] = int32(v)
			}
			hi = max(hi, uint32(v))
			i += len(fill)
			continue
		}
		groups := h >> 1 // of 8 values, width bytes each (none at width 0)
		if groups == 0 || groups > 1<<31 {
			return 0, false
		}
		nb := int(groups) * width
		if nb > len(b) {
			return 0, false
		}
		out := dst[i : i+int(min(groups*8, uint64(len(dst)-i)))]
		hi = max(hi, unpackRun(b[:nb], width, out))
		if hi > math.MaxInt32 { // width 32
			return 0, false
		}
		b = b[nb:]
		i += len(out)
	}
	return hi, true
}

// unpackRun sets dst to the first len(dst) width-bit values (width ≤ 32)
// bit-packed in src, which holds at least len(dst)×width bits, and returns
// the greatest (as unsigned: above MaxInt32 at width 32 is a negative id).
func unpackRun(src []byte, width int, dst []int32) uint32 {
	if width == 0 {
		clear(dst)
		return 0
	}
	n, hi := unpackGroups[width](src, dst)
	if n == len(dst) {
		return hi
	}
	// The last groups: their word loads would read past src, so from a
	// copy padded with zeros. Fewer than 8 values are left, or fewer
	// than the 8×⌈width/8⌉ bytes of the loads, which hold under 64.
	var buf [64]byte
	var tmp [64]int32
	copy(buf[:], src[n/8*width:])
	left := len(dst) - n
	m, _ := unpackGroups[width](buf[:], tmp[:(left+7)&^7])
	if m < left {
		panic("pq: unpackRun: tail longer than its buffer")
	}
	for j, v := range tmp[:left] {
		dst[n+j] = v
		hi = max(hi, uint32(v))
	}
	return hi
}

// CountDefs returns how many of the first n definition levels in def (the
// hybrid runs of a flat optional column's 1-bit levels) are 1, with the
// verdict UnpackHybrid(def, 1, levels[:n]) gives, without the levels.
func CountDefs(def []byte, n int) (ones int, ok bool) {
	for i := 0; i < n; {
		h, k := binary.Uvarint(def)
		if k <= 0 {
			return 0, false
		}
		def = def[k:]
		if h&1 == 0 {
			c := h >> 1
			if c == 0 || len(def) < 1 || def[0] > 1 {
				return 0, false
			}
			m := int(min(c, uint64(n-i)))
			ones += m * int(def[0])
			def = def[1:]
			i += m
			continue
		}
		groups := h >> 1 // of 8 levels, a byte each
		if groups == 0 || groups > 1<<31 || groups > uint64(len(def)) {
			return 0, false
		}
		m := int(min(groups*8, uint64(n-i)))
		full := def[:m/8]
		for len(full) >= 8 {
			ones += bits.OnesCount64(binary.LittleEndian.Uint64(full))
			full = full[8:]
		}
		for _, x := range full {
			ones += bits.OnesCount8(x)
		}
		if r := m % 8; r > 0 {
			ones += bits.OnesCount8(def[m/8] & (1<<r - 1))
		}
		def = def[groups:]
		i += m
	}
	return ones, true
}
