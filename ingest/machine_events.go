// Machine histories (formats "google2019-machine-events",
// "alibaba2018-machine-meta", "google2011-machine-events").
//
// All three write the machine_events table (dataset.MachineEvent): machine,
// time, type ADD / REMOVE / UPDATE, rack, capacity, platform, source.
//
// Each machine's history must be consistent, across the inputs of one
// ingest and with the rows already in the dataset: events in time order
// (ties in input order), an ADD or OUT only when the machine is out of the
// cluster, a REMOVE or UPDATE only when it is in (so a REMOVE without an
// ADD is rejected), and a known type (Google's EVENT_TYPE_UNKNOWN 0 is
// not). BigQuery exports are not sorted: sort them by time first. Auto
// detection: a JSON line with machine_id, switch_id and platform_id, or
// (the export leaves null fields out) with time, machine_id and type and
// none of collection_id, instance_index, name; a Parquet file whose name
// contains machine_events; a 7-field CSV line whose time_stamp and
// cpu_num are integers and whose status is a word.

package ingest

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/wlprof/wlprof/dataset"
)

// machineIndex is every machine's state as far as this ingest knows it: the
// machine_events rows already in the dataset, then this ingest's accepted
// events, in input order. It is what makes a REMOVE without an ADD, or an
// event earlier than the machine's last one, a reject.
type machineIndex struct {
	m map[string]*machineState
}

type machineState struct {
	up     bool  // added and not removed since
	lastMs int64 // the machine's latest accepted event
}

func machinesOf(ctx context.Context, s *sink) (*machineIndex, error) {
	if s.run.machines != nil {
		return s.run.machines, nil
	}
	ix := &machineIndex{m: map[string]*machineState{}}
	ds := s.tx.Dataset()
	if ds != nil && ds.Rows(dataset.MachineEventsTable.Name) > 0 {
		// Rows of earlier ingests were checked when they were ingested;
		// they are replayed in time order (stable: their order at a tie).
		rows, err := dataset.ReadAll(ctx, ds, dataset.MachineEventsTable)
		if err != nil {
			return nil, err
		}
		sort.SliceStable(rows, func(a, b int) bool { return rows[a].TimeMs < rows[b].TimeMs })
		for i := range rows {
			st := ix.state(rows[i].Machine)
			st.lastMs = rows[i].TimeMs
			switch rows[i].Type {
			case dataset.MachineAdd:
				st.up = true
			case dataset.MachineRemove:
				st.up = false
			}
		}
	}
	s.run.machines = ix
	return ix, nil
}

func (ix *machineIndex) state(machine string) *machineState {
	st := ix.m[machine]
	if st == nil {
		st = &machineState{lastMs: math.MinInt64}
		ix.m[machine] = st
	}
	return st
}

// apply checks one event against the machine's history and, when it is
// consistent, records it. Events of one machine must come in time order
// (events at the same instant in input order) and alternate ADD and
// REMOVE, with UPDATEs only while the machine is added.
func (ix *machineIndex) apply(machine string, ms int64, typ string) error {
	st := ix.m[machine]
	if st != nil && ms < st.lastMs {
		return fmt.Errorf("out of order: %s of machine %s at %s is before its previous event at %s (sort the events by time first)",
			typ, machine, msText(ms), msText(st.lastMs))
	}
	up := st != nil && st.up
	switch typ {
	case dataset.MachineAdd:
		if up {
			return fmt.Errorf("ADD of machine %s, which is already in the cluster (no REMOVE since its last ADD)", machine)
		}
	case dataset.MachineRemove:
		if !up {
			if st == nil {
				return fmt.Errorf("REMOVE of machine %s without an ADD before it", machine)
			}
			return fmt.Errorf("REMOVE of machine %s, which was already removed (no ADD since)", machine)
		}
	case dataset.MachineUpdate:
		if !up {
			return fmt.Errorf("UPDATE of machine %s, which is not in the cluster (no ADD before it, or removed)", machine)
		}
	case dataset.MachineOut:
		if up {
			return fmt.Errorf("OUT of machine %s, which is in the cluster (a REMOVE takes it out)", machine)
		}
	default:
		return fmt.Errorf("event type %q is not ADD, REMOVE or UPDATE", typ)
	}
	if st == nil {
		st = ix.state(machine)
	}
	st.lastMs = ms
	switch typ {
	case dataset.MachineAdd:
		st.up = true
	case dataset.MachineRemove:
		st.up = false
	}
	return nil
}

// machineTypeName maps the v3 proto's EventType numbers (and names) to the
// table's types; EVENT_TYPE_UNKNOWN (0) and anything else is not a type.
func machineTypeName(n int64) (string, error) {
	switch n {
	case 1:
		return dataset.MachineAdd, nil
	case 2:
		return dataset.MachineRemove, nil
	case 3:
		return dataset.MachineUpdate, nil
	}
	return "", fmt.Errorf("type %d is not a machine event type (1 ADD, 2 REMOVE, 3 UPDATE)", n)
}

// statusCounts counts Alibaba statuses taken as out of service, for the
// source's notes.
type statusCounts map[string]int64

func (c statusCounts) note() string {
	if len(c) == 0 {
		return ""
	}
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%q ×%d", k, c[k])
	}
	return "statuses other than USING, read as out of service: " + strings.Join(parts, ", ")
}
