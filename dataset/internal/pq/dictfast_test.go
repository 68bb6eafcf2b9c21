package pq

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// checkDecoders holds DecodeIDs, DecodeDictDoubles and unpackIDs to the
// reference decoders (DictIDs, unpackHybridRef) on the page vals of n ids
// and a dictionary of size entries: the same verdict, the same ids, the
// same doubles.
func checkDecoders(t *testing.T, vals []byte, n, size int) {
	t.Helper()
	want := make([]int32, n)
	wantOK := DictIDs(vals, want, size)
	got := make([]int32, n)
	for i := range got {
		got[i] = -9
	}
	if ok := DecodeIDs(vals, got, size); ok != wantOK {
		t.Fatalf("n %d size %d: DecodeIDs says %v, DictIDs %v (page % x)", n, size, ok, wantOK, vals[:min(len(vals), 40)])
	} else if ok && !slices.Equal(got, want) {
		t.Fatalf("n %d size %d: DecodeIDs reads %v, DictIDs %v", n, size, got[:min(n, 40)], want[:min(n, 40)])
	}
	if size > 1<<20 {
		size = -1 // no dictionary of doubles this large
	}
	dict := make([]float64, max(size, 0))
	for i := range dict {
		dict[i] = float64(i)*0.25 - 3
	}
	if size > 2 {
		dict[1] = math.NaN()
	}
	dst := make([]float64, n)
	if size < 0 {
		// only the ids
	} else if ok := DecodeDictDoubles(vals, dict, dst); ok != wantOK {
		t.Fatalf("n %d size %d: DecodeDictDoubles says %v, DictIDs %v", n, size, ok, wantOK)
	} else if ok {
		for i, v := range dst {
			if math.Float64bits(v) != math.Float64bits(dict[want[i]]) {
				t.Fatalf("n %d size %d: value %d is %v, id %d", n, size, i, v, want[i])
			}
		}
	}
	if len(vals) > 0 {
		wantH := make([]int32, n)
		okH := unpackHybridRef(vals[1:], int(vals[0]), wantH)
		hi, ok := unpackIDs(vals[1:], int(vals[0]), got)
		if ok != okH || ok && (!slices.Equal(got, wantH) || int(hi) != int(maxInt32(wantH))) {
			t.Fatalf("n %d: unpackIDs says %v (greatest %d), the reference %v (%d)", n, ok, hi, okH, maxInt32(wantH))
		}
	}
}

// randomIDs are n ids below 1<<width (and below MaxInt32+1), in runs of
// one id and stretches of random ones, as time-ordered dictionary ids and
// repeated cpu values come.
func randomIDs(r *rand.Rand, n, width int) []int32 {
	ids := make([]int32, 0, n)
	top := uint64(1) << width
	if width == 32 {
		top = math.MaxInt32 + 1
	}
	if width > 12 && r.IntN(2) == 0 {
		top = 1 << 12 // wide ids that a dictionary of doubles can hold
	}
	for len(ids) < n {
		k := min(n-len(ids), 1+r.IntN(60))
		if r.IntN(3) == 0 {
			v := int32(r.Uint64N(top))
			for ; k > 0; k-- {
				ids = append(ids, v)
			}
			continue
		}
		for ; k > 0; k-- {
			ids = append(ids, int32(r.Uint64N(top)))
		}
	}
	return ids
}

// Every width, with counts that end mid-group and pages of many groups;
// dictionaries just above the greatest id (accepted) and at it (refused).
func TestDecodersMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 38))
	for width := 0; width <= 32; width++ {
		for _, n := range []int{1, 7, 8, 9, 63, 64, 65, 255, 256, 257, 1000, 4099} {
			ids := randomIDs(r, n, width)
			page := AppendHybrid([]byte{byte(width)}, ids, width)
			hi := int(maxInt32(ids))
			for _, size := range []int{hi + 1, hi, hi + 1 + r.IntN(100), 0} {
				checkDecoders(t, page, n, size)
				checkDecoders(t, page, n+r.IntN(9), size) // fewer ids than asked
				checkDecoders(t, page, max(0, n-1-r.IntN(9)), size)
			}
			// Hostile pages: cut short anywhere, bytes flipped, the width
			// byte changed.
			for k := 0; k < 20; k++ {
				cut := page[:r.IntN(len(page)+1)]
				checkDecoders(t, cut, n, hi+1)
				bad := slices.Clone(page)
				bad[r.IntN(len(bad))] ^= byte(1 << r.IntN(8))
				checkDecoders(t, bad, n, hi+1)
			}
			bad := slices.Clone(page)
			bad[0] = byte(r.IntN(40))
			checkDecoders(t, bad, n, hi+1)
		}
	}
}

