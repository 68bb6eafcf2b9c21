package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/wlprof/wlprof/dataset"
)

// Placement constraints (Thinakaran et al., Phoenix) from the Google traces: task
// events, the constraints tasks carry and the attributes machines offer.
//
// Field orders. ClusterData2019: clusterdata_trace_format_v3.proto
// (InstanceEvent, MachineConstraint, MachineAttribute; JSON lines of the
// BigQuery export write INT64 as strings, enums as numbers). ClusterData2011
// (clusterdata-2011-2, schema document v2.1), CSV without a header:
//
//	task_events        time, missing info, job ID, task index, machine ID, event type,
//	                   user, scheduling class, priority, CPU request, memory request,
//	                   disk request, different-machine constraint
//	task_constraints   time, job ID, task index, comparison operator (0 '=', 1 '!=',
//	                   2 '<', 3 '>'), attribute name, attribute value
//	machine_attributes time, machine ID, attribute name, attribute value, attribute deleted
//
// The task_events order is confirmed by google/cluster-data's own converter
// (amplab-charles/src/main/scala/amplab/googletrace/Convert.scala,
// convertTaskEvent: v(0) time … v(12) different machines) and by CloudSim
// Plus's GoogleTaskEventsTraceReader.FieldIndex (0 TIMESTAMP … 12
// DIFFERENT_MACHINE_CONSTRAINT). The task_constraints and machine_attributes
// orders are the schema document's as the issue quotes it; no copy of the
// document was at hand to check them against.
//
// Both traces count microseconds from 600 s before the trace window; 0
// means "before the window" and 2^63−1 "after it": those instants are
// stored as null (dataset.NoTime).

const (
	google2019InstanceEventsFormat  = "google2019-instance-events"
	google2019MachineAttrsFormat    = "google2019-machine-attributes"
	google2011TaskEventsFormat      = "google2011-task-events"
	google2011TaskConstraintsFormat = "google2011-task-constraints"
	google2011MachineAttrsFormat    = "google2011-machine-attributes"
)

// event types by number: 2019 (EventType) and 2011 (task_events).
var (
	eventTypes2019 = [...]string{"SUBMIT", "QUEUE", "ENABLE", "SCHEDULE", "EVICT", "FAIL", "FINISH", "KILL", "LOST", "UPDATE_PENDING", "UPDATE_RUNNING"}
	eventTypes2011 = [...]string{"SUBMIT", "SCHEDULE", "EVICT", "FAIL", "FINISH", "KILL", "LOST", "UPDATE_PENDING", "UPDATE_RUNNING"}
)

// traceUsToMs maps a trace clock reading to an instant (NoTime outside
// the window).
func traceUsToMs(startMs, us int64) int64 {
	if us == 0 || us == math.MaxInt64 {
		return dataset.NoTime
	}
	return startMs + (us-googleOffsetUs)/1000
}

// relationByNumber reads a relation written as its enum number, or (2019
// exports that spell enums) its name.
func relationByNumber(s string, max int) (string, error) {
	if n, err := strconv.Atoi(s); err == nil {
		if n >= 0 && n < max {
			return dataset.Relations[n], nil
		}
		return "", fmt.Errorf("unknown relation %d (known: 0–%d)", n, max-1)
	}
	for _, r := range dataset.Relations[:max] {
		if s == r {
			return r, nil
		}
	}
	return "", fmt.Errorf("unknown relation %q", s)
}

// checkConstraint refuses what matching could not decide: an empty
// attribute name, a value that is not a number under an ordered relation.
// A presence relation's value is dropped (the schema says it is ignored).
func checkConstraint(c *dataset.Constraint) error {
	if c.Attribute == "" {
		return errors.New("constraint without an attribute name")
	}
	if strings.ContainsAny(c.Attribute+c.Value, "\x1e\x1f") {
		// the separators of task_events.constraints (dataset.EncodeConstraints)
		return errors.New("constraint name or value holds a control character (\\x1e or \\x1f)")
	}
	switch {
	case dataset.PresenceRelation(c.Relation):
		c.Value = ""
	case dataset.NumericRelation(c.Relation):
		v, err := strconv.ParseFloat(strings.TrimSpace(c.Value), 64)
		if err != nil || math.IsNaN(v) {
			return fmt.Errorf("constraint %s %s %q: the value is not a number, and %s compares numbers", c.Attribute, c.Relation, c.Value, c.Relation)
		}
	}
	return nil
}

