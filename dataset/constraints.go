package dataset

import "strings"

// Tables for task placement constraints (Thinakaran et al., Phoenix, Phoenix): the scheduler
// events of tasks, the constraints they carry, and the attributes machines
// offer. They are kept lean (integer ids, dictionary-encoded strings) so a
// month of a Google trace (tens of millions of events) stays feasible.

// TaskEvent is one scheduler event of a task: a Google ClusterData2011
// task_events row or a ClusterData2019 instance_events row.
type TaskEvent struct {
	TimeMs  int64  // UTC instant; NoTime when the trace puts it outside its window (0 or 2^63−1)
	Job     int64  // job (2011) or collection_id (2019)
	Task    int32  // task index / instance_index
	Machine int64  // machine_id; 0 when not on a machine
	Type    string // SUBMIT, QUEUE, ENABLE, SCHEDULE, EVICT, FAIL, FINISH, KILL, LOST, UPDATE_PENDING, UPDATE_RUNNING
	// CPURequest and MemoryRequest are the normalised requests (a fraction
	// of the largest machine); NaN when the row leaves them out.
	CPURequest    float64
	MemoryRequest float64
	// Constraints is the event's constraint list, canonical (2019 rows
	// carry it on every event): constraints joined by "\x1e", each
	// "name\x1fRELATION\x1fvalue". "" when none; 2011 constraints are in
	// task_constraints instead.
	Constraints string
	Source      string
	// DifferentMachine is the 2011 task_events different-machine
	// constraint: "the task must be scheduled to execute on a different
	// machine than any other currently running task in the job" (a
	// placement constraint). False where the trace has no such field
	// (2019) and in datasets written before the column was added.
	DifferentMachine bool
}

// TaskConstraint is one placement constraint of a task as the 2011 trace
// records it (task_constraints): at Time, task (Job, Task) asks for a
// machine whose Attribute compares to Value by Relation.
type TaskConstraint struct {
	TimeMs    int64
	Job       int64
	Task      int32
	Attribute string // obfuscated attribute name
	Relation  string // EQUAL, NOT_EQUAL, LESS_THAN, GREATER_THAN, LESS_THAN_EQUAL, GREATER_THAN_EQUAL, PRESENT, NOT_PRESENT
	Value     string
	Source    string
}

// MachineAttribute is one change of a machine's attribute: from TimeMs the
// machine has Attribute = Value, or no longer has it when Deleted.
type MachineAttribute struct {
	TimeMs    int64 // NoTime: before the trace window (the machine's initial attributes)
	Machine   int64
	Attribute string
	Value     string
	Deleted   bool
	Source    string
}

// The constraint tables.
var (
	TaskEventsTable = newTable("task_events",
		timeCol("time", func(r *TaskEvent) *int64 { return &r.TimeMs }),
		int64Col("job", func(r *TaskEvent) *int64 { return &r.Job }),
		int32Col("task", func(r *TaskEvent) *int32 { return &r.Task }),
		int64Col("machine", func(r *TaskEvent) *int64 { return &r.Machine }),
		stringCol("type", true, func(r *TaskEvent) *string { return &r.Type }),
		float64Col("cpu_request", true, func(r *TaskEvent) *float64 { return &r.CPURequest }),
		float64Col("memory_request", true, func(r *TaskEvent) *float64 { return &r.MemoryRequest }),
		stringCol("constraints", true, func(r *TaskEvent) *string { return &r.Constraints }),
		stringCol("source", true, func(r *TaskEvent) *string { return &r.Source }),
		boolCol("different_machine", func(r *TaskEvent) *bool { return &r.DifferentMachine }),
	)
	TaskConstraintsTable = newTable("task_constraints",
		timeCol("time", func(r *TaskConstraint) *int64 { return &r.TimeMs }),
		int64Col("job", func(r *TaskConstraint) *int64 { return &r.Job }),
		int32Col("task", func(r *TaskConstraint) *int32 { return &r.Task }),
		stringCol("attribute", true, func(r *TaskConstraint) *string { return &r.Attribute }),
		stringCol("relation", true, func(r *TaskConstraint) *string { return &r.Relation }),
		stringCol("value", true, func(r *TaskConstraint) *string { return &r.Value }),
		stringCol("source", true, func(r *TaskConstraint) *string { return &r.Source }),
	)
	MachineAttributesTable = newTable("machine_attributes",
		timeCol("time", func(r *MachineAttribute) *int64 { return &r.TimeMs }),
		int64Col("machine", func(r *MachineAttribute) *int64 { return &r.Machine }),
		stringCol("attribute", true, func(r *MachineAttribute) *string { return &r.Attribute }),
		stringCol("value", true, func(r *MachineAttribute) *string { return &r.Value }),
		boolCol("deleted", func(r *MachineAttribute) *bool { return &r.Deleted }),
		stringCol("source", true, func(r *MachineAttribute) *string { return &r.Source }),
	)
)

