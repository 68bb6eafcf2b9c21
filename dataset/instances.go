package dataset

// Instance is one task instance of a batch job: when it ran, where, and
// what it used. Alibaba 2018 batch_instance rows (format
// alibaba2018-batch-instance); the task (Stage) is the stages table's row
// of the same job and stage, so instances give real task durations and
// the concurrency of a stage over time.
type Instance struct {
	Job      string // job_name
	Stage    string // the task's stage id, as the stages table names it (task_name's number, or the whole name)
	Task     string // task_name as logged
	Instance string // instance_name
	Status   string // as logged (Terminated, Failed, Running, ...)
	StartMs  int64  // NoTime when unknown (0 in the trace: outside its window)
	EndMs    int64  // NoTime when unknown
	Machine  string // machine_id; "" when not placed
	// SeqNo and TotalSeqNo: this run's number among the instance's runs
	// (retries), and how many runs it had; 0 when the trace leaves them out.
	SeqNo, TotalSeqNo int64
	// CPUAvg and CPUMax are cores (cpu_avg / 100, cpu_max / 100); MemAvg
	// and MemMax are fractions of the largest machine (mem_avg / 100,
	// mem_max / 100); NaN when the row leaves them out.
	CPUAvg, CPUMax, MemAvg, MemMax float64
	Source                         string // input format
}

// InstancesTable holds task instances (format alibaba2018-batch-instance).
var InstancesTable = newTable("instances",
	stringCol("job", true, func(r *Instance) *string { return &r.Job }),
	stringCol("stage", true, func(r *Instance) *string { return &r.Stage }),
	stringCol("task", true, func(r *Instance) *string { return &r.Task }),
	stringCol("instance", false, func(r *Instance) *string { return &r.Instance }),
	stringCol("status", true, func(r *Instance) *string { return &r.Status }),
	timeCol("start", func(r *Instance) *int64 { return &r.StartMs }),
	timeCol("end", func(r *Instance) *int64 { return &r.EndMs }),
	stringCol("machine", true, func(r *Instance) *string { return &r.Machine }),
	int64Col("seq_no", func(r *Instance) *int64 { return &r.SeqNo }),
	int64Col("total_seq_no", func(r *Instance) *int64 { return &r.TotalSeqNo }),
	float64Col("cpu_avg", true, func(r *Instance) *float64 { return &r.CPUAvg }),
	float64Col("cpu_max", true, func(r *Instance) *float64 { return &r.CPUMax }),
	float64Col("mem_avg", true, func(r *Instance) *float64 { return &r.MemAvg }),
	float64Col("mem_max", true, func(r *Instance) *float64 { return &r.MemMax }),
	stringCol("source", true, func(r *Instance) *string { return &r.Source }),
)

// Instances is the transaction's writer for the instances table.
func (tx *Tx) Instances() *Writer[Instance] { return WriterFor(tx, InstancesTable) }
