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