func init() {
	register(&Format{
		Name:        google2019InstanceEventsFormat,
		Table:       dataset.TaskEventsTable.Name,
		Description: "Google ClusterData2019 instance_events (JSON lines or Parquet): task events with resource requests and constraints, for wlprof constraints",
		Detect: google2019Detect("instance_events", func(has func(string) bool) bool {
			return has("instance_index") && has("type") && has("time") && !has("start_time")
		}),
		ingest: func(ctx context.Context, in *Input, s *sink) error {
			start := traceStartMs(s.opts, googleTraceStart)
			s.notes = append(s.notes, "one task_events row per instance event; times from "+msText(start)+
				" (offset 600 s of the trace clock); constraints kept on every event as the trace writes them")
			open := func() (parquetReader[dataset.TaskEvent], error) { return newInstanceEventsParquet(ctx, in, start) }
			parse := func(line []byte, rec *dataset.TaskEvent) error { return scanInstanceEvent(line, start, rec) }
			return drainGoogle2019(ctx, s, in, open, parse, s.tx.TaskEvents())
		},
	})
	register(&Format{
		Name:        google2019MachineAttrsFormat,
		Table:       dataset.MachineAttributesTable.Name,
		Description: "Google ClusterData2019 machine_attributes (JSON lines or Parquet): time, machine_id, name, value, deleted",
		Detect: google2019Detect("machine_attributes", func(has func(string) bool) bool {
			return has("machine_id") && has("name") && has("deleted")
		}),
		ingest: func(ctx context.Context, in *Input, s *sink) error {
			start := traceStartMs(s.opts, googleTraceStart)
			s.notes = append(s.notes, "one machine_attributes row per attribute change; times from "+msText(start))
			open := func() (parquetReader[dataset.MachineAttribute], error) { return newMachineAttrsParquet(ctx, in, start) }
			parse := func(line []byte, rec *dataset.MachineAttribute) error { return scanMachineAttribute(line, start, rec) }
			return drainGoogle2019(ctx, s, in, open, parse, s.tx.MachineAttributes())
		},
	})
	register(&Format{
		Name:        google2011TaskEventsFormat,
		Table:       dataset.TaskEventsTable.Name,
		Description: "Google ClusterData2011 task_events CSV (13 columns, no header): time,missing,job,task,machine,event type,user,class,priority,cpu,memory,disk,different-machine",
		Detect: fieldsDetect(13, func(f [][]byte) bool {
			_, ok1 := plainInt(f[0])
			_, ok2 := plainInt(f[2])
			_, ok3 := plainInt(f[5])
			return ok1 && ok2 && ok3
		}),
		ingest: func(ctx context.Context, in *Input, s *sink) error {
			p := &g2011{csvRow: csvRow{file: in.Path}, start: traceStartMs(s.opts, google2011TraceStart)}
			s.notes = append(s.notes, "times from "+msText(p.start)+" (offset 600 s, 19:00 EDT 1 May 2011); the different-machine constraint is kept (different_machine); user, class, priority and disk are not stored")
			return drain[dataset.TaskEvent](ctx, s, newLineRecords(in, p.taskEvent), s.tx.TaskEvents())
		},
	})
	register(&Format{
		Name:        google2011TaskConstraintsFormat,
		Table:       dataset.TaskConstraintsTable.Name,
		Description: "Google ClusterData2011 task_constraints CSV (6 columns, no header): time,job,task,operator (0 = 1 != 2 < 3 >),attribute,value",
		Detect: fieldsDetect(6, func(f [][]byte) bool {
			_, ok1 := plainInt(f[0])
			_, ok2 := plainInt(f[1])
			op, ok3 := plainInt(f[3])
			return ok1 && ok2 && ok3 && op <= 3 && len(f[4]) > 0
		}),
		ingest: func(ctx context.Context, in *Input, s *sink) error {
			p := &g2011{csvRow: csvRow{file: in.Path}, start: traceStartMs(s.opts, google2011TraceStart)}
			s.notes = append(s.notes, "times from "+msText(p.start)+"; operators 0–3 are EQUAL, NOT_EQUAL, LESS_THAN, GREATER_THAN")
			return drain[dataset.TaskConstraint](ctx, s, newLineRecords(in, p.taskConstraint), s.tx.TaskConstraints())
		},
	})
	register(&Format{
		Name:        google2011MachineAttrsFormat,
		Table:       dataset.MachineAttributesTable.Name,
		Description: "Google ClusterData2011 machine_attributes CSV (5 columns, no header): time,machine,attribute,value,deleted",
		Detect: fieldsDetect(5, func(f [][]byte) bool {
			_, ok1 := plainInt(f[0])
			_, ok2 := plainInt(f[1])
			_, ok3 := parseBool01(f[4])
			return ok1 && ok2 && ok3 && len(f[2]) > 0
		}),
		ingest: func(ctx context.Context, in *Input, s *sink) error {
			p := &g2011{csvRow: csvRow{file: in.Path}, start: traceStartMs(s.opts, google2011TraceStart)}
			s.notes = append(s.notes, "times from "+msText(p.start)+"; time 0 (attributes held before the trace) is stored as null")
			return drain[dataset.MachineAttribute](ctx, s, newLineRecords(in, p.machineAttribute), s.tx.MachineAttributes())
		},
	})
}

