package safetext

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"tenant-7":               "tenant-7",
		"naïve 東京 ü":             "naïve 東京 ü",
		"abc\u202egnp.exe":       `abc\u202egnp.exe`,
		"a\u2066b\u2069c":        `a\u2066b\u2069c`,
		"zero\u200bwidth":        `zero\u200bwidth`,
		"bom\ufeff":              `bom\ufeff`,
		"bell\a and esc\x1b[31m": `bell\u0007 and esc\u001b[31m`,
		"cr\rover":               `cr\u000dover`,
		"tab\tand\nnewline":      "tab\tand\nnewline",
		"bad\xffbyte":            `bad\xffbyte`,
		"tag\U000E0041":          `tag\U000e0041`,
		"del\x7f":                `del\u007f`,
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}

// Whatever the split of the input into writes, the Writer writes what
// Escape of the whole does; its output is valid UTF-8 with no invisible
// rune; and escaping is the identity on clean text.
func TestWriterSplits(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	alphabet := []string{"a", "é", "東", "😀", "\u202e", "\u200d", "\n", "\t", "\x1b", "\xff", "\xe6\x9d"}
	for i := 0; i < 2000; i++ {
		var in strings.Builder
		for n := rng.IntN(20); n > 0; n-- {
			in.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		s := in.String()
		var out bytes.Buffer
		w := NewWriter(&out)
		for p := []byte(s); len(p) > 0; {
			k := 1 + rng.IntN(len(p))
			if n, err := w.Write(p[:k]); err != nil || n != k {
				t.Fatalf("Write: %d, %v", n, err)
			}
			p = p[k:]
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if out.String() != Escape(s) {
			t.Fatalf("%q: writer %q, Escape %q", s, out.String(), Escape(s))
		}
		if !utf8.Valid(out.Bytes()) {
			t.Fatalf("%q: output not UTF-8: %q", s, out.String())
		}
		for _, r := range out.String() {
			if Invisible(r) {
				t.Fatalf("%q: output keeps invisible %U", s, r)
			}
		}
	}
}
