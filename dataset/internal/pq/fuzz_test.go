package pq

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/klauspost/compress/zstd"
)

// Round trips: whatever the fuzzer's bytes become, encoding then decoding
// gives them back. Decoders on arbitrary bytes: no panic, and what they
// accept is well formed. make fuzz runs each for a few seconds; go test
// runs the seeds.

// hybridVals turns fuzz bytes into ids of width bits with runs: each
// 5-byte group is a value and a repeat count.
func hybridVals(data []byte, width int) []int32 {
	var vals []int32
	mask := uint32(1)<<width - 1
	if width >= 31 {
		mask = math.MaxInt32
	}
	for len(data) >= 5 && len(vals) < 1<<16 {
		v := int32(binary.LittleEndian.Uint32(data) & mask)
		for k := int(data[4]%40) + 1; k > 0; k-- {
			vals = append(vals, v)
		}
		data = data[5:]
	}
	return vals
}

func FuzzHybridRoundTrip(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0, 30, 2, 0, 0, 0, 1, 3, 0, 0, 0, 20}, uint8(2))
	f.Add([]byte{0xff, 0xff, 0xff, 0x7f, 3}, uint8(32))
	f.Add([]byte{}, uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, w uint8) {
		width := int(w % 33)
		vals := hybridVals(data, width)
		enc := AppendHybrid(nil, vals, width)
		got := make([]int32, len(vals))
		if !UnpackHybrid(enc, width, got) || !slices.Equal(got, vals) {
			t.Fatalf("width %d: %v does not round-trip", width, vals)
		}
		ids := AppendHybrid([]byte{byte(width)}, vals, width)
		size := 1 << width
		if !DictIDs(ids, got, size) || !slices.Equal(got, vals) {
			t.Fatalf("width %d: ids %v do not round-trip", width, vals)
		}
		if width < 1 || width > 8 {
			return
		}
		// The run walker sees the same values.
		r := NewRuns(enc, width)
		var walked []int32
		for len(walked) < len(vals) {
			v, c, packed, ok := r.Next(len(vals) - len(walked))
			if !ok {
				t.Fatalf("width %d: runs stop after %d of %d values", width, len(walked), len(vals))
			}
			if packed == nil {
				for ; c > 0; c-- {
					walked = append(walked, int32(v))
				}
				continue
			}
			part := make([]int32, c)
			UnpackBits(packed, width, part)
			walked = append(walked, part...)
		}
		if !slices.Equal(walked, vals) {
			t.Fatalf("width %d: the run walker reads %v, want %v", width, walked, vals)
		}
	})
}

func FuzzHybridDecode(f *testing.F) {
	f.Add([]byte{0x03}, uint8(0), uint16(8))
	f.Add([]byte{0x10, 0x01, 0x05, 0xff}, uint8(1), uint16(20))
	f.Add(AppendHybrid(nil, []int32{1, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3}, 2), uint8(2), uint16(20))
	f.Fuzz(func(t *testing.T, b []byte, w uint8, n uint16) {
		width := int(w % 40) // past 32: refused
		dst := make([]int32, n)
		for i := range dst {
			dst[i] = -7
		}
		ref := make([]int32, n)
		refOK := unpackHybridRef(b, width, ref)
		if ok := UnpackHybrid(b, width, dst); ok != refOK || ok && !slices.Equal(dst, ref) {
			t.Fatalf("UnpackHybrid %v %v, the reference %v %v", ok, dst, refOK, ref)
		} else if ok {
			for _, v := range dst {
				if v < 0 || width < 32 && int64(v) >= 1<<width {
					t.Fatalf("accepted with %d outside width %d", v, width)
				}
			}
		}
		size := int(w)
		idsOK := DictIDs(b, dst, size)
		if idsOK {
			for _, v := range dst {
				if v < 0 || int(v) >= size {
					t.Fatalf("id %d outside a dictionary of %d", v, size)
				}
			}
		}
		// DictStream accepts what DictIDs does and looks up the same ids,
		// read whole or in pieces.
		dict := make([]float64, size)
		for i := range dict {
			dict[i] = float64(i) + 0.5
		}
		vals := make([]float64, n)
		var ds DictStream
		ok := ds.Reset(b, dict)
		for at := 0; ok && at < len(vals); {
			m := min(len(vals)-at, 1+int(w)%13+at%5)
			ok = ds.Read(vals[at : at+m])
			at += m
		}
		if n > 0 && ok != idsOK { // no ids: DictIDs checks nothing
			t.Fatalf("DictStream says %v, DictIDs %v", ok, idsOK)
		} else if ok {
			for i, v := range vals {
				if v != dict[dst[i]] {
					t.Fatalf("value %d: %v, id %d", i, v, dst[i])
				}
			}
		}
		r := NewRuns(b, width)
		for left := int(n); left > 0; {
			_, c, packed, ok := r.Next(left)
			if !ok {
				break
			}
			if c <= 0 || c > left || packed != nil && len(packed)*8 < c*width {
				t.Fatalf("run of %d values (%d packed bytes) with %d left", c, len(packed), left)
			}
			left -= c
		}
	})
}

