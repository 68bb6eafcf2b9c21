package pq

import "encoding/binary"

// AppendPageHeader appends a thrift compact-protocol PageHeader: of a
// version 1 data page (typ DataPage: n levels, values in encoding enc, RLE
// levels) or of a dictionary page (typ DictionaryPage: n PLAIN values).
func AppendPageHeader(b []byte, typ int, raw, size, n, enc int32) []byte {
	i32 := func(b []byte, v int32) []byte { // field delta 1, type i32
		return binary.AppendUvarint(append(b, 0x15), uint64(uint32(v<<1^v>>31)))
	}
	b = i32(b, int32(typ)) // 1: type
	b = i32(b, raw)        // 2: uncompressed_page_size
	b = i32(b, size)       // 3: compressed_page_size
	if typ == DictionaryPage {
		b = append(b, 0x4c) // 7: dictionary_page_header (delta 4, struct)
		b = i32(b, n)       // 1: num_values
		b = i32(b, 0)       // 2: encoding PLAIN
	} else {
		b = append(b, 0x2c) // 5: data_page_header (delta 2, struct)
		b = i32(b, n)       // 1: num_values
		b = i32(b, enc)     // 2: encoding
		b = i32(b, 3)       // 3: definition_level_encoding RLE
		b = i32(b, 3)       // 4: repetition_level_encoding RLE
	}
	return append(b, 0x0, 0x0) // end of the page type's header, of PageHeader
}

// PageHeader is the part of Parquet's thrift PageHeader the decoders
// need.
type PageHeader struct {
	Type, Uncompressed, Compressed      int32
	NumValues, Encoding, DefEnc, RepEnc int32 // of a version 1 data page
	DictValues, DictEncoding            int32 // of a dictionary page
}

// Page types (PageHeader.Type).
const (
	DataPage       = 0
	IndexPage      = 1
	DictionaryPage = 2
	DataPageV2     = 3
)

// Encodings (PageHeader.Encoding, DefEnc, RepEnc, DictEncoding).
const (
	Plain         = 0
	PlainDict     = 2
	RLE           = 3
	DeltaBinary   = 5
	RLEDictionary = 8
)

// ParsePageHeader decodes a thrift compact-protocol PageHeader and returns
// it with its length in bytes.
func ParsePageHeader(b []byte) (PageHeader, int, bool) {
	r := &compactReader{b: b}
	var h PageHeader
	var id int16
	for {
		fid, typ := r.field(&id)
		if r.bad {
			return h, 0, false
		}
		if typ == 0 {
			break
		}
		switch {
		case fid == 1 && typ == 5:
			h.Type = int32(r.zigzag())
		case fid == 2 && typ == 5:
			h.Uncompressed = int32(r.zigzag())
		case fid == 3 && typ == 5:
			h.Compressed = int32(r.zigzag())
		case fid == 5 && typ == 12: // DataPageHeader
			r.i32Fields(func(id int16, v int32) {
				switch id {
				case 1:
					h.NumValues = v
				case 2:
					h.Encoding = v
				case 3:
					h.DefEnc = v
				case 4:
					h.RepEnc = v
				}
			})
		case fid == 7 && typ == 12: // DictionaryPageHeader
			r.i32Fields(func(id int16, v int32) {
				switch id {
				case 1:
					h.DictValues = v
				case 2:
					h.DictEncoding = v
				}
			})
		default:
			r.skip(typ, 0)
		}
	}
	return h, r.p, !r.bad
}

// i32Fields reads a struct, calling set with the id and value of each i32
// field and skipping the others.
func (r *compactReader) i32Fields(set func(id int16, v int32)) {
	var id int16
	for !r.bad {
		f, t := r.field(&id)
		switch {
		case t == 0 || r.bad:
			return
		case t == 5:
			set(f, int32(r.zigzag()))
		default:
			r.skip(t, 0)
		}
	}
}

// compactReader reads the thrift compact protocol; bad is set on the first
// malformed or truncated input and every read after it returns zero.
type compactReader struct {
	b   []byte
	p   int
	bad bool
}

func (r *compactReader) byte() byte {
	if r.bad || r.p >= len(r.b) {
		r.bad = true
		return 0
	}
	c := r.b[r.p]
	r.p++
	return c
}

func (r *compactReader) uvarint() uint64 {
	if r.bad {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.p:])
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.p += n
	return v
}

func (r *compactReader) zigzag() int64 {
	v := r.uvarint()
	return int64(v>>1) ^ -int64(v&1)
}

// field reads a field header: its id (from the delta or in full) and
// type; type 0 is the end of the struct.
func (r *compactReader) field(last *int16) (int16, byte) {
	c := r.byte()
	typ := c & 0x0f
	if typ == 0 {
		return 0, 0
	}
	if d := c >> 4; d != 0 {
		*last += int16(d)
	} else {
		*last = int16(r.zigzag())
	}
	return *last, typ
}

// skip passes over a value of compact type typ.
func (r *compactReader) skip(typ byte, depth int) {
	if depth > 32 {
		r.bad = true
		return
	}
	switch typ {
	case 1, 2: // booleans in a field header carry their value
	case 3:
		r.byte()
	case 4, 5, 6:
		r.uvarint()
	case 7:
		if r.p+8 > len(r.b) {
			r.bad = true
			return
		}
		r.p += 8
	case 8:
		n := r.uvarint()
		if r.bad || n > uint64(len(r.b)-r.p) {
			r.bad = true
			return
		}
		r.p += int(n)
	case 9, 10:
		c := r.byte()
		n, et := uint64(c>>4), c&0x0f
		if n == 15 {
			n = r.uvarint()
		}
		if n > uint64(len(r.b)) {
			r.bad = true
			return
		}
		for i := uint64(0); i < n && !r.bad; i++ {
			if et == 1 || et == 2 { // a boolean element is a byte
				r.byte()
			} else {
				r.skip(et, depth+1)
			}
		}
	case 11:
		n := r.uvarint()
		if n == 0 || r.bad {
			return
		}
		if n > uint64(len(r.b)) {
			r.bad = true
			return
		}
		kv := r.byte()
		for i := uint64(0); i < n && !r.bad; i++ {
			for _, t := range []byte{kv >> 4, kv & 0x0f} {
				if t == 1 || t == 2 {
					r.byte()
				} else {
					r.skip(t, depth+1)
				}
			}
		}
	case 12:
		var id int16
		for !r.bad {
			_, t := r.field(&id)
			if t == 0 {
				return
			}
			r.skip(t, depth+1)
		}
	default:
		r.bad = true
	}
}
