package ingest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/wlprof/wlprof/dataset"
)

// instanceEventsParquet reads instance_events Parquet shards (the BigQuery
// export: INT64 columns, resource_request a struct of cpus and memory,
// constraint a repeated struct of name, value and relation, nulls for
// absent values). Row numbers (1-based, across row groups) stand for line
// numbers in rejects.
type instanceEventsParquet struct {
	*parquetInput
	parquetRow[dataset.TaskEvent]
	start int64
	ints  [5]func(int) (int64, bool) // time, type, collection_id, instance_index, machine_id
	cpu   func(int) (float64, bool)
	mem   func(int) (float64, bool)
	cons  func(int, []instanceConstraint) []instanceConstraint
	raw   instanceEvent
}

// instanceEventLeaves are the columns read (a struct or list by its name:
// openParquet takes the leaves under it).
var instanceEventLeaves = []string{"time", "type", "collection_id", "instance_index", "machine_id", "resource_request", "constraint"}

func newInstanceEventsParquet(ctx context.Context, in *Input, start int64) (*instanceEventsParquet, error) {
	required := func(n string) bool {
		return n == "time" || n == "type" || n == "collection_id" || n == "instance_index"
	}
	p, err := openParquet(ctx, in, instanceEventLeaves, required, "an instance_events shard")
	if err != nil {
		return nil, err
	}
	return &instanceEventsParquet{parquetInput: p, start: start}, nil
}

// bind sets the accessors of a new record batch.
func (r *instanceEventsParquet) bind(batch arrow.Record) error {
	var errs []error
	for k, name := range []string{"time", "type", "collection_id", "instance_index", "machine_id"} {
		var err error
		if r.ints[k], err = intAccessor(column(batch, name)); err != nil {
			errs = append(errs, fmt.Errorf("column %s: %w", name, err))
		}
	}
	if fs, err := structFloats(column(batch, "resource_request"), "resource_request", "cpus", "memory"); err != nil {
		errs = append(errs, err)
	} else {
		r.cpu, r.mem = fs[0], fs[1]
	}
	r.cons = func(_ int, dst []instanceConstraint) []instanceConstraint { return dst }
	if a := column(batch, "constraint"); a != nil {
		acc, err := constraintListAccessor(a)
		if err != nil {
			errs = append(errs, err)
		} else {
			r.cons = acc
		}
	}
	return errors.Join(errs...)
}

// constraintListAccessor reads the repeated constraint column: a list of
// structs of name, value (strings) and relation (an integer, or a name).
func constraintListAccessor(a arrow.Array) (func(int, []instanceConstraint) []instanceConstraint, error) {
	l, ok := a.(*array.List)
	if !ok {
		return nil, fmt.Errorf("column constraint is %s, want a list of structs", a.DataType())
	}
	st, ok := l.ListValues().(*array.Struct)
	if !ok {
		return nil, fmt.Errorf("column constraint is a list of %s, want structs of name, value and relation", l.ListValues().DataType())
	}
	typ := st.DataType().(*arrow.StructType)
	field := func(name string) arrow.Array {
		if k, ok := typ.FieldIdx(name); ok {
			return st.Field(k)
		}
		return nil
	}
	name, err1 := stringAccessor(field("name"))
	value, err2 := stringAccessor(field("value"))
	var rel func(int) (string, bool)
	var err3 error
	switch f := field("relation").(type) {
	case nil:
		rel = func(int) (string, bool) { return "", false }
	case *array.String, *array.Binary:
		rel, err3 = stringAccessor(f)
	default:
		var ints func(int) (int64, bool)
		if ints, err3 = intAccessor(f); err3 == nil {
			rel = func(i int) (string, bool) {
				v, ok := ints(i)
				return strconv.FormatInt(v, 10), ok
			}
		}
	}
	if err := errors.Join(err1, err2, err3); err != nil {
		return nil, fmt.Errorf("column constraint: %w", err)
	}
	return func(i int, dst []instanceConstraint) []instanceConstraint {
		if !l.IsValid(i) {
			return dst
		}
		start, end := l.ValueOffsets(i)
		for k := int(start); k < int(end); k++ {
			var c instanceConstraint
			c.name, _ = name(k)
			c.value, _ = value(k)
			c.rel, c.hasRel = rel(k)
			dst = append(dst, c)
		}
		return dst
	}, nil
}

