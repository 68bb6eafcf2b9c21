package ingest

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"
)

// lz4Corpus is data that exercises every kind of LZ4 sequence: literals
// only (random bytes), matches overlapping their own output (offset 1 to 3,
// runs of one byte), lengths past the 15 of the token and past one 255
// extension byte (long runs, long literal stretches), and offsets up to the
// 64 KiB window (a chunk repeated far later).
func lz4Corpus(rng *rand.Rand) []byte {
	var b bytes.Buffer
	random := func(n int) {
		for range n {
			b.WriteByte(byte(rng.IntN(256)))
		}
	}
	random(300)                              // a long literal run
	b.Write(bytes.Repeat([]byte{'a'}, 1000)) // offset 1, match length > 270
	b.Write(bytes.Repeat([]byte("xy"), 40))  // offset 2
	b.Write(bytes.Repeat([]byte("pqr"), 7))  // offset 3, a short match
	far := b.Bytes()[:200:200]               // repeated at a large offset below
	for i := 0; i < 2000; i++ {              // JSON-like lines, as event logs are
		b.WriteString(`{"Event":"SparkListenerTaskEnd","Task ID":`)
		b.WriteString(string(rune('0' + rng.IntN(10))))
		b.WriteString(`,"Launch Time":1532512561948}` + "\n")
	}
	random(5000)
	b.Write(far)
	return b.Bytes()
}

// TestLZ4BlockRoundTrip: data compressed block by block with pierrec/lz4
// (an encoder we did not write) into lz4-java's framing reads back byte for
// byte, for block sizes from tiny to Spark's default, read in one call and
// one byte at a time.
func TestLZ4BlockRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 1))
	data := lz4Corpus(rng)
	for _, size := range []int{64, 512, 4096, 32 << 10, 1 << 20} {
		stream := lz4JavaStream(t, data, size)
		if n := bytes.Count(stream, append(lz4BlockMagic[:8:8], 0x24)); n == 0 {
			t.Fatalf("block size %d: no compressed block, the decoder is not exercised", size)
		}
		for name, wrap := range map[string]func(io.Reader) io.Reader{
			"whole":    func(r io.Reader) io.Reader { return r },
			"one byte": iotest.OneByteReader,
		} {
			got, err := io.ReadAll(wrap(&lz4BlockReader{r: bufio.NewReader(bytes.NewReader(stream))}))
			if err != nil {
				t.Fatalf("block size %d, %s: %v", size, name, err)
			}
			if !bytes.Equal(got, data) {
				i := 0
				for i < min(len(got), len(data)) && got[i] == data[i] {
					i++
				}
				t.Fatalf("block size %d, %s: %d bytes back of %d, first difference at byte %d", size, name, len(got), len(data), i)
			}
		}
	}
}

// TestLZ4BlockCorrupt: a block whose header lies about its decoded length,
// or whose sequences point before the start of the block, is errCorrupt,
// never a panic or a silently short read.
func TestLZ4BlockCorrupt(t *testing.T) {
	data := lz4Corpus(rand.New(rand.NewPCG(15, 2)))[:4096]
	good := lz4JavaStream(t, data, 4096)
	if good[8] != 0x24 {
		t.Fatalf("first block is not compressed (token %#x)", good[8])
	}
	longer := bytes.Clone(good)
	longer[13]++ // decoded length one more than the block holds
	shorter := bytes.Clone(good)
	shorter[13]-- // one less: the block overflows it
	offset := bytes.Clone(good)
	// The first sequence's offset (after its literals) made to point before
	// the block: the token's literal count, then the literals, then it.
	tok, i := offset[21], 22
	lit := int(tok >> 4)
	if lit == 15 {
		for ; offset[i] == 255; i++ {
			lit += 255
		}
		lit += int(offset[i])
		i++
	}
	offset[i+lit], offset[i+lit+1] = 0xff, 0xff
	for name, stream := range map[string][]byte{"longer": longer, "shorter": shorter, "offset": offset} {
		_, err := io.ReadAll(&lz4BlockReader{r: bufio.NewReader(bytes.NewReader(stream))})
		if !errors.Is(err, errCorrupt) {
			t.Errorf("%s: err %v, want errCorrupt", name, err)
		}
	}
}
