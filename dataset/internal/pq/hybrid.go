package pq

import (
	"encoding/binary"
	"slices"
)

// LevelBlock appends a version 1 page's level block: the length in 4
// bytes, then the runs that runs appends.
func LevelBlock(b []byte, runs func([]byte) []byte) []byte {
	at := len(b)
	b = runs(append(b, 0, 0, 0, 0))
	binary.LittleEndian.PutUint32(b[at:], uint32(len(b)-at-4))
	return b
}

// LevelBytes splits a version 1 page's RLE level block (a 4-byte
// little-endian length, then the runs) from what follows it.
func LevelBytes(b []byte) (levels, rest []byte, ok bool) {
	if len(b) < 4 {
		return nil, nil, false
	}
	n := binary.LittleEndian.Uint32(b)
	if uint64(n) > uint64(len(b)-4) {
		return nil, nil, false
	}
	return b[4 : 4+n], b[4+n:], true
}

// AppendRun appends an RLE run of value v (of at most 32 bits, in
// ⌈width/8⌉ bytes) repeated n times.
func AppendRun(b []byte, v uint32, n, width int) []byte {
	b = binary.AppendUvarint(b, uint64(n)<<1)
	for k := 0; k < (width+7)/8; k++ {
		b = append(b, byte(v>>(8*k)))
	}
	return b
}

// hybridRun is the shortest run of one value that is written as an RLE
// run rather than bit-packed.
const hybridRun = 16

// AppendHybrid appends vals (each below 1<<width, not negative) in
// Parquet's RLE / bit-packed hybrid encoding: maximal runs of hybridRun or
// more equal values as RLE runs, the rest bit-packed in groups of 8 (the
// last group padded with zeros).
//
// The runs are found by comparing vals[p] with vals[p+8] at every p that
// is a multiple of 8: a run of 16 or more covers some such p and p+8, so
// only where they are equal is the run around p measured. Dictionary ids
// of time-ordered rows change at almost every row, and this scan costs one
// comparison per 8 of them where comparing neighbours cost one per id.
func AppendHybrid(b []byte, vals []int32, width int) []byte {
	lit := 0 // start of the values not yet written
	for p := 0; p+8 < len(vals); p += 8 {
		v := vals[p]
		if vals[p+8] != v {
			continue
		}
		if !equal7(vals[p+1:p+8], v) { // p and p+8 are in different runs
			continue
		}
		// The maximal run [i, j) around p. It starts at or after lit: lit
		// is the end of a maximal run, or 0.
		i, j := p, p+9
		for i > lit && vals[i-1] == v {
			i--
		}
		for j < len(vals) && vals[j] == v {
			j++
		}
		if j-i < hybridRun {
			continue
		}
		// Bit-pack vals[lit:i] in whole groups, taking the first values
		// of the run to fill the last group; RLE the rest of the run.
		k := i + (8-(i-lit)%8)%8
		b = appendPacked(b, vals[lit:k], width)
		b = AppendRun(b, uint32(v), j-k, width)
		lit = j
		p = (j+7)&^7 - 8 // the next multiple of 8 at or after j
	}
	return appendPacked(b, vals[lit:], width)
}

// equal7 reports whether the 7 values of g are v.
func equal7(g []int32, v int32) bool {
	g = g[:7]
	return g[0] == v && g[1] == v && g[2] == v && g[3] == v && g[4] == v && g[5] == v && g[6] == v
}

// appendPacked appends one bit-packed run of vals (each below 1<<width,
// width ≤ 32), padded to a multiple of 8 values.
//
// 8 values of width bits are width bytes. Up to 16 bits a group is put
// together in one or two words and stored whole (the next group's store
// overwrites the zeros past its width bytes); wider values, which only
// dictionaries of more than 65536 entries have, go through a word that
// gathers 32 bits at a time.
func appendPacked(b []byte, vals []int32, width int) []byte {
	if len(vals) == 0 {
		return b
	}
	groups := (len(vals) + 7) / 8
	b = binary.AppendUvarint(b, uint64(groups)<<1|1)
	n := len(b)
	// 16 bytes of slack for the whole-word stores past the last group.
	b = slices.Grow(b, groups*width+16)[:n+groups*width+16]
	full := len(vals) &^ 7
	at := n
	switch {
	case width <= 8:
		at = packSmall(b, at, vals[:full], uint(width))
	case width <= 16:
		at = packMedium(b, at, vals[:full], uint(width))
	default:
		at = packWide(b, at, vals[:full], width)
	}
	if full < len(vals) { // the last group, padded with zeros
		var last [8]int32
		copy(last[:], vals[full:])
		switch {
		case width <= 8:
			at = packSmall(b, at, last[:], uint(width))
		case width <= 16:
			at = packMedium(b, at, last[:], uint(width))
		default:
			at = packWide(b, at, last[:], width)
		}
	}
	return b[:at]
}

