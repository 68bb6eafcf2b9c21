package bytesize

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for in, want := range map[string]int64{
		"256M": 256 << 20, " 1g": 1 << 30, "512KiB": 512 << 10, "1.5G": 3 << 29, "4096": 4096, "2MB": 2 << 20,
		"1t": 1 << 40, "3 ": 3, "0.5K": 512, "1.0001": 1, "7b": 7, "2ki": 2048,
	} {
		if got, err := Parse(in); err != nil || got != want {
			t.Errorf("Parse(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "x", "-1G", "0", "0M", "G", "1.5X", "4194304T", "+Inf", "NaN", "nanM"} {
		if got, err := Parse(in); err == nil || !strings.Contains(err.Error(), "size \"") {
			t.Errorf("Parse(%q) = %d, %v; want an error", in, got, err)
		}
	}
}

func TestFormat(t *testing.T) {
	for b, want := range map[int64]string{
		256 << 20: "256M", 1 << 30: "1G", 1536 << 10: "1536K", 3 << 40: "3T", 1 << 50: "1024T",
		1023: "1023", 1025: "1025", 1: "1", 0: "0", (1 << 30) + (1 << 20): "1025M",
	} {
		if got := Format(b); got != want {
			t.Errorf("Format(%d) = %q, want %q", b, got, want)
		}
	}
}

// Format and Parse round-trip (seeded property test), whole MiB (the
// common case) and arbitrary byte counts alike.
func TestFormatParseRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 3))
	for i := 0; i < 2000; i++ {
		b := 1 + rng.Int64N(1<<45)
		if i%2 == 0 {
			b = max((b>>20)<<20, 1<<20)
		}
		s := Format(b)
		if back, err := Parse(s); err != nil || back != b {
			t.Fatalf("Format(%d) = %q, parsed back %d, %v", b, s, back, err)
		}
	}
}

func TestHuman(t *testing.T) {
	for _, c := range []struct {
		b    float64
		want string
	}{
		{0, "0 B"}, {900, "900 B"}, {1023, "1023 B"}, {1024, "1 KiB"}, {1536, "1.5 KiB"},
		{100 << 20, "100 MiB"}, {512 << 20, "512 MiB"}, {1<<30 - 1<<17, "1.02e+03 MiB"},
		{1 << 30, "1 GiB"}, {11.6e9, "10.8 GiB"}, {1 << 50, "1.05e+06 GiB"},
	} {
		if got := Human(c.b); got != c.want {
			t.Errorf("Human(%g) = %q, want %q", c.b, got, c.want)
		}
	}
}