// parseBool01 reads the 2011 trace's booleans: 1/0, true/false, or empty
// (false).
func parseBool01(b []byte) (bool, bool) {
	switch string(bytes.ToLower(bytes.TrimSpace(b))) {
	case "", "0", "false":
		return false, true
	case "1", "true":
		return true, true
	}
	return false, false
}

func (p *g2011) taskEvent(line []byte, lineNo int64, rec *dataset.TaskEvent) *ParseError {
	perr, reject := p.split(line, lineNo, 13, "time,missing info,job ID,task index,machine ID,event type,user,scheduling class,priority,CPU request,memory request,disk request,different-machine constraint")
	if perr != nil {
		return perr
	}
	var e dataset.TaskEvent
	us, perr := p.int(0, "time", reject)
	if perr != nil {
		return perr
	}
	if e.Job, perr = p.int(2, "job ID", reject); perr != nil {
		return perr
	}
	task, perr := p.int(3, "task index", reject)
	if perr != nil {
		return perr
	}
	if task < 0 || task > math.MaxInt32 {
		return reject(p.cols[3], fmt.Errorf("task index %d is out of range", task))
	}
	if len(p.fields[4]) > 0 {
		if e.Machine, perr = p.int(4, "machine ID", reject); perr != nil {
			return perr
		}
	}
	typ, perr := p.int(5, "event type", reject)
	if perr != nil {
		return perr
	}
	if typ < 0 || typ >= int64(len(eventTypes2011)) {
		return reject(p.cols[5], fmt.Errorf("unknown event type %d (known: 0 SUBMIT … 8 UPDATE_RUNNING)", typ))
	}
	if e.CPURequest, perr = p.float(9, "CPU request", reject); perr != nil {
		return perr
	}
	if e.MemoryRequest, perr = p.float(10, "memory request", reject); perr != nil {
		return perr
	}
	// The different-machine constraint (column 13) is a placement
	// constraint (Thinakaran et al., Phoenix §III-A): the constraints
	// stage reports it.
	dm, ok := parseBool01(p.fields[12])
	if !ok {
		return reject(p.cols[12], fmt.Errorf("different-machine constraint %q is not 0/1", p.fields[12]))
	}
	e.DifferentMachine = dm
	e.TimeMs = traceUsToMs(p.start, us)
	e.Task = int32(task)
	e.Type = eventTypes2011[typ]
	e.Source = google2011TaskEventsFormat
	*rec = e
	return nil
}

