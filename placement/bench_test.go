package placement

import (
	"context"
	"testing"
)

// BenchmarkRunScale is a Google-cell-sized world: 900 tenants of 13
// servers (11,700 machines, 30 racks) over a month, with the default
// replay (10,000 blocks, 100,000 accesses) for one seed per policy.
// Measured here: 0.35 s and 68 MB allocated per run (the two policies run
// in parallel; five seeds, the default, take about 1 s on two cores).
func BenchmarkRunScale(b *testing.B) {
	in, _ := plantedWorld(1, 100, 13, 1, stable)
	opts := DefaultOptions()
	opts.Seeds = 1
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Run(context.Background(), in, opts); err != nil {
			b.Fatal(err)
		}
	}
}