func FuzzDeltaRoundTrip(f *testing.F) {
	f.Add([]byte{})
	f.Add(binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, math.MaxInt64), 1<<63))
	f.Add(bytes.Repeat([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9}, 40))
	f.Fuzz(func(t *testing.T, data []byte) {
		vals := make([]int64, 0, len(data)/8)
		for ; len(data) >= 8; data = data[8:] {
			v := int64(binary.LittleEndian.Uint64(data))
			if data[0]&1 == 0 && len(vals) > 0 { // nearby values, as times are
				v = vals[len(vals)-1] + int64(int8(data[1]))
			}
			vals = append(vals, v)
		}
		enc := AppendDelta(nil, vals)
		got := make([]int64, len(vals))
		if !DecodeDelta(enc, got) || !slices.Equal(got, vals) {
			t.Fatalf("%v does not round-trip", vals)
		}
		if DecodeDelta(enc, make([]int64, len(vals)+1)) {
			t.Fatalf("%d values decoded as %d", len(vals), len(vals)+1)
		}
	})
}

func FuzzDeltaDecode(f *testing.F) {
	f.Add(AppendDelta(nil, []int64{5, 7, 100, -3}), uint16(4))
	f.Add([]byte{0x80, 0x01, 0x04, 0x02, 0x00}, uint16(2))
	f.Fuzz(func(t *testing.T, b []byte, n uint16) {
		DecodeDelta(b, make([]int64, n))
	})
}

func FuzzPageHeaderRoundTrip(f *testing.F) {
	f.Add(false, int32(100), int32(60), int32(10), int32(8))
	f.Add(true, int32(math.MaxInt32), int32(0), int32(-1), int32(0))
	f.Fuzz(func(t *testing.T, dict bool, raw, size, n, enc int32) {
		typ := DataPage
		if dict {
			typ, enc = DictionaryPage, Plain
		}
		b := AppendPageHeader([]byte{0xee}, typ, raw, size, n, enc)
		h, hn, ok := ParsePageHeader(append(b[1:], 0xaa, 0xbb)) // followed by a page body
		if !ok || hn != len(b)-1 {
			t.Fatalf("header of %d bytes parsed: %v, %d bytes", len(b)-1, ok, hn)
		}
		want := PageHeader{Type: int32(typ), Uncompressed: raw, Compressed: size}
		if dict {
			want.DictValues, want.DictEncoding = n, Plain
		} else {
			want.NumValues, want.Encoding, want.DefEnc, want.RepEnc = n, enc, RLE, RLE
		}
		if h != want {
			t.Fatalf("parsed %+v, wrote %+v", h, want)
		}
	})
}

func FuzzPageHeaderParse(f *testing.F) {
	f.Add(AppendPageHeader(nil, DataPage, 10, 10, 3, Plain))
	f.Add([]byte{0x19, 0x1c, 0x1c, 0x1c, 0x1c, 0x1c, 0x1c, 0x1c})       // nested lists and structs
	f.Add([]byte{0x1b, 0xf9, 0xff, 0xff, 0xff, 0x0f, 0x88, 0x00, 0x00}) // a huge map
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, n, ok := ParsePageHeader(b); ok && (n <= 0 || n > len(b)) {
			t.Fatalf("accepted a header of %d bytes out of %d", n, len(b))
		}
	})
}