func (p *g2011) taskConstraint(line []byte, lineNo int64, rec *dataset.TaskConstraint) *ParseError {
	perr, reject := p.split(line, lineNo, 6, "time,job ID,task index,comparison operator,attribute name,attribute value")
	if perr != nil {
		return perr
	}
	us, perr := p.int(0, "time", reject)
	if perr != nil {
		return perr
	}
	job, perr := p.int(1, "job ID", reject)
	if perr != nil {
		return perr
	}
	task, perr := p.int(2, "task index", reject)
	if perr != nil {
		return perr
	}
	if task < 0 || task > math.MaxInt32 {
		return reject(p.cols[2], fmt.Errorf("task index %d is out of range", task))
	}
	rel, err := relationByNumber(string(p.fields[3]), 4)
	if err != nil {
		return reject(p.cols[3], fmt.Errorf("comparison operator: %v", err))
	}
	c := dataset.Constraint{Attribute: string(p.fields[4]), Relation: rel, Value: string(p.fields[5])}
	if err := checkConstraint(&c); err != nil {
		return reject(p.cols[5], err)
	}
	*rec = dataset.TaskConstraint{TimeMs: traceUsToMs(p.start, us), Job: job, Task: int32(task),
		Attribute: c.Attribute, Relation: c.Relation, Value: c.Value, Source: google2011TaskConstraintsFormat}
	return nil
}

func (p *g2011) machineAttribute(line []byte, lineNo int64, rec *dataset.MachineAttribute) *ParseError {
	perr, reject := p.split(line, lineNo, 5, "time,machine ID,attribute name,attribute value,attribute deleted")
	if perr != nil {
		return perr
	}
	us, perr := p.int(0, "time", reject)
	if perr != nil {
		return perr
	}
	m, perr := p.int(1, "machine ID", reject)
	if perr != nil {
		return perr
	}
	if len(p.fields[2]) == 0 {
		return reject(p.cols[2], errors.New("empty attribute name"))
	}
	del, ok := parseBool01(p.fields[4])
	if !ok {
		return reject(p.cols[4], fmt.Errorf("attribute deleted %q is not 0/1", p.fields[4]))
	}
	*rec = dataset.MachineAttribute{TimeMs: traceUsToMs(p.start, us), Machine: m, Attribute: string(p.fields[2]),
		Value: string(p.fields[3]), Deleted: del, Source: google2011MachineAttrsFormat}
	return nil
}

// scanInstanceEvent reads one instance_events JSON line.
// instanceEvent is the part of an instance_events row that is read, from
// JSON or Parquet; a missing field has its has flag false.
type instanceEvent struct {
	us, typ, coll, idx, machine       int64
	hasTime, hasType, hasColl, hasIdx bool
	cpu, mem                          float64 // NaN when absent
	cons                              []instanceConstraint
}

type instanceConstraint struct {
	name, value string
	rel         string // the relation's number or name as written
	hasRel      bool
}

// finish checks the event and fills e (the task_events row).
func (r *instanceEvent) finish(startMs int64, e *dataset.TaskEvent) error {
	*e = dataset.TaskEvent{CPURequest: r.cpu, MemoryRequest: r.mem, Machine: r.machine, Job: r.coll, Source: google2019InstanceEventsFormat}
	cs := make([]dataset.Constraint, 0, len(r.cons))
	for _, rc := range r.cons {
		k := dataset.Constraint{Attribute: rc.name, Value: rc.value}
		if !rc.hasRel {
			return fmt.Errorf("constraint %s has no relation", k.Attribute)
		}
		var err error
		if k.Relation, err = relationByNumber(rc.rel, len(dataset.Relations)); err != nil {
			return fmt.Errorf("constraint %s: %v", k.Attribute, err)
		}
		if err := checkConstraint(&k); err != nil {
			return err
		}
		cs = append(cs, k)
	}
	switch {
	case !r.hasTime:
		return errors.New("no time")
	case !r.hasType:
		return errors.New("no type")
	case r.typ < 0 || r.typ >= int64(len(eventTypes2019)):
		return fmt.Errorf("unknown event type %d (known: 0 SUBMIT … 10 UPDATE_RUNNING)", r.typ)
	case !r.hasColl:
		return errors.New("no collection_id")
	case !r.hasIdx:
		return errors.New("no instance_index (a collection event? use google2019-collection-events)")
	case r.idx < 0 || r.idx > math.MaxInt32:
		return fmt.Errorf("instance_index %d is out of range", r.idx)
	}
	e.TimeMs = traceUsToMs(startMs, r.us)
	e.Type = eventTypes2019[r.typ]
	e.Task = int32(r.idx)
	e.Constraints = dataset.EncodeConstraints(cs)
	return nil
}