// packSmall packs groups of 8 values of w ≤ 8 bits at b[at:] (with 8
// bytes to spare) and returns the end.
func packSmall(b []byte, at int, vals []int32, w uint) int {
	le := binary.LittleEndian
	for len(vals) >= 8 {
		g := (*[8]int32)(vals)
		x := uint64(uint32(g[0])) | uint64(uint32(g[1]))<<w | uint64(uint32(g[2]))<<(2*w) | uint64(uint32(g[3]))<<(3*w) |
			uint64(uint32(g[4]))<<(4*w) | uint64(uint32(g[5]))<<(5*w) | uint64(uint32(g[6]))<<(6*w) | uint64(uint32(g[7]))<<(7*w)
		le.PutUint64(b[at:at+8], x)
		at += int(w)
		vals = vals[8:]
	}
	return at
}

// packMedium packs groups of 8 values of 8 < w ≤ 16 bits at b[at:] (with
// 16 bytes to spare) and returns the end: four values to a word, the
// second word shifted in after the first's 4w bits.
func packMedium(b []byte, at int, vals []int32, w uint) int {
	le := binary.LittleEndian
	for len(vals) >= 8 {
		g := (*[8]int32)(vals)
		lo := uint64(uint32(g[0])) | uint64(uint32(g[1]))<<w | uint64(uint32(g[2]))<<(2*w) | uint64(uint32(g[3]))<<(3*w)
		hi := uint64(uint32(g[4])) | uint64(uint32(g[5]))<<w | uint64(uint32(g[6]))<<(2*w) | uint64(uint32(g[7]))<<(3*w)
		s := 4 * w // 36..64; a shift by 64 is 0 in Go
		le.PutUint64(b[at:at+8], lo|hi<<s)
		le.PutUint64(b[at+8:at+16], hi>>(64-s))
		at += int(w)
		vals = vals[8:]
	}
	return at
}

// packWide packs groups of 8 values of up to 32 bits at b[at:] (with 4
// bytes to spare) and returns the end.
func packWide(b []byte, at int, vals []int32, width int) int {
	le := binary.LittleEndian
	var acc uint64
	nb := 0
	for _, v := range vals {
		acc |= uint64(uint32(v)) << nb
		nb += width
		if nb >= 32 {
			le.PutUint32(b[at:], uint32(acc))
			at += 4
			acc >>= 32
			nb -= 32
		}
	}
	// 8 values are a whole number of bytes: what is left is below 32
	// bits and byte-aligned.
	le.PutUint32(b[at:], uint32(acc))
	return at + nb/8
}

// UnpackHybrid decodes len(dst) values of Parquet's RLE/bit-packed hybrid
// encoding of width-bit values (width ≤ 32) from b. False when b is short
// or malformed, or a value does not fit an int32.
func UnpackHybrid(b []byte, width int, dst []int32) bool {
	_, ok := unpackIDs(b, width, dst)
	return ok
}

// UnpackBits sets dst to the first len(dst) width-bit values (width ≤ 64,
// and ≤ 32 for int32) bit-packed little-endian in src, which holds at
// least len(dst)×width bits.
func UnpackBits[T int32 | uint64](src []byte, width int, dst []T) {
	if width == 0 {
		clear(dst)
		return
	}
	mask := ^uint64(0) >> (64 - width)
	le := binary.LittleEndian
	j, bit := 0, 0
	if width <= 56 {
		// Whole 8-byte windows while they fit in src.
		for ; j < len(dst) && bit>>3+8 <= len(src); j, bit = j+1, bit+width {
			dst[j] = T(le.Uint64(src[bit>>3:]) >> (bit & 7) & mask)
		}
	}
	for ; j < len(dst); j, bit = j+1, bit+width {
		var w [16]byte
		copy(w[:], src[bit>>3:])
		v := le.Uint64(w[:]) >> (bit & 7)
		if sh := bit & 7; sh != 0 {
			v |= le.Uint64(w[8:]) << (64 - sh)
		}
		dst[j] = T(v & mask)
	}
}

// Runs walks Parquet's RLE/bit-packed hybrid runs of width-bit values
// (width ≤ 8: levels) without expanding them.
type Runs struct {
	b     []byte
	width int
}

// NewRuns walks the runs in b of width-bit values (1 ≤ width ≤ 8).
func NewRuns(b []byte, width int) Runs { return Runs{b: b, width: width} }

