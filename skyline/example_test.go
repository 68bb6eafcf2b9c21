package skyline_test

import (
	"context"
	"fmt"

	"github.com/wlprof/wlprof/profile"
	"github.com/wlprof/wlprof/skyline"
)

// The stage surface: Run fits the jobs of an Input (Load reads one from a
// dataset's skylines table), and the result sets each job's skyline
// section of the published profiles.
func ExampleRun() {
	in := skyline.Input{Jobs: []skyline.Job{{ID: "nightly-etl", Runs: []skyline.JobRun{
		{ID: "run-1", Samples: []skyline.Sample{{OffsetS: 0, Containers: 4}, {OffsetS: 120, Containers: 10}, {OffsetS: 240, Containers: 0}}},
		{ID: "run-2", Samples: []skyline.Sample{{OffsetS: 0, Containers: 6}, {OffsetS: 120, Containers: 8}, {OffsetS: 240, Containers: 0}}},
	}}}}
	opts := skyline.DefaultOptions()
	res, err := skyline.Run(context.Background(), in, opts)
	if err != nil {
		panic(err)
	}
	jobs := profile.Jobs{}
	if err := res.Profile(jobs); err != nil {
		panic(err)
	}
	sk := jobs["nightly-etl"].Skyline
	fmt.Println("reservation per minute:", sk.Reservation)
	for _, st := range sk.Stages {
		fmt.Printf("stage: %d containers from %gs for %gs\n", st.Containers, st.OffsetS, st.DurationS)
	}
	// Both runs used 28 container-minutes; the fit covers that area with
	// the least over-allocation, so the first stage is the smaller of the
	// two runs' demands and the second the larger.

	// Output:
	// reservation per minute: [4 4 10 10]
	// stage: 4 containers from 0s for 120s
	// stage: 10 containers from 120s for 120s
}
