package ingest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
)

// checkSplitLine checks splitLine against its reference: lines cut at '\n' with one
// trailing '\r' dropped, fields by splitCSV.
func checkSplitLine(t testing.TB, data []byte) {
	var fields [][]byte
	var cols []int
	rest := data
	for len(rest) > 0 {
		var want []byte
		wantRest := []byte(nil)
		if k := bytes.IndexByte(rest, '\n'); k >= 0 {
			want, wantRest = rest[:k], rest[k+1:]
		} else {
			want = rest
		}
		if n := len(want); n > 0 && want[n-1] == '\r' {
			want = want[:n-1]
		}
		var line, next []byte
		var simple bool
		line, next, fields, cols, simple = splitLine(rest, fields, cols)
		if !bytes.Equal(line, want) || !bytes.Equal(next, wantRest) {
			t.Fatalf("%q: line %q rest %q, want %q, %q", rest, line, next, want, wantRest)
		}
		if simple != (bytes.IndexByte(want, '"') < 0) {
			t.Fatalf("%q: simple %v", want, simple)
		}
		if simple {
			wf, wc, _, err := splitCSV(want, nil, nil, nil)
			if err != nil || fmt.Sprintf("%q %v", fields, cols) != fmt.Sprintf("%q %v", wf, wc) {
				t.Fatalf("%q: fields %q %v, splitCSV %q %v (%v)", want, fields, cols, wf, wc, err)
			}
		}
		rest = next
	}
}

// TestSplitLine compares splitLine with the line reader's cut and
// splitCSV on seeded random inputs over an alphabet rich in separators.
func TestSplitLine(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 5))
	alphabet := []byte("ab,,\n\r\"1.")
	for trial := 0; trial < 20000; trial++ {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		checkSplitLine(t, b)
	}
	checkSplitLine(t, []byte("tenant,server,timestamp,cpu\r\nt0000,t0000s0,1704067200,0.2097\n,,\n\r\n\n"))
}

func FuzzSplitLine(f *testing.F) {
	for _, p := range []string{"../testdata/usage_with_rejects.csv"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("a,b\r\n\"x,\"\"y\",z\nlast,\r"))
	f.Fuzz(func(t *testing.T, data []byte) { checkSplitLine(t, data) })
}

// BenchmarkSplitLine and BenchmarkSplitLineOld cut and split the first
// 32 MiB of the benchmark file: one pass, against a newline search and
// splitCSV.
func BenchmarkSplitLine(b *testing.B) {
	data := benchHead(b)
	var fields [][]byte
	var cols []int
	for i := 0; i < b.N; i++ {
		rest := data
		for len(rest) > 0 {
			_, rest, fields, cols, _ = splitLine(rest, fields, cols)
		}
	}
}

func BenchmarkSplitLineOld(b *testing.B) {
	data := benchHead(b)
	var fields [][]byte
	var cols []int
	var scratch []byte
	for i := 0; i < b.N; i++ {
		rest := data
		for len(rest) > 0 {
			var l []byte
			if k := bytes.IndexByte(rest, '\n'); k >= 0 {
				l, rest = rest[:k], rest[k+1:]
			} else {
				l, rest = rest, nil
			}
			fields, cols, scratch, _ = splitCSV(l, fields, cols, scratch)
		}
	}
}

func benchHead(b *testing.B) []byte {
	data, err := os.ReadFile(benchFile(b))
	if err != nil {
		b.Fatal(err)
	}
	data = data[:min(len(data), 32<<20)]
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	return data
}
