package pipeline

import (
	"context"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/harvest"
	"github.com/wlprof/wlprof/skyline"
)

// On Kubernetes data the harvest section's servers are the nodes: their
// cores are the median node's allocatable (7.91, rounded: 8), as the
// answers count them, and the section says so; the same data from another
// format keeps harvest's 12-core servers.
func TestHarvestOfKubernetesDataCountsNodeCores(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		format string
		cores  string
	}{{"prometheus-json", "servers of 8 cores"}, {"csv", "servers of 12 cores"}} {
		ds := kubeDays(t, c.format, 6)
		ho := harvest.DefaultOptions()
		o := Options{Skyline: skyline.DefaultOptions(), Harvest: &ho}
		in, err := Report(ctx, ds, o)
		if err != nil {
			t.Fatal(err)
		}
		h := in.Harvest
		if h == nil {
			t.Fatalf("%s: no harvest section (notes %v)", c.format, in.Notes)
		}
		all := strings.Join(h.Assumptions, "\n")
		if !strings.Contains(all, c.cores) {
			t.Errorf("%s: harvest assumptions %q, want %q", c.format, all, c.cores)
		}
		if node := strings.Contains(all, "a Kubernetes node of 8 cores: the nodes' allocatable CPU: 7.91 cores on the median of 3 nodes"); node != (c.format != "csv") {
			t.Errorf("%s: harvest assumptions %q: saying the node's cores came from its allocatable is %v", c.format, all, node)
		}
	}
}
