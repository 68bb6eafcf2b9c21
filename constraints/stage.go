package constraints

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

// Options of the constraints stage. Start from DefaultOptions.
type Options struct {
	// Window is the step of the demand/supply series (the Constraint
	// Resource Vector over time). Default 1 hour.
	Window time.Duration
	// MaxWindows bounds the series' length (windows × constraints are
	// kept in memory). Default 100,000.
	MaxWindows int
}

// DefaultOptions: hourly windows.
func DefaultOptions() Options { return Options{Window: time.Hour, MaxWindows: 100_000} }

// Validate reports every bad option at once.
func (o *Options) Validate() error {
	var errs []error
	if o.Window < time.Second {
		errs = append(errs, fmt.Errorf("window %v: want at least 1s", o.Window))
	}
	if o.MaxWindows < 1 {
		errs = append(errs, fmt.Errorf("max-windows %d: want at least 1", o.MaxWindows))
	}
	return errors.Join(errs...)
}

// Event types, in Input.Events.
const (
	evSubmit uint8 = iota
	evQueue
	evEnable
	evSchedule
	evEvict
	evFail
	evFinish
	evKill
	evLost
	evUpdatePending
	evUpdateRunning
	evUnknown
)

var eventNames = map[string]uint8{"SUBMIT": evSubmit, "QUEUE": evQueue, "ENABLE": evEnable, "SCHEDULE": evSchedule,
	"EVICT": evEvict, "FAIL": evFail, "FINISH": evFinish, "KILL": evKill, "LOST": evLost,
	"UPDATE_PENDING": evUpdatePending, "UPDATE_RUNNING": evUpdateRunning}

// Event is one task event, its task and machine interned.
type Event struct {
	TimeMs  int64 // dataset.NoTime: outside the trace window
	Task    int32 // index in Input.Tasks
	Machine int32 // index in Input.Machines; -1: none (0 or a dedicated machine)
	Set     int32 // index in Input.Sets: the constraints in force at this event
	Type    uint8
	// Different is the 2011 different-machine constraint of the event.
	Different bool
	CPU       float32 // request, NaN when unknown
	Mem       float32
}

// Attr is one attribute change of a machine.
type Attr struct {
	TimeMs  int64 // dataset.NoTime: held from before the trace window
	Machine int32
	Name    int32 // index in Input.AttrNames
	Value   string
	Deleted bool
	seq     int32 // file order, the last key of the sort
}

// TaskKey names a task: job (collection) and index.
type TaskKey struct {
	Job   int64
	Index int32
}

// Input is what Run needs, interned: events sorted by time (NoTime first),
// attribute changes sorted by time, the distinct constraints and the
// distinct constraint sets (set 0 is the empty set).
type Input struct {
	Events      []Event
	Attrs       []Attr
	Tasks       []TaskKey
	Machines    []int64
	AttrNames   []string
	Constraints []dataset.Constraint
	Sets        [][]int32
	// Warnings found while loading (constraint lists that could not be
	// read, event types not known).
	Warnings []string
}

// builder interns what Load and tests read.
type builder struct {
	in       Input
	tasks    map[TaskKey]int32
	machines map[int64]int32
	attrs    map[string]int32
	cons     map[dataset.Constraint]int32
	sets     map[string]int32
	bad      map[string]int
}

func newBuilder() *builder {
	b := &builder{tasks: map[TaskKey]int32{}, machines: map[int64]int32{}, attrs: map[string]int32{},
		cons: map[dataset.Constraint]int32{}, sets: map[string]int32{"": 0}, bad: map[string]int{}}
	b.in.Sets = [][]int32{nil}
	return b
}

func (b *builder) task(k TaskKey) int32 {
	i, ok := b.tasks[k]
	if !ok {
		i = int32(len(b.in.Tasks))
		b.tasks[k] = i
		b.in.Tasks = append(b.in.Tasks, k)
	}
	return i
}

