package pq

import (
	"encoding/binary"
	"math"
	"slices"
	"unsafe"
)

// IDCursor reads a data page's dictionary ids (a bit width byte, then
// hybrid runs) a slice at a time, so that a reader can hand a row group
// on in slices that stay in the cache, where decoding a whole page made
// an array of a million ids per column that went out to memory and back.
// Next over slices of any lengths gives what DecodeIDs gives at once.
type IDCursor struct {
	b      []byte // the runs after the current one
	width  int
	vb     int    // bytes of a repeated run's value
	rle    int    // ids left in the current run of one id
	val    uint32 // that id
	packed []byte // the current bit-packed run, from its next whole group
	skip   int    // ids of packed's first group already read
	left   int    // ids left in the bit-packed run, its last group's padding included
}

// Reset starts reading the ids of vals. False when the width is above 32.
func (c *IDCursor) Reset(vals []byte) bool {
	*c = IDCursor{}
	if len(vals) < 1 || vals[0] > 32 {
		return false
	}
	c.width, c.vb, c.b = int(vals[0]), (int(vals[0])+7)/8, vals[1:]
	return true
}

// Next sets dst to the next len(dst) ids and returns the greatest. False
// when the page ends first or is malformed, or an id does not fit an
// int32.
func (c *IDCursor) Next(dst []int32) (hi uint32, ok bool) {
	w := c.width
	for i := 0; i < len(dst); {
		switch {
		case c.rle > 0:
			fill := dst[i : i+min(c.rle, len(dst)-i)]
			v := int32(c.val)
			for j := range fill {
				fill[j] = v
			}
			hi = max(hi, c.val)
			c.rle -= len(fill)
			i += len(fill)
		case c.left > 0 && (c.skip > 0 || len(dst)-i < 8):
			// Part of a group, through a copy of all of it.
			var g [8]int32
			unpackRun(c.packed[:w], w, g[:])
			n := min(8-c.skip, len(dst)-i, c.left)
			for j, v := range g[c.skip : c.skip+n] {
				dst[i+j] = v
				hi = max(hi, uint32(v))
			}
			i += n
			c.left -= n
			if c.skip += n; c.skip == 8 {
				c.skip, c.packed = 0, c.packed[w:]
			}
		case c.left > 0:
			groups := min(len(dst)-i, c.left) / 8
			n := groups * 8
			hi = max(hi, unpackRun(c.packed[:groups*w], w, dst[i:i+n]))
			c.packed = c.packed[groups*w:]
			c.left -= n
			i += n
		default:
			h, k := binary.Uvarint(c.b)
			if k <= 0 {
				return 0, false
			}
			c.b = c.b[k:]
			if h&1 == 0 { // a run of one id
				cnt := h >> 1
				if cnt == 0 || cnt > 1<<31 || len(c.b) < c.vb {
					return 0, false
				}
				v := runValue(c.b, c.vb)
				c.b = c.b[c.vb:]
				if v >= 1<<w && w < 32 || v > math.MaxInt32 {
					return 0, false
				}
				c.rle, c.val = int(cnt), uint32(v)
				continue
			}
			groups := h >> 1 // of 8 ids, width bytes each
			if groups == 0 || groups > 1<<31 || int(groups)*w > len(c.b) {
				return 0, false
			}
			nb := int(groups) * w
			c.packed, c.b = c.b[:nb], c.b[nb:]
			c.left, c.skip = int(groups)*8, 0
		}
	}
	return hi, hi <= math.MaxInt32
}

// DeltaCursor reads a DELTA_BINARY_PACKED page of int64 values a slice at
// a time, as IDCursor does ids: Next over slices of any lengths gives what
// DecodeDeltaFast gives at once.
type DeltaCursor struct {
	b        []byte
	per, mbs int    // values per miniblock, miniblocks per block
	left     int    // values not yet handed out
	first    int64  // the first value, handed out first
	started  bool   // first was handed out
	cur, md  uint64 // the last value decoded; the block's minimum delta
	widths   []byte // the block's miniblock bit widths
	m        int    // the block's next miniblock; mbs: a block header is next
	buf      []uint64
	pend     []uint64 // values of a miniblock decoded past a slice's end
}

// Reset starts reading the page b of n values. False when its header does
// not parse or declares another count.
func (c *DeltaCursor) Reset(b []byte, n int) bool {
	*c = DeltaCursor{buf: c.buf[:0]}
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
	first, k4 := binary.Varint(b)
	if k4 <= 0 {
		return false
	}
	if blockSize == 0 || blockSize%128 != 0 || blockSize > 1<<20 || miniblocks == 0 || blockSize%miniblocks != 0 ||
		(blockSize/miniblocks)%32 != 0 || total != uint64(n) || n < 0 {
		return false
	}
	c.b, c.per, c.mbs, c.left, c.first, c.cur = b[k4:], int(blockSize/miniblocks), int(miniblocks), n, first, uint64(first)
	c.m = c.mbs
	return true
}

// Next sets dst to the next len(dst) values; false when the page ends
// first or is malformed.
func (c *DeltaCursor) Next(dst []int64) bool {
	if len(dst) > c.left {
		return false
	}
	out := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(dst))), len(dst))
	i := 0
	if !c.started && len(out) > 0 {
		out[0] = uint64(c.first)
		c.started = true
		i, c.left = 1, c.left-1
	}
	n := copy(out[i:], c.pend)
	c.pend = c.pend[n:]
	i += n
	c.left -= n
	for i < len(out) {
		if c.m == c.mbs {
			minDelta, k := binary.Varint(c.b)
			if k <= 0 || len(c.b)-k < c.mbs {
				return false
			}
			c.widths, c.b = c.b[k:k+c.mbs], c.b[k+c.mbs:]
			c.md, c.m = uint64(minDelta), 0
		}
		w := int(c.widths[c.m])
		c.m++
		if w > 64 {
			return false
		}
		cnt := min(c.per, c.left)
		direct := cnt <= len(out)-i
		var into []uint64
		if direct {
			into = out[i : i+cnt]
		} else { // the slice ends inside this miniblock
			c.buf = slices.Grow(c.buf[:0], cnt)[:cnt]
			into = c.buf
		}
		if w == 0 {
			for j := range into {
				c.cur += c.md
				into[j] = c.cur
			}
		} else {
			if (cnt*w+7)/8 > len(c.b) {
				return false
			}
			nb := min(c.per*w/8, len(c.b))
			UnpackBits(c.b[:nb], w, into)
			for j, d := range into {
				c.cur += c.md + d
				into[j] = c.cur
			}
			c.b = c.b[nb:]
		}
		if direct {
			i += cnt
			c.left -= cnt
			continue
		}
		k := copy(out[i:], into)
		c.pend = into[k:]
		i += k
		c.left -= k
	}
	return true
}
