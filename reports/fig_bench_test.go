package reports

import (
	"math/rand/v2"
	"testing"
)

func BenchmarkFigureFormats(b *testing.B) {
	j := synthJob(rand.New(rand.NewPCG(1, 2)), "j")
	b.Run("both", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			render(JobSkyline(&j), figW, figH, true)
		}
	})
}