func (b *builder) machine(id int64) int32 {
	if id == 0 || id == -1 { // NO_MACHINE, DEDICATED_MACHINE
		return -1
	}
	i, ok := b.machines[id]
	if !ok {
		i = int32(len(b.in.Machines))
		b.machines[id] = i
		b.in.Machines = append(b.in.Machines, id)
	}
	return i
}

func (b *builder) attr(name string) int32 {
	i, ok := b.attrs[name]
	if !ok {
		i = int32(len(b.in.AttrNames))
		b.attrs[name] = i
		b.in.AttrNames = append(b.in.AttrNames, name)
	}
	return i
}

// set interns a canonical constraint list (dataset.EncodeConstraints).
// A list that cannot be read or holds an undecidable constraint (ingest
// rejects those; a dataset written otherwise may hold them) is counted
// and taken as the empty set.
func (b *builder) set(canon string) int32 {
	if i, ok := b.sets[canon]; ok {
		return i
	}
	cs, ok := dataset.DecodeConstraints(canon)
	var ids []int32
	for _, c := range cs {
		if _, err := compile(c); err != nil {
			ok = false
			b.bad[err.Error()]++
			break
		}
		id, seen := b.cons[c]
		if !seen {
			id = int32(len(b.in.Constraints))
			b.cons[c] = id
			b.in.Constraints = append(b.in.Constraints, c)
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if !ok {
		b.bad["unreadable constraint list"]++
		b.sets[canon] = 0
		return 0
	}
	slices.Sort(ids)
	i := int32(len(b.in.Sets))
	b.sets[canon] = i
	b.in.Sets = append(b.in.Sets, ids)
	return i
}

func f32(x float64) float32 { return float32(x) }

// addEvent adds one task_events row; set is -1 when the row's constraints
// are in task_constraints (2011).
func (b *builder) addEvent(e *dataset.TaskEvent) {
	typ, ok := eventNames[e.Type]
	if !ok {
		b.bad[fmt.Sprintf("event type %q not known", e.Type)]++
		typ = evUnknown
	}
	set := int32(-1)
	if e.Constraints != "" || e.Source != "google2011-task-events" {
		set = b.set(e.Constraints)
	}
	b.in.Events = append(b.in.Events, Event{TimeMs: e.TimeMs, Task: b.task(TaskKey{e.Job, e.Task}),
		Machine: b.machine(e.Machine), Set: set, Type: typ, Different: e.DifferentMachine, CPU: f32(e.CPURequest), Mem: f32(e.MemoryRequest)})
}

// history is a 2011 task's constraint sets over time.
type history struct {
	t   []int64
	set []int32
}

// finish resolves the events whose constraints are in task_constraints
// (the set with the latest time at or before the event; the first set
// when every set is later, as constraints are recorded a little after
// the submission), sorts, and collects warnings.
func (b *builder) finish(tc []dataset.TaskConstraint) Input {
	if len(tc) > 0 {
		// The rows of one task at one time are its constraint set then; a
		// later time's rows replace it (an assumption: the 2011 schema
		// records constraints with the task's submission and updates).
		sort.SliceStable(tc, func(i, j int) bool {
			a, c := tc[i], tc[j]
			if a.Job != c.Job {
				return a.Job < c.Job
			}
			if a.Task != c.Task {
				return a.Task < c.Task
			}
			return a.TimeMs < c.TimeMs
		})
		hist := map[int32]*history{}
		for i := 0; i < len(tc); {
			j := i
			var cs []dataset.Constraint
			for j < len(tc) && tc[j].Job == tc[i].Job && tc[j].Task == tc[i].Task && tc[j].TimeMs == tc[i].TimeMs {
				cs = append(cs, dataset.Constraint{Attribute: tc[j].Attribute, Relation: tc[j].Relation, Value: tc[j].Value})
				j++
			}
			k := TaskKey{tc[i].Job, tc[i].Task}
			if _, ok := b.tasks[k]; ok {
				t := b.tasks[k]
				h := hist[t]
				if h == nil {
					h = &history{}
					hist[t] = h
				}
				h.t = append(h.t, tc[i].TimeMs)
				h.set = append(h.set, b.set(dataset.EncodeConstraints(cs)))
			} else {
				b.bad["task_constraints rows of tasks without events"] += j - i
			}
			i = j
		}
		for i := range b.in.Events {
			e := &b.in.Events[i]
			if e.Set >= 0 {
				continue
			}
			h := hist[e.Task]
			if h == nil {
				e.Set = 0
				continue
			}
			k := sort.Search(len(h.t), func(x int) bool { return h.t[x] > e.TimeMs })
			if k > 0 {
				k--
			}
			e.Set = h.set[k]
		}
	}
	for i := range b.in.Events {
		if b.in.Events[i].Set < 0 {
			b.in.Events[i].Set = 0
		}
	}
	// pdqsort is fast on the nearly sorted order traces come in; stable
	// keeps events of one instant in file order (SUBMIT before SCHEDULE).
	byTime := func(x, y Event) int { return cmpInt(x.TimeMs, y.TimeMs) }
	if !slices.IsSortedFunc(b.in.Events, byTime) {
		slices.SortStableFunc(b.in.Events, byTime)
	}
	// Attribute changes by time, then machine (a machine's changes at one
	// instant are applied together), then file order. A stable sort moved
	// the rows around (symmerge) for a quarter of Load's time; the file
	// order as the last key makes an unstable sort deterministic.
	slices.SortFunc(b.in.Attrs, func(x, y Attr) int {
		if c := cmpInt(x.TimeMs, y.TimeMs); c != 0 {
			return c
		}
		if x.Machine != y.Machine {
			return int(x.Machine) - int(y.Machine)
		}
		return int(x.seq) - int(y.seq)
	})
	keys := make([]string, 0, len(b.bad))
	for k := range b.bad {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		b.in.Warnings = append(b.in.Warnings, fmt.Sprintf("%d× %s", b.bad[k], k))
	}
	return b.in
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (b *builder) addAttr(a *dataset.MachineAttribute) {
	b.in.Attrs = append(b.in.Attrs, Attr{TimeMs: a.TimeMs, Machine: b.machine(a.Machine), Name: b.attr(a.Attribute),
		Value: a.Value, Deleted: a.Deleted, seq: int32(len(b.in.Attrs))})
}

// ErrNoEvents: the dataset has no task events, the stage's "nothing to
// work on" (the command names the dataset before it).
var ErrNoEvents = errors.New("constraints: no task events (ingest google2019-instance-events or google2011-task-events first)")

// Load reads task_events, task_constraints and machine_attributes.
func Load(ctx context.Context, ds *dataset.Dataset, opts Options) (Input, error) {
	if err := opts.Validate(); err != nil {
		return Input{}, err
	}
	if ds.Rows(dataset.TaskEventsTable.Name) == 0 {
		return Input{}, ErrNoEvents
	}
	b := newBuilder()
	b.in.Events = make([]Event, 0, ds.Rows(dataset.TaskEventsTable.Name))
	if err := dataset.Scan(ctx, ds, dataset.TaskEventsTable, func(e *dataset.TaskEvent) error {
		b.addEvent(e)
		return nil
	}); err != nil {
		return Input{}, err
	}
	tc, err := dataset.ReadAll(ctx, ds, dataset.TaskConstraintsTable)
	if err != nil {
		return Input{}, err
	}
	b.in.Attrs = make([]Attr, 0, ds.Rows(dataset.MachineAttributesTable.Name))
	if err := dataset.Scan(ctx, ds, dataset.MachineAttributesTable, func(a *dataset.MachineAttribute) error {
		b.addAttr(a)
		return nil
	}); err != nil {
		return Input{}, err
	}
	return b.finish(tc), nil
}