func (r *instanceEventsParquet) Scan() bool {
	i, ok := r.nextRow(r.parquetInput, r.bind)
	if !ok {
		return false
	}
	e := &r.raw
	*e = instanceEvent{cpu: math.NaN(), mem: math.NaN(), cons: e.cons[:0]}
	e.us, e.hasTime = r.ints[0](i)
	e.typ, e.hasType = r.ints[1](i)
	e.coll, e.hasColl = r.ints[2](i)
	e.idx, e.hasIdx = r.ints[3](i)
	if v, ok := r.ints[4](i); ok { // a null machine_id is 0, as in JSON
		e.machine = v
	}
	if v, ok := r.cpu(i); ok {
		e.cpu = v
	}
	if v, ok := r.mem(i); ok {
		e.mem = v
	}
	e.cons = r.cons(i, e.cons)
	r.perr = nil
	if err := e.finish(r.start, &r.rec); err != nil {
		r.perr = &ParseError{File: r.path, Line: r.row, Err: err,
			Record: fmt.Sprintf("time=%d type=%d collection_id=%d instance_index=%d", e.us, e.typ, e.coll, e.idx)}
	}
	return true
}

// machineAttrsParquet reads machine_attributes Parquet shards.
type machineAttrsParquet struct {
	*parquetInput
	parquetRow[dataset.MachineAttribute]
	start       int64
	tm, machine func(int) (int64, bool)
	name, value func(int) (string, bool)
	deleted     func(int) (bool, bool)
}

func newMachineAttrsParquet(ctx context.Context, in *Input, start int64) (*machineAttrsParquet, error) {
	required := func(n string) bool { return n != "value" && n != "deleted" }
	p, err := openParquet(ctx, in, []string{"time", "machine_id", "name", "value", "deleted"}, required, "a machine_attributes shard")
	if err != nil {
		return nil, err
	}
	return &machineAttrsParquet{parquetInput: p, start: start}, nil
}

func (r *machineAttrsParquet) bind(batch arrow.Record) error {
	var e [5]error
	r.tm, e[0] = intAccessor(column(batch, "time"))
	r.machine, e[1] = intAccessor(column(batch, "machine_id"))
	r.name, e[2] = stringAccessor(column(batch, "name"))
	r.value, e[3] = stringAccessor(column(batch, "value"))
	switch d := column(batch, "deleted").(type) {
	case nil:
		r.deleted = func(int) (bool, bool) { return false, false }
	case *array.Boolean:
		r.deleted = func(i int) (bool, bool) { return d.Value(i), d.IsValid(i) }
	default:
		e[4] = fmt.Errorf("column deleted is %s, want a boolean", d.DataType())
	}
	return errors.Join(e[:]...)
}

func (r *machineAttrsParquet) Scan() bool {
	i, ok := r.nextRow(r.parquetInput, r.bind)
	if !ok {
		return false
	}
	a := &r.rec
	*a = dataset.MachineAttribute{Source: google2019MachineAttrsFormat}
	us, hasTime := r.tm(i)
	m, hasMachine := r.machine(i)
	if hasMachine {
		a.Machine = m
	}
	var hasName, hasValue bool
	a.Attribute, hasName = r.name(i)
	a.Value, hasValue = r.value(i)
	if d, ok := r.deleted(i); ok {
		a.Deleted = d
	}
	r.perr = nil
	if err := finishMachineAttribute(a, r.start, us, hasTime, hasMachine, hasName, hasValue); err != nil {
		r.perr = &ParseError{File: r.path, Line: r.row, Err: err,
			Record: fmt.Sprintf("time=%d machine_id=%d name=%q value=%q", us, m, a.Attribute, a.Value)}
	}
	return true
}
