package classify

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkShuffle: detect's shuffle of a detection series (2160 points),
// shuffle against the loop it replaced (rand.Rand.Uint64N per swap).
func BenchmarkShuffle(b *testing.B) {
	s := make([]float64, 2160)
	b.Run("rand.Uint64N", func(b *testing.B) {
		r := rand.New(rand.NewPCG(1, 2))
		for b.Loop() {
			for i := len(s) - 1; i > 0; i-- {
				j := int(r.Uint64N(uint64(i + 1)))
				s[i], s[j] = s[j], s[i]
			}
		}
	})
	b.Run("shuffle", func(b *testing.B) {
		src := rand.NewPCG(1, 2)
		for b.Loop() {
			shuffle(s, src)
		}
	})
}
