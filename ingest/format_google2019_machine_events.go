// Format "google2019-machine-events". The machine_events table and the rules
// every history obeys are in machine_events.go.
//
// google2019-machine-events reads ClusterData2019 machine_events as JSON
// lines (INT64 as strings or numbers; type as its number or name) or
// Parquet shards; time is on the trace clock as for google2019-usage (time
// 0, the machines there before the window, lands 600 s before it), rack =
// switch_id, cpus and memory = capacity (fractions of the largest
// machine), platform = platform_id; missing_data_reason is not stored.

package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/strtab"
)

const googleMachineEventsFormat = "google2019-machine-events"

func init() {
	register(&Format{
		Name:        googleMachineEventsFormat,
		Table:       dataset.MachineEventsTable.Name,
		Description: "Google ClusterData2019 machine_events (JSON lines or Parquet): ADD / REMOVE / UPDATE, capacity, switch_id as the rack",
		// switch_id and platform_id are machine_events' own; a line
		// without them (null fields are left out) is one with time,
		// machine_id and type and no field of instance_events
		// (collection_id, instance_index) or machine_attributes (name).
		Detect: google2019Detect("machine_events", func(has func(string) bool) bool {
			return has("machine_id") && (has("switch_id") && has("platform_id") ||
				has("time") && has("type") && !has("collection_id") && !has("instance_index") && !has("name"))
		}),
		ingest: ingestGoogleMachineEvents,
	})
}

// googleMachineEvent is the part of a machine_events row that is read.
type googleMachineEvent struct {
	time, machine, typ        int64
	hasTime, hasMach, hasType bool
	typeName                  string // a type written as its name
	sw, platform              string
	cpus, memory              float64
	hasCPU, hasMem            bool
}

type googleMachines struct {
	file  string
	start int64
	ix    *machineIndex
	strs  *strtab.Table
}

// record checks e and fills rec.
func (g *googleMachines) record(e *googleMachineEvent, rec *dataset.MachineEvent) error {
	switch {
	case !e.hasMach:
		return errors.New("no machine_id")
	case !e.hasTime:
		return errors.New("no time")
	case e.time < 0 || e.time > googleLastUs:
		return fmt.Errorf("time %d is not a microsecond of the trace clock", e.time)
	case !e.hasType && e.typeName == "":
		return errors.New("no type")
	}
	typ := e.typeName
	if typ == "" {
		var err error
		if typ, err = machineTypeName(e.typ); err != nil {
			return err
		}
	}
	cpus, mem := math.NaN(), math.NaN()
	if e.hasCPU {
		if !(e.cpus >= 0 && e.cpus <= 1) {
			return fmt.Errorf("capacity.cpus %g is not a fraction of the largest machine", e.cpus)
		}
		cpus = e.cpus
	}
	if e.hasMem {
		if !(e.memory >= 0 && e.memory <= 1) {
			return fmt.Errorf("capacity.memory %g is not a fraction of the largest machine", e.memory)
		}
		mem = e.memory
	}
	_, machine := g.strs.Bytes(strconv.AppendInt(nil, e.machine, 10))
	// Time 0 is "before the trace window": the machines there at its start.
	ms := g.start + (e.time-googleOffsetUs)/1000
	if err := g.ix.apply(machine, ms, typ); err != nil {
		return err
	}
	_, sw := g.strs.Bytes([]byte(e.sw))
	_, pl := g.strs.Bytes([]byte(e.platform))
	*rec = dataset.MachineEvent{Machine: machine, TimeMs: ms, Type: typ, Rack: sw, CPUs: cpus, Memory: mem, Platform: pl, Source: googleMachineEventsFormat}
	return nil
}

func ingestGoogleMachineEvents(ctx context.Context, in *Input, s *sink) (err error) {
	ix, err := machinesOf(ctx, s)
	if err != nil {
		return err
	}
	g := &googleMachines{file: in.Path, start: traceStartMs(s.opts, googleTraceStart), ix: ix, strs: strtab.New()}
	s.notes = append(s.notes, "time = microseconds of the trace clock from "+msText(g.start)+" - 600 s (time 0: the machines there before the trace window); "+
		"machine = machine_id (the usage table's server), rack = switch_id, cpus and memory = capacity (fractions of the largest machine), platform = platform_id; "+
		"each machine's events must be in time order and alternate ADD and REMOVE (UPDATE while added): the BigQuery export is not sorted, sort it by time first")
	open := func() (parquetReader[dataset.MachineEvent], error) {
		want := []string{"time", "machine_id", "type", "switch_id", "capacity.cpus", "capacity.memory", "platform_id"}
		p, err := openParquet(ctx, in, want, func(n string) bool { return n == "time" || n == "machine_id" || n == "type" }, "a machine_events shard")
		if err != nil {
			return nil, err
		}
		return &machinesParquet{parquetInput: p, g: g}, nil
	}
	parse := func(line []byte, rec *dataset.MachineEvent) error {
		var e googleMachineEvent
		if err := scanMachineEvent(line, &e); err != nil {
			return err
		}
		return g.record(&e, rec)
	}
	return drainGoogle2019(ctx, s, in, open, parse, s.tx.MachineEvents())
}