func FuzzFloatDictRoundTrip(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0xf8, 0x7f, 1, 0, 0, 0, 0, 0, 0xf8, 0x7f}, []byte{0xff}) // two NaN payloads
	f.Add(bytes.Repeat([]byte{0, 0, 0, 0, 0, 0, 0xe0, 0x3f}, 9), []byte{0x55, 0x01})
	// One FloatDict for every execution, as a writer keeps one across
	// pages: a new one is 1.5 MiB of tables to allocate and clear, which
	// held the target under 800 executions a second.
	var d FloatDict
	f.Fuzz(func(t *testing.T, data, valid []byte) {
		vals := make([]float64, 0, len(data)/8)
		for ; len(data) >= 8; data = data[8:] {
			vals = append(vals, math.Float64frombits(binary.LittleEndian.Uint64(data)))
		}
		if len(valid)*8 < len(vals) {
			valid = nil
		}
		for round := 0; round < 2; round++ { // and again, reusing d
			ids, dict, ok := d.Encode(vals, valid)
			if !ok {
				t.Fatalf("%d values refused", len(vals))
			}
			seen := map[uint64]bool{}
			for _, v := range dict {
				if seen[math.Float64bits(v)] {
					t.Fatalf("%v twice in the dictionary", v)
				}
				seen[math.Float64bits(v)] = true
			}
			for i, v := range vals {
				if valid != nil && valid[i/8]>>(i%8)&1 == 0 {
					continue
				}
				if ids[i] < 0 || int(ids[i]) >= len(dict) || math.Float64bits(dict[ids[i]]) != math.Float64bits(v) {
					t.Fatalf("value %d (%v) reads back as id %d of %d", i, v, ids[i], len(dict))
				}
			}
		}
	})
}

func FuzzStringsRoundTrip(f *testing.F) {
	f.Add([]byte("tenant-1\x00server\x00\x00x"))
	f.Fuzz(func(t *testing.T, data []byte) {
		parts := bytes.Split(data, []byte{0})
		var body []byte
		want := make([]string, len(parts))
		for i, p := range parts {
			want[i] = string(p)
			body = AppendString(body, want[i])
		}
		got, ok := Strings(body, len(want), []string{"kept"})
		if !ok || !slices.Equal(got, append([]string{"kept"}, want...)) {
			t.Fatalf("%q does not round-trip", want)
		}
		if _, ok := Strings(body, len(want)+1, nil); ok {
			t.Fatalf("%d strings read as %d", len(want), len(want)+1)
		}
	})
}

func FuzzStringsDecode(f *testing.F) {
	f.Add(AppendString(nil, "a"), uint16(1))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 'a'}, uint16(1))
	f.Fuzz(func(t *testing.T, b []byte, n uint16) {
		got, ok := Strings(b, int(n), nil)
		if ok && len(got) != int(n) {
			t.Fatalf("accepted %d strings, asked for %d", len(got), n)
		}
	})
}

// listChunk writes lists as the series writer does: one version 1 data
// page per list, its repetition levels (0 then 1s), definition levels (2
// a value, 1 a null for NaN, 0 an empty list) and non-null values, PLAIN
// or (dict) as ids into a dictionary page before the data pages.
func listChunk(lists [][]float64, dict bool) []byte {
	var sc listScratch
	return sc.chunk(lists, dict)
}

// listScratch keeps the buffers of listChunk and of the round trip
// between executions: allocating them afresh each time was most of an
// execution, and the target fell to about 1,000 per second.
type listScratch struct {
	out, body []byte
	defs      []int32
	vals      []float64
	flat      []float64
	lists     [][]float64
	all       []float64
	starts    []int
	ls        ListScratch
	fd        FloatDict
	ids       []int32
}

