package pipeline

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/kube"
	"github.com/wlprof/wlprof/profile"
	"github.com/wlprof/wlprof/reports"
)

// staleNodeMs is how much older than the classification's current
// instant a node's latest sample may be and still be its current use, as
// classify's tenants (an hour).
const staleNodeMs = 3_600_000

// nodeSpare is the spare cores of a Kubernetes cluster's nodes, which its
// tenants (namespaces or workloads) share: summing each class's headroom
// × its nodes would count a node once per tenant on it. Per node, its
// use is the sum over all tenants' usage rows at each instant (a fraction
// of the node's allocatable), and the headroom of Zhang et al., OSDI'16
// §4.1 is taken on that total as classify takes it on a class: short 1 −
// current (the node's total at its latest instant at or before the
// classification's current slot, its mean when that is over an hour
// older), medium 1 − Max(mean, current), long 1 − Max(P99, current),
// where the P99 is the node's own total's (nearest rank), its own peak
// as a server, the horizon being the data up to the current slot. A
// node's spare cores are that headroom × its allocatable (the last one
// machine_events recorded; p.CoresPerServer when --server-cores or the
// harvest section set it, or the node recorded none). Only nodes some
// tenant ran on count, as Harvest harvests the primary tenants' servers.
// nil when the dataset has no usage row.
func nodeSpare(ctx context.Context, ds *dataset.Dataset, tf *profile.Tenants, p *reports.Planner, ownCores bool) (*reports.NodeSpare, error) {
	if ds.Rows(dataset.UsageTable.Name) == 0 {
		return nil, nil
	}
	shapes, err := kube.NodeShapes(ctx, ds)
	if err != nil {
		return nil, err
	}
	atMs, endMs := int64(math.MaxInt64), int64(math.MaxInt64)
	if tf.AtMs != nil {
		atMs, endMs = *tf.AtMs, *tf.AtMs+max(int64(math.Round(tf.StepS*1000)), 1)-1
	}
	use := map[string]map[int64]float64{} // node → instant → Σ tenants' use
	err = dataset.Scan(ctx, ds, dataset.UsageTable, func(u *dataset.Usage) error {
		if math.IsNaN(u.CPU) || u.TimeMs > endMs {
			return nil
		}
		m := use[u.Server]
		if m == nil {
			m = map[int64]float64{}
			use[u.Server] = m
		}
		m[u.TimeMs] += u.CPU
		return nil
	})
	if err != nil || len(use) == 0 {
		return nil, err
	}
	nodes := make([]string, 0, len(use))
	for n := range use {
		nodes = append(nodes, n)
	}
	sort.Strings(nodes)
	ns := &reports.NodeSpare{Nodes: len(nodes), ByHour: make([]float64, 24), CoresFrom: "each its allocatable CPU, the last machine_events recorded"}
	if !ownCores {
		ns.CoresFrom = fmt.Sprintf("%d each: %s", p.CoresPerServer, p.CoresFrom)
	}
	everyHour, missing := true, 0
	for _, n := range nodes {
		m := use[n]
		times := make([]int64, 0, len(m))
		for t := range m {
			times = append(times, t)
		}
		sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
		vals := make([]float64, len(times))
		var sum float64
		var hourSum, hourN [24]float64
		for i, t := range times {
			vals[i] = m[t]
			sum += vals[i]
			h := (t / 3_600_000) % 24
			if h < 0 {
				h += 24
			}
			hourSum[h] += vals[i]
			hourN[h]++
		}
		mean := sum / float64(len(vals))
		cur := vals[len(vals)-1]
		if atMs != math.MaxInt64 && atMs-times[len(times)-1] > staleNodeMs {
			cur = mean
		}
		sorted := append([]float64(nil), vals...)
		sort.Float64s(sorted)
		p99 := sorted[max(int(math.Ceil(0.99*float64(len(sorted))))-1, 0)]
		cores := float64(p.CoresPerServer)
		if s, ok := shapes[n]; ok && ownCores {
			cores = s.CPU
		} else if ownCores {
			missing++
		}
		ns.Cores.Short += cores * clamp01(1-cur)
		ns.Cores.Medium += cores * clamp01(1-math.Max(mean, cur))
		ns.Cores.Long += cores * clamp01(1-math.Max(p99, cur))
		ns.AllCores += cores
		for h := range hourN {
			if hourN[h] == 0 {
				everyHour = false
				continue
			}
			ns.ByHour[h] += cores * math.Max(0, 1-hourSum[h]/hourN[h])
		}
	}
	if missing > 0 {
		ns.CoresFrom += fmt.Sprintf("; %d nodes without one have %d (%s)", missing, p.CoresPerServer, p.CoresFrom)
	}
	if !everyHour {
		ns.ByHour = nil
	}
	return ns, nil
}

func clamp01(x float64) float64 { return math.Min(1, math.Max(0, x)) }