func scanInstanceEvent(line []byte, startMs int64, e *dataset.TaskEvent) error {
	r := instanceEvent{cpu: math.NaN(), mem: math.NaN()}
	c := jsonCursor{b: line}
	err := c.objectLine("an instance_events", func(key []byte) error {
		var err error
		switch string(key) {
		case "time":
			r.us, r.hasTime, err = c.int64Value("time")
		case "type":
			r.typ, r.hasType, err = c.int64Value("type")
		case "collection_id":
			r.coll, r.hasColl, err = c.int64Value("collection_id")
		case "instance_index":
			r.idx, r.hasIdx, err = c.int64Value("instance_index")
		case "machine_id":
			r.machine, _, err = c.int64Value("machine_id")
		case "resource_request":
			if c.peek() != '{' {
				return c.skip() // null
			}
			err = c.container(func(k []byte) error {
				var err error
				switch string(k) {
				case "cpus":
					var v float64
					var ok bool
					if v, ok, err = c.floatValue("resource_request.cpus"); ok {
						r.cpu = v
					}
				case "memory":
					var v float64
					var ok bool
					if v, ok, err = c.floatValue("resource_request.memory"); ok {
						r.mem = v
					}
				default:
					err = c.skip()
				}
				return err
			})
		case "constraint":
			if c.peek() != '[' {
				return c.skip() // null
			}
			err = c.container(func([]byte) error {
				if c.peek() != '{' {
					return c.fail("constraint: want an object")
				}
				var k instanceConstraint
				err := c.container(func(f []byte) error {
					var err error
					switch string(f) {
					case "name":
						k.name, _, err = c.stringValue("constraint.name")
					case "value":
						k.value, _, err = c.stringValue("constraint.value")
					case "relation":
						if c.peek() == '"' {
							var raw []byte
							raw, _, err = c.str()
							k.rel, k.hasRel = string(raw), true
						} else if t := c.token(); len(t) > 0 && string(t) != "null" {
							k.rel, k.hasRel = string(t), true
						} else if len(t) == 0 {
							err = c.fail("constraint.relation: want a value")
						}
					default:
						err = c.skip()
					}
					return err
				})
				if err != nil {
					return err
				}
				r.cons = append(r.cons, k)
				return nil
			})
		default:
			err = c.skip()
		}
		return err
	})
	if err != nil {
		return err
	}
	return r.finish(startMs, e)
}

// scanMachineAttribute reads one machine_attributes JSON line.
func scanMachineAttribute(line []byte, startMs int64, a *dataset.MachineAttribute) error {
	*a = dataset.MachineAttribute{Source: google2019MachineAttrsFormat}
	c := jsonCursor{b: line}
	var us int64
	var hasTime, hasMachine, hasName, hasValue bool
	err := c.objectLine("a machine_attributes", func(key []byte) error {
		var err error
		switch string(key) {
		case "time":
			us, hasTime, err = c.int64Value("time")
		case "machine_id":
			a.Machine, hasMachine, err = c.int64Value("machine_id")
		case "name":
			a.Attribute, hasName, err = c.stringValue("name")
		case "value":
			a.Value, hasValue, err = c.stringValue("value")
		case "deleted":
			switch t := c.token(); string(t) {
			case "true":
				a.Deleted = true
			case "false", "null":
			default:
				if c.peek() == '"' { // "true"/"false" as strings
					raw, _, e := c.str()
					if e != nil {
						return e
					}
					b, ok := parseBool01(raw)
					if !ok {
						return fmt.Errorf("deleted: %q is not a boolean", raw)
					}
					a.Deleted = b
					return nil
				}
				return c.fail("deleted: want a boolean")
			}
		default:
			err = c.skip()
		}
		return err
	})
	if err != nil {
		return err
	}
	return finishMachineAttribute(a, startMs, us, hasTime, hasMachine, hasName, hasValue)
}

// finishMachineAttribute checks a machine_attributes row (JSON or
// Parquet) and sets its time.
func finishMachineAttribute(a *dataset.MachineAttribute, startMs, us int64, hasTime, hasMachine, hasName, hasValue bool) error {
	switch {
	case !hasTime:
		return errors.New("no time")
	case !hasMachine:
		return errors.New("no machine_id")
	case !hasName || a.Attribute == "":
		return errors.New("no attribute name")
	case !hasValue && !a.Deleted:
		return errors.New("no value and not deleted (the schema: if value is unset, deleted must be true)")
	}
	a.TimeMs = traceUsToMs(startMs, us)
	return nil
}
