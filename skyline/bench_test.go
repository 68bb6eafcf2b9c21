package skyline

import (
	"context"
	"testing"
)

func benchFit(b *testing.B, n, k int, model Model) {
	job := genJob(42, n, k, 60)
	opts := DefaultOptions()
	opts.Model = model
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f, err := Solve(context.Background(), job, opts)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(f.SolveS, "solve_s")
		b.ReportMetric(float64(f.Rounds), "rounds")
		b.ReportMetric(float64(f.Rows), "rows")
		b.ReportMetric(f.Objective, "objective")
	}
}

func BenchmarkFit30x1440(b *testing.B) { benchFit(b, 30, 1440, Reduced) }
func BenchmarkFit30x360(b *testing.B)  { benchFit(b, 30, 360, Reduced) }