// Next returns the next run, at most max values long: a repeated value
// v × c, or c bit-packed values in packed (packed is nil for a repeated
// run). Bit-packed runs come in groups of 8 values whose padding is cut
// off by max.
func (h *Runs) Next(max int) (v, c int, packed []byte, ok bool) {
	if h.width < 1 || h.width > 8 {
		return 0, 0, nil, false
	}
	hdr, n := binary.Uvarint(h.b)
	if n <= 0 || max <= 0 {
		return 0, 0, nil, false
	}
	h.b = h.b[n:]
	if hdr&1 == 0 { // repeated
		c := hdr >> 1
		if c == 0 || len(h.b) < 1 || c > uint64(1<<31) {
			return 0, 0, nil, false
		}
		v := int(h.b[0])
		h.b = h.b[1:] // ⌈width/8⌉ = 1 byte
		if v >= 1<<h.width {
			return 0, 0, nil, false
		}
		return v, int(min(c, uint64(max))), nil, true
	}
	groups := hdr >> 1
	if groups == 0 || groups > uint64(len(h.b)) {
		return 0, 0, nil, false
	}
	nb := int(groups) * h.width // 8 values of width bits = width bytes
	if nb > len(h.b) {
		return 0, 0, nil, false
	}
	packed = h.b[:nb]
	h.b = h.b[nb:]
	return 0, int(min(groups*8, uint64(max))), packed, true
}

// DictStream reads a data page's dictionary ids as their values, a run of
// list elements at a time: a reader spreads a page's values among its
// nulls without a copy of them in between.
type DictStream struct {
	b      []byte
	width  int
	dict   []float64
	rle    uint64  // ids left in the current run of one id
	val    float64 // its value
	packed []byte  // the current bit-packed run
	bit    int     // the next id's bit in packed
	left   int     // ids left in packed (with the last group's padding)
}

// Reset starts reading the ids in b (a bit width byte, then hybrid runs)
// as values of dict. False when the width is above 32. An empty b is a
// page without ids (all nulls), as some writers leave out the width.
func (s *DictStream) Reset(b []byte, dict []float64) bool {
	*s = DictStream{dict: dict}
	if len(b) == 0 {
		return true
	}
	if b[0] > 32 {
		return false
	}
	s.width, s.b = int(b[0]), b[1:]
	return true
}

// Read sets dst to the values of the next len(dst) ids. False when the ids
// are short or malformed, or one is not below len(dict).
func (s *DictStream) Read(dst []float64) bool {
	for len(dst) > 0 {
		if s.rle > 0 {
			fill := dst[:min(s.rle, uint64(len(dst)))]
			for j := range fill {
				fill[j] = s.val
			}
			s.rle -= uint64(len(fill))
			dst = dst[len(fill):]
			continue
		}
		if s.left > 0 {
			m := min(s.left, len(dst))
			if !lookupBits(s.packed, s.bit, s.width, s.dict, dst[:m]) {
				return false
			}
			s.bit += m * s.width
			s.left -= m
			dst = dst[m:]
			continue
		}
		h, k := binary.Uvarint(s.b)
		if k <= 0 {
			return false
		}
		s.b = s.b[k:]
		if h&1 == 0 { // a run of one id
			c := h >> 1
			vb := (s.width + 7) / 8
			if c == 0 || len(s.b) < vb {
				return false
			}
			var v uint64
			for j := 0; j < vb; j++ {
				v |= uint64(s.b[j]) << (8 * j)
			}
			s.b = s.b[vb:]
			if v >= uint64(len(s.dict)) || s.width < 32 && v >= 1<<s.width {
				return false
			}
			s.rle, s.val = c, s.dict[v]
			continue
		}
		groups := h >> 1 // of 8 ids, width bytes each (none at width 0)
		if groups == 0 || groups > 1<<31 {
			return false
		}
		nb := int(groups) * s.width
		if nb > len(s.b) {
			return false
		}
		s.packed, s.bit, s.left = s.b[:nb], 0, int(groups)*8
		s.b = s.b[nb:]
	}
	return true
}

// lookupBits sets dst[j] to dict[id] for len(dst) width-bit ids (width ≤
// 32) bit-packed little-endian in src from bit at, which holds them all;
// false when an id is not below len(dict).
func lookupBits(src []byte, at, width int, dict, dst []float64) bool {
	if width == 0 {
		if len(dict) == 0 {
			return false
		}
		for j := range dst {
			dst[j] = dict[0]
		}
		return true
	}
	mask := uint64(1)<<width - 1
	nd := uint64(len(dict))
	le := binary.LittleEndian
	j, bit := 0, at
	// Whole 8-byte windows while they fit in src.
	for ; j < len(dst) && bit>>3+8 <= len(src); j, bit = j+1, bit+width {
		id := le.Uint64(src[bit>>3:]) >> (bit & 7) & mask
		if id >= nd {
			return false
		}
		dst[j] = dict[id]
	}
	for ; j < len(dst); j, bit = j+1, bit+width {
		var w [8]byte
		copy(w[:], src[bit>>3:])
		id := le.Uint64(w[:]) >> (bit & 7) & mask
		if id >= nd {
			return false
		}
		dst[j] = dict[id]
	}
	return true
}