// TaskEvents is the transaction's writer for the task_events table.
func (tx *Tx) TaskEvents() *Writer[TaskEvent] { return WriterFor(tx, TaskEventsTable) }

// TaskConstraints is the transaction's writer for the task_constraints table.
func (tx *Tx) TaskConstraints() *Writer[TaskConstraint] { return WriterFor(tx, TaskConstraintsTable) }

// MachineAttributes is the transaction's writer for the machine_attributes table.
func (tx *Tx) MachineAttributes() *Writer[MachineAttribute] {
	return WriterFor(tx, MachineAttributesTable)
}

// Relations of a placement constraint, as the ClusterData2019 schema
// (MachineConstraint.Relation) numbers them; the 2011 trace's comparison
// operators 0–3 are the first four.
var Relations = [...]string{"EQUAL", "NOT_EQUAL", "LESS_THAN", "GREATER_THAN",
	"LESS_THAN_EQUAL", "GREATER_THAN_EQUAL", "PRESENT", "NOT_PRESENT"}

// NumericRelation reports whether a relation compares values as numbers
// (the ordered ones); EQUAL and NOT_EQUAL compare strings, PRESENT and
// NOT_PRESENT only look at whether the machine has the attribute.
func NumericRelation(rel string) bool {
	switch rel {
	case "LESS_THAN", "GREATER_THAN", "LESS_THAN_EQUAL", "GREATER_THAN_EQUAL":
		return true
	}
	return false
}

// PresenceRelation reports whether a relation ignores the value.
func PresenceRelation(rel string) bool { return rel == "PRESENT" || rel == "NOT_PRESENT" }

// Constraint is one (attribute, relation, value) of a constraint list.
type Constraint struct {
	Attribute, Relation, Value string
}

// Separators of the canonical constraint list in task_events.constraints:
// ASCII unit and record separators, which obfuscated names (base64) and
// numbers never contain.
const (
	constraintSep = "\x1e"
	fieldSep      = "\x1f"
)

// EncodeConstraints writes a constraint list in canonical form.
func EncodeConstraints(cs []Constraint) string {
	n := 0
	for _, c := range cs {
		n += len(c.Attribute) + len(c.Relation) + len(c.Value) + 3
	}
	b := make([]byte, 0, n)
	for i, c := range cs {
		if i > 0 {
			b = append(b, constraintSep...)
		}
		b = append(b, c.Attribute...)
		b = append(b, fieldSep...)
		b = append(b, c.Relation...)
		b = append(b, fieldSep...)
		b = append(b, c.Value...)
	}
	return string(b)
}

// DecodeConstraints reads a canonical constraint list; ok is false when s
// is not one (a field missing).
func DecodeConstraints(s string) (cs []Constraint, ok bool) {
	if s == "" {
		return nil, true
	}
	for _, part := range strings.Split(s, constraintSep) {
		f := strings.SplitN(part, fieldSep, 3)
		if len(f) != 3 {
			return nil, false
		}
		cs = append(cs, Constraint{Attribute: f[0], Relation: f[1], Value: f[2]})
	}
	return cs, true
}