// chunk is listChunk, into the scratch's buffer (valid until the next call).
func (sc *listScratch) chunk(lists [][]float64, dict bool) []byte {
	chunk := sc.out[:0]
	var ends []int // with dict, the ids up to the end of each list
	width := 0
	if dict {
		sc.fd.Reset()
		ids := sc.ids[:0]
		for _, l := range lists {
			var ok bool
			if ids, ok = sc.fd.AppendNonNaN(ids, l); !ok {
				panic("listChunk: more distinct values than a dictionary takes")
			}
			ends = append(ends, len(ids))
		}
		sc.ids = ids
		d := sc.fd.Dict()
		width = max(1, bits.Len(uint(max(len(d)-1, 0))))
		chunk = AppendPageHeader(chunk, DictionaryPage, int32(8*len(d)), int32(8*len(d)), int32(len(d)), Plain)
		chunk = append(chunk, Float64Bytes(d)...)
	}
	for li, l := range lists {
		body := sc.body[:0]
		levels := max(len(l), 1)
		body = LevelBlock(body, func(b []byte) []byte {
			b = AppendRun(b, 0, 1, 1)
			if len(l) > 1 {
				b = AppendRun(b, 1, len(l)-1, 1)
			}
			return b
		})
		vals := sc.vals[:0]
		body = LevelBlock(body, func(b []byte) []byte {
			if len(l) == 0 {
				return AppendRun(b, 0, 1, 2)
			}
			defs := sc.defs[:0]
			for _, v := range l {
				d := int32(1)
				if v == v {
					d = 2
					vals = append(vals, v)
				}
				defs = append(defs, d)
			}
			sc.defs = defs
			return AppendHybrid(b, defs, 2)
		})
		sc.vals = vals
		enc := int32(Plain)
		if dict {
			lo := 0
			if li > 0 {
				lo = ends[li-1]
			}
			body = AppendHybrid(append(body, byte(width)), sc.ids[lo:ends[li]], width)
			enc = RLEDictionary
		} else {
			body = append(body, Float64Bytes(vals)...)
		}
		sc.body = body
		chunk = AppendPageHeader(chunk, DataPage, int32(len(body)), int32(len(body)), int32(levels), enc)
		chunk = append(chunk, body...)
	}
	sc.out = chunk
	return chunk
}

func FuzzDoubleListsRoundTrip(f *testing.F) {
	f.Add([]byte{3, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0, 1, 0xff})
	var sc listScratch // executions in one worker run one after another
	f.Fuzz(func(t *testing.T, data []byte) { sc.roundTrip(t, data) })
}

// roundTrip writes the lists data describes as a chunk and reads them back.
func (sc *listScratch) roundTrip(t *testing.T, data []byte) {
	// Each list: a length byte (0 an empty list), then per element a
	// byte (odd: NaN, a null) and, for a value, that byte scaled. The
	// lists share one backing array, sized first so that it never moves.
	flat := slices.Grow(sc.flat[:0], len(data))
	lists := sc.lists[:0]
	for len(data) > 0 && len(lists) < 64 {
		n := int(data[0] % 50)
		data = data[1:]
		start := len(flat)
		for ; n > 0 && len(data) > 0; n-- {
			if data[0]&1 == 1 {
				flat = append(flat, math.NaN())
			} else {
				flat = append(flat, float64(data[0])/256)
			}
			data = data[1:]
		}
		lists = append(lists, flat[start:len(flat):len(flat)])
	}
	sc.flat, sc.lists = flat, lists
	var levels int64
	for _, l := range lists {
		levels += int64(max(len(l), 1))
	}
	for _, dict := range []bool{false, true} {
		chunk := sc.chunk(lists, dict)
		if hl, ok := DataLevels(chunk, 1<<20); !ok || hl != levels {
			t.Fatalf("dict %v: page headers count %d levels (%v), wrote %d", dict, hl, ok, levels)
		}
		all := slices.Grow(sc.all[:0], int(levels))[:levels]
		sc.all = all
		n, starts, ok := DoubleLists(chunk, levels, len(lists), all, sc.starts, &sc.ls)
		sc.starts = starts
		if !ok || len(starts) != len(lists)+1 || starts[len(lists)] != n {
			t.Fatalf("dict %v: %d lists (%d levels) refused or miscounted: %v %v", dict, len(lists), levels, ok, starts)
		}
		for i, l := range lists {
			got := all[starts[i]:starts[i+1]]
			if len(got) != len(l) {
				t.Fatalf("dict %v: list %d: %d elements, wrote %d", dict, i, len(got), len(l))
			}
			for j := range l {
				if math.Float64bits(got[j]) != math.Float64bits(l[j]) && !(math.IsNaN(got[j]) && math.IsNaN(l[j])) {
					t.Fatalf("dict %v: list %d element %d: %v, wrote %v", dict, i, j, got[j], l[j])
				}
			}
		}
	}
}