// typeValue reads an enum written as a number, a quoted number (the JSON
// export's INT64) or its name.
func (c *jsonCursor) typeValue(e *googleMachineEvent) error {
	if c.peek() == '"' {
		save := c.i
		s, _, err := c.str()
		if err != nil {
			return err
		}
		switch string(s) {
		case dataset.MachineAdd, dataset.MachineRemove, dataset.MachineUpdate:
			e.typeName, e.hasType = string(s), true
			return nil
		}
		c.i = save
	}
	var err error
	e.typ, e.hasType, err = c.int64Value("type")
	return err
}

func scanMachineEvent(line []byte, e *googleMachineEvent) error {
	if !bytes.HasPrefix(bytes.TrimLeft(line, " \t\r\n"), []byte("{")) {
		return errors.New("not a machine_events JSON object: want a JSON object")
	}
	c := jsonCursor{b: line}
	err := c.objectLine("", func(key []byte) error {
		var err error
		switch string(key) {
		case "time":
			e.time, e.hasTime, err = c.int64Value("time")
		case "machine_id":
			e.machine, e.hasMach, err = c.int64Value("machine_id")
		case "type":
			err = c.typeValue(e)
		case "switch_id":
			e.sw, _, err = c.stringValue("switch_id")
		case "platform_id":
			e.platform, _, err = c.stringValue("platform_id")
		case "capacity":
			switch c.peek() {
			case '{':
				return c.container(func(k []byte) error {
					var err error
					switch string(k) {
					case "cpus":
						e.cpus, e.hasCPU, err = c.floatValue("capacity.cpus")
					case "memory":
						e.memory, e.hasMem, err = c.floatValue("capacity.memory")
					default:
						err = c.skip()
					}
					return err
				})
			case 'n':
				if t := c.token(); string(t) != "null" {
					return fmt.Errorf("capacity: %q is not an object", t)
				}
				return nil
			}
			return c.fail("capacity: want an object")
		default:
			err = c.skip()
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("not a machine_events JSON object: %v", err)
	}
	return nil
}

// machinesParquet reads machine_events Parquet shards (ints as numbers,
// capacity a struct, absent values null). Row numbers stand for lines.
type machinesParquet struct {
	*parquetInput
	parquetRow[dataset.MachineEvent]
	g             *googleMachines
	tm, mach, typ func(int) (int64, bool)
	sw, plat      func(int) (string, bool)
	cpus, mem     func(int) (float64, bool)
}

func (r *machinesParquet) bind(batch arrow.Record) error {
	var e1, e2, e3, e4, e5 error
	r.tm, e1 = intAccessor(column(batch, "time"))
	r.mach, e2 = intAccessor(column(batch, "machine_id"))
	r.typ, e3 = intAccessor(column(batch, "type"))
	r.sw, e4 = stringAccessor(column(batch, "switch_id"))
	r.plat, e5 = stringAccessor(column(batch, "platform_id"))
	if err := errors.Join(e1, e2, e3, e4, e5); err != nil {
		return err
	}
	fs, err := structFloats(column(batch, "capacity"), "capacity", "cpus", "memory")
	if err != nil {
		return err
	}
	r.cpus, r.mem = fs[0], fs[1]
	return nil
}

func (r *machinesParquet) Scan() bool {
	i, ok := r.nextRow(r.parquetInput, r.bind)
	if !ok {
		return false
	}
	var e googleMachineEvent
	e.time, e.hasTime = r.tm(i)
	e.machine, e.hasMach = r.mach(i)
	e.typ, e.hasType = r.typ(i)
	e.sw, _ = r.sw(i)
	e.platform, _ = r.plat(i)
	e.cpus, e.hasCPU = r.cpus(i)
	e.memory, e.hasMem = r.mem(i)
	r.perr = nil
	if err := r.g.record(&e, &r.rec); err != nil {
		r.perr = &ParseError{File: r.path, Line: r.row, Err: err,
			Record: fmt.Sprintf("%s %s %s switch_id=%q", intField("time", e.time, e.hasTime), intField("machine_id", e.machine, e.hasMach), intField("type", e.typ, e.hasType), e.sw)}
	}
	return true
}
