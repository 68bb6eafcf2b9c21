package placement_test

import (
	"fmt"

	"github.com/wlprof/wlprof/placement"
)

// Nine tenants of two servers each: rows by reimage rate, then columns by
// peak within each row, S/9 in every class.
func ExampleCluster() {
	ms := []placement.Member{
		{Name: "search", Rate: 0.1, Peak: 0.9}, {Name: "ads", Rate: 0.2, Peak: 0.3}, {Name: "mail", Rate: 0.3, Peak: 0.5},
		{Name: "maps", Rate: 1.0, Peak: 0.2}, {Name: "photos", Rate: 1.5, Peak: 0.8}, {Name: "docs", Rate: 2.0, Peak: 0.4},
		{Name: "ci", Rate: 6.0, Peak: 0.7}, {Name: "build", Rate: 8.0, Peak: 0.1}, {Name: "test", Rate: 9.0, Peak: 0.6},
	}
	for i := range ms {
		ms[i].StorageBytes = 8e12
	}
	placement.Cluster(ms)
	for _, m := range ms {
		fmt.Printf("%-6s %s\n", m.Name, placement.ClassName(m.Row, m.Col))
	}
	// Output:
	// search infrequent/high
	// ads    infrequent/low
	// mail   infrequent/medium
	// maps   intermediate/low
	// photos intermediate/high
	// docs   intermediate/medium
	// ci     frequent/high
	// build  frequent/low
	// test   frequent/medium
}
