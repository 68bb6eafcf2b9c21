package harvest

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/datasettest"
)

// On data from a Kubernetes ingest a server is a node: the replay's
// servers have the nodes' cores (the median node's allocatable, 7.91
// rounded to 8, as the report's answers count them) unless --cores sets
// them; the same rows from another format keep §6's 12-core servers.
func TestNodeCoresOnKubernetesData(t *testing.T) {
	for _, c := range []struct {
		format string
		cores  int // --cores
		want   int
	}{{"prometheus-json", 12, 8}, {"prometheus-json", 16, 16}, {"csv", 12, 12}} {
		ds, tx := datasettest.Begin(t, filepath.Join(t.TempDir(), "ds"))
		start := time.Date(2025, 3, 3, 0, 0, 0, 0, time.UTC).UnixMilli()
		var evs []dataset.MachineEvent
		for i, cpu := range []float64{3.92, 7.91, 15.9} {
			evs = append(evs, dataset.MachineEvent{Machine: fmt.Sprintf("node-%d", i), TimeMs: start, Type: dataset.MachineAdd, CPUs: cpu, Memory: 16 << 30, Source: c.format})
		}
		datasettest.Append(t, tx.MachineEvents(), evs)
		var rows []dataset.Usage
		for k := int64(0); k < 6*720; k++ {
			for i, ns := range []string{"shop", "search"} {
				rows = append(rows, dataset.Usage{Tenant: ns, Server: fmt.Sprintf("node-%d", (int(k)+i)%3), TimeMs: start + k*120_000, CPU: 0.2 + 0.1*float64(i), Memory: math.NaN()})
			}
		}
		datasettest.Append(t, tx.Usage(), rows)
		tx.AddSource(dataset.Source{Path: "capture.json", Format: c.format, Accepted: int64(len(rows))})
		datasettest.Commit(t, tx)
		o := plantedOptions()
		o.Cores = c.cores
		in, err := Load(context.Background(), ds, o)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(context.Background(), in, o)
		if err != nil {
			t.Fatal(err)
		}
		noted := strings.Contains(strings.Join(res.Assumptions, "\n"), "a server is a Kubernetes node of 8 cores: the nodes' allocatable CPU: 7.91 cores on the median of 3 nodes")
		if res.Cores != c.want || noted != (c.want == 8) || res.ReserveCores != int(math.Ceil(o.Reserve*float64(c.want)-1e-9)) {
			t.Errorf("%s --cores %d: servers of %d cores (reserve %d), assumptions %q; want %d", c.format, c.cores, res.Cores, res.ReserveCores, res.Assumptions, c.want)
		}
	}
}