func FuzzDoubleListsDecode(f *testing.F) {
	f.Add(listChunk([][]float64{{1, math.NaN(), 2}, {}, {3}}, false), int64(5), uint8(3))
	f.Add(listChunk([][]float64{{1, math.NaN(), 1, 1}, {}, {0.5}, {math.NaN()}}, true), int64(7), uint8(4))
	f.Fuzz(func(t *testing.T, b []byte, levels int64, rows uint8) {
		if levels < 0 || levels > 1<<16 {
			return
		}
		all := make([]float64, levels)
		var ls ListScratch
		n, starts, ok := DoubleLists(b, levels, int(rows), all, nil, &ls)
		if !ok {
			return
		}
		if n > len(all) || len(starts) != int(rows)+1 || starts[rows] != n {
			t.Fatalf("accepted %d elements, starts %v, of %d levels", n, starts, levels)
		}
		for i := 1; i < len(starts); i++ {
			if starts[i] < starts[i-1] {
				t.Fatalf("starts go back: %v", starts)
			}
		}
	})
}

// stringChunk writes a dictionary page of dict and data pages of ids (a
// page per 100 rows; with defs, the rows whose definition level is 0 are
// nulls and have no id), each compressed with zstd when enc is not nil.
func stringChunk(dict []string, ids []int32, defs []int32, enc *zstd.Encoder) []byte {
	c := chunkPages{enc: enc}
	width := c.dictionary(dict)
	var body []byte
	next := 0 // next id
	for lo := 0; lo < len(defs) || lo == 0; lo += 100 {
		hi := min(lo+100, len(defs))
		body = body[:0]
		k := 0
		for _, d := range defs[lo:hi] {
			k += int(d)
		}
		if defs != nil {
			body = LevelBlock(body, func(b []byte) []byte { return AppendHybrid(b, defs[lo:hi], 1) })
		}
		body = AppendHybrid(append(body, byte(width)), ids[next:next+k], width)
		next += k
		c.page(DataPage, hi-lo, RLEDictionary, body)
		if len(defs) == 0 {
			break
		}
	}
	return c.chunk
}

func FuzzWalkRoundTrip(f *testing.F) {
	f.Add([]byte("a\x00bb\x00\x00ccc"), []byte{0, 1, 2, 3, 0xff, 7}, false, false)
	f.Add([]byte("x"), []byte{0, 0, 0}, true, true)
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, names, rows []byte, optional, compressed bool) {
		dict := []string{}
		seen := map[string]bool{}
		for _, s := range bytes.Split(names, []byte{0}) {
			if !seen[string(s)] {
				seen[string(s)] = true
				dict = append(dict, string(s))
			}
		}
		// A row: an id (the byte modulo the dictionary) or, optional and
		// for an odd byte over 127, a null.
		defs := make([]int32, len(rows))
		var ids []int32
		for i, r := range rows {
			if optional && r > 127 && r&1 == 1 {
				continue
			}
			defs[i] = 1
			ids = append(ids, int32(int(r)%len(dict)))
		}
		var e *zstd.Encoder
		codec := compress.Codecs.Uncompressed
		if compressed {
			e, codec = enc, compress.Codecs.Zstd
		}
		maxDef := int16(0)
		if optional {
			maxDef = 1
		}
		chunk := requiredChunk(dict, ids, e)
		if optional {
			chunk = stringChunk(dict, ids, defs, e)
		}
		var pr PageReader
		defer pr.Close()
		var gotDict []string
		var gotIDs, gotDefs []int32
		ok := pr.Walk(chunk, codec, maxDef, len(rows), func(n int, body []byte) bool {
			var ok bool
			gotDict, ok = Strings(body, n, nil)
			return ok
		}, func(enc int32, levels int, defs []int32, vals []byte) bool {
			k := levels
			if defs != nil {
				gotDefs = append(gotDefs, defs...)
				k = 0
				for _, d := range defs {
					k += int(d)
				}
			}
			page := make([]int32, k)
			if enc != RLEDictionary || !DictIDs(vals, page, len(gotDict)) {
				return false
			}
			gotIDs = append(gotIDs, page...)
			return true
		})
		if !ok || !slices.Equal(gotDict, dict) || !slices.Equal(gotIDs, ids) || optional && !slices.Equal(gotDefs, defs) {
			t.Fatalf("%d rows of %d strings (optional %v, zstd %v) do not round-trip: %v", len(rows), len(dict), optional, compressed, ok)
		}
	})
}

