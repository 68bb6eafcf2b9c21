package ingest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"testing"
)

// hashAhead, which hashes a piece at a time while it reads the next, hands
// SHA-256 exactly data[pos:end], on seeded ranges that start and end
// anywhere, are shorter and longer than a piece and end at or short of the
// end of the data.
func TestHashAheadDigest(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 3))
	data := make([]byte, 5*hashPiece+123)
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	for trial := 0; trial < 200; trial++ {
		pos := r.IntN(len(data))
		end := pos + r.IntN(len(data)-pos+1)
		if trial%4 == 0 {
			end = len(data)
		}
		var got bytes.Buffer
		hashAhead(&got, data, pos, end)
		if !bytes.Equal(got.Bytes(), data[pos:end]) {
			t.Fatalf("hashAhead(%d, %d) wrote %d bytes that are not data[%d:%d]", pos, end, got.Len(), pos, end)
		}
	}
	// And the hasher goroutine, handed a mapped input in uneven pieces,
	// gives the file's digest.
	in, ok := openMemory("x.csv", data)
	if !ok || in.Mapped() == nil {
		t.Fatal("openMemory did not map the data")
	}
	for end := 0; end < len(data); end += 1 + r.IntN(3*hashPiece) {
		in.hashTo(end)
	}
	sum, err := in.SHA256()
	if want := sha256.Sum256(data); err != nil || sum != hex.EncodeToString(want[:]) {
		t.Fatalf("SHA256 = %s, %v; want %x", sum, err, want)
	}
}

// BenchmarkHashMapped: the hasher goroutine's SHA-256 of a mapped 64 MiB
// input handed to it in 2 MiB pieces (hashAhead), and SHA-256 of the same
// mapping in one Write, its anchor; ns/op is per input.
func BenchmarkHashMapped(b *testing.B) {
	data := make([]byte, 64<<20)
	r := rand.New(rand.NewPCG(61, 4))
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	data[0] = 't' // no compression magic: Open maps it
	path := writeFile(b, b.TempDir(), "hash.csv", data)
	b.Run("hasher", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for i := 0; i < b.N; i++ {
			in, err := Open(path)
			if err != nil {
				b.Fatal(err)
			}
			for end := chunkBytes; end < len(data)+chunkBytes; end += chunkBytes {
				in.hashTo(min(end, len(data)))
			}
			if _, err := in.SHA256(); err != nil {
				b.Fatal(err)
			}
			in.Close()
		}
	})
	b.Run("one-write", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for i := 0; i < b.N; i++ {
			in, err := Open(path)
			if err != nil {
				b.Fatal(err)
			}
			sha256.Sum256(in.Mapped())
			in.Close()
		}
	})
}
