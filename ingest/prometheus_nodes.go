package ingest

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/wlprof/wlprof/dataset"
)

// writeNodes writes every node's allocatable as machine_events rows: an
// ADD where it is first known (cpus in cores, memory in bytes), an UPDATE
// where either changes. Its time is the first point of the series grid in
// the label window where it was seen: a label point at t stands for
// (t − label step, t], as at() reads it for the utilisation's
// denominator. No REMOVE is written: a node taken out of the cluster and
// a gap in kube-state-metrics' scrapes look alike here, and a REMOVE is
// what the placement stage counts as a disk reimage. A node already in
// the dataset's machine history (an earlier ingest) gets an UPDATE, not a
// second ADD, and nothing where its shape there is the same; an event
// before its latest one there is not written (a note counts them), so the
// history stays in time order.
func (c *promCollector) writeNodes(ctx context.Context) error {
	names := map[string]bool{}
	for n := range c.nodeCPU {
		names[n] = true
	}
	for n := range c.nodeMem {
		names[n] = true
	}
	nodes := make([]string, 0, len(names))
	for n := range names {
		nodes = append(nodes, n)
	}
	sort.Strings(nodes)
	if len(nodes) == 0 {
		return nil
	}
	ix, err := machinesOf(ctx, c.s)
	if err != nil {
		return err
	}
	known, err := lastShapes(ctx, c.s.tx.Dataset())
	if err != nil {
		return err
	}
	w := c.s.tx.MachineEvents()
	var early int64
	for _, n := range nodes {
		cpu, mem := c.nodeCPU[n], c.nodeMem[n]
		times := make([]int64, 0, len(cpu)+len(mem))
		for _, tv := range cpu {
			times = append(times, tv.Ms)
		}
		for _, tv := range mem {
			times = append(times, tv.Ms)
		}
		sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
		last, first := known[n], true
		if st := ix.m[n]; st != nil && st.up {
			first = false // the dataset has the node: write a change only
		}
		for i, ms := range times {
			if i > 0 && ms == times[i-1] {
				continue
			}
			cur := [2]float64{math.NaN(), math.NaN()}
			if v, ok := at(cpu, ms); ok {
				cur[0] = v
			}
			if v, ok := at(mem, ms); ok {
				cur[1] = v
			}
			if !first && sameShape(cur, last) {
				continue
			}
			first, last = false, cur
			e := dataset.MachineEvent{Machine: n, TimeMs: max(c.startMs, ms-c.lstepMs+c.stepMs), Type: dataset.MachineAdd,
				CPUs: cur[0], Memory: cur[1], Source: c.format}
			if st := ix.m[n]; st != nil && st.up {
				e.Type = dataset.MachineUpdate
			}
			if err := ix.apply(n, e.TimeMs, e.Type); err != nil {
				early++
				continue
			}
			if err := c.put(w.Append(&e)); err != nil {
				return err
			}
			c.nodeEvents++
		}
	}
	if early > 0 {
		c.s.notes = append(c.s.notes, fmt.Sprintf("node allocatable changes before the node's latest machine event already in the dataset, not written: %d", early))
	}
	return nil
}

// lastShapes is each machine's latest (cpus, memory) in the dataset's
// machine_events, by time.
func lastShapes(ctx context.Context, ds *dataset.Dataset) (map[string][2]float64, error) {
	out := map[string][2]float64{}
	if ds == nil || ds.Rows(dataset.MachineEventsTable.Name) == 0 {
		return out, nil
	}
	at := map[string]int64{}
	err := dataset.Scan(ctx, ds, dataset.MachineEventsTable, func(e *dataset.MachineEvent) error {
		if t, ok := at[e.Machine]; !ok || e.TimeMs >= t {
			at[e.Machine], out[e.Machine] = e.TimeMs, [2]float64{e.CPUs, e.Memory}
		}
		return nil
	})
	return out, err
}

// sameShape compares two (cores, bytes) pairs, NaN equal to NaN.
func sameShape(a, b [2]float64) bool {
	for i := range a {
		if a[i] != b[i] && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return false
		}
	}
	return true
}
