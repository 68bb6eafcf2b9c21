package harvest_test

import (
	"fmt"

	"github.com/wlprof/wlprof/harvest"
)

// Two one-server tenants of 12 cores (4 reserved): A constant at 25%, B
// at 25% for five minutes, then 75%. A long job of 4 containers: Alg. 1
// gives it A's constant class (B's long headroom is 12 × 0.25 − 4 < 0),
// so nothing is killed and the job takes its 30 minutes; the blind
// baseline spreads it over both, B kills what it got at minute 5 (here
// one container: 5 minutes wasted), and its task runs again on A from
// minute 5, so the job takes 35 minutes. Stock ignores the primaries and
// kills nothing.
func ExampleReplay() {
	flat := func(n int, v float64, m int, v2 float64) []float64 {
		out := make([]float64, n+m)
		for i := range out {
			out[i] = v
			if i >= n {
				out[i] = v2
			}
		}
		return out
	}
	w := &harvest.World{StepMs: 60_000, EndMs: 3_600_000,
		Tenants: []harvest.WorldTenant{{Name: "A", Servers: 1, Values: flat(60, 0.25, 0, 0)}, {Name: "B", Servers: 1, Values: flat(5, 0.25, 55, 0.75)}},
		Epochs: []harvest.Epoch{{Classes: []harvest.WorldClass{
			{Name: "constant-1", Pattern: "constant", Mean: 0.25, Peak: 0.25, Weights: [3]float64{1, 2, 3}, Members: []int{0}},
			{Name: "unpredictable-1", Pattern: "unpredictable", Mean: 0.3, Peak: 0.75, Weights: [3]float64{3, 1, 1}, Members: []int{1}},
		}}},
		Jobs: []harvest.Job{{ID: "q19", Type: harvest.Long, DurationMs: 1_800_000, Containers: 4}}}
	for _, pol := range []harvest.Policy{harvest.History, harvest.Blind, harvest.Stock} {
		o := harvest.Replay(w, harvest.Params{Cores: 12, ReserveCores: 4, Seed: 7}, pol, false)
		fmt.Printf("%s: %d containers, %d killed, %.2f core-hours completed, %.2f wasted, job %.0f min\n",
			pol, o.Containers, o.Killed, o.CompletedCoreH, o.LostCoreH, o.JobTimes.MeanS/60)
	}
	// Output:
	// history: 4 containers, 0 killed, 2.00 core-hours completed, 0.00 wasted, job 30 min
	// blind: 5 containers, 1 killed, 2.00 core-hours completed, 0.08 wasted, job 35 min
	// stock: 4 containers, 0 killed, 2.00 core-hours completed, 0.00 wasted, job 30 min
}