// requiredChunk is stringChunk for a required column: one data page of
// every id, no level block.
func requiredChunk(dict []string, ids []int32, enc *zstd.Encoder) []byte {
	c := chunkPages{enc: enc}
	width := c.dictionary(dict)
	c.page(DataPage, len(ids), RLEDictionary, AppendHybrid([]byte{byte(width)}, ids, width))
	return c.chunk
}

// chunkPages writes a column chunk's pages, each compressed with zstd
// when enc is not nil.
type chunkPages struct {
	chunk []byte
	enc   *zstd.Encoder
}

func (c *chunkPages) page(typ int, n int, e int32, body []byte) {
	raw := len(body)
	if c.enc != nil {
		body = c.enc.EncodeAll(body, nil)
	}
	c.chunk = AppendPageHeader(c.chunk, typ, int32(raw), int32(len(body)), int32(n), e)
	c.chunk = append(c.chunk, body...)
}

// dictionary writes the dictionary page of dict and returns the bit width
// of its ids.
func (c *chunkPages) dictionary(dict []string) int {
	var body []byte
	for _, s := range dict {
		body = AppendString(body, s)
	}
	c.page(DictionaryPage, len(dict), Plain, body)
	width := 0
	for len(dict) > 1<<width {
		width++
	}
	return width
}

func FuzzWalkDecode(f *testing.F) {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(requiredChunk([]string{"a", "b"}, []int32{0, 1, 1}, nil), false, false, uint16(3))
	f.Add(stringChunk([]string{"a", "b"}, []int32{0, 1}, []int32{1, 0, 1}, enc), true, true, uint16(3))
	f.Fuzz(func(t *testing.T, b []byte, optional, compressed bool, rows uint16) {
		codec := compress.Codecs.Uncompressed
		if compressed {
			codec = compress.Codecs.Zstd
		}
		maxDef := int16(0)
		if optional {
			maxDef = 1
		}
		var pr PageReader
		defer pr.Close()
		var dict []string
		total := 0
		ok := pr.Walk(b, codec, maxDef, int(rows), func(n int, body []byte) bool {
			var ok bool
			dict, ok = Strings(body, n, nil)
			return ok
		}, func(enc int32, levels int, defs []int32, vals []byte) bool {
			if defs != nil && len(defs) != levels {
				t.Fatalf("%d definition levels for %d levels", len(defs), levels)
			}
			for _, d := range defs {
				if d < 0 || d > 1 {
					t.Fatalf("definition level %d", d)
				}
			}
			total += levels
			return DictIDs(vals, make([]int32, levels), len(dict))
		})
		if ok && total != int(rows) {
			t.Fatalf("accepted %d levels of %d", total, rows)
		}
	})
}

// A zstd frame that declares a gigabyte of content in a page that
// declares a few bytes is refused before the decoder allocates it (the
// input FuzzWalkDecode found: before the fix, 2 GB and 0.4 s a call).
func TestWalkZstdDeclaredSizeBounded(t *testing.T) {
	b := []byte("\x15\x04\x15\x14\x15.L\x15\x04\x15\x00\x00\x00(\xb5/\xfd\x84E\x97\x83<=\xbdb\xa9%_ky\xb4E\xd5\x04\x00G\x00\x00\x01\x00\x00\x00a\x01\x00\x00\x00bm\xcb\x1d\x11\x15\x00\x15\x12\x15,,\x15\x06\x15\x10\x15\x06\x15\x06\x00\x00(\xb5/\xfd\x04\x00I\x00\x00\x02\x00\x00\x00\x03\x05\x01\x03\x02\x83\x94s\b")
	var pr PageReader
	defer pr.Close()
	walk := func() bool {
		return pr.Walk(b, compress.Codecs.Zstd, 1, 3, func(int, []byte) bool { return true },
			func(int32, int, []int32, []byte) bool { return true })
	}
	walk() // the decoder's own tables
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if walk() {
		t.Fatal("a page whose frame declares 1 GB of content was read")
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
		t.Fatalf("refusing the page allocated %d MB", got>>20)
	}
}
