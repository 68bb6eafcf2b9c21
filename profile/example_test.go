package profile_test

import (
	"fmt"
	"log"
	"path/filepath"

	"github.com/wlprof/wlprof/profile"
)

// A scheduler reads a job's profile and acts on the sections that were
// computed: a null section means unknown, not zero.
func Example() {
	// In a report, the profile of job J is profiles/ + profile.FileName(J).
	j, err := profile.LoadJob(filepath.Join("testdata", "job.json"))
	if err != nil {
		log.Fatal(err) // wrong version, kind or a broken file: refuse it
	}
	if s := j.SLO; s != nil && s.Actionable {
		fmt.Printf("%s: window [%gs, %gs] after each period start; deadline from %s\n",
			j.Job, s.ArrivalS.Value, s.DeadlineS.Value, s.DeadlineS.Source)
	}
	if sk := j.Skyline; sk != nil {
		for _, st := range sk.Stages {
			fmt.Printf("reserve %d containers for %gs at +%gs\n", st.Containers, st.DurationS, st.OffsetS)
		}
	}
	for _, m := range j.Elasticity {
		fmt.Printf("%s tasks: %s model, ideal %.0f MiB\n", m.Task, m.Kind, m.IdealMemoryBytes/(1<<20))
	}
	// Output:
	// etl/daily_orders: window [7200s, 21600s] after each period start; deadline from override
	// reserve 4 containers for 60s at +0s
	// reserve 10 containers for 120s at +60s
	// reserve 2 containers for 60s at +180s
	// reduce tasks: spill-rate model, ideal 4096 MiB
}

// Placing a long job: the classes ranked for long jobs, by weight.
func ExampleLoadTenants() {
	t, err := profile.LoadTenants("testdata/tenants.json")
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range t.Classes {
		fmt.Printf("%s: long-job headroom %.2f, weight %.1f\n", c.Class, c.Headroom.Long, c.Weights.Long)
	}
	// Output:
	// constant-0: long-job headroom 0.65, weight 1.0
	// periodic-0: long-job headroom 0.20, weight 0.6
}

// A scheduler holding the name of one run finds the job's profile under
// its job key: AppJobKey for YARN, Spark and MapReduce names, JobKey for
// OpenLineage names and paths (FORMAT.md, "Job keys").
func ExampleJobKey() {
	name := "daily_sales_01 2024-01-08"
	fmt.Println(profile.FileName(profile.AppJobKey(name)))
	fmt.Println(profile.FileName(profile.JobKey(name)))
	// Output:
	// daily_sales.json
	// daily_sales_01%20%3Cdate%3E.json
}