// A negative id (bit 31 set at width 32) is refused as the reference decoder
// refuses it, whatever the dictionary's size.
func TestDecodersRefuseNegativeIDs(t *testing.T) {
	ids := []int32{1, 2, -5, 3, 4, 5, 6, 7}
	page := appendPackedOracle([]byte{32}, ids, 32)
	if DecodeIDs(page, make([]int32, 8), math.MaxInt) || DecodeDictDoubles(page, make([]float64, 8), make([]float64, 8)) {
		t.Fatal("a negative id is accepted")
	}
	checkDecoders(t, page, 8, 8)
	run := AppendRun([]byte{32}, 1<<31, 8, 32)
	checkDecoders(t, run, 8, 8)
}

// CountDefs counts what the reference (unpackHybridRef) expands, with its verdict.
func TestCountDefsMatchesUnpack(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 38))
	for trial := 0; trial < 2000; trial++ {
		n := 1 + r.IntN(3000)
		lv := randomIDs(r, n, 1)
		def := AppendHybrid(nil, lv, 1)
		switch trial % 4 {
		case 1:
			def = def[:r.IntN(len(def)+1)]
		case 2:
			def = slices.Clone(def)
			def[r.IntN(len(def))] ^= byte(1 << r.IntN(8))
		case 3:
			n += r.IntN(20) - 10
			n = max(n, 0)
		}
		checkCountDefs(t, def, n)
	}
}

func checkCountDefs(t *testing.T, def []byte, n int) {
	t.Helper()
	lv := make([]int32, n)
	wantOK := unpackHybridRef(def, 1, lv)
	want := 0
	for _, v := range lv {
		want += int(v)
	}
	got, ok := CountDefs(def, n)
	if ok != wantOK || ok && got != want {
		t.Fatalf("%d levels: CountDefs gives %d, %v; the reference %d, %v (% x)", n, got, ok, want, wantOK, def[:min(len(def), 30)])
	}
}

func FuzzDecodersMatchReference(f *testing.F) {
	f.Add([]byte{14, 3, 0xff, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, uint16(8), uint16(20000))
	f.Add(AppendHybrid([]byte{3}, []int32{1, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3}, 3), uint16(20), uint16(4))
	f.Add(binary.AppendUvarint([]byte{32}, 3), uint16(16), uint16(1))
	f.Fuzz(func(t *testing.T, page []byte, n, size uint16) {
		checkDecoders(t, page, int(n), int(size))
		checkCountDefs(t, page, int(n))
	})
}

// The old decode (ids, their bound, then the lookup) against the new
// one, on a page of a usage chunk's shape: 2^20 ids of 14 bits.
func BenchmarkDictDecode(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	const n, width = 1 << 20, 14
	ids := make([]int32, n)
	for i := range ids {
		ids[i] = int32(r.IntN(10000))
	}
	page := AppendHybrid([]byte{width}, ids, width)
	dict := make([]float64, 10000)
	got := make([]int32, n)
	dst := make([]float64, n)
	b.Run("ids/old", func(b *testing.B) {
		b.SetBytes(n * 4)
		for b.Loop() {
			if !DictIDs(page, got, len(dict)) {
				b.Fatal("refused")
			}
		}
	})
	b.Run("ids/new", func(b *testing.B) {
		b.SetBytes(n * 4)
		for b.Loop() {
			if !DecodeIDs(page, got, len(dict)) {
				b.Fatal("refused")
			}
		}
	})
	b.Run("doubles/old", func(b *testing.B) {
		b.SetBytes(n * 4)
		for b.Loop() {
			if !DictIDs(page, got, len(dict)) {
				b.Fatal("refused")
			}
			for i, id := range got {
				dst[i] = dict[id]
			}
		}
	})
	b.Run("doubles/new", func(b *testing.B) {
		b.SetBytes(n * 4)
		for b.Loop() {
			if !DecodeDictDoubles(page, dict, dst) {
				b.Fatal("refused")
			}
		}
	})
}

// unpack_gen.go is what its generator writes now.
func TestUnpackGenUpToDate(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command, to run the generator: %v", err)
	}
	out := filepath.Join(t.TempDir(), "unpack_gen.go")
	if msg, err := exec.Command(goBin, "run", "./internal/genunpack", "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("genunpack: %v\n%s", err, msg)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("unpack_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("unpack_gen.go differs from what genunpack writes: run go generate in dataset/internal/pq")
	}
}
