package dataset

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
)

// KubernetesFormats are the ingest formats that read a Kubernetes
// cluster: a dataset holding any of them came from Kubernetes, its
// servers are nodes and machine_events rows of these sources carry a
// node's allocatable cores and bytes. Package kube and the stages that
// must not import it (harvest) share this list.
var KubernetesFormats = []string{"prometheus", "prometheus-json"}

// FromKubernetes says whether the manifest lists a source of a
// Kubernetes ingest format (KubernetesFormats).
func FromKubernetes(m *Manifest) bool {
	if m == nil {
		return false
	}
	for _, s := range m.Sources {
		if slices.Contains(KubernetesFormats, s.Format) {
			return true
		}
	}
	return false
}

// KubernetesNodeCores is a node's cores in a dataset from a Kubernetes
// ingest: the median node's allocatable CPU (each node's last
// machine_events row of a Kubernetes source with cores and bytes),
// rounded, since the answers and the harvest replay count whole cores; 0
// when the data is not from Kubernetes or recorded no node. from says
// where it came from.
func KubernetesNodeCores(ctx context.Context, d *Dataset) (cores int, from string, err error) {
	if !FromKubernetes(d.Manifest()) || d.Rows(MachineEventsTable.Name) == 0 {
		return 0, "", nil
	}
	last := map[string]int64{}
	cpu := map[string]float64{}
	err = Scan(ctx, d, MachineEventsTable, func(e *MachineEvent) error {
		if !slices.Contains(KubernetesFormats, e.Source) || e.Type == MachineRemove || e.Type == MachineOut || !(e.CPUs > 0) || !(e.Memory > 0) {
			return nil
		}
		if t, ok := last[e.Machine]; ok && e.TimeMs < t {
			return nil
		}
		last[e.Machine], cpu[e.Machine] = e.TimeMs, e.CPUs
		return nil
	})
	if err != nil || len(cpu) == 0 {
		return 0, "", err
	}
	all := make([]float64, 0, len(cpu))
	for _, c := range cpu {
		all = append(all, c)
	}
	sort.Float64s(all)
	med := all[len(all)/2]
	if cores = int(math.Round(med)); cores <= 0 {
		return 0, "", nil
	}
	return cores, fmt.Sprintf("the nodes' allocatable CPU: %s cores on the median of %d nodes, rounded", strconv.FormatFloat(med, 'f', -1, 64), len(cpu)), nil
}
