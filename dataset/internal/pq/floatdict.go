package pq

import (
	"math"
	"slices"
)

const (
	// MaxFloatDict is the most distinct values a column chunk's float
	// dictionary may have; with more, the chunk is written as PLAIN
	// doubles. 65536 doubles are 512 KiB, under Parquet's customary 1 MiB
	// dictionary page limit.
	MaxFloatDict = 1 << 16
	// minFloatDictBits sizes the smallest open-addressing table.
	minFloatDictBits = 10
)

// FloatDict interns doubles by their bits for a dictionary page: a few
// instructions a value, where arrow-go's dictionary encoder hashes each
// double through its generic memo table. NaN payloads are kept apart by
// their bits, so every value reads back bit for bit. One per writer,
// reused for every chunk.
//
// The table holds ids only, at most half full, and grows with the
// dictionary: a value is compared with the dictionary entry its slot
// names. A column of a few thousand values then probes 16 KiB of slots
// and its own dictionary, which stay in the cache, where a table sized
// for MaxFloatDict (1.5 MiB of keys and slots) missed it at every value.
type FloatDict struct {
	slot  []int32 // id+1 of the value hashed there; 0 is an empty slot
	shift uint    // 64 − log2(len(slot))
	ids   []int32
	dict  []float64
}

// Encode returns vals as dictionary ids (in order of first appearance) and
// the dictionary, both valid until the next Encode. valid is an Arrow
// validity bitmap (bit i set: vals[i] is a value; nil: all are); the
// ids of null rows are 0 and nulls add nothing to the dictionary. ok is
// false when vals have more than MaxFloatDict distinct values.
func (d *FloatDict) Encode(vals []float64, valid []byte) (ids []int32, dict []float64, ok bool) {
	d.Reset()
	if cap(d.ids) < len(vals) {
		d.ids = make([]int32, len(vals))
	}
	if valid != nil && len(valid)*8 < len(vals) {
		panic("pq: FloatDict.Encode: validity bitmap shorter than the values")
	}
	ids = d.ids[:len(vals)]
	dict = d.dict[:0]
	slot, shift := d.slot, d.shift
	mask := uint64(len(slot) - 1)
	for i, v := range vals {
		if valid != nil && valid[i>>3]>>(i&7)&1 == 0 {
			ids[i] = 0
			continue
		}
		k := math.Float64bits(v)
		h := (k * 0x9E3779B97F4A7C15) >> shift
		for {
			s := slot[h]
			if s == 0 {
				if len(dict) == MaxFloatDict {
					d.dict = dict
					return nil, nil, false
				}
				dict = append(dict, v)
				slot[h] = int32(len(dict))
				ids[i] = int32(len(dict) - 1)
				if 2*len(dict) > len(slot) {
					d.dict = dict
					d.resize(64 - shift + 1)
					slot, shift = d.slot, d.shift
					mask = uint64(len(slot) - 1)
				}
				break
			}
			if math.Float64bits(dict[s-1]) == k {
				ids[i] = s - 1
				break
			}
			h = (h + 1) & mask
		}
	}
	d.dict = dict
	return ids, dict, true
}

// resize makes a table of 2^bits empty slots and enters the dictionary's
// values in it.
func (d *FloatDict) resize(bits uint) {
	d.slot = make([]int32, 1<<bits)
	d.shift = 64 - bits
	mask := uint64(len(d.slot) - 1)
	for id, v := range d.dict {
		h := (math.Float64bits(v) * 0x9E3779B97F4A7C15) >> d.shift
		for d.slot[h] != 0 {
			h = (h + 1) & mask
		}
		d.slot[h] = int32(id + 1)
	}
}

// Reset empties d for a new column chunk. The table keeps the size the
// last chunk needed: chunks of a column look alike.
func (d *FloatDict) Reset() {
	if d.slot == nil {
		d.resize(minFloatDictBits)
	} else {
		clear(d.slot)
	}
	d.dict = d.dict[:0]
}

// AppendNonNaN interns the values of vals that are not NaN (a list
// element that is NaN is written as a null, which has no id) into the
// dictionary begun by Reset, and appends their ids to ids. A chunk can be
// interned a page at a time this way. ok is false when the dictionary
// would pass MaxFloatDict values; d then needs a Reset. Its probe loop is
// Encode's, written twice: one loop for both, with a branch on which of
// them called, made Encode 8% slower, and ingest runs Encode on every cpu
// value.
func (d *FloatDict) AppendNonNaN(ids []int32, vals []float64) (_ []int32, ok bool) {
	if d.slot == nil {
		d.Reset()
	}
	n := len(ids)
	ids = slices.Grow(ids, len(vals))[:n+len(vals)]
	out := ids[n:]
	j := 0
	dict := d.dict
	slot, shift := d.slot, d.shift
	mask := uint64(len(slot) - 1)
	for _, v := range vals {
		if v != v {
			continue
		}
		k := math.Float64bits(v)
		h := (k * 0x9E3779B97F4A7C15) >> shift
		for {
			s := slot[h]
			if s == 0 {
				if len(dict) == MaxFloatDict {
					d.dict = dict
					return ids[:n+j], false
				}
				dict = append(dict, v)
				slot[h] = int32(len(dict))
				out[j] = int32(len(dict) - 1)
				if 2*len(dict) > len(slot) {
					d.dict = dict
					d.resize(64 - shift + 1)
					slot, shift = d.slot, d.shift
					mask = uint64(len(slot) - 1)
				}
				break
			}
			if math.Float64bits(dict[s-1]) == k {
				out[j] = s - 1
				break
			}
			h = (h + 1) & mask
		}
		j++
	}
	d.dict = dict
	return ids[:n+j], true
}

// Dict is the dictionary interned since Reset, in order of first
// appearance; valid until the next Reset or Encode.
func (d *FloatDict) Dict() []float64 { return d.dict }
