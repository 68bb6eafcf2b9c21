package pq

import (
	"encoding/binary"
	"math"
	"unsafe"
)

// LittleEndian reports whether this machine stores numbers as PLAIN pages
// do, so that doubles can be copied between pages and slices as they are.
var LittleEndian = func() bool { x := uint16(1); return *(*byte)(unsafe.Pointer(&x)) == 1 }()

// Float64Bytes is vals as PLAIN (little-endian) bytes: the slice itself
// on a little-endian machine.
func Float64Bytes(vals []float64) []byte {
	if len(vals) == 0 {
		return nil
	}
	if LittleEndian {
		return unsafe.Slice((*byte)(unsafe.Pointer(&vals[0])), 8*len(vals))
	}
	b := make([]byte, 0, 8*len(vals))
	for _, v := range vals {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b
}

// Float64s copies the PLAIN doubles in b, which must be 8×len(dst) bytes,
// into dst. False when the lengths differ.
func Float64s(b []byte, dst []float64) bool {
	if len(b) != 8*len(dst) {
		return false
	}
	if LittleEndian {
		if len(dst) > 0 {
			copy(unsafe.Slice((*byte)(unsafe.Pointer(&dst[0])), len(b)), b)
		}
		return true
	}
	for i := range dst {
		dst[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return true
}

// Int64s copies the PLAIN int64s in b, which must be 8×len(dst) bytes,
// into dst. False when the lengths differ.
func Int64s(b []byte, dst []int64) bool {
	if len(b) != 8*len(dst) {
		return false
	}
	if LittleEndian {
		if len(dst) > 0 {
			copy(unsafe.Slice((*byte)(unsafe.Pointer(&dst[0])), len(b)), b)
		}
		return true
	}
	for i := range dst {
		dst[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return true
}

// AppendString appends s as a PLAIN BYTE_ARRAY: its length in 4 bytes,
// then its bytes.
func AppendString(b []byte, s string) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

// Strings appends the n PLAIN BYTE_ARRAY values of body to dst, as
// substrings of one copy of body. False unless body holds exactly n.
func Strings(body []byte, n int, dst []string) ([]string, bool) {
	all := string(body)
	for i := 0; i < n; i++ {
		if len(all) < 4 {
			return dst, false
		}
		l := binary.LittleEndian.Uint32([]byte(all[:4]))
		if uint64(l) > uint64(len(all)-4) {
			return dst, false
		}
		dst = append(dst, all[4:4+l])
		all = all[4+l:]
	}
	return dst, len(all) == 0
}
