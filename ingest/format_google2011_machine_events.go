// Format "google2011-machine-events". The machine_events table and the rules
// every history obeys are in machine_events.go.
//
// google2011-machine-events reads ClusterData2011 machine_events (CSV,
// no header; schema document v2.1: time, machine ID, event type 0 ADD, 1
// REMOVE, 2 UPDATE, platform ID, CPUs, memory): time on the trace clock as
// for the 2011 formats (time 0, the machines there before the window,
// lands 600 s before it), cpus and memory the capacity (fractions of the
// largest machine; empty is unknown, above 1 a reject), platform =
// platform ID; the 2011 trace has no rack.

package ingest

import (
	"context"
	"fmt"
	"math"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/strtab"
)

const google2011MachineEventsFormat = "google2011-machine-events"

// google2011MachineTypes are ClusterData2011 machine_events' event types
// by number (schema document v2.1: 0 ADD, 1 REMOVE, 2 UPDATE), one less
// than the 2019 proto's.
var google2011MachineTypes = [...]string{dataset.MachineAdd, dataset.MachineRemove, dataset.MachineUpdate}

func init() {
	register(&Format{
		Name:  google2011MachineEventsFormat,
		Table: dataset.MachineEventsTable.Name,
		Description: "Google ClusterData2011 machine_events CSV (6 columns, no header): time,machine,event type (0 ADD 1 REMOVE 2 UPDATE),platform,cpus,memory " +
			"→ machine_events (placement on the 2011 trace)",
		Detect: fieldsDetect(6, func(f [][]byte) bool {
			_, ok1 := plainInt(f[0])
			_, ok2 := plainInt(f[1])
			typ, ok3 := plainInt(f[2])
			_, platformIsInt := plainInt(f[3]) // task_constraints has its operator there
			return ok1 && ok2 && ok3 && typ <= 2 && !platformIsInt && (len(f[4]) == 0 || isNumber(f[4])) && (len(f[5]) == 0 || isNumber(f[5]))
		}),
		ingest: func(ctx context.Context, in *Input, s *sink) error {
			ix, err := machinesOf(ctx, s)
			if err != nil {
				return err
			}
			p := &g2011Machines{g2011: g2011{csvRow: csvRow{file: in.Path}, start: traceStartMs(s.opts, google2011TraceStart)}, ix: ix, strs: strtab.New()}
			s.notes = append(s.notes, "time = microseconds of the trace clock from "+msText(p.start)+" - 600 s (time 0: the machines there before the trace window); "+
				"type 0 ADD, 1 REMOVE, 2 UPDATE; platform = platform ID; cpus and memory = capacity (fractions of the largest machine); no rack in the 2011 trace")
			return drain[dataset.MachineEvent](ctx, s, newLineRecords(in, p.parse), s.tx.MachineEvents())
		},
	})
}

type g2011Machines struct {
	g2011
	ix   *machineIndex
	strs *strtab.Table
}

// parse reads one machine_events line: time, machine ID, event type,
// platform ID, CPUs, memory (ClusterData2011 schema v2.1). Capacities may
// be empty (the trace leaves them out of some REMOVE rows).
func (p *g2011Machines) parse(line []byte, lineNo int64, rec *dataset.MachineEvent) *ParseError {
	perr, reject := p.split(line, lineNo, 6, "time,machine,event type,platform,cpus,memory")
	if perr != nil {
		return perr
	}
	us, perr := p.int(0, "time", reject)
	if perr != nil {
		return perr
	}
	if us < 0 || us == math.MaxInt64 {
		return reject(p.cols[0], fmt.Errorf("time %d is not on the trace clock", us))
	}
	id, perr := p.int(1, "machine ID", reject)
	if perr != nil {
		return perr
	}
	n, perr := p.int(2, "event type", reject)
	if perr != nil {
		return perr
	}
	if n < 0 || n >= int64(len(google2011MachineTypes)) {
		return reject(p.cols[2], fmt.Errorf("event type %d is not a machine event type (0 ADD, 1 REMOVE, 2 UPDATE)", n))
	}
	typ := google2011MachineTypes[n]
	var capacity [2]float64
	for k, name := range [2]string{"cpus", "memory"} {
		v, perr := p.float(4+k, name, reject)
		if perr != nil {
			return perr
		}
		if v > 1 {
			return reject(p.cols[4+k], fmt.Errorf("%s %g is above 1 (the largest machine)", name, v))
		}
		capacity[k] = v
	}
	_, machine := p.strs.Bytes([]byte(fmt.Sprint(id)))
	ms := p.start + (us-googleOffsetUs)/1000
	if err := p.ix.apply(machine, ms, typ); err != nil {
		return reject(p.cols[0], err)
	}
	_, platform := p.strs.Bytes(p.fields[3])
	*rec = dataset.MachineEvent{Machine: machine, TimeMs: ms, Type: typ, CPUs: capacity[0], Memory: capacity[1], Platform: platform,
		Source: google2011MachineEventsFormat}
	return nil
}
